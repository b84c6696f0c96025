serve scenarios/serve-llama3-70b-disagg-p5en.json --format json
