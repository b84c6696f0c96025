/* bench_common.h: the host side shared by the CUDA microbenchmarks
 * (sc_bench_gemm, sc_bench_hbm, sc_bench_nccl): command-line parsing, the
 * nccl-tests output format, statistics and the JSON they write.  Plain C
 * with no CUDA, so its unit test (test_bench_common.c) runs on any machine.
 *
 * The benchmarks are programs, not library code: they print progress and
 * tables to stdout and exit; these helpers only format into the FILE* they
 * are given.  Their JSON is the "stepcast-measurements" document of
 * calibrate/cal_measure.h, so `stepcast calibrate ingest` and `fit` read it.
 * Ownership: everything caller-owned; nothing allocates except
 * bench_write_json (temporary cJSON tree, freed).
 */
#ifndef SC_BENCH_COMMON_H
#define SC_BENCH_COMMON_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#ifdef __cplusplus
extern "C" {
#endif

#include "../cal_measure.h"

/* Exit code of a benchmark that found no GPU to measure (ctest's skip). */
#define BENCH_EXIT_SKIP 77

struct bench_args {
	const char *output;   /* JSON file; NULL: no JSON */
	bool quick;           /* fewer sizes and repetitions */
	int iters;            /* timed repetitions per size (0: the benchmark's default) */
	int warmup;           /* untimed repetitions first (0: default) */
	double min_bytes;     /* sweeps: smallest size (0: default) */
	double max_bytes;     /* sweeps: largest size (0: default) */
	int device;           /* GEMM/HBM: CUDA device (-1: 0) */
};

/* Parse argv: --output FILE, --quick, --iters N, --warmup N, --min-bytes N,
 * --max-bytes N (with K/M/G suffixes, powers of 1024), --device N, --help.
 * Returns 0 to run, 1 when --help was printed to out, 2 on a usage error
 * (message in msg). */
int bench_parse_args(int argc, char **argv, const char *prog, const char *what,
		     struct bench_args *a, FILE *out, char *msg, size_t msg_len);

/* "8", "64K", "1M", "8G" -> bytes (powers of 1024); <0 on error. */
double bench_parse_size(const char *s);

/* nccl-tests' number format (src/util.cu getFloatStr): width characters,
 * two decimals when they fit, then one, then none, then %.1e. */
void bench_float_str(double value, int width, char *out, size_t n);

/* The nccl-tests run header: "# Collective test starting", the nThread
 * line, "# Using devices" and one "#  Rank" line per device (names[i],
 * bus ids[i]), then the column-header lines (with the in-place half when
 * inplace). */
void bench_nccl_header(FILE *out, const char *op, int ngpus, double min_bytes,
		       double max_bytes, int warmup, int iters, const char *host,
		       const char *const *names, const char *const *bus_ids, bool inplace);

/* One row as nccl-tests prints it: size, count, type, redop, root, then
 * time (us) algbw busbw #wrong for out-of-place and, when inplace, for
 * in-place; wrong < 0 prints N/A. */
void bench_nccl_row(FILE *out, double bytes, double count, const char *type,
		    const char *redop, int root, const struct cal_coll_point *p, bool inplace);

/* "# Out of bounds values : 0 OK", "# Avg bus bandwidth : X", "#", and
 * "# Collective test concluded: OP". */
void bench_nccl_footer(FILE *out, const char *op, double avg_busbw);

/* Median of v[0..n) (sorts v). */
double bench_median(double *v, int n);

/* UTC date and time, ISO 8601. */
void bench_now(char *out, size_t n);

/* Write m as measurements JSON to path; 0 on success, -1 with a message on
 * stderr. */
int bench_write_json(const char *path, const struct cal_measurements *m);

#ifdef __cplusplus
}
#endif

#endif
