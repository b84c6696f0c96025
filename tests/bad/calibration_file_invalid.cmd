predict scenarios/quickstart.json --calibration @TMP@/broken.json
