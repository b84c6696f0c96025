validate --memory @TMP@/memory-cases.json --systems tests/validation/data/systems.json
