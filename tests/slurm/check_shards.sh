#!/usr/bin/env bash
# check_shards.sh: a sharded search merges into exactly the unsharded one,
# without Slurm.
#
#   tests/slurm/check_shards.sh STEPCAST
#
# Runs `stepcast search` on scenarios/mixtral-8x22b-p6-b200.json as 4 shards
# twice: with --shard K/4, and with the Slurm job-array variables of an
# array 3-9:2 (tasks 3, 5, 7, 9, so K = (ID - MIN) / STEP) and no --shard.
# Each set of parts is merged in every format and compared byte for byte
# (cmp) with the unsharded search in the same format.  Then the checks a
# merge must make: a missing shard and a part given twice are refused.
set -uo pipefail

here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=tests/lib.sh
source "$here/../lib.sh"
sc_test_start check_shards "STEPCAST" "$@"
sc_test_tmpdir tmp shards
fail() {
	echo "check_shards: FAIL: $*" >&2
	exit 1
}

scenario=$root/scenarios/mixtral-8x22b-p6-b200.json
args=(--top 15 --max-micro-batch 8 --tokens 1T)
mkdir -p "$tmp/flag" "$tmp/env"
for k in 0 1 2 3; do
	(cd "$tmp/flag" && "$bin" search "$scenario" "${args[@]}" --shard "$k/4" 2>/dev/null) ||
		fail "search --shard $k/4 failed"
	(cd "$tmp/env" && SLURM_ARRAY_TASK_ID=$((3 + 2 * k)) SLURM_ARRAY_TASK_MIN=3 SLURM_ARRAY_TASK_STEP=2 \
		SLURM_ARRAY_TASK_COUNT=4 "$bin" search "$scenario" "${args[@]}" 2>/dev/null) ||
		fail "search as Slurm array task $((3 + 2 * k)) failed"
done
for d in flag env; do
	for k in 0 1 2 3; do
		[[ -s $tmp/$d/search.part-$k-of-4.jsonl ]] || fail "$d: no part $k of 4"
	done
	ls "$tmp/$d"/*.tmp.* >/dev/null 2>&1 && fail "$d: a temporary file was left behind"
done
cmp -s "$tmp/flag/search.part-2-of-4.jsonl" "$tmp/env/search.part-2-of-4.jsonl" ||
	fail "shard 2 from --shard and from the Slurm variables differ"
for fmt in text json jsonl csv md; do
	"$bin" search "$scenario" "${args[@]}" --format "$fmt" >"$tmp/full.$fmt" || fail "unsharded search failed"
	"$bin" merge "$tmp"/flag/search.part-*-of-4.jsonl --format "$fmt" >"$tmp/merged.$fmt" ||
		fail "merge --format $fmt failed"
	cmp "$tmp/full.$fmt" "$tmp/merged.$fmt" || fail "merge --format $fmt differs from the unsharded search"
	"$bin" merge --format "$fmt" --output "$tmp/merged-env.$fmt" "$tmp"/env/search.part-*-of-4.jsonl ||
		fail "merge --output failed"
	cmp "$tmp/full.$fmt" "$tmp/merged-env.$fmt" || fail "merge of the Slurm-variable parts differs ($fmt)"
done
if "$bin" merge "$tmp"/flag/search.part-[012]-of-4.jsonl >/dev/null 2>"$tmp/err"; then
	fail "a merge with a shard missing succeeded"
fi
grep -q "shard 3 of 4 is missing" "$tmp/err" || fail "unexpected message: $(cat "$tmp/err")"
if "$bin" merge "$tmp"/flag/search.part-*-of-4.jsonl "$tmp/flag/search.part-1-of-4.jsonl" \
	>/dev/null 2>"$tmp/err"; then
	fail "a merge with a shard twice succeeded"
fi
grep -q "given twice" "$tmp/err" || fail "unexpected message: $(cat "$tmp/err")"
echo "check_shards: 4 shards (--shard and Slurm variables) merge into the unsharded search in 5 formats"
