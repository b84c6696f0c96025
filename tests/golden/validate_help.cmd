validate --help
