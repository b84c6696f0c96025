validate --min-bytes 1024
