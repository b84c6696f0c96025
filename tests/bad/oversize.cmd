predict @TMP@/oversize.json
