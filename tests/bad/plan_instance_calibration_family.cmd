plan scenarios/quickstart.json --tokens 1e9 --instance p4d.24xlarge --calibration hopper-default
