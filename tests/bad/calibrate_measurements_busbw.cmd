calibrate ingest @TMP@/m.json
