predict tests/des/data/agree-cp-64.json --engine des --fidelity 2000 --format json
