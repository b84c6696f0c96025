serve tests/bad/serve_calibration_family.json
