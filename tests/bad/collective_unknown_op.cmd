collective allreduce --instance p5.48xlarge --nodes 2
