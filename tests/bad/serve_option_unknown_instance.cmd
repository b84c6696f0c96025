serve scenarios/serve-llama3-70b-p5en.json --target-rate 50 --instances p5e.48xlargee
