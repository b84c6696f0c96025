diff scenarios/llama3-70b-p5en-64.json --set layout.tp_comm_overlap=true --confidence 50
