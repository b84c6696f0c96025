serve scenarios/serve-llama3-70b-p5en.json --instances p5en.48xlarge
