#!/usr/bin/env bash
# run_cli.sh: end-to-end tests of `stepcast calibrate` (registered by
# calibrate/CMakeLists.txt).
#
#   tests/calibrate/run_cli.sh STEPCAST CASE
#
# CASE is one of:
#   ingest-fit-predict  a real nccl-tests log -> `calibrate ingest` -> `calibrate
#                       fit` (into a copy of configs/) -> the same profile as
#                       fitting the log directly -> `calibrate show` -> `predict
#                       --calibration` with it: same stdout shape, a warning on
#                       stderr outside the fitted range and none inside it;
#                       the -J JSON of the same run fits to the same values
#   run                 `calibrate run` without a GPU (or without CUDA) says so
#                       and exits 77; with one it writes measurements JSON
#   bad-input           broken input is refused with the file and line
set -uo pipefail

here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=tests/lib.sh
source "$here/../lib.sh"
sc_test_start run_cli "STEPCAST CASE" "$@"
case=$2
export SOURCE_DATE_EPOCH=1767225600

sc_test_tmpdir work calibrate

fail() {
	echo "FAIL calibrate.$case: $*" >&2
	exit 1
}

# "name value" of every parameter that `calibrate show` prints, to 4
# significant digits: fits of one curve read from its log and from its
# JSON agree that far (the last printed digit of a flat optimum may not).
values() {
	"$bin" calibrate show "$1" | awk '/^  [a-z_0-9]+ +[-0-9.e+]+ /{ printf "%s %.4g\n", $1, $2 }'
}

case $case in
ingest-fit-predict)
	cp -r configs "$work/configs"
	log=tests/calibrate/nccl-allreduce-p5-2nodes.log
	"$bin" calibrate ingest "$log" --output "$work/m.json" 2>"$work/err" ||
		fail "ingest: $(cat "$work/err")"
	grep -q '1 collective curve' "$work/err" || fail "ingest does not summarise: $(cat "$work/err")"
	"$bin" calibrate fit "$work/m.json" --instance p5.48xlarge --name t-from-json \
		--config-dir "$work/configs" >"$work/fit.txt" 2>"$work/err" || fail "fit m.json: $(cat "$work/err")"
	"$bin" calibrate fit "$log" --instance p5.48xlarge --name t-from-log \
		--config-dir "$work/configs" >/dev/null 2>"$work/err" || fail "fit log: $(cat "$work/err")"
	"$bin" calibrate fit tests/calibrate/nccl-allreduce-p5-2nodes.json --instance p5.48xlarge \
		--name t-from-j --config-dir "$work/configs" >/dev/null 2>"$work/err" ||
		fail "fit -J JSON: $(cat "$work/err")"
	for f in t-from-json t-from-log t-from-j; do
		[[ -f $work/configs/calibration/$f.json ]] || fail "no $f.json in the config dir"
	done
	values "$work/configs/calibration/t-from-json.json" >"$work/a"
	values "$work/configs/calibration/t-from-log.json" >"$work/b"
	values "$work/configs/calibration/t-from-j.json" >"$work/c"
	[[ -s $work/a ]] || fail "calibrate show printed no parameters"
	cmp -s "$work/a" "$work/b" || fail "ingest + fit and fit of the log differ: $(diff "$work/a" "$work/b")"
	cmp -s "$work/a" "$work/c" || fail "the text log and its -J JSON fit differently: $(diff "$work/a" "$work/c")"
	grep -q '^  all_reduce 16 ranks (2 x 8) efa .* 487.09 ' "$work/fit.txt" ||
		fail "the fit report lacks the curve's bus bandwidth: $(cat "$work/fit.txt")"
	# refuses to overwrite, replaces with --force
	"$bin" calibrate fit "$log" --instance p5.48xlarge --name t-from-log \
		--config-dir "$work/configs" >/dev/null 2>"$work/err"
	(($? == 2)) && grep -q 'pass --force' "$work/err" || fail "fit overwrote an existing profile"
	"$bin" calibrate fit "$log" --instance p5.48xlarge --name t-from-log --force \
		--config-dir "$work/configs" >/dev/null 2>&1 || fail "--force did not replace"
	# the catalogue loads with the new profiles; predict uses one
	"$bin" catalog calibrations --config-dir "$work/configs" | grep -q t-from-log ||
		fail "catalog does not list the fitted profile"
	"$bin" predict scenarios/llama3-70b-p5en-64.json --config-dir "$work/configs" \
		--calibration t-from-log >"$work/p.out" 2>"$work/p.err" || fail "predict: $(cat "$work/p.err")"
	grep -q '^calibration t-from-log' "$work/p.out" || fail "predict did not use the profile"
	grep -q '^stepcast: warning: .* outside the data profile "t-from-log" was fitted to' "$work/p.err" ||
		fail "no out-of-range warning for 64 nodes: $(cat "$work/p.err")"
	"$bin" predict tests/regress/scenarios/llama3-8b-p5-1node.json --config-dir "$work/configs" \
		--calibration t-from-log >/dev/null 2>"$work/p.err" || fail "predict 1 node"
	[[ ! -s $work/p.err ]] || fail "a one-node scenario (NVLink only, not fitted) warns: $(cat "$work/p.err")"
	# a profile outside any catalogue (fit --output, then --calibration FILE
	# with the source tree's catalogue) predicts as the same profile by name
	mkdir "$work/elsewhere"
	"$bin" calibrate fit "$log" --instance p5.48xlarge --name t-from-log \
		--output "$work/elsewhere/t.json" >/dev/null 2>"$work/err" || fail "fit --output: $(cat "$work/err")"
	"$bin" predict scenarios/llama3-70b-p5en-64.json --calibration "$work/elsewhere/t.json" \
		>"$work/f.out" 2>"$work/f.err" || fail "predict --calibration FILE: $(cat "$work/f.err")"
	cmp -s "$work/p.out" "$work/f.out" ||
		fail "--calibration FILE predicts differently from NAME: $(diff "$work/p.out" "$work/f.out")"
	"$bin" predict tests/regress/scenarios/llama3-8b-p5-1node.json --config-dir "$work/configs" \
		--calibration t-from-log >/dev/null 2>&1 || fail "predict 1 node"
	"$bin" predict scenarios/llama3-70b-p5en-64.json --config-dir "$work/configs" \
		--calibration t-from-log >/dev/null 2>"$work/p.err"
	cmp -s "$work/p.err" "$work/f.err" || fail "--calibration FILE warns differently from NAME"
	# --base takes a FILE too
	"$bin" calibrate fit "$log" --instance p5.48xlarge --name t-on-file --base "$work/elsewhere/t.json" \
		--output "$work/elsewhere/t2.json" >/dev/null 2>"$work/err" || fail "fit --base FILE: $(cat "$work/err")"
	grep -q '"base_profile":[[:space:]]*"t-from-log"' "$work/elsewhere/t2.json" ||
		fail "fit --base FILE: the provenance does not name the base"
	# show: provenance, ranges, fits with residuals
	"$bin" calibrate show "$work/configs/calibration/t-from-log.json" >"$work/show.txt" ||
		fail "show failed"
	grep -q '^created     2026-01-01T00:00:00Z by stepcast' "$work/show.txt" || fail "show: no provenance"
	grep -q 'efa_startup_s .*8-1.718e+10 bytes, 16-16 ranks' "$work/show.txt" || fail "show: no range"
	grep -q '^residuals of all_reduce 16 ranks (2 x 8) efa' "$work/show.txt" || fail "show: no residuals"
	"$bin" calibrate show t-from-log --config-dir "$work/configs" --report-format json >"$work/show.json" ||
		fail "show --report-format json failed"
	grep -q '"schema_version":	2' "$work/show.json" || fail "show --report-format json: no schema_version 2"
	"$bin" calibrate ingest "$work/show.json" >/dev/null 2>"$work/err"
	(($? == 3)) && grep -q 'cannot tell the format' "$work/err" ||
		fail "a profile is not measurements: $(cat "$work/err")"
	;;
run)
	out=$("$bin" calibrate run --quick --output "$work/run.json" 2>&1)
	rc=$?
	if ((rc == 77)); then
		grep -Eq 'no GPU|without CUDA|no CUDA GPU|measured nothing' <<<"$out" ||
			fail "exit 77 without saying why: $out"
		[[ ! -e $work/run.json ]] || fail "exit 77 but wrote measurements"
	elif ((rc == 0)); then
		"$bin" calibrate ingest "$work/run.json" >/dev/null || fail "run wrote JSON that ingest refuses"
	else
		fail "calibrate run: exit $rc: $out"
	fi
	"$bin" calibrate run --bench-dir "$work/none" >/dev/null 2>&1
	(($? == 77)) || fail "run with an empty --bench-dir does not exit 77"
	"$bin" calibrate run extra >/dev/null 2>&1
	(($? == 2)) || fail "run with an argument is not a usage error"
	;;
bad-input)
	check() { # expected exit, expected stderr substring, args...
		local want=$1 msg=$2
		shift 2
		"$bin" "$@" >/dev/null 2>"$work/err"
		local rc=$?
		((rc == want)) || fail "stepcast $*: exit $rc, want $want: $(cat "$work/err")"
		grep -qF -- "$msg" "$work/err" || fail "stepcast $*: stderr lacks '$msg': $(cat "$work/err")"
	}
	head -c 3000 tests/calibrate/nccl-allreduce-p5-2nodes.log >"$work/cut.log"
	check 3 "$work/cut.log: line 32: truncated row: 6 fields where the header has 13" calibrate ingest "$work/cut.log"
	head -n 40 tests/calibrate/nccl-allreduce-p5-2nodes.log >"$work/cut2.log"
	check 3 "truncated log?" calibrate ingest "$work/cut2.log"
	check 3 "pass --collective" calibrate ingest tests/calibrate/nccl-allreduce-p4de-2nodes.log
	head -c 2000 tests/calibrate/nccl-allreduce-p5-2nodes.json >"$work/cut.json"
	check 3 "$work/cut.json: line 1: invalid JSON: the text ends inside an object or array (truncated file?)" \
		calibrate ingest "$work/cut.json"
	printf 'hello\n' >"$work/hello.txt"
	check 3 "cannot tell the format" calibrate ingest "$work/hello.txt"
	check 4 "cannot read" calibrate ingest "$work/missing.log"
	check 2 "unknown collective 'frobnicate'" calibrate ingest x --collective frobnicate
	check 2 "--instance NAME is required" calibrate fit tests/calibrate/nccl-allreduce-p5-2nodes.log --name x
	check 3 'unknown instance "p5.48xlargee" (did you mean "p5.48xlarge"?)' calibrate fit \
		tests/calibrate/nccl-allreduce-p5-2nodes.log --instance p5.48xlargee --name x --output "$work/x.json"
	check 3 "all_reduce ran 4 GPUs per host but p6-b200.48xlarge has 8" calibrate fit tests/calibrate/nccl-allreduce-p5-2nodes.log \
		--instance p6-b200.48xlarge --name x --output "$work/x.json" --base blackwell-default --nodes 4
	check 2 "is not a parameter of the collective model" calibrate fit \
		tests/calibrate/nccl-allreduce-p5-2nodes.log --instance p5.48xlarge --name x --params hbm_eta
	check 2 "--quick is not an option of 'calibrate fit'" calibrate fit x --quick
	check 2 "unknown subcommand 'frob'" calibrate frob
	check 3 'unknown calibration "nope"' calibrate show nope
	check 3 '--base: profile "ampere-default" is for ampere GPUs, but h100-sxm is hopper' calibrate fit \
		tests/calibrate/nccl-allreduce-p5-2nodes.log --instance p5.48xlarge --name x --base ampere-default \
		--output "$work/x.json"
	check 4 "--base: profile \"$work/none.json\": cannot read" calibrate fit \
		tests/calibrate/nccl-allreduce-p5-2nodes.log --instance p5.48xlarge --name x --base "$work/none.json" \
		--output "$work/x.json"
	;;
*)
	echo "run_cli: unknown case '$case'" >&2
	exit 2
	;;
esac
echo "ok calibrate.$case"
