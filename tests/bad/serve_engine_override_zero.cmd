serve tests/bad/serve_engine_override_zero.json
