search scenarios/llama3-70b-p5en-64.json --set training.micro_batch_seqs=1.5
