explain scenarios/quickstart.json --confidence 100
