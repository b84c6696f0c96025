predict @TMP@/nul_byte.json
