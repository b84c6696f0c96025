validate --summary --calibration @TMP@/none.json
