serve scenarios/serve-deepseek-v3-disagg-adp-p5en.json
