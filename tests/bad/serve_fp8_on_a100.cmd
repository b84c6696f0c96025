serve tests/bad/serve_fp8_on_a100.json
