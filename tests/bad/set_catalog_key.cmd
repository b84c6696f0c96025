predict scenarios/llama3-70b-p5en-64.json --set catalog.gpus.h200-sxm.hbm_byte=1e9
