#!/usr/bin/env bash
# slurm-sweep.sh: run a `stepcast search` sweep as a Slurm job array and
# merge the parts: the example to adapt to a real cluster.
#
#   scripts/slurm-sweep.sh [options] SCENARIO [SEARCH OPTIONS...]
#
#   -n, --tasks N        array tasks (shards), default 8
#   -o, --out DIR        where the parts and the result go (default
#                        ./stepcast-sweep); must be on a file system every
#                        node sees
#   -f, --format FMT     format of the merged result (default jsonl):
#                        text, json, jsonl, csv or md
#   -p, --partition P    Slurm partition (default: the cluster's default)
#   -t, --time T         time limit per task (default 01:00:00)
#   -s, --stepcast PATH  the stepcast binary the nodes run (default: the one
#                        on PATH, else build/stepcast of this tree)
#   -w, --wait           wait for the merge (sbatch --wait) and print the
#                        result's path; exit with its status
#   -h, --help
#
# It submits two jobs:
#   1. an array of N tasks (sbatch --array=0-(N-1)); task K runs
#        stepcast search SCENARIO SEARCH-OPTIONS
#      in DIR/parts: stepcast reads SLURM_ARRAY_TASK_ID, _MIN, _STEP and
#      _COUNT, takes every N-th layout from the K-th and writes
#      search.part-K-of-N.jsonl there (a temporary file renamed when
#      complete, so a killed task leaves no half part);
#   2. a merge job that starts when every task succeeded
#      (--dependency=afterok) and runs
#        stepcast merge DIR/parts/search.part-*-of-N.jsonl --format FMT
#      into DIR/result.FMT: byte for byte what one unsharded `stepcast
#      search ... --format FMT` prints.
# Each task needs one CPU and little memory; add your site's sbatch options
# (account, QoS, constraint) in SBATCH_EXTRA, e.g.
#   SBATCH_EXTRA="--account=ml --qos=short" scripts/slurm-sweep.sh ...
set -euo pipefail

usage() { sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'; }
die() { echo "slurm-sweep: error: $*" >&2; exit 2; }

tasks=8 out=./stepcast-sweep fmt=jsonl partition= tlimit=01:00:00 bin= wait=0
while (($#)); do
	case $1 in
	-n | --tasks) tasks=${2:?}; shift 2 ;;
	-o | --out) out=${2:?}; shift 2 ;;
	-f | --format) fmt=${2:?}; shift 2 ;;
	-p | --partition) partition=${2:?}; shift 2 ;;
	-t | --time) tlimit=${2:?}; shift 2 ;;
	-s | --stepcast) bin=${2:?}; shift 2 ;;
	-w | --wait) wait=1; shift ;;
	-h | --help) usage; exit 0 ;;
	--) shift; break ;;
	-*) die "unknown option '$1' (see --help)" ;;
	*) break ;;
	esac
done
(($# >= 1)) || die "missing SCENARIO (see --help)"
[[ $tasks =~ ^[1-9][0-9]*$ ]] || die "--tasks needs a positive integer (got '$tasks')"
case $fmt in text | json | jsonl | csv | md) ;; *) die "unknown format '$fmt'" ;; esac
command -v sbatch >/dev/null || die "sbatch not found: is this a Slurm login node?"

here=$(cd "$(dirname "$0")/.." && pwd)
if [[ -z $bin ]]; then
	bin=$(command -v stepcast || echo "$here/build/stepcast")
fi
[[ -x $bin ]] || die "no stepcast binary at '$bin' (build it, or give --stepcast)"
bin=$(cd "$(dirname "$bin")" && pwd)/$(basename "$bin")

scenario=$1
shift
[[ -f $scenario ]] || die "no scenario file '$scenario'"
scenario=$(cd "$(dirname "$scenario")" && pwd)/$(basename "$scenario")
mkdir -p "$out/parts" "$out/logs"
out=$(cd "$out" && pwd)
rm -f "$out"/parts/search.part-*-of-*.jsonl

# The command lines, quoted for the job scripts.
search_cmd=$(printf '%q ' "$bin" search "$scenario" "$@")
merge_cmd=$(printf '%q ' "$bin" merge --format "$fmt" --output "$out/result.$fmt")

common=(--parsable --time="$tlimit" --cpus-per-task=1 --mem=1G)
[[ -n $partition ]] && common+=(--partition="$partition")
# shellcheck disable=SC2206
extra=(${SBATCH_EXTRA:-})

array_id=$(sbatch "${common[@]}" "${extra[@]}" --job-name=stepcast-sweep \
	--array="0-$((tasks - 1))" --chdir="$out/parts" --output="$out/logs/task-%a.log" \
	--wrap="exec $search_cmd")
array_id=${array_id%%;*}
echo "slurm-sweep: submitted array job $array_id ($tasks tasks)" >&2

merge_args=(--job-name=stepcast-merge --dependency="afterok:$array_id" --kill-on-invalid-dep=yes
	    --chdir="$out" --output="$out/logs/merge.log")
((wait)) && merge_args+=(--wait)
merge_id=$(sbatch "${common[@]}" "${extra[@]}" "${merge_args[@]}" \
	--wrap="exec $merge_cmd $(printf '%q' "$out/parts")/search.part-*-of-$tasks.jsonl") || {
	echo "slurm-sweep: the merge job failed; see $out/logs/" >&2
	exit 1
}
merge_id=${merge_id%%;*}
echo "slurm-sweep: submitted merge job $merge_id (after $array_id succeeds)" >&2
if ((wait)); then
	echo "$out/result.$fmt"
else
	echo "slurm-sweep: the result will be $out/result.$fmt" >&2
fi
