#!/usr/bin/env bash
# run_output.sh: every output file is written so that nothing is lost
# (sim/cli/cli_output.h): an existing character device or FIFO is written in
# place and never replaced, a symlink is followed (the link stays), a
# directory is refused, a failed write or a fitted profile that does not load
# leaves the old file as it was and no temporary file behind, and a full
# disk is an error (exit 4).  The full-disk case mounts a 16 KiB tmpfs when
# run as root and skips that part otherwise.
#
#   tests/output/run_output.sh STEPCAST
set -uo pipefail
export SOURCE_DATE_EPOCH=1700000000

bin=$1
[[ $bin == /* ]] || bin=$PWD/$bin
root=$(cd "$(dirname "$0")/../.." && pwd)
cd "$root" || exit 2
work=$(mktemp -d "${TMPDIR:-/tmp}/stepcast-output.XXXXXX") || exit 2
mounted=
cleanup() {
	[[ -n $mounted ]] && umount "$work/small" 2>/dev/null
	rm -rf "$work"
}
trap cleanup EXIT
failed=0
fail() {
	echo "FAIL: $*" >&2
	failed=1
}
search=(search scenarios/quickstart.json --top 3)
nleft() { find "$1" -name '*.tmp.*' | wc -l; }

# character devices: as root, private copies of /dev/null and /dev/full (a
# broken binary run as root must not replace the system's); otherwise the
# real ones, which a user cannot replace
null=/dev/null full=/dev/full
if [[ $(id -u) == 0 ]] && mknod "$work/null" c 1 3 2>/dev/null && mknod "$work/full" c 1 7 2>/dev/null; then
	null=$work/null full=$work/full
elif [[ $(id -u) == 0 ]]; then
	null= full=
	echo "run_output: root without mknod: device cases skipped" >&2
fi

# a character device: written in place, never replaced
if [[ -n $null ]]; then
	"$bin" "${search[@]}" --output "$null" 2>"$work/err" || fail "--output $null: $(cat "$work/err")"
	[[ -c $null ]] || fail "$null is no longer a character device"
fi

# a FIFO: written in place, the reader gets the report
mkfifo "$work/fifo"
timeout 60 cat "$work/fifo" >"$work/fifo.read" &
reader=$!
"$bin" "${search[@]}" --output "$work/fifo" 2>"$work/err" || fail "--output FIFO: $(cat "$work/err")"
{ sleep 1; kill "$reader" 2>/dev/null; } &
wait "$reader"
[[ -p $work/fifo ]] || fail "the FIFO was replaced by $(stat -c %F "$work/fifo")"
grep -q 'quickstart' "$work/fifo.read" || fail "the FIFO's reader got no report"

# a symlink: followed; the link stays a link
echo old >"$work/real.txt"
ln -s real.txt "$work/link.txt"
"$bin" "${search[@]}" --output "$work/link.txt" 2>"$work/err" || fail "--output symlink: $(cat "$work/err")"
[[ -L $work/link.txt ]] || fail "the symlink was replaced by a regular file"
grep -q 'quickstart' "$work/real.txt" || fail "the symlink's target was not written"

# a directory: refused, exit 4
mkdir "$work/dir"
"$bin" "${search[@]}" --output "$work/dir" 2>"$work/err"
rc=$?
((rc == 4)) || fail "--output DIR: exit $rc, want 4"
grep -q 'is a directory' "$work/err" || fail "--output DIR: $(cat "$work/err")"

# a mode is kept when a file is replaced
echo old >"$work/mode.txt"
chmod 640 "$work/mode.txt"
"$bin" "${search[@]}" --output "$work/mode.txt" 2>/dev/null
[[ $(stat -c %a "$work/mode.txt") == 640 ]] || fail "the replaced file's mode is $(stat -c %a "$work/mode.txt"), want 640"

# calibrate fit of measurements with one row timed at 1e294 s (r2 was not a
# number and the profile did not load): the measurements reader refuses the
# row by its JSON pointer (plausibility ranges, calibrate/cal_measure.c),
# the old profile stays and no temporary file is left (a non-finite number
# reaching a profile would be an internal error, sim/config/rpt_num.h, with
# the same guarantees)
cp -r configs "$work/configs"
old=$work/configs/calibration/p5-efa-nccltests.json
cp "$old" "$work/old.json"
"$bin" calibrate ingest tests/calibrate/nccl-allreduce-p5-2nodes.log --output "$work/m.json" 2>/dev/null ||
	fail "ingest of the p5 log"
python3 - "$work/m.json" "$work/huge.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
def walk(x):
    if isinstance(x, dict):
        for v in x.values():
            if isinstance(v, list) and v and isinstance(v[0], dict) and 'time_s' in v[0]:
                v[17]['time_s'] = 1e294
                return True
            if walk(v):
                return True
    elif isinstance(x, list):
        return any(walk(v) for v in x)
    return False
assert walk(d)
json.dump(d, open(sys.argv[2], 'w'))
PY
"$bin" calibrate fit "$work/huge.json" --instance p5.48xlarge --name p5-efa-nccltests --force \
	--config-dir "$work/configs" >/dev/null 2>"$work/err"
rc=$?
((rc == 3)) || fail "fit of a bad log: exit $rc, want 3: $(cat "$work/err")"
grep -q '/points/17/time_s: expected a number from 0 to 1000, got 1e+294' "$work/err" ||
	fail "fit of a bad log: $(cat "$work/err")"
cmp -s "$old" "$work/old.json" || fail "a failed fit replaced the old profile"
(($(nleft "$work/configs") == 0)) || fail "a failed fit left a temporary file"
"$bin" predict scenarios/quickstart.json --config-dir "$work/configs" >/dev/null 2>"$work/err" ||
	fail "the catalogue does not load after a failed fit: $(cat "$work/err")"

# rows out of order in size: sorted, the fit succeeds
python3 - "$work/unsorted.log" <<'PY'
import sys
lines = open('tests/calibrate/nccl-allreduce-p5-2nodes.log').read().split('\n')
rows = [i for i, l in enumerate(lines) if l.startswith('0: ') and len(l.split()) > 10 and l.split()[1].isdigit()]
a, b = rows[5], rows[15]
lines[a], lines[b] = lines[b], lines[a]
open(sys.argv[1], 'w').write('\n'.join(lines))
PY
"$bin" calibrate fit "$work/unsorted.log" --instance p5.48xlarge --name unsorted \
	--config-dir "$work/configs" >/dev/null 2>"$work/err" || fail "fit of unsorted rows: $(cat "$work/err")"
cp tests/calibrate/nccl-allreduce-p5-2nodes.log "$work/sorted.log"
"$bin" calibrate fit "$work/sorted.log" --instance p5.48xlarge --name sorted \
	--config-dir "$work/configs" >/dev/null 2>"$work/err" || fail "fit of sorted rows: $(cat "$work/err")"
cmp -s <(sed 's/unsorted/X/g' "$work/configs/calibration/unsorted.json") \
	<(sed 's/sorted/X/g' "$work/configs/calibration/sorted.json") ||
	fail "rows out of order fit differently from sorted rows"

# /dev/full: every write fails; exit 4 and the device stays a device
if [[ -n $full && -c $full ]]; then
	"$bin" "${search[@]}" --output "$full" 2>"$work/err"
	rc=$?
	((rc == 4)) || fail "--output $full: exit $rc, want 4"
	[[ -c $full ]] || fail "$full was replaced"
fi

# a full disk: the old file stays, no partial or temporary file is left
mkdir "$work/small"
if [[ $(id -u) == 0 ]] && mount -t tmpfs -o size=16k tmpfs "$work/small" 2>/dev/null; then
	mounted=1
	head -c 12000 /dev/zero >"$work/small/fill"
	echo old >"$work/small/r.json"
	"$bin" search scenarios/llama3-70b-p5en-64.json --top 1000 --format json \
		--output "$work/small/r.json" 2>"$work/err"
	rc=$?
	((rc == 4)) || fail "search on a full disk: exit $rc, want 4"
	[[ $(cat "$work/small/r.json") == old ]] || fail "search on a full disk changed the old file"
	for out in "calibrate ingest tests/calibrate/nccl-allreduce-p5-2nodes.log --output $work/small/m.json" \
		"regress --junit $work/small/j.xml"; do
		# shellcheck disable=SC2086
		"$bin" $out >/dev/null 2>&1
		rc=$?
		((rc == 4)) || fail "$out on a full disk: exit $rc, want 4"
	done
	[[ ! -e $work/small/m.json && ! -e $work/small/j.xml ]] || fail "a partial file was left on a full disk"
	(($(nleft "$work/small") == 0)) || fail "a temporary file was left on a full disk"
else
	echo "run_output: not root or no tmpfs: full-disk case skipped" >&2
fi

((failed == 0)) && echo "run_output: all cases passed"
exit "$failed"
