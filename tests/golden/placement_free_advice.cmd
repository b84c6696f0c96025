placement tests/placement/llama3-70b-p5-32.json --free tests/placement/data/ec2-free-64.json
