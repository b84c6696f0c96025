/* run_log.h: what a real training run measured, read from its own logs.
 *
 *   - Megatron-LM (and NeMo, which logs through it) iteration lines, as
 *     megatron/training/training.py training_log() prints them:
 *       " [2026-11-30 10:00:00] iteration      100/    1000 | consumed samples: ... |
 *        elapsed time per iteration (ms): 10523.4 | throughput per GPU (TFLOP/s/GPU): 351.2 | ..."
 *     (newer versions print "elapsed time per iteration (ms): CUR/MEAN |"; launcher
 *     prefixes such as srun --label's "0: " are ignored);
 *   - NCCL Inspector's Prometheus dump (NCCL_INSPECTOR_PROM_DUMP=1), lines
 *       nccl_bus_bandwidth_gbs{...,nranks="16",collective="ReduceScatter",...} 44.1181
 *       nccl_p2p_bus_bandwidth_gbs{...,nranks="2",p2p_operation="Send",...} 19.16
 *     ("n_ranks" is accepted for nranks); other lines are skipped.
 * Bad input (a number that does not parse, is not finite or not positive, a
 * line over 64 KiB) fails with SC_EINVAL naming the line.
 */
#ifndef SC_RUN_LOG_H
#define SC_RUN_LOG_H

#include <stdbool.h>

#include "../../models/status.h"

#define RUN_LOG_MAX_ITERS 1000000
#define RUN_LOG_MAX_COLLS 64

struct run_iter {
	long iteration;
	double step_s;
	double tflops_per_gpu;   /* 0 when not logged */
};

struct run_coll {
	char collective[32];     /* NCCL's name: "AllReduce", ... ; "Send"/"Recv" for p2p */
	int nranks;
	bool p2p;
	int n;                   /* samples */
	double busbw_sum_GBps;   /* for the mean */
	double busbw_min_GBps;
};

struct run_log {
	struct run_iter *iters;
	int n_iters;
	struct run_coll colls[RUN_LOG_MAX_COLLS];
	int n_colls;
};

void run_log_free(struct run_log *r);

/* Append the iteration lines of a Megatron-LM log at path; none is an error. */
enum sc_status run_log_read_megatron(const char *path, struct run_log *r, struct sc_error *err);

/* Add the bus bandwidth samples of an NCCL Inspector Prometheus file; none
 * is an error. */
enum sc_status run_log_read_nccl_prom(const char *path, struct run_log *r, struct sc_error *err);

#endif
