search scenarios/llama3-70b-p5en-64.json --rerank 2 --shard 0/2
