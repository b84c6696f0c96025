serve scenarios/serve-llama3-70b-p5en.json --target-rate 1e12
