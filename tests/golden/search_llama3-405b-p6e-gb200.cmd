search scenarios/llama3-405b-p6e-gb200-144.json --top 3 --objective usd_per_token
