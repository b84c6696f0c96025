predict scenarios/deepseek-v3-p6-b300.json
