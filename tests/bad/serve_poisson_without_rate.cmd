serve tests/bad/serve_poisson_without_rate.json
