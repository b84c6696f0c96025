plan scenarios/llama3-405b-p6e-gb200-144.json --deadline 60d --max-nodes 576
