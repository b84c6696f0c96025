catalog failures
