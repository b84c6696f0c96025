search scenarios/quickstart.json --max-micro-batch 2147483647
