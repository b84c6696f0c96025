collective all_reduce --instance p5.48xlarge --nodes 4 --min-bytes 8 --max-bytes 8589934592 --step-factor 16
