diff scenarios/quickstart.json --nodes 2 --confidence 0
