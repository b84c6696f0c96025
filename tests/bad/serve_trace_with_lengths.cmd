serve tests/bad/serve_trace_with_lengths.json
