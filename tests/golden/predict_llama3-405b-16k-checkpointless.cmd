predict scenarios/llama3-405b-16k-checkpointless.json
