#!/usr/bin/env bash
# run_bad.sh: every broken input under tests/bad/ must fail with its exact
# message and exit code.
#
#   tests/bad/run_bad.sh STEPCAST [NAME...]
#
# A case NAME is tests/bad/NAME.err (the exact expected stderr) plus
# NAME.exit (the expected exit code: 3 invalid input, 4 I/O) and one of:
#   NAME.cmd   one line of stepcast arguments (split at whitespace);
#   NAME.json  run as `stepcast predict tests/bad/NAME.json`;
#   NAME.d/    a catalogue directory: `stepcast catalog --config-dir tests/bad/NAME.d`.
# NAME.setup, if present, is a bash snippet run first (from the repository
# root) with $TMP set to a fresh directory, to make inputs that are too big or
# too fragile to commit (an oversize file, a copy of configs/ with one break).
# In NAME.cmd and NAME.err, @TMP@ stands for that directory.
#
# GOLDEN_UPDATE=1 rewrites NAME.err and NAME.exit from the current binary:
# then read every changed message and check that it is right and clear.
set -uo pipefail

here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=tests/lib.sh
source "$here/../lib.sh"
sc_test_start run_bad "STEPCAST [NAME...]" "$@"
shift

names=("$@")
if ((${#names[@]} == 0)); then
	for f in "$here"/*.err "$here"/*.json "$here"/*.cmd "$here"/*.d; do
		[[ -e $f ]] || continue
		n=${f##*/}
		n=${n%.*}
		[[ " ${names[*]} " == *" $n "* ]] || names+=("$n")
	done
fi

sc_test_tmpdir work bad

failed=0 passed=0
for name in "${names[@]}"; do
	tmp=$work/$name
	mkdir -p "$tmp"
	if [[ -f $here/$name.setup ]] && ! TMP=$tmp bash -e "$here/$name.setup" >"$tmp/.setup.log" 2>&1; then
		echo "FAIL $name: $name.setup failed:" >&2
		cat "$tmp/.setup.log" >&2
		failed=$((failed + 1))
		continue
	fi
	if [[ -f $here/$name.cmd ]]; then
		read -r -a args <"$here/$name.cmd"
		args=("${args[@]//@TMP@/$tmp}")
	elif [[ -f $here/$name.json ]]; then
		args=(predict "tests/bad/$name.json")
	elif [[ -d $here/$name.d ]]; then
		args=(catalog --config-dir "tests/bad/$name.d")
	else
		echo "FAIL $name: no $name.cmd, $name.json or $name.d/" >&2
		failed=$((failed + 1))
		continue
	fi

	"$bin" "${args[@]}" >"$tmp/.stdout" 2>"$tmp/.stderr"
	rc=$?
	actual=$(<"$tmp/.stderr")
	actual=${actual//"$tmp"/@TMP@}

	if [[ ${GOLDEN_UPDATE:-0} == 1 ]]; then
		printf '%s\n' "$actual" >"$here/$name.err"
		echo "$rc" >"$here/$name.exit"
		printf 'updated %-36s exit %s  %s\n' "$name" "$rc" "$actual"
		continue
	fi

	ok=1
	if [[ ! -f $here/$name.exit || ! -f $here/$name.err ]]; then
		echo "FAIL $name: needs $name.err and $name.exit (GOLDEN_UPDATE=1 makes them; then read them)" >&2
		failed=$((failed + 1))
		continue
	fi
	want_rc=$(tr -d '[:space:]' <"$here/$name.exit")
	want=$(<"$here/$name.err")
	if [[ $rc != "$want_rc" ]]; then
		echo "FAIL $name: stepcast ${args[*]}: exit code $rc, expected $want_rc" >&2
		ok=0
	fi
	if [[ $actual != "$want" ]]; then
		echo "FAIL $name: stepcast ${args[*]}: stderr differs" >&2
		echo "  expected: $want" >&2
		echo "  actual:   $actual" >&2
		ok=0
	fi
	if [[ -s $tmp/.stdout ]]; then
		echo "FAIL $name: wrote to stdout on an error:" >&2
		head -n 5 "$tmp/.stdout" >&2
		ok=0
	fi
	if ((ok)); then
		passed=$((passed + 1))
	else
		failed=$((failed + 1))
	fi
done
echo "$passed bad-input case(s) passed, $failed failed"
((failed == 0))
