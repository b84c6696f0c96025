predict tests/placement/llama3-70b-p5-8-ec2.json --placement @TMP@/topo.json
