collective all_reduce --instance p5.48xl --nodes 2
