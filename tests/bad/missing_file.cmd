predict tests/bad/no-such-file.json
