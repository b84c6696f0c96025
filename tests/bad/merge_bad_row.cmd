merge tests/bad/merge_bad_row.jsonl
