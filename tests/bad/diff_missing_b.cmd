diff scenarios/quickstart.json
