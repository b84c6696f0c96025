predict scenarios/llama3-70b-p5en-64.json --set catalog.calibrations.hoper-default.name=x
