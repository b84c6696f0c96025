predict scenarios/mixtral-8x22b-p6-b200.json --set layout.moe_routing_imbalance=0.5
