predict scenarios/quickstart.json --engine des --max-events 1e6
