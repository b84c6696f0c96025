placement tests/placement/llama3-70b-p5-8-ec2.json --free @TMP@/nodes.json --free-format k8s-nodes
