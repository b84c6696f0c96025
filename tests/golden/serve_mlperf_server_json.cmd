serve scenarios/serve-mlperf-llama2-70b-server.json --format json
