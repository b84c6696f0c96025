cluster tests/placement/checkpoint-storm.json --format json
