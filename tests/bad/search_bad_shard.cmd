search scenarios/quickstart.json --shard 4/4
