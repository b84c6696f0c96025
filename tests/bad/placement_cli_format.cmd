placement tests/placement/llama3-70b-p5-8-ec2.json --placement-format ec2
