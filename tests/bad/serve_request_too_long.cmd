serve tests/bad/serve_request_too_long.json
