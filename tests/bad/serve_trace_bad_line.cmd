serve tests/bad/serve_trace_bad_line.json
