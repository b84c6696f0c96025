merge scenarios/quickstart.json
