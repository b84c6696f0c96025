predict @TMP@/deep.json
