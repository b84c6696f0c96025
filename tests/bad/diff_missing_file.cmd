diff scenarios/quickstart.json scenarios/nope.json
