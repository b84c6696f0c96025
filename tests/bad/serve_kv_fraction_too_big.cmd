serve tests/bad/serve_kv_fraction_too_big.json
