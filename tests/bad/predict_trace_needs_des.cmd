predict scenarios/quickstart.json --trace t.json
