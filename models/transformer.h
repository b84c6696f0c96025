/* transformer.h: parameters, FLOPs and the per-layer op list of a decoder.
 *
 * Two views of one architecture (struct model_arch):
 *  - global counts: total and active parameters, model FLOPs per token
 *    (tf_params, tf_flops_per_token), independent of any layout;
 *  - the op list of ONE micro-batch on ONE GPU (tf_build): every GEMM with
 *    its local (M, N, K) after the TP/CP/EP/ETP split, the flash-attention
 *    core, memory-bound ops by bytes, and the bytes each parallel dimension
 *    communicates, for each kind of layer (dense, MoE) and for the
 *    embedding/logits head and a multi-token-prediction (MTP) module.
 * All layers of one kind are identical, so callers time one layer of each
 * kind and multiply by how many a pipeline stage holds.  Pure; fixed-size
 * structs; nothing allocates; nothing to free.
 */
#ifndef SC_TRANSFORMER_H
#define SC_TRANSFORMER_H

#include <stdbool.h>

#include "catalog.h"
#include "scenario.h"

#define TF_MAX_GEMMS 12
#define TF_MAX_MEMOPS 12

struct tf_gemm {
	const char *name;  /* static string, e.g. "qkv" */
	double m, n, k;    /* forward C[m,n] = A[m,k] B[k,n], local to the GPU */
	double count;      /* identical GEMMs (local experts of a grouped GEMM) */
	bool keep_bf16;    /* stays BF16 under FP8/FP4 training (router, logits) */
	bool expert;       /* routed-expert GEMM (subject to routing imbalance) */
	bool attention;    /* the attention block's projections in and out (MLA's
			      down and up projections): serving's attention data
			      parallelism runs them at the attention TP size */
};

struct tf_memop {
	const char *name;  /* static string */
	double bytes;      /* forward HBM bytes read + written */
	double kernels;    /* kernels launched for it */
};

/* One layer (or the head) of one micro-batch on one GPU, forward pass. */
struct tf_layer {
	int n_gemms;
	struct tf_gemm gemm[TF_MAX_GEMMS];
	int n_memops;
	struct tf_memop memop[TF_MAX_MEMOPS];
	double attn_flops;        /* flash-attention core, causal, local */
	double attn_bytes;        /* its HBM traffic */
	double attn_head_dim;     /* mean head dimension of its two matmuls, (d_qk + d_v) / 2 */
	double gemm_flops;        /* sum of 2 m n k count */
	/* communication, forward, per layer per micro-batch */
	/* Megatron's conjugate TP operators (Shoeybi et al. 2019): an "f"
	 * (identity forward, all-reduce backward) before each column-parallel
	 * GEMM and a "g" (all-reduce forward, identity backward) after each
	 * row-parallel one.  With sequence parallelism f becomes an all-gather
	 * forward / reduce-scatter backward and g a reduce-scatter forward /
	 * all-gather backward (Korthikanti et al. 2022). */
	int tp_f;                 /* f operators on the TP group */
	int tp_g;                 /* g operators on the TP group */
	double tp_bytes;          /* full (gathered) activation bytes of one */
	int etp_f, etp_g;         /* the same on the expert-TP group */
	double etp_bytes;
	int ep_calls;             /* all-to-alls on the EP group (dispatch, combine) */
	double ep_bytes;          /* send bytes per rank of one all-to-all */
	double cp_kv_bytes;       /* K and V bytes of one CP chunk (one ring step) */
	/* parameters held by this GPU for this layer (after TP/EP/ETP split) */
	double params_dense_local;
	double params_expert_local;
};

/* How one GPU sees the model. */
struct tf_shard {
	int seq_len;
	int micro_batch;
	int tp, cp, ep, etp;   /* etp >= 1 */
	bool sp;               /* sequence parallel (only meaningful for tp > 1) */
	bool low_precision;    /* FP8/FP4 GEMMs: count the quantisation casts */
};

struct tf_ops {
	struct tf_layer dense;   /* a dense decoder layer */
	struct tf_layer moe;     /* an MoE decoder layer (zeroed for dense models) */
	struct tf_layer embed;   /* input embedding (first stage) */
	struct tf_layer logits;  /* final norm, output projection and loss (last stage) */
	struct tf_layer mtp_extra; /* one MTP module's projection, norms, logits and
				      loss, without its decoder layer */
	bool mtp_layer_is_moe;   /* the MTP module's decoder layer kind */
};

/* Global parameter counts (not sharded). */
struct tf_params {
	double total;          /* published convention: without MTP modules */
	double active;         /* touched per token (MoE: top_k + shared experts) */
	double embedding;      /* input embedding */
	double output;         /* output projection (0 when tied) */
	double dense_layer;    /* one dense decoder layer */
	double moe_layer;      /* one MoE decoder layer, all experts */
	double moe_layer_active;
	double moe_layer_expert; /* routed-expert part of moe_layer */
	double mtp;            /* all MTP modules (not in total) */
	int dense_layers;
	int moe_layers;
};

/* Forward FLOPs per token, global (not sharded), one sequence of seq_len. */
struct tf_flops {
	double layers_gemm;    /* all decoder layers, GEMMs (active experts) */
	double layers_attn;    /* all decoder layers, attention scores and values */
	double logits;         /* output projection */
	double mtp;            /* MTP modules (layer + projection + logits) */
	double total;          /* sum of the above */
};

/* Is decoder layer i (0-based) an MoE layer? */
bool tf_layer_is_moe(const struct model_arch *m, int i);

/* Number of MoE layers among layers [begin, end). */
int tf_moe_layers_in(const struct model_arch *m, int begin, int end);

void tf_params(const struct model_arch *m, struct tf_params *out);

/* causal: count half of the s^2 attention work, as flash attention does when
 * it skips masked blocks; false counts it all (Narayanan et al. 2021). */
void tf_flops_per_token(const struct model_arch *m, int seq_len, bool causal,
			struct tf_flops *out);

/* Model FLOPs of one training step of batch_seqs sequences under
 * Megatron-LM's own convention (megatron/training/training.py,
 * num_floating_point_operations, Megatron-Core r0.8): 12 B s L h^2
 * ((1 + g/a + s/h) q/h + f/h k gated + V / (2 L h)), q the query
 * projection width, g/a the key/value groups over the heads, gated 3/2 for
 * SwiGLU, k the experts a token is routed to; attention counted without
 * causal halving and no recompute term.  NeMo 2's flops_formulas (llama2:
 * 12 + 12 g/a + 18 f/h + 12 s/h + 6 V/(L h)) is the same sum.  Used to
 * compare a source that publishes TFLOP/s only.  0 for an MLA model (the
 * convention has no term for it). */
double tf_megatron_flops_per_step(const struct model_arch *m, int seq_len, double batch_seqs);

/* The op list of one micro-batch on one GPU. */
void tf_build(const struct model_arch *m, const struct tf_shard *sh,
	      struct tf_ops *out);

#endif
