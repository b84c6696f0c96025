compare scenarios/quickstart.json --instances p5.48xlarg
