check tests/check/README.md --scenario scenarios/llama3-70b-p5en-64.json
