predict scenarios/llama3-70b-p5en-64.json --set catalog.gpu.h200-sxm.hbm_bytes=1e9
