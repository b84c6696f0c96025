explain scenarios/deepseek-v3-p6-b200-512.json --top 5 --format json
