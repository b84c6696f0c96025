#!/usr/bin/env bash
# run_regress.sh: tests of `stepcast regress` and of the validate MAPE gate.
#
#   tests/regress/run_regress.sh STEPCAST CASE
#
# CASE is one of:
#   held        the committed baselines hold (exit 0, "0 failed")
#   junit       --junit writes XML that validates against tests/regress/junit.xsd
#               (xmllint, Debian libxml2-utils), for a passing and a failing run
#   moved       a baseline moved by 5 % fails (exit 1) with a table naming the
#               case, the metric, both values and the change
#   tolerance   a 0.5 % move holds at the default 1 %, fails at --tolerance 0.1
#   new-stale   a case without a baseline and a baseline without a case fail
#   update      --update rewrites the baselines of a copy, which then hold
#   bad         a broken baselines file is invalid input (exit 3, file and pointer)
#   mape-gate   validate --max-mape: exit 1 above the gate, 0 at the CI gate
# Each case works on a copy of tests/regress/ in a temporary directory.
set -uo pipefail

here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=tests/lib.sh
source "$here/../lib.sh"
sc_test_start run_regress "STEPCAST CASE" "$@"
case=$2

# The CI gate, read from .ci/run (one number, one place): overall validate
# MAPE in percent (see README).
MAPE_GATE=$(sed -n "s/.*validate --summary .*--max-mape \([0-9.]*\).*/\1/p" .ci/run)

sc_test_tmpdir work regress
cp -r "$here/scenarios" "$here/baselines.json" "$work/"

fail() {
	echo "FAIL regress.$case: $*" >&2
	exit 1
}

# Multiply the value of the first "step_time_s" in the baselines by $1.
scale_first() {
	awk -v f="$1" '!done && /"step_time_s":/ {
		match($0, /-?[0-9.]+(e[-+]?[0-9]+)?/); v = substr($0, RSTART, RLENGTH)
		sub(/"step_time_s":[ \t]*[-0-9.e+]+/, "\"step_time_s\":\t" sprintf("%.17g", v * f)); done = 1 }
		{ print }' "$work/baselines.json" >"$work/b.json" && mv "$work/b.json" "$work/baselines.json"
}

run() {
	out=$("$bin" regress --dir "$work" "$@" 2>&1)
	rc=$?
}

need_xmllint() {
	command -v xmllint >/dev/null 2>&1 ||
		fail "xmllint is missing (Debian: libxml2-utils, installed by scripts/deps)"
}

case $case in
held)
	run
	((rc == 0)) || fail "exit $rc, want 0:
$out"
	grep -q ", 0 failed" <<<"$out" || fail "no '0 failed' in:
$out"
	;;
junit)
	need_xmllint
	run --junit "$work/ok.xml"
	((rc == 0)) || fail "exit $rc on the committed baselines:
$out"
	xmllint --noout --schema "$here/junit.xsd" "$work/ok.xml" || fail "ok.xml does not validate"
	grep -q '<failure' "$work/ok.xml" && fail "a passing run has a <failure>"
	scale_first 1.05
	run --junit "$work/bad.xml"
	((rc == 1)) || fail "exit $rc on a moved baseline, want 1"
	xmllint --noout --schema "$here/junit.xsd" "$work/bad.xml" || fail "bad.xml does not validate"
	grep -q 'failures="1"' "$work/bad.xml" || fail "bad.xml does not count one failure"
	grep -q '<failure type="moved"' "$work/bad.xml" || fail "bad.xml has no moved failure"
	;;
moved)
	scale_first 1.05
	run
	((rc == 1)) || fail "exit $rc, want 1:
$out"
	line=$(grep '^moved ' <<<"$out") || fail "no 'moved' row in:
$out"
	grep -q 'step_time_s' <<<"$line" || fail "the moved row does not name step_time_s: $line"
	grep -q -- '-4.76 %' <<<"$line" || fail "the moved row does not say -4.76 %: $line"
	grep -q 'scenarios/.*\.json with ' <<<"$line" || fail "the moved row does not name the case: $line"
	grep -q ', 1 failed' <<<"$out" || fail "the summary does not count one failure:
$out"
	;;
tolerance)
	scale_first 1.005
	run
	((rc == 0)) || fail "a 0.5 % move fails at the default 1 %:
$out"
	run --tolerance 0.1
	((rc == 1)) || fail "a 0.5 % move holds at --tolerance 0.1:
$out"
	run --tolerance abc
	((rc == 2)) || fail "--tolerance abc: exit $rc, want 2"
	;;
new-stale)
	sed -i 's|"scenarios/llama3-8b-p5-1node.json"|"scenarios/gone.json"|' "$work/baselines.json"
	run
	((rc == 1)) || fail "exit $rc, want 1:
$out"
	grep -q '^new .*llama3-8b-p5-1node.json' <<<"$out" || fail "no 'new' row:
$out"
	grep -q '^stale .*gone.json' <<<"$out" || fail "no 'stale' row:
$out"
	;;
update)
	scale_first 1.5
	run --update
	((rc == 0)) || fail "--update: exit $rc:
$out"
	grep -q '^moved ' <<<"$out" || fail "--update does not show what changed:
$out"
	grep -q 'wrote .* baselines' <<<"$out" || fail "--update does not say what it wrote"
	run
	((rc == 0)) || fail "after --update: exit $rc:
$out"
	cmp -s "$work/baselines.json" "$here/baselines.json" ||
		fail "--update does not reproduce the committed baselines"
	;;
bad)
	sed -i '0,/"mfu"/s/"mfu"/"mfuu"/' "$work/baselines.json"
	run
	((rc == 3)) || fail "exit $rc, want 3:
$out"
	grep -q 'baselines.json: /cases/0/metrics/mfuu: unknown key "mfuu" (did you mean "mfu"?)' <<<"$out" ||
		fail "unexpected message: $out"
	rm "$work/baselines.json"
	run
	((rc == 4)) || fail "missing baselines: exit $rc, want 4"
	;;
mape-gate)
	out=$("$bin" validate --summary --max-mape 1 2>&1)
	rc=$?
	((rc == 1)) || fail "validate --max-mape 1: exit $rc, want 1"
	grep -q 'is above --max-mape 1.0 %' <<<"$out" || fail "no gate message: $out"
	out=$("$bin" validate --summary --max-mape "$MAPE_GATE" 2>&1)
	rc=$?
	((rc == 0)) || fail "validate --max-mape $MAPE_GATE (the CI gate): exit $rc:
$(tail -3 <<<"$out")"
	;;
*)
	echo "run_regress: unknown case '$case'" >&2
	exit 2
	;;
esac
echo "ok regress.$case"
