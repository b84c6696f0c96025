validate --serving --summary
