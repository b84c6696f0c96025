plan scenarios/quickstart.json --deadline 30d --sweep 2147483647
