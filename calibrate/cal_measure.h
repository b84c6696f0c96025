/* cal_measure.h: a set of raw measurements, in memory and as JSON.
 *
 * Everything `calibrate` measures or ingests lands in one struct
 * cal_measurements: collective sweeps (nccl-tests columns: size, count,
 * type, redop, time, algbw, busbw, #wrong, out-of-place and in-place), GEMM
 * timings, HBM copy timings and storage throughputs (fio), plus provenance.
 * The same struct is what the CUDA microbenchmarks write, what `calibrate
 * run` and `calibrate ingest` print as JSON ("stepcast-measurements",
 * schema_version 1) and what `calibrate fit` reads.
 *
 * Ownership: cal_measurements_init() zeroes a caller-owned struct; the add
 * functions copy their argument into arrays the struct owns; the caller
 * releases them with cal_measurements_free().  cal_measurements_to_json()
 * returns a cJSON tree the caller frees with cJSON_Delete().
 */
#ifndef SC_CAL_MEASURE_H
#define SC_CAL_MEASURE_H

#include <stdbool.h>

#include <cjson/cJSON.h>

#include "../models/collective.h"
#include "../models/status.h"

#define CAL_STR_MAX 128
#define CAL_SOURCE_MAX 512

struct cal_provenance {
	char tool[CAL_STR_MAX];    /* what produced the measurements */
	char created[CAL_STR_MAX]; /* UTC date and time */
	char gpu[CAL_STR_MAX];     /* GPU name as the tool printed it */
	int gpus;                  /* GPUs the tool saw (0: unknown) */
	char driver[CAL_STR_MAX];
	char cuda[CAL_STR_MAX];
	char nccl[CAL_STR_MAX];
	char host[CAL_STR_MAX];
	char inputs[CAL_SOURCE_MAX]; /* files ingested, comma-separated */
};

/* One row of an nccl-tests table.  A missing in-place half has
 * inplace_time_s 0; an unreported #wrong ("N/A") is -1. */
struct cal_coll_point {
	double bytes;              /* nccl-tests "size" */
	double count;              /* elements */
	double time_s;             /* out-of-place */
	double algbw_GBps;
	double busbw_GBps;
	double wrong;
	double inplace_time_s;
	double inplace_algbw_GBps;
	double inplace_busbw_GBps;
	double inplace_wrong;
};

/* One collective sweep: one table of one nccl-tests run. */
struct cal_curve {
	char op[32];               /* "all_reduce", "all_gather", "reduce_scatter",
				      "all_to_all", "send_recv", "broadcast", ... */
	char dtype[16];            /* nccl-tests "type", e.g. "float" */
	char redop[16];            /* "sum", "none", ... */
	int ranks;                 /* group size */
	int nodes;                 /* distinct hosts (0: unknown) */
	int gpus_per_node;         /* 0: unknown */
	char gpu[CAL_STR_MAX];     /* device name from the log, "" if absent */
	char source[CAL_SOURCE_MAX]; /* "FILE:LINE" of the table */
	int n_points;
	struct cal_coll_point *points;
};

struct cal_gemm_point {
	char dtype[8];             /* "bf16" or "fp8" */
	char label[32];            /* shape's origin, e.g. "mlp-up", "square" */
	double m, n, k;
	double time_s;             /* median of the timed runs */
	double flops_per_s;        /* 2 m n k / time_s */
};

struct cal_hbm_point {
	char kernel[16];           /* "copy" (cudaMemcpy device to device) or "read-write" */
	double bytes;              /* bytes read plus bytes written */
	double time_s;
	double Bps;                /* bytes / time_s */
};

struct cal_storage_point {
	char job[CAL_STR_MAX];     /* fio job name */
	char rw[16];               /* fio rw= (read, write, randread, ...) */
	char direction[8];         /* "read", "write" or "trim": which fio section */
	double bs_bytes;           /* block size (0: unknown) */
	int numjobs, iodepth;      /* 0: unknown */
	double bw_Bps;
	double iops;
	double lat_mean_s;         /* total latency (lat_ns mean), 0: unknown */
	double runtime_s;
	double io_bytes;
};

/* Rows (collective points, GEMM, HBM and storage measurements) and
 * collective curves of one measurement set.  A full nccl-tests sweep (8 B
 * to 16 GiB, factor 2) is one curve of 32 rows; a fleet's sweeps of 8
 * collectives at 100 scales are 800 curves, 25,600 rows.  Each row costs
 * about 2 KB to ingest and write as JSON (99,968 rows: 188 MB peak) and 21
 * JSON values written, a curve about 20 more: at these limits what ingest
 * writes stays below the readers' 2,000,000 values (CFG_MAX_VALUES), so
 * fit reads it back, and one ingest stays below about 200 MB whatever the
 * input's size (docs/limits.md).  Past them the readers fail (SC_EINVAL,
 * with the line or JSON pointer). */
#define CAL_MAX_ROWS 80000
#define CAL_MAX_CURVES 4096

struct cal_measurements {
	struct cal_provenance prov;
	int n_curves, n_gemm, n_hbm, n_storage;
	int n_rows;               /* all rows held (<= CAL_MAX_ROWS) */
	struct cal_curve *curves;
	struct cal_gemm_point *gemm;
	struct cal_hbm_point *hbm;
	struct cal_storage_point *storage;
	int cap_curves, cap_gemm, cap_hbm, cap_storage;
};

void cal_measurements_init(struct cal_measurements *m);
void cal_measurements_free(struct cal_measurements *m);

/* Append a copy of c (its points are copied too). */
enum sc_status cal_add_curve(struct cal_measurements *m, const struct cal_curve *c,
			     struct sc_error *err);
/* Append one point to the last curve added. */
enum sc_status cal_curve_add_point(struct cal_curve *c, const struct cal_coll_point *p,
				   struct sc_error *err);
enum sc_status cal_add_gemm(struct cal_measurements *m, const struct cal_gemm_point *p,
			    struct sc_error *err);
enum sc_status cal_add_hbm(struct cal_measurements *m, const struct cal_hbm_point *p,
			   struct sc_error *err);
enum sc_status cal_add_storage(struct cal_measurements *m, const struct cal_storage_point *p,
			       struct sc_error *err);

/* Move everything of src into dst (src is left empty); provenance fields
 * of dst that are empty are taken from src, inputs are joined. */
enum sc_status cal_measurements_merge(struct cal_measurements *dst,
				      struct cal_measurements *src, struct sc_error *err);

/* The measurements as "stepcast-measurements" JSON; NULL on allocation
 * failure. */
cJSON *cal_measurements_to_json(const struct cal_measurements *m);

/* Read "stepcast-measurements" JSON (strictly: unknown keys, wrong types,
 * non-finite or negative numbers are errors with file and JSON pointer)
 * and append it to m.  name is used in messages. */
enum sc_status cal_measurements_read(const char *name, const cJSON *root,
				     struct cal_measurements *m, struct sc_error *err);

/* The model's collective for an nccl-tests op name, or false when the
 * model has none (broadcast, reduce, gather, ...). */
bool cal_op_to_coll(const char *op, enum coll_op *out);

/* Normalise an nccl-tests program or op name ("all_reduce_perf",
 * "alltoall", "sendrecv_perf_mpi", ...) into out (e.g. "all_reduce",
 * "all_to_all", "send_recv"); false if it is not one. */
bool cal_op_normalise(const char *name, char *out, size_t n);

#endif
