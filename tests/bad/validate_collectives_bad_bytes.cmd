validate --collectives @TMP@/c.json
