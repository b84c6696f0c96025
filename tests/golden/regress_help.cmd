regress --help
