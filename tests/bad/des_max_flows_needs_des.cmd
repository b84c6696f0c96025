predict scenarios/quickstart.json --max-flows 1e6
