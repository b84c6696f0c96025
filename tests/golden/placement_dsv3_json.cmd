placement scenarios/deepseek-v3-h800-2048.json --set cluster.fabric=ultracluster-2to1 --format json
