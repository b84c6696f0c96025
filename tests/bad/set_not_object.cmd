predict scenarios/llama3-70b-p5en-64.json --set cluster.instance.efa_nic_Gbps=100
