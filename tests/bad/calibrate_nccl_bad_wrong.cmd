calibrate ingest @TMP@/bad.log --collective all_reduce
