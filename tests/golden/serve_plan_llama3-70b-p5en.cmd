serve scenarios/serve-llama3-70b-p5en.json --target-rate 50 --slo-ttft-p99 2000 --slo-tpot-p99 50 --instances p5en.48xlarge
