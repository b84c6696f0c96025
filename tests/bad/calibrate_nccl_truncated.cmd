calibrate ingest @TMP@/cut.log
