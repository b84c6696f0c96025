regress --update --nodes 128
