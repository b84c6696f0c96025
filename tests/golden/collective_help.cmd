collective --help
