#!/usr/bin/env bash
# tests/install/run_install.sh: `cmake --install` into a temporary prefix,
# then use what it installed from a directory outside the source tree: the
# binary (predict, search, serve, validate, calibrate show, the man pages),
# the data it finds relative to its own prefix ($STEPCAST_DATADIR
# overriding), a relocated copy of the prefix, and the public library:
# examples/predict.c built once through `pkg-config stepcast` and once
# through CMake's find_package(stepcast), each printing the numbers the
# installed CLI predicts.
#
#   run_install.sh BUILD_DIR SOURCE_DIR
set -euo pipefail

build=$(cd "${1:?usage: run_install.sh BUILD_DIR SOURCE_DIR}" && pwd)
src=$(cd "${2:?}" && pwd)
tmp=$(mktemp -d /tmp/stepcast-install.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
prefix=$tmp/prefix
fail() { echo "run_install.sh: FAIL: $*" >&2; exit 1; }
say() { echo "run_install.sh: $*"; }

# The installed tree must not lean on the build or source tree.
unset STEPCAST_DATADIR STEPCAST_CONFIG_DIR STEPCAST_VALIDATION_DIR STEPCAST_BENCH_DIR
export NO_COLOR=1

cmake --install "$build" --prefix "$prefix" >"$tmp/install.log"
say "installed $(grep -c '^-- Installing' "$tmp/install.log") files into $prefix"
libdir=$(cd "$prefix" && ls -d lib*/pkgconfig | head -1)
libdir=${libdir%/pkgconfig}
for f in bin/stepcast "$libdir/libstepcast.so.0" "$libdir/libstepcast.a" include/stepcast/stepcast.h \
	include/stepcast/status.h "$libdir/pkgconfig/stepcast.pc" "$libdir/cmake/stepcast/stepcastConfig.cmake" \
	"$libdir/cmake/stepcast/stepcastConfigVersion.cmake" share/stepcast/configs/gpus.json \
	share/stepcast/scenarios/quickstart.json share/stepcast/validation/training-cases.json \
	share/stepcast/regress/baselines.json share/man/man1/stepcast.1 share/man/man1/stepcast-predict.1 \
	share/doc/stepcast/README.md; do
	[[ -e $prefix/$f ]] || fail "not installed: $f"
done
# one page per command of `stepcast --help`
while read -r cmd _; do
	[[ -s $prefix/share/man/man1/stepcast-$cmd.1 ]] || fail "no man page for $cmd"
done < <("$prefix/bin/stepcast" --help | awk '/^commands:/ { on = 1; next } on && NF == 0 { exit } on')
# no path of the source tree's data compiled in (debug info names sources)
if grep -aqF -e "$src/configs" -e "$src/tests/validation" "$prefix/bin/stepcast" "$prefix/$libdir/libstepcast.so.0"; then
	fail "a source-tree data path is compiled into the installed binary or library"
fi

mkdir "$tmp/work" && cd "$tmp/work"
sc=$prefix/share/stepcast/scenarios
stepcast=$prefix/bin/stepcast
$stepcast predict "$sc/quickstart.json" >predict.txt || fail "predict"
# the same prediction as the build tree's binary with the source catalogue
(cd "$src" && "$build/stepcast" predict scenarios/quickstart.json) >predict-build.txt
diff predict-build.txt predict.txt >/dev/null || fail "installed predict differs from the build tree's"
say "predict: $(grep -m1 '^step' predict.txt)"
$stepcast search "$sc/quickstart.json" --top 3 >search.txt || fail "search"
say "search: $(grep -c . search.txt) lines"
$stepcast serve "$sc/serve-llama3-70b-p5en.json" >serve.txt || fail "serve"
say "serve: $(grep -c . serve.txt) lines"
$stepcast validate --summary >validate.txt || fail "validate"
say "validate: $(awk '$1 == "all" && $2 == "all" { print "MAPE " $5 " % over " $4 " cases"; exit }' validate.txt)"
$stepcast calibrate show hopper-default >calibrate.txt || fail "calibrate show"
say "calibrate show: $(head -1 calibrate.txt)"
$stepcast regress >regress.txt || fail "regress (installed baselines)"
say "regress: $(tail -1 regress.txt)"
man -l "$prefix/share/man/man1/stepcast-predict.1" 2>/dev/null | grep -q "predict one training step" ||
	[[ ! -x $(command -v man) ]] || fail "man page does not render"

# $STEPCAST_DATADIR overrides: a missing one is a clear error, not a crash
rc=0
STEPCAST_DATADIR=$tmp/nowhere $stepcast predict "$sc/quickstart.json" 2>err.txt >/dev/null || rc=$?
((rc != 0)) && grep -qF "$tmp/nowhere/configs" err.txt || fail "STEPCAST_DATADIR not honoured ($(cat err.txt))"
say "STEPCAST_DATADIR=$tmp/nowhere: exit $rc, $(head -1 err.txt)"

# the prefix can move
mv "$prefix" "$tmp/moved"
"$tmp/moved/bin/stepcast" predict "$tmp/moved/share/stepcast/scenarios/quickstart.json" >moved.txt ||
	fail "relocated prefix"
diff predict.txt moved.txt >/dev/null || fail "relocated predict differs"
mv "$tmp/moved" "$prefix"
say "relocated prefix: same prediction"

# the public API through pkg-config (shared library)
cli_json=$($stepcast predict --format json "$sc/quickstart.json")
want=$(awk -F'[:,]' '/"step_time_s"/ && !s { printf "step_time_s=%.6g", $2; s = 1 }
	/"tokens_per_s"/ && !t { printf " tokens_per_s=%.6g", $2; t = 1 }
	/"mfu"/ && !m { printf " mfu=%.4f", $2; m = 1 }' <<<"$cli_json")
export PKG_CONFIG_PATH=$prefix/$libdir/pkgconfig
cc -std=c11 -Wall -Wextra -Werror "$src/examples/predict.c" $(pkg-config --cflags stepcast) \
	$(pkg-config --libs stepcast) -Wl,-rpath,"$(pkg-config --variable=libdir stepcast)" -o predict-pc ||
	fail "examples/predict.c does not build with pkg-config"
got=$(./predict-pc "$sc/quickstart.json") || fail "predict-pc"
say "pkg-config $(pkg-config --modversion stepcast): $got"
[[ $got == "$want" ]] || fail "pkg-config example printed '$got', the CLI predicts '$want'"
linked=$(ldd ./predict-pc | awk '$1 == "libstepcast.so.0" { print $3 }')
[[ -n $linked && $(readlink -f "$linked") == $(readlink -f "$prefix/$libdir/libstepcast.so.0") ]] ||
	fail "predict-pc not linked to the installed libstepcast.so ($linked)"
# errors as values: a bad scenario names its file, no abort
sed 's/"nodes": 1/"nodes": "one"/' "$sc/quickstart.json" >bad.json
rc=0
./predict-pc bad.json 2>bad.err || rc=$?
((rc == 1)) && grep -q "^predict: bad.json: /cluster/nodes: " bad.err || fail "bad scenario: exit $rc, $(cat bad.err)"
say "pkg-config example on a bad scenario: exit $rc, $(cat bad.err)"
# the static archive too (pkg-config --static); a program outside the
# prefix is told where the data is
cc -std=c11 -Wall -Werror "$src/examples/predict.c" $(pkg-config --cflags stepcast) "$prefix/$libdir/libstepcast.a" \
	$(pkg-config --static --libs stepcast | sed 's/ -lstepcast / /') -o predict-static || fail "static link"
got=$(STEPCAST_DATADIR=$prefix/share/stepcast ./predict-static "$sc/quickstart.json") || fail "static example"
[[ $got == "$want" ]] || fail "static example printed '$got', the CLI predicts '$want'"
say "static libstepcast.a + STEPCAST_DATADIR: $got"

# the public API through CMake's find_package
cmake -S "$src/examples" -B example-build -DCMAKE_PREFIX_PATH="$prefix" -DCMAKE_BUILD_TYPE=Release \
	>cmake.log 2>&1 || { cat cmake.log; fail "find_package(stepcast)"; }
cmake --build example-build >>cmake.log 2>&1 || { cat cmake.log; fail "examples/CMakeLists.txt build"; }
got=$(./example-build/predict "$sc/quickstart.json") || fail "find_package example"
say "find_package: $got"
[[ $got == "$want" ]] || fail "find_package example printed '$got', the CLI predicts '$want'"
say "all passed"
