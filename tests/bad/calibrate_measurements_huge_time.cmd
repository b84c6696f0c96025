calibrate fit @TMP@/m.json --instance p5.48xlarge --name x --output @TMP@/x.json
