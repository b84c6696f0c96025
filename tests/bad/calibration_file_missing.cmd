predict scenarios/quickstart.json --calibration @TMP@/none.json
