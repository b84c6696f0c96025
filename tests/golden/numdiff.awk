# numdiff.awk: compare two text files, numbers with a relative tolerance.
#
#   awk -v rtol=1e-6 -f numdiff.awk EXPECTED ACTUAL
#
# Every line is split into numbers (tokens matching a decimal float, sign and
# exponent included) and the text between them.  The text must match exactly
# (whitespace included); numbers at the same place must agree within
# |a - b| <= rtol * max(|a|, |b|), or be spelled the same.  Prints one report
# per differing line (at most 50) and exits 1 when the files differ.

function skeleton(line, nums,    n, out, s) {
	n = 0
	out = ""
	while (match(line, NUMRE)) {
		n++
		nums[n] = substr(line, RSTART, RLENGTH)
		out = out substr(line, 1, RSTART - 1) "\001"
		line = substr(line, RSTART + RLENGTH)
	}
	nums[0] = n
	return out line
}

function absval(x) { return x < 0 ? -x : x }

function close_enough(a, b,    x, y, d, scale) {
	if (a == b)
		return 1
	x = a + 0
	y = b + 0
	if (x == y)
		return 1
	d = absval(x - y)
	scale = absval(x) > absval(y) ? absval(x) : absval(y)
	return d <= rtol * scale
}

function report(n, why) {
	failures++
	if (failures <= 50) {
		printf "line %d: %s\n", n, why
		printf "  expected: %s\n", exp_line[n]
		printf "  actual:   %s\n", $0
	}
}

BEGIN {
	NUMRE = "[-+]?([0-9]+[.]?[0-9]*|[.][0-9]+)([eE][-+]?[0-9]+)?"
	if (rtol == "")
		rtol = 1e-6
	failures = 0
}

FILENAME == ARGV[1] {
	exp_line[FNR] = $0
	n_exp = FNR
	next
}

{
	n_act = FNR
	if (FNR > n_exp) {
		failures++
		if (failures <= 50)
			printf "line %d: not expected: %s\n", FNR, $0
		next
	}
	split("", en)
	split("", an)
	es = skeleton(exp_line[FNR], en)
	as = skeleton($0, an)
	if (es != as || en[0] != an[0]) {
		report(FNR, "text differs")
		next
	}
	for (i = 1; i <= en[0]; i++) {
		if (!close_enough(en[i], an[i])) {
			report(FNR, sprintf("number %d: expected %s, got %s (rtol %g)", i, en[i], an[i], rtol))
			break
		}
	}
}

END {
	if (n_act < n_exp) {
		failures++
		printf "output ends at line %d; expected %d lines, next expected: %s\n", n_act, n_exp, exp_line[n_act + 1]
	}
	if (failures > 50)
		printf "... and %d more differing lines\n", failures - 50
	exit failures ? 1 : 0
}
