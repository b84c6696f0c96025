serve scenarios/serve-llama3-70b-p5en.json --target-rate 5 --slo-margin 100
