predict scenarios/llama3-405b-p5-2048.json
