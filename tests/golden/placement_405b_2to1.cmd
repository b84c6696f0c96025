placement scenarios/llama3-405b-p5-2048.json --set cluster.fabric=ultracluster-2to1
