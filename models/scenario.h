/* scenario.h: one what-if question as plain structs: a model, a cluster,
 * training settings and a parallelism layout, with every catalogue reference
 * already resolved into a copy.  Filled by sim/config (scenario files) or by
 * the validation reader; read by models/ and sim/.  Fixed buffers only.
 */
#ifndef SC_SCENARIO_H
#define SC_SCENARIO_H

#include "calibration.h"
#include "catalog.h"
#include "resilience_types.h"

enum sc_precision { PREC_BF16, PREC_FP16, PREC_FP8, PREC_MXFP8, PREC_NVFP4 };
enum sc_recompute { RECOMPUTE_NONE, RECOMPUTE_SELECTIVE, RECOMPUTE_FULL };
enum sc_schedule { SCHED_1F1B, SCHED_INTERLEAVED_1F1B, SCHED_GPIPE, SCHED_ZB_H1, SCHED_ZB_V, SCHED_DUALPIPE };
enum sc_optimizer { OPT_ADAM, OPT_SGD };
/* MoE token dispatch: Megatron's all-to-all (top_k copies of every token
 * to their experts' ranks), or the flex dispatcher (DeepEP, HybridEP) that
 * sends a token once to each remote NVLink domain and fans it out there. */
enum sc_moe_dispatcher { MOE_DISPATCH_ALLTOALL, MOE_DISPATCH_FLEX };

struct layout {
	int tp;
	int pp;
	int vpp;                 /* virtual stages per pipeline rank; 1 = none */
	int dp;
	int cp;
	int ep;
	int etp;                 /* expert tensor parallel; 0 = same as tp */
	int zero_stage;          /* 0..3; 3 = fully sharded */
	bool fsdp;               /* FSDP (parameters, gradients, optimizer sharded) */
	int fsdp_group;          /* sharding group (hybrid shard); 0 = whole DP */
	bool sequence_parallel;
	enum sc_schedule schedule;
	bool tp_comm_overlap;
	bool ep_comm_overlap;
	enum sc_moe_dispatcher moe_dispatcher;
};

struct training {
	int seq_len;
	int global_batch_seqs;
	int micro_batch_seqs;
	enum sc_precision precision;
	enum sc_recompute recompute;
	enum sc_optimizer optimizer;
	bool grad_fp32;          /* gradients accumulated in FP32 (4 bytes) */
	double tokens_to_train;  /* 0 = not given */
};

struct cluster {
	struct instance_spec instance;
	struct gpu_spec gpu;
	struct fabric_spec fabric;
	int nodes;
};

struct scenario {
	char name[SC_SOURCE_MAX];
	struct model_arch model;
	struct cluster cluster;
	struct training training;
	struct layout layout;
	struct calibration calibration;
	struct storage_cfg storage;      /* optional "storage" object */
	struct straggler_cfg stragglers; /* optional "stragglers" object */
};

static inline int scenario_gpus(const struct scenario *s)
{
	return s->cluster.nodes * s->cluster.instance.gpus_per_node;
}

const char *precision_name(enum sc_precision p);
const char *recompute_name(enum sc_recompute r);
const char *schedule_name(enum sc_schedule s);
const char *moe_dispatcher_name(enum sc_moe_dispatcher d);

#endif
