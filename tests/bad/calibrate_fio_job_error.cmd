calibrate ingest @TMP@/fio.json
