validate --memory tests/validation/data/memory-cases.json --explain no-such-case
