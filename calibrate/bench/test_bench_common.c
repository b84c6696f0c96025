/* test_bench_common.c: the CPU side of the microbenchmarks, on any machine:
 * argument parsing, nccl-tests' number and row format (checked against rows
 * of a published nccl-tests 2.18 log), the round trip of the printed table
 * through `calibrate ingest`'s parser, and the JSON they write. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "calibrate/bench/bench_common.h"
#include "calibrate/ingest/ingest.h"
#include "tests/unit/sc_test.h"

static int parse(const char *line, struct bench_args *a, char *msg)
{
	char buf[512], *argv[32];
	int argc = 0;
	FILE *devnull = fopen("/dev/null", "w");
	int rc;

	snprintf(buf, sizeof(buf), "%s", line);
	for (char *t = strtok(buf, " "); t && argc < 31; t = strtok(NULL, " "))
		argv[argc++] = t;
	argv[argc] = NULL;
	rc = bench_parse_args(argc, argv, "sc_bench_x", "A test.", a, devnull, msg, 256);
	fclose(devnull);
	return rc;
}

static void test_args(void)
{
	struct bench_args a;
	char msg[256];

	CHECK(parse("x --output m.json --quick --iters 7 --max-bytes 8G --min-bytes 64K", &a, msg) == 0);
	CHECK_STR(a.output, "m.json");
	CHECK(a.quick && a.iters == 7 && a.device == -1);
	CHECK_REL(a.max_bytes, 8.0 * 1073741824, 0);
	CHECK_REL(a.min_bytes, 65536, 0);
	CHECK(parse("x --help", &a, msg) == 1);
	CHECK(parse("x --iters", &a, msg) == 2);
	CHECK_STR(msg, "option '--iters' needs a value");
	CHECK(parse("x --iters 0", &a, msg) == 2);
	CHECK(parse("x --bogus", &a, msg) == 2);
	CHECK_STR(msg, "unknown argument '--bogus'");
	CHECK(parse("x --max-bytes 1Q", &a, msg) == 2);
	CHECK(parse("x --min-bytes 1G --max-bytes 1M", &a, msg) == 2);
	CHECK(parse("x --device 3", &a, msg) == 0 && a.device == 3);
	CHECK_REL(bench_parse_size("1MB"), 1048576, 0);
	CHECK(bench_parse_size("-1") < 0 && bench_parse_size("") < 0);
}

static void test_float_format(void)
{
	static const struct { double v; int w; const char *want; } cases[] = {
		{ 61.09, 7, "  61.09" }, { 13016.7, 7, "13016.7" }, { 115855, 7, " 115855" },
		{ 12345678, 7, "1.2e+07" }, { 0.02, 6, "  0.02" }, { 487.09, 6, "487.09" },
		{ 1234.5, 6, "1234.5" }, { 123456, 6, "123456" }, { 0, 7, "   0.00" },
	};
	char buf[32];

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		bench_float_str(cases[i].v, cases[i].w, buf, sizeof(buf));
		CHECK_STR(buf, cases[i].want);
	}
}

/* Rows of a published nccl-tests 2.18.3 all_reduce_perf log (16 GPUs). */
static void test_row_format(void)
{
	struct cal_coll_point p = { 1024, 256, 61.09e-6, 0.02, 0.03, 0, 53.35e-6, 0.02, 0.04, 0 };
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	bench_nccl_row(f, 1024, 256, "float", "sum", -1, &p, true);
	p = (struct cal_coll_point){ 2147483648.0, 536870912, 115855e-6, 18.54, 34.75, 0, 114677e-6,
				     18.73, 35.11, -1 };
	bench_nccl_row(f, 2147483648.0, 536870912, "float", "sum", -1, &p, true);
	fclose(f);
	CHECK_STR(buf,
		  "        1024           256     float     sum      -1    61.09    0.02    0.03       0    53.35    0.02    0.04       0\n"
		  "  2147483648     536870912     float     sum      -1   115855   18.54   34.75       0   114677   18.73   35.11    N/A\n");
	free(buf);
}

/* What the NCCL benchmark prints, `calibrate ingest` reads. */
static void test_round_trip(void)
{
	static const char *const names[] = { "NVIDIA H200", "NVIDIA H200" };
	static const char *const bus[] = { "0000:53:00", "0000:64:00" };
	struct cal_coll_point pts[3] = {
		{ 8, 2, 10.5e-6, 0, 0, -1, 10.4e-6, 0, 0, -1 },
		{ 1048576, 262144, 20.25e-6, 51.78, 51.78, -1, 20.5e-6, 51.15, 51.15, -1 },
		{ 2097152, 524288, 30.75e-6, 68.20, 68.20, -1, 30.5e-6, 68.76, 68.76, -1 },
	};
	struct cal_measurements m;
	struct sc_error err;
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	bench_nccl_header(f, "all_gather", 2, 8, 2097152, 5, 20, "node-a", names, bus, true);
	for (int i = 0; i < 3; i++)
		bench_nccl_row(f, pts[i].bytes, pts[i].count, "float", "none", -1, &pts[i], true);
	bench_nccl_footer(f, "all_gather", 39.99);
	fclose(f);
	cal_measurements_init(&m);
	sc_error_clear(&err);
	CHECK(cal_ingest_buffer("bench.out", buf, len, CAL_FMT_AUTO, NULL, &m, &err) == SC_OK);
	if (err.message[0])
		fprintf(stderr, "  %s: %s\n%s", err.pointer, err.message, buf);
	CHECK(m.n_curves == 1);
	if (m.n_curves == 1) {
		CHECK_STR(m.curves[0].op, "all_gather");
		CHECK(m.curves[0].ranks == 2 && m.curves[0].nodes == 1 && m.curves[0].n_points == 3);
		CHECK_STR(m.curves[0].gpu, "NVIDIA H200");
		for (int i = 0; i < 3 && i < m.curves[0].n_points; i++) {
			CHECK_REL(m.curves[0].points[i].time_s, pts[i].time_s, 1e-12);
			CHECK_REL(m.curves[0].points[i].inplace_busbw_GBps, pts[i].inplace_busbw_GBps, 1e-12);
			CHECK(m.curves[0].points[i].wrong == -1);
		}
	}
	cal_measurements_free(&m);
	free(buf);
}

static void test_json(void)
{
	struct cal_measurements m, back;
	struct cal_hbm_point h = { "read-write", 2.0 * 1073741824, 0.5e-3, 0 };
	struct sc_error err;
	char path[] = "/tmp/stepcast-bench-test-XXXXXX";
	int fd = mkstemp(path);
	double v[] = { 5, 1, 4, 2, 3, 6 };

	CHECK(fd >= 0);
	if (fd < 0)
		return;
	close(fd);
	cal_measurements_init(&m);
	cal_measurements_init(&back);
	snprintf(m.prov.tool, sizeof(m.prov.tool), "sc_bench_hbm test");
	bench_now(m.prov.created, sizeof(m.prov.created));
	h.Bps = h.bytes / h.time_s;
	sc_error_clear(&err);
	CHECK(cal_add_hbm(&m, &h, &err) == SC_OK);
	CHECK(bench_write_json(path, &m) == 0);
	CHECK(cal_ingest_file(path, CAL_FMT_AUTO, NULL, &back, &err) == SC_OK);
	CHECK(back.n_hbm == 1);
	if (back.n_hbm == 1)
		CHECK_REL(back.hbm[0].Bps, h.Bps, 1e-14);
	CHECK(strlen(back.prov.created) == 20);
	CHECK(bench_write_json("/nonexistent-dir/x.json", &m) == -1);
	cal_measurements_free(&m);
	cal_measurements_free(&back);
	remove(path);
	CHECK_REL(bench_median(v, 6), 3.5, 0);
	CHECK_REL(bench_median(v, 5), 3, 0);
}

int main(void)
{
	RUN(test_args);
	RUN(test_float_format);
	RUN(test_row_format);
	RUN(test_round_trip);
	RUN(test_json);
	return sc_test_summary();
}
