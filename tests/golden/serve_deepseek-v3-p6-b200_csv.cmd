serve scenarios/serve-deepseek-v3-p6-b200.json --format csv
