catalog --config-dir tests/bad/no-such-dir
