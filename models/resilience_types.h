/* resilience_types.h: plain structs for storage, checkpoints, failures and
 * stragglers: the failure catalogue (configs/failures.json) and a scenario's
 * optional "storage" and "stragglers" objects, with every catalogue name
 * already resolved into a copy.
 *
 * Filled by sim/config (catalog_load, scenario_load); read by models/storage,
 * models/resilience and sim/analytic/goodput.  Fixed buffers only: copy
 * freely, nothing to free.  Units live in field names.
 */
#ifndef SC_RESILIENCE_TYPES_H
#define SC_RESILIENCE_TYPES_H

#include <stdbool.h>

#include "catalog.h"
#include "enum_names.h"

/* What a failure cause's rate is proportional to: the GPUs of a job or its
 * nodes (hosts, NICs, switches and cables, software on each host). */
#define FAIL_SCALE_LIST(X) X(FAIL_PER_GPU, "gpu") X(FAIL_PER_NODE, "node")
enum fail_scale { FAIL_SCALE_LIST(SC_ENUM_ID) };
extern const char *const fail_scale_names[];

/* One observation window of a real training job (configs/failures.json
 * "profiles"): the denominators the per-cause counts are divided by. */
struct failure_profile_spec {
	char name[SC_NAME_MAX];
	int observed_gpus;             /* GPUs of the observed job */
	int gpus_per_node;
	double observed_days;          /* length of the window */
	int planned_interruptions;     /* maintenance, upgrades: no work lost */
	char source[SC_SOURCE_MAX];
};

/* One row of a profile's cause table (configs/failures.json "causes"). */
struct failure_cause_spec {
	char profile[SC_NAME_MAX];     /* the profile it belongs to */
	char name[SC_NAME_MAX];        /* e.g. "faulty-gpu" */
	char category[SC_NAME_MAX];    /* the source's grouping, e.g. "gpu", "host" */
	int scales_with;               /* enum fail_scale */
	int interruptions;             /* unexpected job interruptions it caused */
	char source[SC_SOURCE_MAX];
};

/* A recovery method (configs/failures.json "recovery"): what one
 * interruption costs besides reading state back and re-doing lost work. */
struct recovery_spec {
	char name[SC_NAME_MAX];        /* "checkpoint" or "checkpointless" */
	double restart_s;              /* detection, teardown, rescheduling, process
					  and communicator start-up, data loader */
	int state_replicas;            /* copies of the model and optimizer state
					  held in GPU memory (checkpointless: >= 2) */
	char source[SC_SOURCE_MAX];
};

#define SC_FAILURE_CAUSES_MAX 32

/* A profile's causes turned into rates (no sources: this travels with every
 * scenario copy). */
struct failure_rates {
	char profile[SC_NAME_MAX];
	int n_causes;
	struct {
		char name[SC_NAME_MAX];
		char category[SC_NAME_MAX];
		enum fail_scale per;
		double rate_per_h;     /* per GPU-hour or per node-hour (see per) */
	} cause[SC_FAILURE_CAUSES_MAX];
	double planned_per_h;          /* planned interruptions per job-hour */
};

#define CKPT_RECOVERY_LIST(X) X(RECOVERY_CHECKPOINT, "checkpoint") X(RECOVERY_CHECKPOINTLESS, "checkpointless")
#define CKPT_MOMENTS_LIST(X) X(MOMENTS_FP32, "fp32") X(MOMENTS_BF16, "bf16")
enum ckpt_recovery { CKPT_RECOVERY_LIST(SC_ENUM_ID) };
enum ckpt_moments { CKPT_MOMENTS_LIST(SC_ENUM_ID) };
extern const char *const ckpt_recovery_names[];
extern const char *const ckpt_moments_names[];

/* A scenario's optional "storage" object, resolved. */
struct storage_cfg {
	bool enabled;                  /* the scenario has a "storage" object */
	bool has_data_tier;            /* data loading is modelled */
	struct storage_spec data_tier;
	struct storage_spec checkpoint_tier;
	double provisioned_TiB;        /* capacity of an FSx tier; 0 = the tier's default */
	int checkpoint_every_steps;    /* 0 = auto (Daly's interval) */
	bool async_checkpoint;         /* snapshot to host memory, drain in the background */
	double bytes_per_token;        /* tokenised data on disk; 0 = by vocabulary */
	int prefetch_batches;          /* batches the loader keeps in flight (0: none) */
	int s3_prefixes;               /* partitioned S3 prefixes the job spreads over */
	enum ckpt_moments checkpoint_moments;
	enum ckpt_recovery recovery;
	struct failure_rates failures;
	struct recovery_spec restart;        /* the "checkpoint" recovery entry */
	struct recovery_spec checkpointless; /* the "checkpointless" recovery entry */
	double d2h_GBps;               /* GPU-to-host copy per GPU (the GPU family's link) */
	double h2d_GBps;               /* host-to-GPU copy per GPU */
};

#define STRAGGLER_DIST_LIST(X) X(STRAGGLER_LOGNORMAL, "lognormal") X(STRAGGLER_NORMAL, "normal") \
	X(STRAGGLER_EXPONENTIAL, "exponential")
enum straggler_dist { STRAGGLER_DIST_LIST(SC_ENUM_ID) };
extern const char *const straggler_dist_names[];

/* A scenario's optional "stragglers" object: each GPU's compute time in a
 * step is multiplied by its own draw s_i; a synchronous step waits for the
 * slowest, so it stretches by E[max_i s_i] - 1. */
struct straggler_cfg {
	bool enabled;
	enum straggler_dist distribution;
	double sigma;                  /* lognormal: s = exp(sigma Z); normal: s =
					  1 + sigma Z; exponential: s = 1 + X,
					  X of mean sigma */
	int monte_carlo_steps;         /* 0: closed form; else sampled steps */
	int seed;                      /* GSL mt19937 seed for the sampling */
};

const char *ckpt_recovery_name(enum ckpt_recovery r);
const char *ckpt_moments_name(enum ckpt_moments m);
const char *fail_scale_name(enum fail_scale s);
const char *straggler_dist_name(enum straggler_dist d);

#endif
