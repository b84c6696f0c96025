predict scenarios/llama3-405b-p5-2048.json --engine des --trace @TMP@/t.json --max-events 1e6
