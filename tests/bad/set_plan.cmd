plan scenarios/llama3-70b-p5en-64.json --set training.seq_len=-1
