catalog failures --config-dir @TMP@/cfg
