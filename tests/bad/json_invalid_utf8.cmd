predict @TMP@/s.json
