serve tests/bad/serve_attention_dp_dense.json
