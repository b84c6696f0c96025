compare scenarios/quickstart.json --nodes 1048576
