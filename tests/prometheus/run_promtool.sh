#!/usr/bin/env bash
# run_promtool.sh: stepcast's Prometheus output, rules and dashboard against
# the real tools (Debian's prometheus package: promtool).
#
#   tests/prometheus/run_promtool.sh STEPCAST
#
#   - promtool check metrics on `predict`, `serve` and `plan --format prom`
#     (a lint failure or warning fails the test);
#   - promtool check rules and promtool test rules (tests/prometheus/
#     rules_test.yml: input series in NCCL Inspector's and stepcast's shapes,
#     the alerts pending, firing and silent);
#   - the Grafana dashboard through check_dashboard.py, with promtool parsing
#     every panel expression.
# Exit 77 (ctest SKIP_RETURN_CODE) only when promtool or python3 is absent.
set -uo pipefail

here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=tests/lib.sh
source "$here/../lib.sh"
sc_test_start run_promtool "STEPCAST" "$@"
for tool in promtool python3; do
	if ! command -v "$tool" >/dev/null 2>&1; then
		echo "run_promtool: SKIP: $tool is not installed (scripts/deps installs Debian's prometheus package)"
		exit 77
	fi
done
sc_test_tmpdir tmp run_promtool
fail=0
step() { echo "run_promtool: $*"; }

"$bin" predict scenarios/llama3-70b-p5en-64.json --format prom >"$tmp/predict.prom" || fail=1
"$bin" predict scenarios/llama3-8b-32gpu-fsx.json --format prom >"$tmp/predict-goodput.prom" || fail=1
"$bin" predict scenarios/deepseek-v3-p6-b300.json --format prom >"$tmp/predict-moe.prom" || fail=1
"$bin" serve scenarios/serve-llama3-70b-p5en.json --format prom >"$tmp/serve.prom" || fail=1
"$bin" plan scenarios/llama3-70b-p5en-64.json --tokens 1e12 --nodes 64 --format prom >"$tmp/plan.prom" || fail=1
for f in "$tmp"/*.prom; do
	# promtool check metrics: exit 1 on a parse error, and prints lint
	# problems (non-base units, missing HELP) which count as failures here
	out=$(promtool check metrics <"$f" 2>&1)
	rc=$?
	if ((rc != 0)) || [[ -n $out ]]; then
		step "FAIL promtool check metrics $(basename "$f"): $out"
		fail=1
	else
		step "ok promtool check metrics $(basename "$f") ($(grep -c '^# TYPE' "$f") families, $(grep -vc '^#' "$f") samples)"
	fi
done
grep -q 'band="p90"' "$tmp/predict.prom" || { step "FAIL no P90 step time"; fail=1; }
grep -q 'stepcast_predicted_goodput_ratio' "$tmp/predict-goodput.prom" || { step "FAIL no goodput"; fail=1; }
grep -q 'collective="AllToAll"' "$tmp/predict-moe.prom" || { step "FAIL no all-to-all for the MoE"; fail=1; }

if out=$(promtool check rules reports/prometheus/stepcast-rules.yml 2>&1); then
	step "ok promtool check rules: $(echo "$out" | grep -o '[0-9]* rules found')"
else
	step "FAIL promtool check rules: $out"
	fail=1
fi
if out=$(cd tests/prometheus && promtool test rules rules_test.yml 2>&1); then
	step "ok promtool test rules rules_test.yml: $(echo "$out" | grep -o SUCCESS)"
else
	step "FAIL promtool test rules: $out"
	fail=1
fi
if ! python3 tests/prometheus/check_dashboard.py reports/prometheus/grafana-dashboard.json \
	reports/prometheus/stepcast-rules.yml "$tmp"/*.prom --promtool "$(command -v promtool)"; then
	fail=1
fi
exit $fail
