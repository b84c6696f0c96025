predict scenarios/quickstart.json
