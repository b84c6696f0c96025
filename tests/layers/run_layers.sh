#!/usr/bin/env bash
# tests/layers/run_layers.sh: the layer check (scripts/check-layers) passes
# on the tree, and fails, naming file, line and layers, on a copy of the
# tree with deliberate upward includes.
#
#   run_layers.sh LAYERS_TXT tree|upward
#
# Runs from the source root (ctest's working directory).
set -euo pipefail

table=${1:?usage: run_layers.sh LAYERS_TXT tree|upward}
case ${2:?} in
tree)
	exec bash scripts/check-layers "$table" .
	;;
upward)
	tmp=$(mktemp -d)
	trap 'rm -rf "$tmp"' EXIT
	# a copy of every layer's directory (the table's second column)
	for d in $(awk -F'|' '!/^#/ { print $2 }' "$table"); do
		mkdir -p "$tmp/$d"
		cp -p "$d"/*.[ch] "$tmp/$d"/ 2>/dev/null || true
		cp -p "$d"/*.cpp "$tmp/$d"/ 2>/dev/null || true
	done
	# a pure model reaching for the CLI, an engine for a renderer
	printf '#include "../sim/cli/cli.h"\n' >>"$tmp/models/status.c"
	line_models=$(wc -l <"$tmp/models/status.c")
	printf '#include "../../reports/rpt_des.h"\n' >>"$tmp/sim/des/des.c"
	line_des=$(wc -l <"$tmp/sim/des/des.c")
	# and a file of no layer
	mkdir -p "$tmp/elsewhere" && : >"$tmp/elsewhere/x.h"
	printf '#include "../elsewhere/x.h"\n' >>"$tmp/models/gpu.h"
	rc=0
	out=$(bash scripts/check-layers "$table" "$tmp") || rc=$?
	printf '%s\n' "$out"
	fail() { echo "run_layers.sh: FAIL: $*" >&2; exit 1; }
	((rc == 1)) || fail "check-layers exited $rc on upward includes, expected 1"
	grep -qF "models/status.c:$line_models: layer 'models' includes sim/cli/cli.h of layer 'cli', which is above it" <<<"$out" ||
		fail "models -> cli not reported"
	grep -qF "sim/des/des.c:$line_des: layer 'des' includes reports/rpt_des.h of layer 'reports', which is above it" <<<"$out" ||
		fail "des -> reports not reported"
	grep -qF "models/gpu.h:" <<<"$out" && grep -qF "includes elsewhere/x.h, which is in no layer" <<<"$out" ||
		fail "include of a file in no layer not reported"
	grep -qF "check-layers: 3 upward include(s)" <<<"$out" || fail "summary line wrong"
	echo "run_layers.sh: upward includes caught"
	;;
*)
	echo "run_layers.sh: unknown case '$2'" >&2
	exit 2
	;;
esac
