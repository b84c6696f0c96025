diff scenarios/deepseek-v3-p6-b200-512.json scenarios/deepseek-v3-p6-b300.json --format md
