#!/usr/bin/env bash
# check_command_docs.sh: docs/commands/ is what scripts/gen-command-docs
# writes from today's --help (one page per command, made from the option
# tables): a new option, command or exit code shows up there, or this fails.
#
#   tests/docs/check_command_docs.sh STEPCAST
set -uo pipefail

here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=tests/lib.sh
source "$here/../lib.sh"
sc_test_start check_command_docs "STEPCAST" "$@"
sc_test_tmpdir tmp cmddocs
bash scripts/gen-command-docs "$bin" "$tmp/commands" >/dev/null || exit 1
if ! diff -r "$tmp/commands" docs/commands >"$tmp/diff"; then
	head -40 "$tmp/diff" >&2
	echo "check_command_docs: docs/commands is out of date: run scripts/gen-command-docs build/stepcast" >&2
	exit 1
fi
echo "check_command_docs: $(ls docs/commands | wc -l) pages as --help prints them"
