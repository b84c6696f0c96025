predict scenarios/deepseek-v3-h800-2048.json --engine des --max-flows 4e6
