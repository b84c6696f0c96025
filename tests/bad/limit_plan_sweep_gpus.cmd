plan scenarios/quickstart.json --deadline 30d --sweep 1,1048576
