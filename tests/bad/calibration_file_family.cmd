predict scenarios/quickstart.json --calibration @TMP@/amp.json
