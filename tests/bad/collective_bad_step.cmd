collective all_reduce --instance p5.48xlarge --nodes 2 --step-factor 1
