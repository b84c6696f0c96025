predict scenarios/deepseek-v3-p6-b200-512.json --engine des --max-flows 1e6
