serve tests/bad/serve_unknown_format_hint.json
