merge tests/bad/merge_missing_shard.0.jsonl tests/bad/merge_missing_shard.1.jsonl
