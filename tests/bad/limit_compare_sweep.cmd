compare scenarios/quickstart.json --sweep 2147483647
