predict scenarios/quickstart.json --engine des --checkpoint-step
