diff scenarios/quickstart.json --set layout.tpp=2
