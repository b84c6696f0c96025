serve tests/bad/serve_attention_dp_divide.json
