predict scenarios/llama3-70b-p5en-64.json --instance p5en.48xlarg
