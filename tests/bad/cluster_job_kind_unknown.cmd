cluster @TMP@/c.json
