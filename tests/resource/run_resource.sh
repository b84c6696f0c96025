#!/usr/bin/env bash
# run_resource.sh: the worst inputs the schemas accept (each count at its
# documented maximum, docs/limits.md) finish inside a memory and a time
# limit, with a result or a clear refusal, never a crash or a hang.
#
#   tests/resource/run_resource.sh STEPCAST
#
# Each case runs under `ulimit -v` (RESOURCE_KB, default 4 GiB of address
# space) and `ulimit -t` (RESOURCE_S, default 120 CPU seconds: CPU time, not
# wall-clock, so a loaded machine does not fail a bounded run; `timeout` at
# ten times that is the backstop against a hang that sleeps); exit codes 0, 1 (a check
# failed: a deadline not met), 3 (refused input), 5 (not covered), 6 (predict: does not fit) and 7 (serve:
# unstable or not steady) pass;
# a signal (SIGXCPU: over the CPU limit), a timeout or exit 70 fails.  Prints each case's time and peak
# memory (GNU time when present).
set -uo pipefail

bin=$1
[[ $bin == /* ]] || bin=$PWD/$bin
root=$(cd "$(dirname "$0")/../.." && pwd)
cd "$root" || exit 2
work=$(mktemp -d "${TMPDIR:-/tmp}/stepcast-resource.XXXXXX") || exit 2
trap 'rm -rf "$work"' EXIT
kb=${RESOURCE_KB:-4194304}
secs=${RESOURCE_S:-120}
timer=()
[[ -x /usr/bin/time ]] && timer=(/usr/bin/time -f '%e s %M KB' -o "$work/time")

python3 - "$work" <<'PY'
import json, sys
w = sys.argv[1]
def load(p): return json.load(open(p))
def dump(name, o): json.dump(o, open(f"{w}/{name}", "w"))
q = load("scenarios/quickstart.json")
q["name"] = "worst: 1,048,576 GPUs (131,072 p5 nodes)"
q["cluster"]["nodes"] = 131072
q["layout"] = {"tp": 8, "pp": 1, "dp": 131072, "zero_stage": 1}
q["training"]["global_batch_seqs"] = 4194304
dump("max_gpus.json", q)
t = load("scenarios/llama3-405b-p5-2048.json")
t["stragglers"] = {"sigma": 0.05, "monte_carlo_steps": 610}   # 610 x 16,384 GPUs: at the 1e7 budget
dump("mc_budget.json", t)
s = load("scenarios/serve-llama3-70b-p5en.json")
r = dict(s); r["replicas"] = 4096; dump("serve_replicas.json", r)
r = json.loads(json.dumps(s)); r["workload"]["requests"] = 1000000; r["workload"]["warmup_requests"] = 1000
dump("serve_requests.json", r)
r = dict(s); r["speculative"] = {"draft_tokens": 256, "acceptance_rate": 0.9}; dump("serve_draft.json", r)
open(f"{w}/values.json", "w").write('{"a":[' + ",".join(["0"] * 1999990) + "]}")
open(f"{w}/zeros.json", "w").write("[" + ",".join(["0"] * 33554431) + "]")
# nccl-tests logs: 80,000 rows (the measurement-set maximum) in 2,500 runs,
# and 128 MiB of NCCL INFO lines around one table (streamed)
src = open("tests/calibrate/nccl-allreduce-p5-2nodes.log").read()
lines = src.split("\n")
run = "\n".join(lines[1:]) + "\n"
with open(f"{w}/rows.log", "w") as f:
    f.write(lines[0] + "\n" + run * 2500)
chat = "0: ip-10-1-34-117:42117:42300 [0] NCCL INFO Channel 00/0 : 0[0] -> 1[1] via P2P/CUMEM/read\n"
with open(f"{w}/chatter.log", "w") as f:
    f.write(src + chat * ((128 * 1024 * 1024 - len(src)) // len(chat)))
PY

failed=0
run() {
	local name=$1 rc
	shift
	(ulimit -v "$kb" && ulimit -t "$secs" && timeout "$((secs * 10))" "${timer[@]}" "$bin" "$@") >/dev/null 2>"$work/err"
	rc=$?
	printf '%-16s exit %-3d %s  %s\n' "$name" "$rc" "$( [[ -f $work/time ]] && tail -1 "$work/time")" \
		"$(grep -m1 -E 'error|refus' "$work/err" | cut -c1-100)"
	case $rc in
	0 | 1 | 3 | 5 | 6 | 7) ;;   # 6: predict does not fit; 7: serve's verdict "unstable" (256 draft tokens of 0.9 make each step dear)
	*)
		echo "FAIL $name: exit $rc (timeout 124, signal >= 128, internal 70): $(head -3 "$work/err")" >&2
		failed=1
		;;
	esac
	rm -f "$work/time"
}

run predict-1M-gpus predict "$work/max_gpus.json"
run search-1M-gpus search scenarios/deepseek-v3-p6-b200-512.json --gpus 1048576 --top 3
run plan-max-nodes plan scenarios/deepseek-v3-p6-b200-512.json --deadline 1d --max-nodes 1048576
run straggler-mc predict "$work/mc_budget.json"
run serve-replicas serve "$work/serve_replicas.json"
run serve-requests serve "$work/serve_requests.json"
run serve-draft serve "$work/serve_draft.json"
run json-2M-values predict "$work/values.json"
run json-64MiB predict "$work/zeros.json"
# the DES: 1M GPUs refused by its memory estimate before any simulation
run des-1M-gpus predict "$work/max_gpus.json" --engine des
run ingest-rows calibrate ingest "$work/rows.log" --output "$work/rows.json"
run fit-rows calibrate fit "$work/rows.json" --instance p5.48xlarge --name x --output "$work/x.json"
run ingest-128MiB calibrate ingest "$work/chatter.log" --output "$work/chatter.json"

((failed == 0)) && echo "run_resource: all cases within ${kb} KB and ${secs} s"
exit "$failed"
