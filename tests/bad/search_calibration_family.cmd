search scenarios/quickstart.json --calibration ampere-default
