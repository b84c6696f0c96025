search scenarios/mixtral-8x22b-p6-b200.json --objective time_to_train
