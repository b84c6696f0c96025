serve tests/golden/data/serve-unstable.json --format json
