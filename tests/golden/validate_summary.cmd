validate --summary
