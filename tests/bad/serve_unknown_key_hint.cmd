serve tests/bad/serve_unknown_key_hint.json
