catalog instances --format json
