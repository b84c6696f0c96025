serve tests/bad/serve_length_min_above_max.json
