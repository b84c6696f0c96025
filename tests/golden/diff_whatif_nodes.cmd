diff scenarios/llama3-70b-p5en-64.json --nodes 128 --set layout.dp=null
