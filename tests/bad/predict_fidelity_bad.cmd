predict scenarios/quickstart.json --engine des --fidelity 0.5
