predict scenarios/quickstart.json --engine des --max-flows 0
