# tests/lib.sh: the prologue the test scripts share (sourced, never run).
#
#   here=$(cd "$(dirname "$0")" && pwd)
#   source "$here/../lib.sh"
#   sc_test_start NAME "STEPCAST CASE" "$@"
#   sc_test_tmpdir tmp NAME
#
# sc_test_start checks the argument count against the usage words (exactly
# that many, or at least that many less one when the last word ends in
# "..."), sets bin (the stepcast binary, $1, made absolute) and root (the
# repository root), changes into root, and clears what the output must not
# depend on: the caller's catalogue directory, bench directory, Slurm array
# variables, locale, colour and time zone.  sc_test_tmpdir VAR NAME makes a
# fresh temporary directory, names it in VAR and removes it on exit.

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)

sc_test_start() {
	local name=$1 usage=$2
	shift 2
	local -a words
	read -r -a words <<<"$usage"
	local want=${#words[@]} ok=1
	if [[ ${words[want - 1]} == *...* ]]; then
		(($# >= want - 1)) || ok=0
	else
		(($# == want)) || ok=0
	fi
	if ((!ok)); then
		echo "usage: $name $usage" >&2
		exit 2
	fi
	bin=$1
	[[ $bin == /* ]] || bin=$PWD/$bin
	if [[ ! -x $bin ]]; then
		echo "$name: $bin: not an executable" >&2
		exit 2
	fi
	cd "$root" || exit 2
	unset STEPCAST_CONFIG_DIR STEPCAST_BENCH_DIR SLURM_ARRAY_TASK_ID SLURM_ARRAY_TASK_COUNT \
		SLURM_ARRAY_TASK_MIN SLURM_ARRAY_TASK_STEP
	export LC_ALL=C NO_COLOR=1 TZ=UTC
}

sc_test_tmpdir() {
	local dir
	dir=$(mktemp -d "${TMPDIR:-/tmp}/stepcast-$2.XXXXXX") || exit 2
	printf -v "$1" %s "$dir"
	# shellcheck disable=SC2064 # the directory is fixed now, on purpose
	trap "rm -rf '$dir'" EXIT
}
