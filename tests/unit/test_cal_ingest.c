/* test_cal_ingest.c: the parsers of calibrate/ingest against real-format
 * input: the nccl-tests fixtures of tests/calibrate/ (published rows of the
 * aws-samples p5 and p4de all-reduce runs, see tests/calibrate/README.md),
 * nccl-tests -J JSON, fio JSON, our own measurements JSON, and broken or
 * truncated variants that must fail with the right line.  Runs from the
 * repository root. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "calibrate/cal_measure.h"
#include "calibrate/ingest/ingest.h"
#include "sc_test.h"

#define FIX "tests/calibrate/"

static char *slurp(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	char *buf;
	long n;

	if (!f)
		return NULL;
	fseek(f, 0, SEEK_END);
	n = ftell(f);
	fseek(f, 0, SEEK_SET);
	buf = malloc((size_t)n + 1);
	if (buf && fread(buf, 1, (size_t)n, f) != (size_t)n) {
		free(buf);
		buf = NULL;
	}
	fclose(f);
	if (buf) {
		buf[n] = '\0';
		*len = (size_t)n;
	}
	return buf;
}

/* Ingest a string; returns the status, err filled. */
static enum sc_status ingest_str(const char *text, enum cal_format fmt,
				 const struct cal_ingest_opts *o, struct cal_measurements *m,
				 struct sc_error *err)
{
	sc_error_clear(err);
	return cal_ingest_buffer("t.log", text, strlen(text), fmt, o, m, err);
}

static void test_p5_text_log(void)
{
	struct cal_measurements m;
	struct sc_error err;
	const struct cal_curve *c;

	cal_measurements_init(&m);
	sc_error_clear(&err);
	CHECK(cal_ingest_file(FIX "nccl-allreduce-p5-2nodes.log", CAL_FMT_AUTO, NULL, &m, &err) == SC_OK);
	if (err.message[0])
		fprintf(stderr, "  %s: %s: %s\n", err.file, err.pointer, err.message);
	CHECK(m.n_curves == 1);
	if (m.n_curves == 1) {
		c = &m.curves[0];
		CHECK_STR(c->op, "all_reduce"); /* from the "+ srun ... all_reduce_perf" line */
		CHECK(c->ranks == 16 && c->nodes == 2 && c->gpus_per_node == 8);
		CHECK_STR(c->gpu, "NVIDIA H100 80GB HBM3");
		CHECK_STR(c->dtype, "float");
		CHECK_STR(c->redop, "sum");
		CHECK(c->n_points == 32);
		CHECK_REL(c->points[0].bytes, 8, 0);
		CHECK_REL(c->points[0].time_s, 69.12e-6, 1e-12);
		CHECK_REL(c->points[0].inplace_time_s, 72.43e-6, 1e-12);
		CHECK_REL(c->points[31].bytes, 17179869184.0, 0);
		CHECK_REL(c->points[31].time_s, 66132e-6, 1e-12);
		CHECK_REL(c->points[31].busbw_GBps, 487.09, 1e-12);
		CHECK_REL(c->points[31].inplace_busbw_GBps, 487.26, 1e-12);
		CHECK(c->points[31].wrong == 0);
		CHECK(strstr(c->source, "nccl-allreduce-p5-2nodes.log:23") != NULL);
	}
	CHECK(strstr(m.prov.inputs, "nccl-allreduce-p5-2nodes.log") != NULL);
	cal_measurements_free(&m);
}

static void test_p4de_needs_collective(void)
{
	struct cal_measurements m;
	struct sc_error err;
	struct cal_ingest_opts o = { "all_reduce_perf", 0, 0 };

	cal_measurements_init(&m);
	sc_error_clear(&err);
	/* no program name in this log (mpirun --tag-output) */
	CHECK(cal_ingest_file(FIX "nccl-allreduce-p4de-2nodes.log", CAL_FMT_AUTO, NULL, &m, &err) ==
	      SC_EINVAL);
	CHECK(strstr(err.message, "--collective") != NULL);
	CHECK_STR(err.pointer, "line 22"); /* the table's column header */
	cal_measurements_free(&m);
	cal_measurements_init(&m);
	sc_error_clear(&err);
	CHECK(cal_ingest_file(FIX "nccl-allreduce-p4de-2nodes.log", CAL_FMT_NCCL_TEXT, &o, &m, &err) == SC_OK);
	CHECK(m.n_curves == 1);
	if (m.n_curves == 1) {
		CHECK_STR(m.curves[0].op, "all_reduce");
		CHECK(m.curves[0].n_points == 29 && m.curves[0].ranks == 16 && m.curves[0].nodes == 2);
		CHECK_STR(m.curves[0].gpu, "NVIDIA A100-SXM4-80GB");
		CHECK_REL(m.curves[0].points[28].time_s, 51406e-6, 1e-12);
	}
	cal_measurements_free(&m);
}

static void test_eks_excerpt(void)
{
	struct cal_measurements m;
	struct sc_error err;

	cal_measurements_init(&m);
	sc_error_clear(&err);
	CHECK(cal_ingest_file(FIX "nccl-allreduce-p5-eks-excerpt.log", CAL_FMT_AUTO, NULL, &m, &err) == SC_OK);
	CHECK(m.n_curves == 1);
	if (m.n_curves == 1) {
		/* the 0-byte row and six rows after the "..." */
		CHECK(m.curves[0].n_points == 7);
		CHECK_REL(m.curves[0].points[6].time_s, 9197.5e-6, 1e-12);
	}
	CHECK_STR(m.prov.nccl, "2.18.5");
	cal_measurements_free(&m);
}

/* The same run as -J JSON reads to the same numbers as the text log. */
static void test_json_equals_text(void)
{
	struct cal_measurements a, b;
	struct sc_error err;

	cal_measurements_init(&a);
	cal_measurements_init(&b);
	sc_error_clear(&err);
	CHECK(cal_ingest_file(FIX "nccl-allreduce-p5-2nodes.log", CAL_FMT_AUTO, NULL, &a, &err) == SC_OK);
	CHECK(cal_ingest_file(FIX "nccl-allreduce-p5-2nodes.json", CAL_FMT_AUTO, NULL, &b, &err) == SC_OK);
	if (err.message[0])
		fprintf(stderr, "  %s: %s: %s\n", err.file, err.pointer, err.message);
	CHECK(a.n_curves == 1 && b.n_curves == 1);
	if (a.n_curves == 1 && b.n_curves == 1) {
		const struct cal_curve *x = &a.curves[0], *y = &b.curves[0];
		CHECK_STR(y->op, "all_reduce");
		CHECK(x->n_points == y->n_points);
		CHECK(y->ranks == 16 && y->nodes == 2);
		for (int i = 0; i < x->n_points && i < y->n_points; i++) {
			CHECK_REL(y->points[i].bytes, x->points[i].bytes, 0);
			CHECK_REL(y->points[i].time_s, x->points[i].time_s, 1e-9);
			CHECK_REL(y->points[i].inplace_time_s, x->points[i].inplace_time_s, 1e-9);
			CHECK_REL(y->points[i].busbw_GBps, x->points[i].busbw_GBps, 1e-9);
		}
	}
	CHECK_STR(b.prov.nccl, "2.18.5");
	cal_measurements_free(&a);
	cal_measurements_free(&b);
}

/* Several runs (collectives) in one file, the newer header lines, an
 * "N/A" #wrong, a number like 1.2e+05, per-iteration columns and extra
 * trailing columns. */
static void test_several_collectives(void)
{
	static const char log[] =
		"# nccl-tests version 2.17.6 nccl-headers=22703 nccl-library=22703\n"
		"# Collective test starting: all_gather_perf\n"
		"# nThread 1 nGpus 8 minBytes 1048576 maxBytes 4194304 step: 2(factor) warmup iters: 5 iters: 20 agg iters: 1 validation: 0 graph: 0 unalign: 0\n"
		"#\n"
		"# Using devices\n"
		"#  Rank  0 Group  0 Pid   1001 on     node-a device  0 [0000:53:00] NVIDIA H200\n"
		"#  Rank  1 Group  0 Pid   1001 on     node-a device  1 [0000:64:00] NVIDIA H200\n"
		"#\n"
		"#       size         count      type   redop    root     time   algbw   busbw  #wrong     time   algbw   busbw  #wrong \n"
		"#        (B)    (elements)                               (us)  (GB/s)  (GB/s)             (us)  (GB/s)  (GB/s)         \n"
		"     1048576        131072     float    none      -1    20.11   52.14   26.07     N/A    19.90   52.69   26.35     N/A\n"
		"node-a:1001:1001 [0] NCCL INFO comm 0x55 rank 0 nranks 2 - Init COMPLETE\n"
		"     2097152        262144     float    none      -1    31.02   67.61   33.80     N/A    30.88   67.91   33.96     N/A  extra 7\n"
		"     4194304        524288     float    none      -1  1.2e+05    0.03    0.02     N/A    50.10   83.72   41.86     N/A\n"
		"# Out of bounds values : 0 OK\n"
		"# Avg bus bandwidth    : 26.96 \n"
		"#\n"
		"# Collective test concluded: all_gather_perf\n"
		"# nccl-tests version 2.17.6 nccl-headers=22703 nccl-library=22703\n"
		"# Collective test starting: alltoall_perf\n"
		"# nThread 1 nGpus 4 minBytes 8 maxBytes 16 step: 2(factor) warmup iters: 5 iters: 20 agg iters: 1 validation: 1 graph: 0 unalign: 0\n"
		"#  Rank  0 Group  0 Pid   2001 on     node-a device  0 [0000:53:00] NVIDIA H200\n"
		"#  Rank  1 Group  0 Pid   2001 on     node-a device  1 [0000:64:00] NVIDIA H200\n"
		"#  Rank  2 Group  0 Pid   2002 on     node-b device  0 [0000:53:00] NVIDIA H200\n"
		"#  Rank  3 Group  0 Pid   2002 on     node-b device  1 [0000:64:00] NVIDIA H200\n"
		"#       size         count      type   redop    root     time   algbw   busbw  #wrong     time   algbw   busbw  #wrong     i_min    i_max    i_p99    i_cv%\n"
		"           8             2     float    none      -1    30.00    0.00    0.00       0    31.00    0.00    0.00       0    29.0     33.0     33.0     2.1\n"
		"          16             4     float    none      -1    30.50    0.00    0.00       0    31.50    0.00    0.00       0    29.5     33.5     33.5     2.0\n"
		"# Out of bounds values : 0 OK\n";
	struct cal_measurements m;
	struct sc_error err;

	cal_measurements_init(&m);
	CHECK(ingest_str(log, CAL_FMT_AUTO, NULL, &m, &err) == SC_OK);
	if (err.message[0])
		fprintf(stderr, "  %s: %s\n", err.pointer, err.message);
	CHECK(m.n_curves == 2);
	if (m.n_curves == 2) {
		CHECK_STR(m.curves[0].op, "all_gather");
		CHECK(m.curves[0].ranks == 2 && m.curves[0].nodes == 1 && m.curves[0].n_points == 3);
		CHECK(m.curves[0].points[0].wrong == -1); /* N/A */
		CHECK_REL(m.curves[0].points[2].time_s, 0.12, 1e-12);
		CHECK_REL(m.curves[0].points[2].inplace_time_s, 50.10e-6, 1e-12);
		CHECK_STR(m.curves[1].op, "all_to_all");
		CHECK(m.curves[1].ranks == 4 && m.curves[1].nodes == 2 && m.curves[1].gpus_per_node == 2);
		CHECK(m.curves[1].n_points == 2);
		CHECK_REL(m.curves[1].points[1].inplace_time_s, 31.5e-6, 1e-12);
	}
	CHECK_STR(m.prov.nccl, "2.27.3");
	CHECK_STR(m.prov.gpu, "NVIDIA H200");
	cal_measurements_free(&m);
}

/* Broken logs: each fails with SC_EINVAL at the named line. */
static void test_bad_text(void)
{
	static const char head[] =
		"# Collective test starting: all_reduce_perf\n"
		"# nThread 1 nGpus 2 minBytes 8 maxBytes 64 step: 2(factor) warmup iters: 5 iters: 20 agg iters: 1 validation: 1 graph: 0\n"
		"#  Rank  0 Group  0 Pid   1 on a device  0 [0x53] GPU\n"
		"#  Rank  1 Group  0 Pid   1 on a device  1 [0x64] GPU\n"
		"#       size         count      type   redop    root     time   algbw   busbw #wrong     time   algbw   busbw #wrong\n";
	static const struct { const char *rows, *line, *msg; } cases[] = {
		/* truncated mid-row (the file ends inside a line) */
		{ "           8             2     float     sum      -1    10.00    0.00    0.00      0    10.0", "line 6", "truncated row" },
		/* truncated at a line boundary: maxBytes 64 not reached, no footer */
		{ "           8             2     float     sum      -1    10.00    0.00    0.00      0    10.00    0.00    0.00      0\n"
		  "          16             4     float     sum      -1    10.00    0.00    0.00      0    10.00    0.00    0.00      0\n", "line 7", "truncated log" },
		{ "           8             2     float     sum      -1    abc    0.00    0.00      0    10.00    0.00    0.00      0\n", "line 6", "out-of-place time" },
		{ "           8             2     float     sum      -1    nan    0.00    0.00      0    10.00    0.00    0.00      0\n", "line 6", "out-of-place time" },
		{ "           8             2     float     sum      -1    10.00    0.00    0.00      x    10.00    0.00    0.00      0\n", "line 6", "#wrong" },
		{ "           8             2     float     sum      -1   -10.00    0.00    0.00      0    10.00    0.00    0.00      0\n", "line 6", "non-negative" },
		{ "           8           two     float     sum      -1    10.00    0.00    0.00      0    10.00    0.00    0.00      0\n", "line 6", "count" },
		{ "# Out of bounds values : 0 OK\n", "line 5", "no rows" },
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char buf[2048];
		struct cal_measurements m;
		struct sc_error err;
		enum sc_status st;

		snprintf(buf, sizeof(buf), "%s%s", head, cases[i].rows);
		cal_measurements_init(&m);
		st = ingest_str(buf, CAL_FMT_NCCL_TEXT, NULL, &m, &err);
		CHECK(st == SC_EINVAL);
		CHECK_STR(err.pointer, cases[i].line);
		CHECK(strstr(err.message, cases[i].msg) != NULL);
		if (st != SC_EINVAL || strcmp(err.pointer, cases[i].line) != 0 || !strstr(err.message, cases[i].msg))
			fprintf(stderr, "  case %zu: %s: %s\n", i, err.pointer, err.message);
		cal_measurements_free(&m);
	}
}

static void test_fio(void)
{
	struct cal_measurements m;
	struct sc_error err;

	cal_measurements_init(&m);
	sc_error_clear(&err);
	CHECK(cal_ingest_file(FIX "fio-fsx-seq.json", CAL_FMT_AUTO, NULL, &m, &err) == SC_OK);
	if (err.message[0])
		fprintf(stderr, "  %s: %s: %s\n", err.file, err.pointer, err.message);
	CHECK(m.n_storage == 2);
	if (m.n_storage == 2) {
		CHECK_STR(m.storage[0].job, "seqread");
		CHECK_STR(m.storage[0].direction, "read");
		CHECK_STR(m.storage[0].rw, "read");
		CHECK_REL(m.storage[0].bs_bytes, 1048576, 0);
		CHECK(m.storage[0].numjobs == 16 && m.storage[0].iodepth == 16);
		CHECK_REL(m.storage[0].bw_Bps, 2287173632.0, 1e-12);
		CHECK_STR(m.storage[1].direction, "write");
		CHECK_REL(m.storage[1].lat_mean_s, 0.151374123, 1e-9);
	}
	cal_measurements_free(&m);
	/* a truncated fio file names the line where the text ends */
	{
		size_t len;
		char *buf = slurp(FIX "fio-fsx-seq.json", &len);
		CHECK(buf != NULL);
		if (buf) {
			cal_measurements_init(&m);
			sc_error_clear(&err);
			CHECK(cal_ingest_buffer("cut.json", buf, len / 2, CAL_FMT_FIO, NULL, &m, &err) == SC_EINVAL);
			CHECK(strstr(err.message, "truncated") != NULL);
			CHECK(strncmp(err.pointer, "line ", 5) == 0);
			cal_measurements_free(&m);
			free(buf);
		}
	}
}

/* Our own JSON: write, read back, same content; strict reading. */
static void test_bench_round_trip(void)
{
	struct cal_measurements a, b;
	struct sc_error err;
	struct cal_gemm_point g = { "bf16", "mlp-up", 8192, 28672, 8192, 4.1e-3, 0 };
	struct cal_hbm_point h = { "copy", 2.0 * 1073741824, 7.6e-4, 0 };
	cJSON *j;
	char *text;

	cal_measurements_init(&a);
	cal_measurements_init(&b);
	sc_error_clear(&err);
	CHECK(cal_ingest_file(FIX "nccl-allreduce-p5-2nodes.log", CAL_FMT_AUTO, NULL, &a, &err) == SC_OK);
	g.flops_per_s = 2.0 * g.m * g.n * g.k / g.time_s;
	h.Bps = h.bytes / h.time_s;
	CHECK(cal_add_gemm(&a, &g, &err) == SC_OK);
	CHECK(cal_add_hbm(&a, &h, &err) == SC_OK);
	snprintf(a.prov.tool, sizeof(a.prov.tool), "test");
	j = cal_measurements_to_json(&a);
	text = j ? cJSON_PrintUnformatted(j) : NULL;
	CHECK(text != NULL);
	if (text) {
		CHECK(ingest_str(text, CAL_FMT_AUTO, NULL, &b, &err) == SC_OK);
		CHECK(b.n_curves == 1 && b.n_gemm == 1 && b.n_hbm == 1);
		if (b.n_curves == 1 && b.n_gemm == 1) {
			CHECK(b.curves[0].n_points == 32 && b.curves[0].ranks == 16);
			/* cJSON prints 15 significant digits */
			CHECK_REL(b.curves[0].points[13].time_s, a.curves[0].points[13].time_s, 1e-14);
			CHECK(b.curves[0].points[13].wrong == 0);
			CHECK_REL(b.gemm[0].flops_per_s, g.flops_per_s, 1e-15);
			CHECK_STR(b.gemm[0].label, "mlp-up");
		}
		cJSON_free(text);
	}
	cJSON_Delete(j);
	cal_measurements_free(&b);
	/* strictness: an unknown key is an error with its pointer */
	cal_measurements_init(&b);
	CHECK(ingest_str("{\"format\":\"stepcast-measurements\",\"schema_version\":1,"
			 "\"gemm\":[{\"dtype\":\"bf16\",\"m\":1,\"n\":1,\"k\":1,\"time_s\":1,\"flop\":2}]}",
			 CAL_FMT_AUTO, NULL, &b, &err) == SC_EINVAL);
	CHECK_STR(err.pointer, "/gemm/0/flop");
	CHECK(ingest_str("{\"format\":\"stepcast-measurements\",\"schema_version\":1,"
			 "\"collectives\":[{\"op\":\"all_reduce\",\"ranks\":8,\"points\":[{\"bytes\":8,\"time_s\":-1}]}]}",
			 CAL_FMT_AUTO, NULL, &b, &err) == SC_EINVAL);
	CHECK_STR(err.pointer, "/collectives/0/points/0/time_s");
	cal_measurements_free(&b);
	cal_measurements_free(&a);
}

static void test_detect_and_names(void)
{
	char op[32];
	enum cal_format f;

	CHECK(cal_detect_format("{\"fio version\" : \"fio-3.33\"}", 27) == CAL_FMT_FIO);
	CHECK(cal_detect_format("hello\n", 6) == CAL_FMT_AUTO);
	CHECK(cal_op_normalise("/opt/nccl-tests/build/all_reduce_perf", op, sizeof(op)) && !strcmp(op, "all_reduce"));
	CHECK(cal_op_normalise("sendrecv_perf_mpi", op, sizeof(op)) && !strcmp(op, "send_recv"));
	CHECK(cal_op_normalise("alltoall", op, sizeof(op)) && !strcmp(op, "all_to_all"));
	CHECK(!cal_op_normalise("frobnicate_perf", op, sizeof(op)));
	CHECK(cal_format_parse("nccl-json", &f) && f == CAL_FMT_NCCL_JSON);
	CHECK(!cal_format_parse("xml", &f));
}

int main(void)
{
	RUN(test_p5_text_log);
	RUN(test_p4de_needs_collective);
	RUN(test_eks_excerpt);
	RUN(test_json_equals_text);
	RUN(test_several_collectives);
	RUN(test_bad_text);
	RUN(test_fio);
	RUN(test_bench_round_trip);
	RUN(test_detect_and_names);
	return sc_test_summary();
}
