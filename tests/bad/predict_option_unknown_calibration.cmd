predict tests/fuzz/corpus/scenario_basic.json --calibration hoper-default
