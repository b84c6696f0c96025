predict scenarios/quickstart.json --engine des
