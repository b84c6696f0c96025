serve scenarios/serve-llama3-70b-p5en.json --requests 300
