predict tests/des/data/agree-dualpipe-32.json --engine des
