serve tests/bad/serve_context_pass_chunked.json
