validate @TMP@/training-cases.json --summary --systems @TMP@/systems.json
