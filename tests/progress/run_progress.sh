#!/usr/bin/env bash
# run_progress.sh: the progress line appears on a terminal only, and --quiet
# silences it.
#
#   tests/progress/run_progress.sh STEPCAST
#
# A pseudo-terminal comes from util-linux's script(1).  STEPCAST_PROGRESS_AFTER_S=0
# draws the line from the start (and at least once), so the checks do not
# depend on how long a run takes.  Exit 77 only when script(1) is absent.
set -uo pipefail

here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=tests/lib.sh
source "$here/../lib.sh"
sc_test_start run_progress "STEPCAST" "$@"
command -v script >/dev/null 2>&1 || { echo "run_progress: SKIP: script(1) is not installed"; exit 77; }
export STEPCAST_PROGRESS_AFTER_S=0 TERM=xterm
sc_test_tmpdir tmp run_progress
fail=0
say() { echo "run_progress: $*"; }

cases=(
	"search|search scenarios/llama3-8b-p5-1node.json"
	"serve|serve scenarios/serve-llama3-70b-p5en.json --requests 200"
	"regress|regress"
	"validate|validate --summary"
	"predict --engine des|predict scenarios/quickstart.json --engine des"
	"plan|plan scenarios/llama3-8b-p5-1node.json --tokens 1e9"
)
for c in "${cases[@]}"; do
	what=${c%%|*} args=${c#*|}
	# on a terminal: stdout to a file, so what the terminal shows is stderr
	script -qec "$bin $args >$tmp/out 2>/dev/tty" /dev/null >"$tmp/tty" 2>&1
	# erased: the line overwritten by spaces between two carriage returns
	if grep -q "stepcast: $what: " "$tmp/tty" && tr '\r' '\n' <"$tmp/tty" | grep -qxE ' +'; then
		say "ok $what: a progress line on the terminal, erased at the end"
	else
		say "FAIL $what: no progress line (or not erased) on the terminal: $(od -c "$tmp/tty" | head -3)"
		fail=1
	fi
	script -qec "$bin $args --quiet >$tmp/out 2>/dev/tty" /dev/null >"$tmp/tty" 2>&1
	if grep -qE "stepcast: $what: ([0-9]+ %, )?[0-9.]+ s" "$tmp/tty"; then
		say "FAIL $what --quiet: a progress line on the terminal"
		fail=1
	fi
	# a pipe: nothing
	$bin $args >/dev/null 2>"$tmp/err"
	if grep -qE "stepcast: $what: ([0-9]+ %, )?[0-9.]+ s" "$tmp/err"; then
		say "FAIL $what: a progress line in a pipe"
		fail=1
	fi
done
exit $fail
