validate --memory --summary
