calibrate ingest @TMP@/row.log
