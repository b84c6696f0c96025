/* step.h: the analytical step-time engine.
 *
 * sim_step_predict() composes the pure models (transformer op list, GPU
 * roofline, collectives over the network tiers, memory, pipeline schedule,
 * overlap rules) into one training step of the scenario's layout.  Pure:
 * no I/O, no allocation in the hot path, no globals; the caller owns both
 * structs.  Fails with SC_EINVAL (layout does not fit the model or cluster)
 * or SC_EUNSUPPORTED, filling err.
 */
#ifndef SC_SIM_STEP_H
#define SC_SIM_STEP_H

#include "../../models/scenario.h"
#include "../../models/status.h"

enum step_part {
	PART_COMPUTE,        /* forward + backward + recompute GEMMs, attention, memory-bound ops */
	PART_TP_COMM,        /* exposed TP/SP collectives */
	PART_CP_COMM,        /* exposed CP ring exchange */
	PART_EP_COMM,        /* exposed EP all-to-all */
	PART_PP_COMM,        /* exposed PP send/recv */
	PART_DP_COMM,        /* exposed DP/FSDP gradient and parameter collectives */
	PART_BUBBLE,         /* pipeline fill and drain */
	PART_OPTIMIZER,      /* optimizer step */
	PART_OVERHEAD,       /* per-step fixed overheads and kernel launches */
	PART_COUNT
};

enum mem_part {
	MEM_WEIGHTS,
	MEM_GRADIENTS,
	MEM_OPTIMIZER,
	MEM_ACTIVATIONS,
	MEM_COMM_BUFFERS,
	MEM_RESERVE,
	MEM_COUNT
};

enum bottleneck {
	BOTTLENECK_TENSOR_CORES,
	BOTTLENECK_HBM,
	BOTTLENECK_NVLINK,
	BOTTLENECK_EFA,
	BOTTLENECK_PIPELINE_BUBBLE,
	BOTTLENECK_OVERHEAD,
	BOTTLENECK_COUNT
};

#define SC_ALGO_NAME_MAX 48

/* One collective of the step, as chosen: what, which algorithm, which tier. */
struct step_collective {
	const char *what;          /* "tp", "cp", "ep", "pp", "dp", "fsdp" (static string) */
	char algorithm[SC_ALGO_NAME_MAX]; /* e.g. "ring", "nvls", "hierarchical(nvls+efa-tree)" */
	const char *tier;          /* "nvlink" or "efa" (static string) */
	int ranks;
	double bytes;              /* per call, per rank */
	double time_s;             /* per call */
	double total_time_s;       /* per step, before overlap */
};

#define SC_STEP_MAX_COLLECTIVES 8

struct step_result {
	double step_time_s;
	double part_s[PART_COUNT];          /* sums to step_time_s */
	double tokens_per_s;
	double tokens_per_s_per_gpu;
	double model_flops_per_step;        /* no recompute counted */
	double hardware_flops_per_step;     /* with recompute */
	double model_tflops_per_gpu;
	double mfu;                         /* model flops / (peak of the precision) */
	double hfu;
	double mem_bytes[MEM_COUNT];        /* per GPU, worst (first) pipeline stage */
	double mem_total_bytes;
	double mem_capacity_bytes;
	bool oom;
	enum bottleneck bottleneck;
	double uncertainty_rel;             /* +- fraction (from calibration residuals) */
	int micro_batches;                  /* per step per pipeline */
	double bubble_fraction;
	int n_collectives;
	struct step_collective collectives[SC_STEP_MAX_COLLECTIVES];
};

enum sc_status sim_step_predict(const struct scenario *sc,
				struct step_result *out, struct sc_error *err);

const char *step_part_name(enum step_part p);
const char *mem_part_name(enum mem_part p);
const char *bottleneck_name(enum bottleneck b);

#endif
