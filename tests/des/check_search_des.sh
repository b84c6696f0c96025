#!/usr/bin/env bash
# check_search_des.sh: every layout a search recommends runs in the DES and
# agrees with it.
#
#   tests/des/check_search_des.sh STEPCAST TOLERANCE_PCT SCENARIO...
#
# For each scenario: `stepcast search SCENARIO --top 10 --rerank 10`, which
# simulates each of the ten best layouts with the discrete-event engine.
# Fails when the search fails, when any layout does not run in the DES
# ("keeps its analytical time"), or when a layout's DES step time differs
# from its analytical one by more than TOLERANCE_PCT percent.  Prints one
# line per layout (scenario, enumeration index, both times, difference).
set -uo pipefail

if (($# < 3)); then
	echo "usage: $0 STEPCAST TOLERANCE_PCT SCENARIO..." >&2
	exit 2
fi
bin=$1 tol=$2
shift 2
export LC_ALL=C NO_COLOR=1
unset STEPCAST_CONFIG_DIR
work=$(mktemp -d "${TMPDIR:-/tmp}/stepcast-sdes.XXXXXX") || exit 2
trap 'rm -rf "$work"' EXIT

failed=0 worst=0
for sc in "$@"; do
	if ! "$bin" search "$sc" --top 10 --rerank 10 >"$work/out" 2>"$work/err"; then
		echo "FAIL $sc: search exited $?:" >&2
		cat "$work/err" >&2
		failed=1
		continue
	fi
	if grep -q "keeps its analytical time" "$work/err"; then
		echo "FAIL $sc: a recommended layout does not run in the DES:" >&2
		grep "keeps its analytical time" "$work/err" >&2
		failed=1
	fi
	n=$(grep -c ": .* s analytical, .* s des$" "$work/err")
	if ((n != 10)); then
		echo "FAIL $sc: $n of 10 layouts simulated" >&2
		failed=1
	fi
	# "stepcast: search: --rerank: layout 15774: 6.559 s analytical, 7.11 s des"
	res=$(awk -v sc="$sc" -v tol="$tol" '
		/ s analytical, .* s des$/ {
			idx = $5; sub(/:$/, "", idx); a = $6; d = $9
			diff = (d - a) / a * 100
			printf "%s layout %s: analytical %.4g s, des %.4g s, %+.1f %%\n", sc, idx, a, d, diff
			if (diff < 0) diff = -diff
			if (diff > worst) worst = diff
			if (diff > tol) bad++
		}
		END { printf "WORST %.2f %d\n", worst, bad + 0 }' "$work/err")
	printf '%s\n' "$res" | grep -v '^WORST'
	read -r _ w bad <<<"$(printf '%s\n' "$res" | grep '^WORST')"
	if ((bad > 0)); then
		echo "FAIL $sc: $bad layout(s) differ by more than $tol % (worst $w %)" >&2
		failed=1
	fi
	worst=$(awk -v a="$worst" -v b="$w" 'BEGIN { print (b > a ? b : a) }')
done
echo "check_search_des: worst difference $worst % over $# scenario(s)"
exit $failed
