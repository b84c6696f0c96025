predict scenarios/quickstart.json --calibration p4de-efa-nccltests
