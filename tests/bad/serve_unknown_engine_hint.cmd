serve tests/bad/serve_unknown_engine_hint.json
