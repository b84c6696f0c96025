predict tests/bad
