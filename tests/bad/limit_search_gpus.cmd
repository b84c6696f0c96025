search scenarios/quickstart.json --gpus 33554432
