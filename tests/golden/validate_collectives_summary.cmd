validate --collectives --summary --min-bytes 1048576
