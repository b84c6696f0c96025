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
#   -w, --wait           wait for the merge (sbatch --wait); when every task
#                        and the merge succeeded print the result's path and
#                        exit 0, else name each failed task on stderr (its
#                        exit status or Slurm's state, its log's last line)
#                        and exit 1, printing no path
#   -h, --help
#
# It writes two job scripts into DIR/jobs/ and submits them:
#   1. an array of N tasks (sbatch --array=0-(N-1)); task K runs
#        stepcast search SCENARIO SEARCH-OPTIONS
#      in DIR/parts: stepcast reads SLURM_ARRAY_TASK_ID, _MIN, _STEP and
#      _COUNT, takes every N-th layout from the K-th and writes
#      search.part-K-of-N.jsonl there (a temporary file renamed when
#      complete, so a killed task leaves no half part); then the task
#      records stepcast's exit status in DIR/status/task-K.rc;
#   2. a merge job that starts when every task has ended
#      (--dependency=afterany), checks that every task recorded exit status
#      0 (a task that Slurm killed, for its time limit, its memory or a node
#      failure, records none), and only then runs
#        stepcast merge DIR/parts/search.part-*-of-N.jsonl --format FMT
#      into DIR/result.FMT: byte for byte what one unsharded `stepcast
#      search ... --format FMT` prints.  When a task failed it merges
#      nothing, writes the failed tasks to DIR/failed-tasks (lines "K RC",
#      RC "-" for none recorded) and DIR/logs/merge.log, and fails.
# The exit statuses are files rather than Slurm accounting, so this works
# where slurmdbd is not configured and after slurmctld has forgotten the
# tasks (MinJobAge); --wait adds Slurm's state (sacct, else scontrol) for a
# task that recorded none.
# Each task needs one CPU and little memory; add your site's sbatch options
# (account, QoS, constraint) in SBATCH_EXTRA, e.g.
#   SBATCH_EXTRA="--account=ml --qos=short" scripts/slurm-sweep.sh ...
set -euo pipefail

usage() { sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'; }
die() { echo "slurm-sweep: error: $*" >&2; exit 2; }

tasks=8 out=./stepcast-sweep fmt=jsonl partition='' tlimit=01:00:00 bin='' wait=0
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
mkdir -p "$out/parts" "$out/logs" "$out/jobs" "$out/status"
out=$(cd "$out" && pwd)
rm -f "$out"/parts/search.part-*-of-*.jsonl "$out"/status/task-*.rc "$out/failed-tasks" \
	"$out/result.$fmt"

# The job scripts.  sbatch copies a script when it is submitted, so the nodes
# need not see these files; their arguments come from the sbatch lines below.
cat >"$out/jobs/task.sh" <<'EOF'
#!/bin/bash
# One array task of a stepcast sweep (written by scripts/slurm-sweep.sh).
#   task.sh STATUS-DIR STEPCAST search SCENARIO [OPTIONS...]
# Runs the search shard, then records its exit status for the merge job
# (written to a temporary file and renamed, so it is whole or absent).
status=$1
shift
"$@"
rc=$?
k=${SLURM_ARRAY_TASK_ID:?task.sh runs as a Slurm array task}
printf '%s\n' "$rc" >"$status/task-$k.rc.tmp" && mv -f "$status/task-$k.rc.tmp" "$status/task-$k.rc"
exit "$rc"
EOF
cat >"$out/jobs/merge.sh" <<'EOF'
#!/bin/bash
# The merge job of a stepcast sweep (written by scripts/slurm-sweep.sh).
#   merge.sh OUT-DIR TASKS STEPCAST FORMAT
# Runs after every array task ended; merges only when each recorded exit
# status 0, else lists the failed ones in OUT-DIR/failed-tasks and fails.
out=$1 tasks=$2 bin=$3 fmt=$4
failed=() said=()
for ((k = 0; k < tasks; k++)); do
	rc=-
	[[ -s $out/status/task-$k.rc ]] && rc=$(<"$out/status/task-$k.rc")
	[[ $rc == 0 ]] && continue
	failed+=("$k $rc")
	if [[ $rc == - ]]; then said+=("$k (no exit status)"); else said+=("$k (exit $rc)"); fi
done
if ((${#failed[@]})); then
	printf '%s\n' "${failed[@]}" >"$out/failed-tasks"
	echo "stepcast-merge: ${#failed[@]} of $tasks array tasks failed, nothing merged: ${said[*]}" >&2
	exit 1
fi
exec "$bin" merge --format "$fmt" --output "$out/result.$fmt" "$out"/parts/search.part-*-of-"$tasks".jsonl
EOF

common=(--parsable --time="$tlimit" --cpus-per-task=1 --mem=1G)
[[ -n $partition ]] && common+=(--partition="$partition")
# shellcheck disable=SC2206
extra=(${SBATCH_EXTRA:-})

array_id=$(sbatch "${common[@]}" "${extra[@]}" --job-name=stepcast-sweep \
	--array="0-$((tasks - 1))" --chdir="$out/parts" --output="$out/logs/task-%a.log" \
	"$out/jobs/task.sh" "$out/status" "$bin" search "$scenario" "$@")
array_id=${array_id%%;*}
echo "slurm-sweep: submitted array job $array_id ($tasks tasks)" >&2

merge_args=(--job-name=stepcast-merge --dependency="afterany:$array_id" --kill-on-invalid-dep=yes
	    --chdir="$out" --output="$out/logs/merge.log")
if ((!wait)); then
	merge_id=$(sbatch "${common[@]}" "${extra[@]}" "${merge_args[@]}" \
		"$out/jobs/merge.sh" "$out" "$tasks" "$bin" "$fmt")
	echo "slurm-sweep: submitted merge job ${merge_id%%;*} (after every task of $array_id ends;" \
		"it merges only when all succeeded)" >&2
	echo "slurm-sweep: the result will be $out/result.$fmt" >&2
	exit 0
fi

echo "slurm-sweep: waiting for the merge job (after every task of $array_id ends)" >&2
merge_rc=0
merge_id=$(sbatch "${common[@]}" "${extra[@]}" "${merge_args[@]}" --wait \
	"$out/jobs/merge.sh" "$out" "$tasks" "$bin" "$fmt") || merge_rc=$?
merge_id=${merge_id%%;*}

# Slurm's word on a task that recorded no exit status, "STATE EXIT:SIGNAL":
# from accounting (sacct) where slurmdbd runs, else from slurmctld's memory
# of the job (scontrol, until MinJobAge), else nothing.
slurm_state() {
	local id=${array_id}_$1 line state code
	line=$(sacct -n -P -X -j "$id" -o State,ExitCode 2>/dev/null | head -n 1) || line=
	if [[ -n $line ]]; then
		printf '%s' "${line//|/ }"
		return
	fi
	line=$(scontrol -o show job "$id" 2>/dev/null) || return 0
	state=$(sed -n 's/.*[[:space:]]JobState=\([^[:space:]]*\).*/\1/p' <<<"$line")
	code=$(sed -n 's/.*[[:space:]]ExitCode=\([^[:space:]]*\).*/\1/p' <<<"$line")
	[[ -n $state ]] && printf '%s %s' "$state" "$code"
	return 0
}

if [[ -s $out/failed-tasks ]]; then
	n_failed=$(wc -l <"$out/failed-tasks")
	echo "slurm-sweep: error: $n_failed of $tasks array tasks of job $array_id failed; nothing merged" >&2
	while read -r k rc; do
		if [[ $rc == - ]]; then
			why="no exit status (killed before it finished?)"
			st=$(slurm_state "$k")
			[[ -n $st ]] && why+="; Slurm: $st"
		else
			why="exit $rc"
		fi
		log=$out/logs/task-$k.log
		echo "slurm-sweep:   task $k (${array_id}_$k): $why; log $log" >&2
		[[ -s $log ]] && echo "slurm-sweep:     $(tail -n 1 "$log")" >&2
	done <"$out/failed-tasks"
	exit 1
fi
if ((merge_rc != 0)); then
	echo "slurm-sweep: error: the merge job ${merge_id:-} failed (sbatch exit $merge_rc); see" \
		"$out/logs/merge.log" >&2
	exit 1
fi
[[ -s $out/result.$fmt ]] || {
	echo "slurm-sweep: error: the merge job $merge_id wrote no $out/result.$fmt" >&2
	exit 1
}
echo "$out/result.$fmt"
