collective all_reduce --instance p5.48xlarge --nodes 4 --tuner nvidia
