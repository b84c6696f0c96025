#!/usr/bin/env bash
# run_golden.sh: run stepcast golden cases and compare with expected output.
#
#   tests/golden/run_golden.sh STEPCAST [NAME...]
#
# A case is tests/golden/NAME.cmd: one line of arguments to stepcast, split at
# whitespace (no quoting), e.g. `predict scenarios/quickstart.json`.  It runs
# from the repository root; its stdout must match NAME.out, numbers within a
# relative tolerance (GOLDEN_RTOL, default 1e-6) and all other text exactly
# (numdiff.awk).  The exit code must be the one in NAME.exit, or 0 when there
# is no NAME.exit.  With no NAME, every case runs.
#
# GOLDEN_UPDATE=1 rewrites NAME.out (and NAME.exit, kept only when not 0) from
# the current binary instead of comparing: review the diff before committing.
set -uo pipefail

here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=tests/lib.sh
source "$here/../lib.sh"
sc_test_start run_golden "STEPCAST [NAME...]" "$@"
shift
rtol=${GOLDEN_RTOL:-1e-6}

names=("$@")
if ((${#names[@]} == 0)); then
	for f in "$here"/*.cmd; do
		[[ -e $f ]] || continue
		n=${f##*/}
		names+=("${n%.cmd}")
	done
fi

sc_test_tmpdir tmp golden

failed=0
for name in "${names[@]}"; do
	cmd=$here/$name.cmd
	if [[ ! -f $cmd ]]; then
		echo "FAIL $name: no $cmd" >&2
		failed=$((failed + 1))
		continue
	fi
	read -r -a args <"$cmd"
	"$bin" "${args[@]}" >"$tmp/$name.out" 2>"$tmp/$name.err"
	rc=$?

	if [[ ${GOLDEN_UPDATE:-0} == 1 ]]; then
		cp "$tmp/$name.out" "$here/$name.out"
		if ((rc != 0)); then
			echo "$rc" >"$here/$name.exit"
		else
			rm -f "$here/$name.exit"
		fi
		echo "updated $name (exit $rc)"
		continue
	fi

	want_rc=0
	[[ -f $here/$name.exit ]] && want_rc=$(tr -d '[:space:]' <"$here/$name.exit")
	ok=1
	if [[ $rc != "$want_rc" ]]; then
		echo "FAIL $name: stepcast ${args[*]}: exit code $rc, expected $want_rc" >&2
		ok=0
	fi
	if [[ ! -f $here/$name.out ]]; then
		echo "FAIL $name: no expected output $here/$name.out (make it with GOLDEN_UPDATE=1)" >&2
		ok=0
	elif ! awk -v rtol="$rtol" -f "$here/numdiff.awk" "$here/$name.out" "$tmp/$name.out" >"$tmp/$name.report"; then
		echo "FAIL $name: stepcast ${args[*]}: stdout differs from tests/golden/$name.out (rtol $rtol)" >&2
		cat "$tmp/$name.report" >&2
		echo "--- diff -u expected actual (first 80 lines):" >&2
		diff -u "$here/$name.out" "$tmp/$name.out" | head -n 80 >&2
		ok=0
	fi
	if ((ok)); then
		echo "ok   $name"
	else
		if [[ -s $tmp/$name.err ]]; then
			echo "--- stderr:" >&2
			head -n 40 "$tmp/$name.err" >&2
		fi
		echo "(if the change is intended: GOLDEN_UPDATE=1 $0 $bin $name)" >&2
		failed=$((failed + 1))
	fi
done
((failed == 0)) || { echo "$failed golden case(s) failed" >&2; exit 1; }
exit 0
