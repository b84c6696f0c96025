#!/usr/bin/env bash
# check_docs.sh: the CLI's surface is documented: in --help, in the
# generated pages docs/commands/CMD.md, and in README.md.
#
#   tests/docs/check_docs.sh STEPCAST
#
# From the sources, from the repository root:
#   - every subcommand of the table in sim/cli/main.c ({ "NAME", cmd_... })
#     must appear in README.md as `stepcast NAME` with a link to its page
#     docs/commands/NAME.md, and in `stepcast --help` as an indented line
#     starting with NAME;
#   - every long option of every `static const struct option` or
#     `static const struct cli_opt` table in sim/cli/cmd_CMD.c must appear
#     as --OPTION in docs/commands/CMD.md and in `stepcast CMD --help`;
#   - every option line of `stepcast CMD --help` ("  -f, --format FMT",
#     "      --quiet": the help made from the option table, shared groups
#     included) must appear as --OPTION in docs/commands/CMD.md (the page
#     scripts/gen-command-docs writes; unit.command_docs checks it is current);
#   - every exit code EXIT_* = N in sim/cli/cli.h must have a row `| N |` in
#     README.md and an indented line starting with N in `stepcast --help`;
#   - every guide docs/*.md is linked from README.md (what moved out of the
#     README stays reachable from it).
# Prints every omission and fails when there is one.
set -uo pipefail

here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=tests/lib.sh
source "$here/../lib.sh"
sc_test_start check_docs "STEPCAST" "$@"

missing=0
miss() {
	echo "undocumented: $*" >&2
	missing=$((missing + 1))
}

readme=README.md
if [[ ! -f $readme ]]; then
	echo "check_docs: no $readme" >&2
	exit 1
fi

# Match a literal string as a whole word (escape regex metacharacters).
quote() { printf '%s' "$1" | sed 's/[][\.*^$+?(){}|/]/\\&/g'; }

main_help=$("$bin" --help 2>&1) || { echo "check_docs: stepcast --help failed" >&2; exit 1; }

commands=$(sed -n 's/^[[:space:]]*{ *"\([a-z][a-z0-9-]*\)", *cmd_[a-z_]*,.*/\1/p' sim/cli/main.c)
if [[ -z $commands ]]; then
	echo "check_docs: found no subcommands in sim/cli/main.c (has the table's layout changed?)" >&2
	exit 1
fi
n_cmd=0
for cmd in $commands; do
	n_cmd=$((n_cmd + 1))
	q=$(quote "$cmd")
	grep -Eq "stepcast $q([^a-z0-9-]|\$)" "$readme" ||
		miss "subcommand '$cmd' is not in $readme (as \`stepcast $cmd\`)"
	grep -Fq "(docs/commands/$cmd.md)" "$readme" ||
		miss "subcommand '$cmd': $readme does not link its page docs/commands/$cmd.md"
	grep -Eq "^ +$q( |\$)" <<<"$main_help" ||
		miss "subcommand '$cmd' is not in the output of 'stepcast --help'"
done

# --OPT as a whole word on stdin
n_opt=0
has_opt() {
	grep -Eq -- "--$(quote "$1")([^a-z0-9-]|\$)"
}
for src in sim/cli/cmd_*.c; do
	cmd=${src##*/cmd_}
	cmd=${cmd%.c}
	opts=$(awk '/static const struct (option|cli_opt)/ { on = 1; next }
		    on && /};/ { on = 0 }
		    on && match($0, /\{ *"[^"]+"/) {
			    s = substr($0, RSTART, RLENGTH); sub(/^\{ *"/, "", s); sub(/"$/, "", s); print s
		    }' "$src")
	[[ -n $opts ]] || continue
	page=docs/commands/$cmd.md
	if [[ ! -f $page ]]; then
		miss "'stepcast $cmd' has no page $page (scripts/gen-command-docs writes it)"
		continue
	fi
	if ! help=$("$bin" "$cmd" --help 2>&1); then
		miss "'stepcast $cmd --help' fails (from $src)"
		continue
	fi
	for opt in $opts; do
		n_opt=$((n_opt + 1))
		has_opt "$opt" <"$page" || miss "option --$opt of '$cmd' ($src) is not in $page"
		has_opt "$opt" <<<"$help" || miss "option --$opt is not in the output of 'stepcast $cmd --help'"
	done
	for opt in $(sed -n 's/^  \(-[A-Za-z0-9], \|    \)--\([a-z0-9][a-z0-9-]*\).*/\2/p' <<<"$help" | sort -u); do
		grep -qx -- "$opt" <<<"$opts" && continue
		n_opt=$((n_opt + 1))
		has_opt "$opt" <"$page" || miss "option --$opt of 'stepcast $cmd --help' is not in $page"
	done
done

codes=$(sed -n 's/^[[:space:]]*EXIT_[A-Z_]* *= *\([0-9][0-9]*\).*/\1/p' sim/cli/cli.h)
if [[ -z $codes ]]; then
	echo "check_docs: found no EXIT_* codes in sim/cli/cli.h" >&2
	exit 1
fi
n_code=0
for code in $codes; do
	n_code=$((n_code + 1))
	grep -Eq "^\| *\`?$code\`? *\|" "$readme" ||
		miss "exit code $code is not in $readme's exit-code table (a row '| $code | ... |')"
	grep -Eq "^ +$code +[^ ]" <<<"$main_help" ||
		miss "exit code $code is not in the output of 'stepcast --help'"
done

n_doc=0
for doc in docs/*.md; do
	n_doc=$((n_doc + 1))
	grep -Fq "($doc)" "$readme" || grep -Fq "($doc#" "$readme" ||
		miss "guide $doc is not linked from $readme"
done

if ((missing)); then
	echo "check_docs: $missing omission(s)" >&2
	exit 1
fi
echo "check_docs: $n_cmd subcommands, $n_opt options, $n_code exit codes, $n_doc guides documented"
