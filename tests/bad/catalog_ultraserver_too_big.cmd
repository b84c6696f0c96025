catalog instances --config-dir @TMP@/cfg
