compare scenarios/llama3-405b-p6e-gb200-144.json --instances p6-b200.48xlarge,p6e-gb200.36xlarge --nodes 128
