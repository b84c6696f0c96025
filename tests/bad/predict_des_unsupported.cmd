predict tests/des/data/unsupported-interleaved.json --engine des
