serve tests/bad/serve_missing_replicas.json
