regress --dir @TMP@/reg
