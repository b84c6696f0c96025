placement tests/placement/llama3-70b-p5-8-ec2.json --placement @TMP@/topology.conf --placement-format slurm-topology
