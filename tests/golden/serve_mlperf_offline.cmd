serve scenarios/serve-mlperf-llama2-70b-offline.json
