cluster tests/placement/train-and-serve.json
