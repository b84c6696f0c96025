merge tests/bad/merge_truncated.jsonl
