plan scenarios/quickstart.json --confidence 100
