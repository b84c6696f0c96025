diff scenarios/quickstart.json tests/golden/predict_json.out --set layout.tp=2
