predict scenarios/quickstart.json --engine simgrid
