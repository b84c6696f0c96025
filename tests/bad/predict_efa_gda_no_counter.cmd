predict scenarios/llama3-405b-p5-2048.json --set layout.moe_dispatcher=efa-gda
