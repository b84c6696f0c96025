plan scenarios/quickstart.json --tokens 1e9 --calibration blackwell-default
