predict @TMP@/max_gpus_tp1.json --engine des --max-memory 1024TiB
