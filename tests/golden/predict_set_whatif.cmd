predict scenarios/llama3-70b-p5en-64.json --nodes 128 --set layout.dp=null --set catalog.instances.p5en.48xlarge.efa_nic_Gbps=100
