predict tests/placement/llama3-70b-p5-4-k8s.json --format json
