calibrate ingest @TMP@/rows.log
