serve @TMP@/s.json
