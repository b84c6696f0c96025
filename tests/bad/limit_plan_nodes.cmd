plan scenarios/quickstart.json --nodes 4194304
