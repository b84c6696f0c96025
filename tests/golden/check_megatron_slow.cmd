check tests/check/megatron-llama3-70b-p5en-64-slow.log --scenario scenarios/llama3-70b-p5en-64.json
