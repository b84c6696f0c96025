serve tests/bad/serve_attention_dp_pool.json
