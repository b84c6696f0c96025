catalog --help
