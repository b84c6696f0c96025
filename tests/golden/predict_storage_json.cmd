predict scenarios/llama3-8b-32gpu-fsx.json --format json
