serve tests/bad/serve_tp_heads.json
