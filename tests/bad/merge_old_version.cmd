merge tests/bad/merge_old_version.jsonl
