#!/usr/bin/env bash
# run_slurm.sh: a sharded search through a real (single-node) Slurm.
#
#   tests/slurm/run_slurm.sh STEPCAST
#
# Starts munged, slurmctld and slurmd from the Debian packages (munge,
# slurmctld, slurmd) on this machine, as root, with a slurm.conf of its own
# in a temporary directory (the node is this machine's short hostname;
# ProctrackType=proctrack/linuxproc, TaskPlugin=task/none; addresses are
# 127.0.0.1, so the hostname need not resolve; ports, sockets,
# state and logs all in the temporary directory, so a system Slurm or munge
# is not touched), waits for the node, runs scripts/slurm-sweep.sh: a
# 4-task job array (sbatch --array=0-3) of `stepcast search` shards and a
# dependent merge job, waits for it (sbatch --wait), and checks that the
# merged result is byte for byte the unsharded search.  Then two sweeps that
# fail: one where task 1 exits 3 and task 3 is killed (SIGKILL, no exit
# status) while 0 and 2 succeed, one where every task fails for real (a
# calibration profile for another GPU family): each must exit 1, name every
# failed task (and no other) with its exit status or Slurm's state, and
# print no result path.  Every daemon it started is stopped by its PID on
# the way out.
# Exit 77 (skipped) only when the packages are not installed (scripts/deps
# installs them) or the test cannot run as root.
set -uo pipefail

here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=tests/lib.sh
source "$here/../lib.sh"
sc_test_start run_slurm "STEPCAST" "$@"
unset SLURM_CONF SLURM_JOB_ID

for c in munged slurmctld slurmd sbatch sinfo scontrol; do
	if ! command -v "$c" >/dev/null && [[ ! -x /usr/sbin/$c ]]; then
		echo "run_slurm: skipped: $c is not installed (Debian packages munge, slurmctld, slurmd, slurm-client; scripts/deps installs them)"
		exit 77
	fi
done
if ((EUID != 0)); then
	echo "run_slurm: skipped: starts slurmctld, slurmd and munged, which needs root"
	exit 77
fi
PATH=$PATH:/usr/sbin:/sbin

# Short paths: munge's and Slurm's socket paths have a length limit.
T=$(mktemp -d /tmp/stepcast-slurm.XXXXXX) || exit 2
chmod 0755 "$T"
pids=()
cleanup() {
	local p
	for f in "$T/slurmd.pid" "$T/slurmctld.pid" "$T/munged.pid"; do
		[[ -s $f ]] && pids+=("$(cat "$f")")
	done
	for p in "${pids[@]}"; do
		kill "$p" 2>/dev/null
	done
	for p in "${pids[@]}"; do
		for _ in $(seq 50); do
			kill -0 "$p" 2>/dev/null || break
			sleep 0.1
		done
		kill -9 "$p" 2>/dev/null
	done
	rm -rf "$T"
}
trap cleanup EXIT
fail() {
	echo "run_slurm: FAIL: $*" >&2
	for f in "$T"/munged.log "$T"/slurmctld.log "$T"/slurmd.log "$T"/out/logs/*.log; do
		[[ -s $f ]] || continue
		echo "--- $f (last 30 lines)" >&2
		tail -n 30 "$f" >&2
	done
	exit 1
}

host=$(hostname -s)
cpus=$(nproc)
mem_mb=$(awk '/^MemTotal:/ { print int($2 / 1024 * 0.8) }' /proc/meminfo)
port=$((20000 + RANDOM % 20000))

# munge: a key of our own, its own socket
dd if=/dev/urandom of="$T/munge.key" bs=1024 count=1 status=none || fail "cannot make a munge key"
chmod 0400 "$T/munge.key"
mkdir -m 0755 "$T/munge"
munged --force --key-file="$T/munge.key" --socket="$T/munge/munge.sock" \
	--pid-file="$T/munged.pid" --log-file="$T/munged.log" --seed-file="$T/munge.seed" ||
	fail "munged did not start"
for _ in $(seq 50); do
	[[ -S $T/munge/munge.sock ]] && break
	sleep 0.1
done
[[ -S $T/munge/munge.sock ]] || fail "munged made no socket"

mkdir -p "$T/state" "$T/spool" "$T/out"
cat >"$T/slurm.conf" <<EOF
ClusterName=stepcast-test
SlurmctldHost=$host(127.0.0.1)
SlurmUser=root
SlurmdUser=root
SlurmctldPort=$port
SlurmdPort=$((port + 1))
AuthType=auth/munge
AuthInfo=socket=$T/munge/munge.sock
CredType=cred/munge
StateSaveLocation=$T/state
SlurmdSpoolDir=$T/spool
SlurmctldPidFile=$T/slurmctld.pid
SlurmdPidFile=$T/slurmd.pid
SlurmctldLogFile=$T/slurmctld.log
SlurmdLogFile=$T/slurmd.log
SlurmctldDebug=info
SlurmdDebug=info
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
SwitchType=switch/none
MpiDefault=none
SchedulerType=sched/builtin
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
ReturnToService=2
SlurmctldTimeout=30
SlurmdTimeout=30
InactiveLimit=0
MinJobAge=300
PlugStackConfig=$T/plugstack.conf
NodeName=$host NodeAddr=127.0.0.1 NodeHostname=$host CPUs=$cpus RealMemory=$mem_mb State=UNKNOWN
PartitionName=test Nodes=$host Default=YES MaxTime=INFINITE State=UP
EOF
: >"$T/plugstack.conf"
export SLURM_CONF=$T/slurm.conf

slurmctld -f "$SLURM_CONF" -i || fail "slurmctld did not start"
slurmd -f "$SLURM_CONF" || fail "slurmd did not start"
for f in slurmctld slurmd; do
	for _ in $(seq 50); do
		[[ -s $T/$f.pid ]] && break
		sleep 0.1
	done
	[[ -s $T/$f.pid ]] || fail "$f wrote no pid file"
done
state=
for _ in $(seq 120); do
	state=$(sinfo -h -n "$host" -o %t 2>/dev/null)
	[[ $state == idle ]] && break
	sleep 0.5
done
[[ $state == idle ]] || fail "node $host is '$state', not idle, after 60 s"
echo "run_slurm: Slurm $(sinfo -V | awk '{ print $2 }') up on $host ($cpus CPUs), munge and slurm on port $port"

# the sweep: 4 shards through the example script, and the unsharded search
scenario=scenarios/mixtral-8x22b-p6-b200.json
args=(--top 12 --max-micro-batch 8)
timeout 300 scripts/slurm-sweep.sh --tasks 4 --out "$T/out" --format jsonl --time 00:10:00 \
	--stepcast "$bin" --wait "$scenario" "${args[@]}" >"$T/sweep.out" 2>"$T/sweep.err" ||
	{ cat "$T/sweep.err" >&2; fail "the Slurm sweep failed"; }
cat "$T/sweep.err"
result=$(tail -n 1 "$T/sweep.out")
[[ -s $result ]] || fail "no merged result at '$result'"
n=$(ls "$T"/out/parts/search.part-*-of-4.jsonl 2>/dev/null | wc -l)
((n == 4)) || fail "expected 4 parts, found $n"
ls "$T"/out/parts/*.tmp.* >/dev/null 2>&1 && fail "a part's temporary file was left behind"
for k in 0 1 2 3; do
	grep -q "\"shard\":$k,\"shards\":4" "$T/out/parts/search.part-$k-of-4.jsonl" ||
		fail "part $k does not say it is shard $k of 4 (SLURM_ARRAY_* not used?)"
done
"$bin" search "$scenario" "${args[@]}" --format jsonl >"$T/unsharded.jsonl" || fail "the unsharded search failed"
cmp "$result" "$T/unsharded.jsonl" || fail "the merged Slurm result differs from the unsharded search"
echo "run_slurm: 4 array tasks merged into exactly the unsharded result ($(wc -l <"$result") lines)"

# Failures: the sweep must exit non-zero, name each failed task and print no
# result path.  Mixed: of 4 tasks, 1 fails as stepcast does on bad input
# (exit 3) and 3 dies with its task script (SIGKILL, as Slurm kills a task
# at its time limit or memory limit: no exit status recorded); 0 and 2
# succeed.  A wrapper injects the failures into the real binary.
cat >"$T/flaky-stepcast" <<EOF
#!/bin/bash
if [[ \$1 == search ]]; then
	for k in \${STEPCAST_TEST_FAIL:-}; do
		if [[ \$k == "\${SLURM_ARRAY_TASK_ID:-}" ]]; then
			echo "stepcast: error: injected failure of array task \$k" >&2
			exit 3
		fi
	done
	for k in \${STEPCAST_TEST_KILL:-}; do
		if [[ \$k == "\${SLURM_ARRAY_TASK_ID:-}" ]]; then
			kill -9 "\$PPID"
			exit 137
		fi
	done
fi
exec $(printf '%q' "$bin") "\$@"
EOF
chmod +x "$T/flaky-stepcast"
small=(scenarios/quickstart.json --top 3)
STEPCAST_TEST_FAIL=1 STEPCAST_TEST_KILL=3 timeout 120 scripts/slurm-sweep.sh --tasks 4 --out "$T/mixed" \
	--time 00:10:00 --stepcast "$T/flaky-stepcast" --wait "${small[@]}" >"$T/mixed.out" 2>"$T/mixed.err"
rc=$?
cat "$T/mixed.err"
((rc == 1)) || fail "a sweep with failed tasks exited $rc, not 1"
[[ ! -s $T/mixed.out ]] || fail "a sweep with failed tasks printed a result path: $(cat "$T/mixed.out")"
[[ ! -e $T/mixed/result.jsonl ]] || fail "a sweep with failed tasks wrote a result"
grep -Eq '^slurm-sweep: error: 2 of 4 array tasks of job [0-9]+ failed; nothing merged$' "$T/mixed.err" ||
	fail "the mixed sweep does not say that 2 of 4 tasks failed"
grep -Eq '^slurm-sweep:   task 1 \([0-9]+_1\): exit 3; log .*/mixed/logs/task-1.log$' "$T/mixed.err" ||
	fail "task 1 (exit 3) is not named with its exit status"
grep -q '^slurm-sweep:     stepcast: error: injected failure of array task 1$' "$T/mixed.err" ||
	fail "task 1's log line is not shown"
grep -Eq '^slurm-sweep:   task 3 \([0-9]+_3\): no exit status \(killed before it finished\?\); Slurm: [A-Z_]+ ' \
	"$T/mixed.err" || fail "task 3 (killed) is not named with Slurm's state"
grep -Eq 'task [02] \(' "$T/mixed.err" && fail "a task that succeeded is named as failed"
[[ -s $T/mixed/parts/search.part-0-of-4.jsonl && -s $T/mixed/parts/search.part-2-of-4.jsonl ]] ||
	fail "the tasks that succeeded left no parts"
grep -q '^stepcast-merge: 2 of 4 array tasks failed, nothing merged: 1 (exit 3) 3 (no exit status)$' \
	"$T/mixed/logs/merge.log" || fail "the merge job's log does not list the failed tasks"

# Every task fails, for real: a calibration profile for another GPU family
# is refused by each search (exit 3), which the login node does not check.
timeout 120 scripts/slurm-sweep.sh --tasks 2 --out "$T/allfail" --time 00:10:00 --stepcast "$bin" \
	--wait "${small[@]}" --calibration ampere-default >"$T/allfail.out" 2>"$T/allfail.err"
rc=$?
cat "$T/allfail.err"
((rc == 1)) || fail "a sweep whose every task failed exited $rc, not 1"
[[ ! -s $T/allfail.out ]] || fail "a sweep whose every task failed printed a result path: $(cat "$T/allfail.out")"
grep -Eq '^slurm-sweep: error: 2 of 2 array tasks of job [0-9]+ failed; nothing merged$' "$T/allfail.err" ||
	fail "the failed sweep does not say that 2 of 2 tasks failed"
for k in 0 1; do
	grep -Eq "^slurm-sweep:   task $k \\([0-9]+_$k\\): exit 3; " "$T/allfail.err" || fail "task $k is not named"
done
grep -q '^slurm-sweep:     stepcast: error: --calibration: profile "ampere-default" is for ampere GPUs' \
	"$T/allfail.err" || fail "the tasks' error is not shown"
echo "run_slurm: failed array tasks named (mixed: 1 exit 3, 3 killed; all failed: 0 and 1), exit 1, no result"
