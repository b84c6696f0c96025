predict tests/des/data/agree-zbh1-32.json
