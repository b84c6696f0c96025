serve --config-dir @TMP@/cfg scenarios/serve-llama3-70b-p5en.json
