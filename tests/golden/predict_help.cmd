predict --help
