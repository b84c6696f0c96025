#!/usr/bin/env bash
# run_examples.sh: the example reports in reports/examples/ are current.
#
#   tests/report/run_examples.sh STEPCAST
#
# Each line of reports/examples/examples.txt names a FILE and the stepcast
# ARGUMENTS that make it (split at whitespace, run from the repository
# root).  The file must match the current output, numbers within a relative
# tolerance (GOLDEN_RTOL, default 1e-6, tests/golden/numdiff.awk) and all
# other text exactly.  GOLDEN_UPDATE=1 rewrites the files instead.
set -uo pipefail

here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=tests/lib.sh
source "$here/../lib.sh"
sc_test_start run_examples "STEPCAST" "$@"
rtol=${GOLDEN_RTOL:-1e-6}
dir=reports/examples
sc_test_tmpdir tmp examples

failed=0 n=0
while read -r file args; do
	[[ -z $file || $file == \#* ]] && continue
	n=$((n + 1))
	read -r -a argv <<<"$args"
	if ! "$bin" "${argv[@]}" >"$tmp/$file" 2>"$tmp/$file.err"; then
		echo "FAIL $file: stepcast $args failed:" >&2
		cat "$tmp/$file.err" >&2
		failed=$((failed + 1))
		continue
	fi
	if [[ ${GOLDEN_UPDATE:-0} == 1 ]]; then
		cp "$tmp/$file" "$dir/$file"
		echo "updated $dir/$file"
		continue
	fi
	if [[ ! -f $dir/$file ]]; then
		echo "FAIL $file: no $dir/$file (make it with GOLDEN_UPDATE=1 $0 $bin)" >&2
		failed=$((failed + 1))
	elif ! awk -v rtol="$rtol" -f tests/golden/numdiff.awk "$dir/$file" "$tmp/$file" >"$tmp/report"; then
		echo "FAIL $file: $dir/$file is not what 'stepcast $args' prints now:" >&2
		head -n 30 "$tmp/report" >&2
		echo "(if the change is intended: GOLDEN_UPDATE=1 $0 $bin)" >&2
		failed=$((failed + 1))
	else
		echo "ok   $file"
	fi
done <"$dir/examples.txt"
((n > 0)) || { echo "run_examples: no examples listed in $dir/examples.txt" >&2; exit 1; }
((failed == 0)) || { echo "$failed of $n example report(s) are stale" >&2; exit 1; }
echo "$n example reports are current"
