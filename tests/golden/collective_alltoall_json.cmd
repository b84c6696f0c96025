collective alltoall --instance p6-b200.48xlarge --nodes 2 --format json --min-bytes 1048576 --max-bytes 4194304
