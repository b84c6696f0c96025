validate --serving tests/bad/serve_validate_bad_case.json
