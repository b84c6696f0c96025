plan tests/placement/llama3-70b-p5-32.json --nodes 128 --tokens 1e12 --placement tests/placement/data/ec2-free-64.json
