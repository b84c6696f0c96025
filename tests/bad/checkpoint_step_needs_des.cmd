predict tests/placement/llama3-8b-fsx-sync.json --checkpoint-step
