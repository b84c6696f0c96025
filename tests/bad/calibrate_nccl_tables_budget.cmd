calibrate ingest @TMP@/tables.log
