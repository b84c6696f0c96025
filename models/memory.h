/* memory.h: bytes per GPU by category and the out-of-memory verdict.
 *
 * Weights, gradients and optimizer state follow mixed-precision Adam with
 * ZeRO sharding (Rajbhandari et al. 2020); activations follow Korthikanti et
 * al. 2022 ("Reducing Activation Recomputation in Large Transformer Models",
 * section 4), rederived per stored tensor so that GQA, gated MLPs, MLA and
 * MoE layers are counted, not only the 4h-GeLU MHA case of the paper.
 * Pure; plain structs; nothing to free.
 */
#ifndef SC_MEMORY_H
#define SC_MEMORY_H

#include <stdbool.h>

#include "calibration.h"
#include "catalog.h"
#include "scenario.h"

/* What one layer's activations depend on besides the architecture. */
struct mem_act_opts {
	double seq_len;        /* tokens of one sequence on this GPU (s / cp) */
	double micro_batch;    /* sequences per micro-batch */
	int tp;
	int etp;               /* expert tensor parallel (MoE layers) */
	bool sp;               /* sequence parallel */
	bool flash;            /* flash attention: no s^2 score tensors stored */
	bool dropout;          /* dropout masks stored (GPT-3-era training) */
	enum sc_recompute recompute;
};

/* Activation bytes of one layer for one micro-batch.  stored_bytes is what
 * the layer keeps until its backward under opts->recompute; working_bytes is
 * everything it would keep without recompute (the peak while a fully
 * recomputed layer is rebuilt during its backward). */
struct mem_act {
	double stored_bytes;
	double working_bytes;
};

void mem_layer_activations(const struct model_arch *m,
			   const struct mem_act_opts *opts, bool moe_layer,
			   struct mem_act *out);

struct mem_in {
	double params_dense;   /* non-expert parameters on this GPU */
	double params_expert;  /* expert parameters on this GPU */
	int dense_shard;       /* ranks sharing ZeRO shards of dense params */
	int expert_shard;      /* ranks sharing ZeRO shards of expert params */
	int zero_stage;        /* 0..3; FSDP is 3 */
	bool grad_fp32;
	enum sc_precision precision;
	enum sc_optimizer optimizer;
	double act_per_microbatch_bytes; /* the stage's layers, one micro-batch */
	double inflight_microbatches;    /* from the pipeline schedule */
	double act_extra_bytes;          /* held once (recompute working set, logits) */
	double capacity_bytes;           /* GPU HBM */
};

struct mem_out {
	double weights_bytes;
	double gradients_bytes;
	double optimizer_bytes;
	double activations_bytes;
	double comm_buffers_bytes;
	double reserve_bytes;
	double total_bytes;
	bool oom;
};

/* Bytes per parameter of the training copy of the weights: 2 (BF16/FP16),
 * plus the FP8 (1) or NVFP4 (0.5625) copy that low-precision GEMMs read. */
double mem_weight_bytes_per_param(enum sc_precision p);

/* Optimizer state bytes per parameter: Adam 12 (FP32 master, m, v), SGD with
 * momentum 8 (FP32 master, momentum). */
double mem_optimizer_bytes_per_param(enum sc_optimizer o);

void mem_estimate(const struct mem_in *in, const struct calibration *cal,
		  struct mem_out *out);

#endif
