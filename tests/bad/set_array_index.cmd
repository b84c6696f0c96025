predict scenarios/llama3-8b-32gpu-fsx.json --set storage.x.y=1
