serve tests/bad/serve_rate_with_burst.json
