predict scenarios/llama3-8b-p5-1node.json
