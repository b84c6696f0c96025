#!/usr/bin/env bash
# run_scrape.sh: Prometheus scrapes stepcast's predictions the way a cluster
# would: node_exporter's textfile collector serves a file written by
# `stepcast predict --format prom`, Prometheus (with
# reports/prometheus/stepcast-rules.yml loaded) scrapes it on loopback, and
# the HTTP API returns the predicted values and the recording rules.
#
#   tests/prometheus/run_scrape.sh STEPCAST
#
# Both daemons listen on 127.0.0.1 only, on ports the kernel picks free, keep
# everything in a temporary directory and are stopped by their PIDs.  The
# waits are bounded (60 s each) and assert nothing about time.  Exit 77
# (ctest SKIP_RETURN_CODE) only when prometheus, prometheus-node-exporter,
# curl or python3 is absent (scripts/deps installs them).
set -uo pipefail

here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=tests/lib.sh
source "$here/../lib.sh"
sc_test_start run_scrape "STEPCAST" "$@"
ne=$(command -v prometheus-node-exporter || command -v node_exporter || true)
for tool in prometheus curl python3; do
	command -v "$tool" >/dev/null 2>&1 || { echo "run_scrape: SKIP: $tool is not installed"; exit 77; }
done
[[ -n $ne ]] || { echo "run_scrape: SKIP: prometheus-node-exporter is not installed"; exit 77; }
tmp=$(mktemp -d)
ne_pid= prom_pid=
cleanup() {
	[[ -n $prom_pid ]] && kill "$prom_pid" 2>/dev/null && wait "$prom_pid" 2>/dev/null
	[[ -n $ne_pid ]] && kill "$ne_pid" 2>/dev/null && wait "$ne_pid" 2>/dev/null
	rm -rf "$tmp"
}
trap cleanup EXIT
say() { echo "run_scrape: $*"; }
free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }
api() { curl -sf --max-time 5 "http://127.0.0.1:$prom_port/api/v1/$1" "${@:2}"; }

mkdir -p "$tmp/textfile" "$tmp/data"
# textfile collector convention: write aside, then rename into place
"$bin" predict scenarios/llama3-70b-p5en-64.json --format prom >"$tmp/textfile/stepcast.prom.$$" || exit 1
mv "$tmp/textfile/stepcast.prom.$$" "$tmp/textfile/stepcast.prom"
"$bin" serve scenarios/serve-llama3-70b-p5en.json --format prom >"$tmp/textfile/serve.prom" || exit 1
want=$(sed -n 's/^stepcast_predicted_step_time_seconds{scenario="llama3-70b-p5en-64",band="p90"} //p' \
	"$tmp/textfile/stepcast.prom")

ne_port=$(free_port)
"$ne" --web.listen-address="127.0.0.1:$ne_port" --collector.disable-defaults --collector.textfile \
	--collector.textfile.directory="$tmp/textfile" >"$tmp/ne.log" 2>&1 &
ne_pid=$!
say "node_exporter pid $ne_pid on 127.0.0.1:$ne_port"

prom_port=$(free_port)
cat >"$tmp/prometheus.yml" <<YML
global:
  scrape_interval: 1s
  evaluation_interval: 1s
rule_files:
  - $root/reports/prometheus/stepcast-rules.yml
scrape_configs:
  - job_name: stepcast
    static_configs:
      - targets: ['127.0.0.1:$ne_port']
YML
prometheus --config.file="$tmp/prometheus.yml" --storage.tsdb.path="$tmp/data" \
	--web.listen-address="127.0.0.1:$prom_port" >"$tmp/prom.log" 2>&1 &
prom_pid=$!
say "prometheus pid $prom_pid on 127.0.0.1:$prom_port"

# the scrape: wait (bounded) until the predicted P90 is queryable
got=
for _ in $(seq 1 120); do
	got=$(api query --data-urlencode 'query=stepcast_predicted_step_time_seconds{band="p90"}' 2>/dev/null |
		python3 -c 'import json,sys; r=json.load(sys.stdin)["data"]["result"]; print(r[0]["value"][1] if r else "")' \
		2>/dev/null)
	[[ -n $got ]] && break
	kill -0 "$prom_pid" 2>/dev/null || break
	sleep 0.5
done
fail=0
if [[ -z $got ]]; then
	say "FAIL: Prometheus never returned the scraped prediction"
	tail -5 "$tmp/prom.log" "$tmp/ne.log"
	exit 1
fi
if python3 -c 'import sys; a, b = float(sys.argv[1]), float(sys.argv[2]); sys.exit(abs(a - b) > 1e-9 * abs(b))' "$got" "$want"; then
	say "ok scraped stepcast_predicted_step_time_seconds{band=\"p90\"} = $got (file: $want)"
else
	say "FAIL: scraped $got, the file says $want"
	fail=1
fi
# every family of the files reached Prometheus
for f in "$tmp"/textfile/*.prom; do
	for fam in $(sed -n 's/^# TYPE \([^ ]*\) .*/\1/p' "$f"); do
		n=$(api query --data-urlencode "query=count($fam)" |
			python3 -c 'import json,sys; r=json.load(sys.stdin)["data"]["result"]; print(r[0]["value"][1] if r else 0)')
		if [[ $n == 0 ]]; then
			say "FAIL: $fam from $(basename "$f") is not in Prometheus"
			fail=1
		fi
	done
done
((fail == 0)) && say "ok every family of $(ls "$tmp"/textfile | tr '\n' ' ')is queryable"
# the rules loaded and evaluate on the scraped data
rules=$(api rules | python3 -c '
import json, sys
d = json.load(sys.stdin)["data"]["groups"]
rs = [r for g in d for r in g["rules"]]
print(len(rs), sum(r["health"] == "ok" for r in rs))')
if [[ $rules == "8 8" ]]; then
	say "ok /api/v1/rules: 8 rules loaded, all healthy"
else
	say "FAIL: /api/v1/rules: $rules (rules, healthy); want 8 8"
	fail=1
fi
mb=
for _ in $(seq 1 120); do
	mb=$(api query --data-urlencode 'query=stepcast:predicted_bus_bandwidth:min_bytes_per_second{collective="ReduceScatter"}' |
		python3 -c 'import json,sys; r=json.load(sys.stdin)["data"]["result"]; print(r[0]["value"][1] if r else "")')
	[[ -n $mb ]] && break
	sleep 0.5
done
if [[ -n $mb ]]; then
	say "ok recording rule stepcast:predicted_bus_bandwidth:min_bytes_per_second{collective=\"ReduceScatter\"} = $mb"
else
	say "FAIL: the recording rule never produced a sample"
	fail=1
fi
# stop both by PID and check they are gone
kill "$prom_pid" && wait "$prom_pid" 2>/dev/null
kill "$ne_pid" && wait "$ne_pid" 2>/dev/null
if kill -0 "$prom_pid" 2>/dev/null || kill -0 "$ne_pid" 2>/dev/null; then
	say "FAIL: a daemon survived its SIGTERM"
	fail=1
else
	say "ok stopped prometheus ($prom_pid) and node_exporter ($ne_pid)"
fi
prom_pid= ne_pid=
exit $fail
