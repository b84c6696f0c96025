#!/usr/bin/env bash
# check_oom.sh BIN: a layout that does not fit is said, not hidden: predict
# prints the breakdown on stdout, says on stderr how far over it is and what
# one change would make it fit, and exits 6 (README "Exit codes").
set -u
bin=$1
work=$(mktemp -d "${TMPDIR:-/tmp}/stepcast-oom.XXXXXX") || exit 2
trap 'rm -rf "$work"' EXIT
fail() { echo "FAIL memory.oom: $*"; exit 1; }

# Llama 3 8B, 8K tokens, no recompute, no sharding, FP32 gradients on one
# H100: 18 bytes per parameter alone is 134 GiB of 79.65.
cat >"$work/s.json" <<'JSON'
{
  "name": "llama3-8b without sharding on one p5.48xlarge",
  "model": "llama3-8b",
  "cluster": { "instance": "p5.48xlarge", "nodes": 1, "fabric": "ultracluster" },
  "training": { "seq_len": 8192, "global_batch_seqs": 64, "micro_batch_seqs": 1,
                "precision": "bf16", "recompute": "none" },
  "layout": { "tp": 1, "pp": 1, "dp": 8, "zero_stage": 0 }
}
JSON
"$bin" predict "$work/s.json" >"$work/out" 2>"$work/err"
code=$?
[ "$code" -eq 6 ] || fail "exit $code, expected 6"
grep -q 'OUT OF MEMORY' "$work/out" || fail "no breakdown on stdout"
head -1 "$work/err" | grep -q '^stepcast: predict: .* does not fit in GPU memory: .* GiB per GPU .* of 79.14 GiB usable, .* GiB over' ||
	fail "first stderr line: $(head -1 "$work/err")"
grep -q 'zero_stage 3 .* fits .*(--set layout.zero_stage=3)' "$work/err" || fail "FSDP not offered: $(cat "$work/err")"
# the offered change really fits: re-predict with the --set it names
"$bin" predict "$work/s.json" --set layout.zero_stage=3 >"$work/out2" 2>"$work/err2" ||
	fail "FSDP layout: exit $?: $(cat "$work/err2")"
grep -q ' fits$' "$work/out2" || fail "FSDP layout does not say it fits"
echo "ok memory.oom"
