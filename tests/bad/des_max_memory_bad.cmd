predict scenarios/quickstart.json --engine des --max-memory 4XB
