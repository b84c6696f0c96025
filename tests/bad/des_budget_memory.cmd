predict @TMP@/max_gpus.json --engine des
