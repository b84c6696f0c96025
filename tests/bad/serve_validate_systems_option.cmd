validate --serving --systems tests/validation/data/systems.json
