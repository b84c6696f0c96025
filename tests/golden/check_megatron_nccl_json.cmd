check tests/check/megatron-llama3-70b-p5en-64.log --scenario scenarios/llama3-70b-p5en-64.json --nccl tests/check/nccl-inspector-llama3-70b-p5en-64.prom --format json
