plan scenarios/quickstart.json --instance p4d.24xlarge --pricing capacity-block
