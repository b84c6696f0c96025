validate --memory --format csv
