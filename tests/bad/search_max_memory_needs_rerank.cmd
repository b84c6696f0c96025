search scenarios/quickstart.json --max-memory 8GiB
