#!/usr/bin/env bash
# check_html.sh: the HTML report renders in a real browser with its charts.
#
#   tests/report/check_html.sh STEPCAST
#
# Writes the compare report of scenarios/llama3-70b-p5en-64.json on six
# instance types as HTML, checks that it is self-contained (no script, no
# reference to the network), renders it with headless Chromium (Debian
# package chromium) into a screenshot and a dump of the rendered DOM, and
# checks that the screenshot is not blank and shows the charts
# (tests/report/check_png.py) and that the DOM holds the three charts with
# their bars, points, Pareto frontier, scaling lines and axis titles.
# Exit 77 (skipped) only when chromium or python3 is not installed, i.e.
# where scripts/deps could not install them.
set -uo pipefail

here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=tests/lib.sh
source "$here/../lib.sh"
sc_test_start check_html "STEPCAST" "$@"

browser=$(command -v chromium || command -v chromium-browser || true)
if [[ -z $browser ]]; then
	echo "check_html: skipped: chromium is not installed (Debian package chromium; scripts/deps installs it)"
	exit 77
fi
if ! command -v python3 >/dev/null; then
	echo "check_html: skipped: python3 is not installed (scripts/deps installs it)"
	exit 77
fi

sc_test_tmpdir tmp html
fail() {
	echo "check_html: FAIL: $*" >&2
	exit 1
}

html=$tmp/report.html
"$bin" compare scenarios/llama3-70b-p5en-64.json \
	--instances p4d.24xlarge,p5.48xlarge,p5e.48xlarge,p5en.48xlarge,p6-b200.48xlarge,p6-b300.48xlarge \
	--format html --output "$html" || fail "stepcast compare --format html failed"

# self-contained: no script, nothing fetched
grep -qi '<script' "$html" && fail "the report contains a <script>"
grep -Eqi '(src|href)="(https?:)?//' "$html" && fail "the report references the network"
grep -Eqi '@import|url\(' "$html" && fail "the report's style loads something"

W=1200 H=2600
flags=(--headless --no-sandbox --disable-gpu --no-first-run --disable-background-networking
       --disable-component-update --disable-sync --hide-scrollbars --user-data-dir="$tmp/profile")
timeout 120 "$browser" "${flags[@]}" --window-size=$W,$H --screenshot="$tmp/shot.png" \
	"file://$html" >"$tmp/chromium.log" 2>&1 ||
	{ cat "$tmp/chromium.log" >&2; fail "chromium --screenshot failed"; }
[[ -s $tmp/shot.png ]] || { cat "$tmp/chromium.log" >&2; fail "chromium wrote no screenshot"; }
rm -rf "$tmp/profile"
timeout 120 "$browser" "${flags[@]}" --dump-dom "file://$html" >"$tmp/dom.html" 2>"$tmp/chromium.log" ||
	{ cat "$tmp/chromium.log" >&2; fail "chromium --dump-dom failed"; }

python3 "$here/check_png.py" "$tmp/shot.png" $W $H || fail "the screenshot does not show the report"

# the rendered DOM: three charts and their parts
count() { grep -o "$1" "$tmp/dom.html" | wc -l; }
for id in chart-breakdown chart-cost-time chart-scaling; do
	(($(count "<svg id=\"$id\"") == 1)) || fail "no <svg id=\"$id\"> in the rendered page"
done
(($(count 'class="bar part-compute"') == 6)) || fail "expected 6 compute bars, found $(count 'class="bar part-compute"')"
(($(count '<rect class="bar ') >= 18)) || fail "too few stacked-bar segments"
(($(count '<circle class="point') >= 36)) || fail "too few points in the scatter and scaling charts"
(($(count '<path class="pareto"') == 1)) || fail "no Pareto frontier"
(($(count 'class="point on-pareto') >= 2)) || fail "no point marked on the Pareto frontier"
(($(count '<path class="scaling-line"') == 6)) || fail "expected 6 scaling lines"
for title in 'step time (s)' 'time to train (days, log scale)' 'cost to train (USD, on-demand)' \
	'throughput (tokens/s, log scale)' 'nodes (instances, log scale)'; do
	grep -qF ">$title</text>" "$tmp/dom.html" || fail "no axis title \"$title\""
done
grep -Eq 'fastest: [a-z0-9-]+\.[0-9]+xlarge' "$tmp/dom.html" || fail "the decision does not name the fastest instance type"
grep -q 'cheapest on-demand: ' "$tmp/dom.html" || fail "the decision does not name the cheapest"
grep -q '2026-0[0-9]-[0-9][0-9]' "$tmp/dom.html" || fail "the prices carry no date"
echo "check_html: the report renders in $("$browser" --version 2>/dev/null | head -n 1) with its three charts"
