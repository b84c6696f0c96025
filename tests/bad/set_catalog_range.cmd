predict scenarios/llama3-70b-p5en-64.json --set catalog.instances.p5en.48xlarge.efa_nic_Gbps=-5
