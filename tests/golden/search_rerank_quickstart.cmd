search scenarios/quickstart.json --top 4 --rerank 4
