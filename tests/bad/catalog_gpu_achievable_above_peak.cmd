catalog --config-dir @TMP@/cfg
