serve scenarios/serve-llama3-70b-p5en-any-layout.json
