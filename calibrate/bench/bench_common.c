/* bench_common.c: host helpers of the microbenchmarks (see bench_common.h). */
#include "bench_common.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "../../models/units.h"

double bench_parse_size(const char *s)
{
	char *end;
	double v;

	errno = 0;
	v = strtod(s, &end);
	if (end == s || errno || !isfinite(v) || v < 0)
		return -1;
	switch (toupper((unsigned char)*end)) {
	case '\0': break;
	case 'K': v *= SC_KiB_BYTES; end++; break;
	case 'M': v *= SC_MiB_BYTES; end++; break;
	case 'G': v *= SC_GiB_BYTES; end++; break;
	default: return -1;
	}
	if (*end == 'B' || *end == 'b')
		end++;
	return *end ? -1 : v;
}

static int parse_int_arg(const char *s, int lo, int hi, int *out)
{
	char *end;
	long v;

	errno = 0;
	v = strtol(s, &end, 10);
	if (end == s || *end || errno || v < lo || v > hi)
		return -1;
	*out = (int)v;
	return 0;
}

static void usage(FILE *out, const char *prog, const char *what)
{
	fprintf(out,
		"usage: %s [--output FILE] [--quick] [--iters N] [--warmup N]\n"
		"       %*s [--min-bytes N] [--max-bytes N] [--device N]\n"
		"\n"
		"%s\n"
		"Prints what it measures on stdout and, with --output, writes the measurements\n"
		"as stepcast measurements JSON (read by `stepcast calibrate ingest` and `fit`).\n"
		"Exits 77 when there is no GPU to measure.\n"
		"\n"
		"options:\n"
		"  --output FILE    write the measurements JSON here\n"
		"  --quick          fewer sizes and repetitions (a smoke test)\n"
		"  --iters N        timed repetitions per size\n"
		"  --warmup N       untimed repetitions first\n"
		"  --min-bytes N    smallest size of a sweep (K, M, G: powers of 1024)\n"
		"  --max-bytes N    largest size of a sweep\n"
		"  --device N       CUDA device (GEMM, HBM; default 0)\n"
		"  --help           show this help\n",
		prog, (int)strlen(prog), "", what);
}

int bench_parse_args(int argc, char **argv, const char *prog, const char *what,
		     struct bench_args *a, FILE *out, char *msg, size_t msg_len)
{
	memset(a, 0, sizeof(*a));
	a->device = -1;
	msg[0] = '\0';
	for (int i = 1; i < argc; i++) {
		const char *o = argv[i];
		const char *v = i + 1 < argc ? argv[i + 1] : NULL;
		bool takes = strcmp(o, "--output") == 0 || strcmp(o, "--iters") == 0 ||
			     strcmp(o, "--warmup") == 0 || strcmp(o, "--min-bytes") == 0 ||
			     strcmp(o, "--max-bytes") == 0 || strcmp(o, "--device") == 0;

		if (strcmp(o, "--help") == 0 || strcmp(o, "-h") == 0) {
			usage(out, prog, what);
			return 1;
		}
		if (strcmp(o, "--quick") == 0) {
			a->quick = true;
			continue;
		}
		if (!takes) {
			snprintf(msg, msg_len, "unknown argument '%s'", o);
			return 2;
		}
		if (!v) {
			snprintf(msg, msg_len, "option '%s' needs a value", o);
			return 2;
		}
		i++;
		if (strcmp(o, "--output") == 0) {
			a->output = v;
		} else if (strcmp(o, "--iters") == 0) {
			if (parse_int_arg(v, 1, 1000000, &a->iters)) {
				snprintf(msg, msg_len, "--iters needs a count from 1 to 1000000, got '%s'", v);
				return 2;
			}
		} else if (strcmp(o, "--warmup") == 0) {
			if (parse_int_arg(v, 0, 1000000, &a->warmup)) {
				snprintf(msg, msg_len, "--warmup needs a count from 0 to 1000000, got '%s'", v);
				return 2;
			}
		} else if (strcmp(o, "--device") == 0) {
			if (parse_int_arg(v, 0, 1023, &a->device)) {
				snprintf(msg, msg_len, "--device needs a device number, got '%s'", v);
				return 2;
			}
		} else {
			double b = bench_parse_size(v);
			if (!(b >= 1)) {
				snprintf(msg, msg_len, "%s needs a size such as 8, 64K, 1M or 8G, got '%s'", o, v);
				return 2;
			}
			if (strcmp(o, "--min-bytes") == 0)
				a->min_bytes = b;
			else
				a->max_bytes = b;
		}
	}
	if (a->min_bytes > 0 && a->max_bytes > 0 && a->min_bytes > a->max_bytes) {
		snprintf(msg, msg_len, "--min-bytes is larger than --max-bytes");
		return 2;
	}
	return 0;
}

/* nccl-tests src/util.cu getFloatStr: count the digits of the integer
 * part, then choose the precision that fits the column. */
void bench_float_str(double value, int width, char *out, size_t n)
{
	int power = 0;

	for (uint64_t val = 1; value >= (double)val && power < 20; val *= 10)
		power++;
	if (power < width - 2)
		snprintf(out, n, "%*.2f", width, value);
	else if (power < width - 1)
		snprintf(out, n, "%*.1f", width, value);
	else if (power < width + 1)
		snprintf(out, n, "%*.0f", width, value);
	else if (width >= 7)
		snprintf(out, n, "%*.1e", width, value);
	else
		snprintf(out, n, "%*.0e", width, value);
}

void bench_nccl_header(FILE *out, const char *op, int ngpus, double min_bytes,
		       double max_bytes, int warmup, int iters, const char *host,
		       const char *const *names, const char *const *bus_ids, bool inplace)
{
	fprintf(out, "# Collective test starting: %s\n", op);
	fprintf(out, "# nThread 1 nGpus %d minBytes %.0f maxBytes %.0f step: 2(factor) warmup iters: %d "
		"iters: %d agg iters: 1 validation: 0 graph: 0\n", ngpus, min_bytes, max_bytes, warmup, iters);
	fprintf(out, "#\n# Using devices\n");
	for (int i = 0; i < ngpus; i++)
		fprintf(out, "#  Rank %2d Group %2d Pid %6d on %10s device %2d [%s] %s\n", i, 0, (int)getpid(),
			host, i, bus_ids[i], names[i]);
	fprintf(out, "#\n");
	fprintf(out, "# %10s  %12s  %8s  %6s  %6s           out-of-place%s\n", "", "", "", "", "",
		inplace ? "                       in-place          " : "");
	fprintf(out, "# %10s  %12s  %8s  %6s  %6s  %7s  %6s  %6s  %6s", "size", "count", "type", "redop",
		"root", "time", "algbw", "busbw", "#wrong");
	if (inplace)
		fprintf(out, "  %7s  %6s  %6s  %6s", "time", "algbw", "busbw", "#wrong");
	fprintf(out, "\n# %10s  %12s  %8s  %6s  %6s  %7s  %6s  %6s  %6s", "(B)", "(elements)", "", "", "",
		"(us)", "(GB/s)", "(GB/s)", "");
	if (inplace)
		fprintf(out, "  %7s  %6s  %6s  %6s", "(us)", "(GB/s)", "(GB/s)", "");
	fputc('\n', out);
}

static void half(FILE *out, double time_s, double alg, double bus, double wrong)
{
	char t[32], a[32], b[32];

	bench_float_str(time_s * 1e6, 7, t, sizeof(t));
	bench_float_str(alg, 6, a, sizeof(a));
	bench_float_str(bus, 6, b, sizeof(b));
	if (wrong >= 0)
		fprintf(out, "  %7s  %6s  %6s  %6g", t, a, b, wrong);
	else
		fprintf(out, "  %7s  %6s  %6s    N/A", t, a, b);
}

void bench_nccl_row(FILE *out, double bytes, double count, const char *type,
		    const char *redop, int root, const struct cal_coll_point *p, bool inplace)
{
	char r[16];

	snprintf(r, sizeof(r), "%6i", root);
	fprintf(out, "%12.0f  %12.0f  %8s  %6s  %6s", bytes, count, type, redop, r);
	half(out, p->time_s, p->algbw_GBps, p->busbw_GBps, p->wrong);
	if (inplace)
		half(out, p->inplace_time_s, p->inplace_algbw_GBps, p->inplace_busbw_GBps, p->inplace_wrong);
	fputc('\n', out);
}

void bench_nccl_footer(FILE *out, const char *op, double avg_busbw)
{
	fprintf(out, "# %-20s : %d %s\n", "Out of bounds values", 0, "OK");
	fprintf(out, "# %-20s : %g %s\n", "Avg bus bandwidth", avg_busbw, "");
	fprintf(out, "#\n# Collective test concluded: %s\n", op);
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

double bench_median(double *v, int n)
{
	if (n <= 0)
		return 0;
	qsort(v, (size_t)n, sizeof(*v), cmp_double);
	return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

void bench_now(char *out, size_t n)
{
	time_t t = time(NULL);
	struct tm tm;

	gmtime_r(&t, &tm);
	strftime(out, n, "%Y-%m-%dT%H:%M:%SZ", &tm);
}

int bench_write_json(const char *path, const struct cal_measurements *m)
{
	cJSON *j = cal_measurements_to_json(m);
	char *text = j ? cJSON_Print(j) : NULL;
	FILE *f;
	int bad;

	cJSON_Delete(j);
	if (!text) {
		fprintf(stderr, "out of memory writing the measurements\n");
		return -1;
	}
	if (!(f = fopen(path, "w"))) {
		fprintf(stderr, "%s: cannot write: %s\n", path, strerror(errno));
		cJSON_free(text);
		return -1;
	}
	fprintf(f, "%s\n", text);
	cJSON_free(text);
	bad = ferror(f);
	bad |= fclose(f) != 0;
	if (bad) {
		fprintf(stderr, "%s: write error\n", path);
		return -1;
	}
	return 0;
}
