plan scenarios/llama3-405b-p6e-gb200-144.json --nodes 16
