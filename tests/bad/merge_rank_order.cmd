merge tests/bad/merge_rank_order.jsonl
