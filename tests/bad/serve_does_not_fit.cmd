serve tests/bad/serve_does_not_fit.json
