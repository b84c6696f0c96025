/* serving.h: the cost of LLM inference on one model replica.
 *
 * A replica is tp x pp GPUs serving one copy of the model (experts split
 * over ep of the tp ranks).  This module answers, from the same op list and
 * calibrated roofline as training (models/transformer, models/gpu,
 * models/collective):
 *  - how many bytes of KV cache one token costs (GQA, MLA, sliding windows)
 *    and how many bytes of HBM are left for the KV cache after the weights,
 *    the activation workspace and the framework's reserve;
 *  - how long one engine iteration takes for a batch of prefill chunks and
 *    decode steps: GEMMs with the M dimension = tokens in the iteration
 *    (prefill is compute-bound, decode streams the weights from HBM), paged
 *    attention over the KV cache, TP all-reduces on NVLink (or EFA), PP
 *    sends, the logits of sampled tokens, a fixed per-iteration engine cost.
 * Pure functions over caller-owned structs; srv_replica_init() copies what
 * it needs, so the inputs may go away afterwards; nothing to free.
 */
#ifndef SC_SERVING_H
#define SC_SERVING_H

#include <stdbool.h>

#include "calibration.h"
#include "catalog.h"
#include "gpu.h"
#include "network.h"
#include "scenario.h"
#include "status.h"
#include "transformer.h"

/* Number formats of weights, activations and the KV cache, as serving
 * engines name them.  mxfp4 and int4-awq are weight-only formats. */
#define SRV_FORMAT_LIST(X) X(SRV_FMT_BF16, "bf16") X(SRV_FMT_FP16, "fp16") X(SRV_FMT_FP8, "fp8") \
	X(SRV_FMT_NVFP4, "nvfp4") X(SRV_FMT_MXFP4, "mxfp4") X(SRV_FMT_INT4_AWQ, "int4-awq")
enum srv_format { SRV_FORMAT_LIST(SC_ENUM_ID) SRV_FMT_COUNT };
/* The formats' names as configs and reports spell them, NULL-terminated. */
extern const char *const srv_format_names[];

struct srv_precision {
	enum srv_format weights;
	enum srv_format activations;
	enum srv_format kv_cache;
};

/* A model as served: the catalogue architecture plus two fields only some
 * serving models carry. */
struct srv_arch {
	struct model_arch m;
	int shared_expert_ffn_hidden;  /* 0 = moe_ffn_hidden */
	bool parallel_attention;       /* attention and MLP from one norm (GPT-J, Falcon) */
};

/* One replica: tp x pp GPUs; MoE experts split over ep of the tp ranks
 * (expert tensor parallel etp = tp / ep).  attention_dp > 1 (MoE models):
 * DeepSeek-style attention data parallelism inside the TP group - the
 * attention blocks run on attention_dp ranks of tp / attention_dp GPUs
 * each, every rank with its own sequences and their KV cache, and the
 * tokens of all ranks are gathered for the MLP and MoE layers over the
 * whole TP group (SGLang --enable-dp-attention --dp N, TensorRT-LLM
 * enable_attention_dp, vLLM --data-parallel-size with
 * --enable-expert-parallel).  0 or 1: off. */
struct srv_layout {
	int tp;
	int pp;
	int ep;
	int attention_dp;
};

/* What an engine's memory fraction f covers.
 * TOTAL: f x HBM holds weights, activation workspace, framework reserve and
 *   the KV cache (vLLM gpu_memory_utilization);
 * FREE: the KV cache gets f x what weights, workspace and reserve leave
 *   (TensorRT-LLM free_gpu_memory_fraction, LMDeploy cache_max_entry_count);
 * WEIGHTS_KV: f x HBM holds the weights and the KV cache, the rest is left
 *   for activations and the framework (SGLang mem_fraction_static);
 * KV_ONLY: the KV cache alone is f x HBM, whatever the weights take
 *   (LMDeploy TurboMind before v0.2.2: BlockManager::GetBlockCount sizes
 *   the pool as total x cache_max_entry_count). */
#define SRV_MEM_BASIS_LIST(X) X(SRV_MEM_TOTAL, "total", "total") X(SRV_MEM_FREE, "free", "free") \
	X(SRV_MEM_WEIGHTS_KV, "weights-and-kv", "total (weights and KV)") \
	X(SRV_MEM_KV_ONLY, "kv", "total (KV only)")
/* X(ID, name, what "f of ... HBM" says): the enum, its names as engine
 * entries spell them (kv_mem_fraction_of) and the reports' phrase */
#define SRV_MEM_BASIS_ID(id, name, hbm) id,
enum srv_mem_basis { SRV_MEM_BASIS_LIST(SRV_MEM_BASIS_ID) };
/* The bases' names, NULL-terminated, and the HBM each is a fraction of, as
 * the serving report prints it ("0.50 of total (KV only) HBM"). */
extern const char *const srv_mem_basis_names[];
const char *srv_mem_basis_hbm(enum srv_mem_basis b);

/* How the engine uses memory and runs attention (a subset of the engine's
 * settings; the zero values of the attention fields are the common case:
 * a grouped decode kernel and the model's sliding window kept). */
struct srv_memory_opts {
	double kv_mem_fraction;
	enum srv_mem_basis basis;
	double kv_pool_tokens;         /* > 0: the pool holds this many tokens per replica, whatever the
					  fraction (vLLM num_gpu_blocks_override, SGLang max_total_tokens,
					  TurboMind cache_max_entry_count >= 1 blocks) */
	int max_num_batched_tokens;    /* activation workspace is sized for this */
	int max_num_seqs;              /* logits workspace */
	bool decode_per_head;          /* one decode thread block per query head */
	int grouped_max_group;         /* larger query-head groups fall back to per head (0: none do) */
	bool full_window;              /* the engine ignores the model's sliding window */
	bool full_window_kv_pool;      /* attention reads the window, but the KV pool keeps every token */
};

/* Speculative decoding: draft_tokens proposed per step, each accepted with
 * probability acceptance_rate (0 draft tokens: off). */
struct srv_speculative {
	int draft_tokens;
	double acceptance_rate;
};

/* Everything the iteration model needs, precomputed once per replica. */
struct srv_replica {
	struct srv_arch arch;
	struct gpu_spec gpu;
	struct instance_spec instance;
	struct fabric_spec fabric;
	struct calibration cal;
	struct srv_precision prec;
	struct srv_layout lay;
	struct srv_speculative spec;
	enum gpu_dtype gemm_dtype;     /* tensor-core format of the GEMMs */
	double weight_bytes_per_param; /* decoder GEMM weights */
	double expert_weight_bytes_per_param;
	double act_bytes;              /* bytes of one activation element into a GEMM */
	double kv_elem_bytes;
	struct tf_ops ops;             /* the op list of ONE token (T = 1) on one GPU */
	struct tf_ops ops_attn;        /* the same at the attention TP size (attention_dp > 1) */
	int adp;                       /* attention data-parallel ranks (1: off) */
	int attn_tp;                   /* GPUs of one attention rank: tp / adp */
	struct net_span tp_span, pp_span, attn_span;
	int dense_layers, moe_layers;  /* whole model */
	int window_dense, window_moe;  /* of those, sliding-window layers */
	int allreduces_per_layer;      /* TP all-reduces per decoder layer */
	/* KV cache, per GPU of the stage with the most layers (with attention
	 * DP a sequence's KV sits on one of the adp ranks: per token, the
	 * attention rank's bytes over adp, so the pool of one GPU holds the
	 * replica's tokens over its adp ranks) */
	double kv_bytes_per_token_full;   /* full-attention layers, per token */
	double kv_bytes_per_token_window; /* sliding-window layers, per token (<= window) */
	int window_tokens;                /* 0 = no sliding window (or the engine attends to every token) */
	int kv_window_tokens;             /* the window the KV pool frees beyond (0: keeps every token) */
	double kv_read_amp;               /* HBM reads of the KV cache per decode step over its size (>= 1) */
	/* memory per GPU, bytes */
	double weights_bytes;
	double workspace_bytes;
	double reserve_bytes;
	double kv_pool_bytes;          /* what the engine gives the KV cache */
	double hbm_bytes;
};

/* One engine iteration's batch, in aggregate. */
struct srv_batch {
	double prefill_tokens;     /* prompt tokens computed this iteration (chunks) */
	double prefill_pairs;      /* sum over chunks of query-key pairs, causal:
				      c * p + c (c + 1) / 2 for c new tokens after p */
	double prefill_pairs_win;  /* the same with keys limited to the window */
	double prefill_ctx;        /* sum of p: cached tokens the chunks attend to */
	double decode_seqs;        /* sequences taking a decode step */
	double decode_ctx;         /* sum of their context lengths (keys read) */
	double decode_ctx_win;     /* sum of min(context, window) */
	double sampled;            /* sequences whose logits are computed */
	double finish_keys;        /* sum over the prompts finishing this iteration of the keys
				      their last token attends to (p + c) */
	double finish_keys_win;    /* the same limited to the window, sum of min(p + c, w) */
};

/* Where an iteration's time goes (sums to total_s). */
struct srv_iter_parts {
	double gemm_s;
	double attention_s;
	double memory_s;           /* norms, activations, rotary, sampling */
	double comm_s;             /* TP all-reduces, logits gather, PP sends */
	double overhead_s;         /* kernel gaps and the per-iteration engine cost */
	double total_s;
	double weight_read_s;      /* of gemm_s: time bound by streaming weights */
};

/* The format's name as scenario files spell it, e.g. "int4-awq" (static). */
const char *srv_format_name(enum srv_format f);

/* Bytes per stored element (4-bit formats count their block scales:
 * NVFP4 one FP8 scale per 16, MXFP4 one E8M0 per 32, AWQ an FP16 scale and
 * zero per group of 128). */
double srv_format_bytes(enum srv_format f);

/* Bytes of KV cache one token costs in the whole model (all layers, not
 * sharded) at kv element size kv_bytes; for sliding-window layers the full
 * per-token cost is counted (the cap is per sequence, see srv_replica).
 * GQA/MHA: 2 (K and V) x kv_heads x head_dim per layer; MLA: the
 * compressed latent plus the shared rotary key, kv_lora_rank +
 * qk_rope_head_dim per layer (DeepSeek-V2 report, section 2.1.4). */
double srv_kv_bytes_per_token(const struct model_arch *m, double kv_bytes);

/* Check and precompute a replica.  Fails with SC_EINVAL (pointer names the
 * serving scenario key: "/replica/tp" ...) when the layout does not divide
 * the model or exceeds the NVLink domain, SC_EUNSUPPORTED when the GPU
 * lacks a number format, and SC_ERANGE (pointer "/replica") when the
 * weights do not fit in HBM with room for one sequence of min_tokens.
 * All inputs are copied. */
enum sc_status srv_replica_init(struct srv_replica *r, const struct srv_arch *arch,
				const struct gpu_spec *gpu, const struct instance_spec *inst,
				const struct fabric_spec *fabric, const struct calibration *cal,
				const struct srv_precision *prec, const struct srv_layout *lay,
				const struct srv_memory_opts *mem, const struct srv_speculative *spec,
				int min_tokens, struct sc_error *err);

/* KV-cache bytes (per GPU) that a sequence of ctx tokens holds when memory
 * is allocated in blocks of block_tokens. */
double srv_kv_seq_bytes(const struct srv_replica *r, double ctx, int block_tokens);

/* Time of one iteration of batch b; fills parts (may be NULL). */
double srv_iteration_time(const struct srv_replica *r, const struct srv_batch *b,
			  struct srv_iter_parts *parts);

/* An engine with a separate context pass (TurboMind v0.1, LlamaBatch.cc:
 * the context decoder runs new prompts but their last token, "will process
 * with decoder later") splits batch b in two: ctx, the prompts without
 * their last token, and dec, the running sequences' decode steps plus one
 * decode step per finishing prompt, which attends to its whole prompt.  The
 * finishing prompts are the sampled sequences that are not decoding; every
 * chunk of b must finish its prompt (such an engine runs prompts whole). */
void srv_split_context_pass(const struct srv_batch *b, struct srv_batch *ctx, struct srv_batch *dec);

/* The time of batch b on such an engine: the two passes of
 * srv_split_context_pass one after the other, the weights streamed twice. */
double srv_context_pass_time(const struct srv_replica *r, const struct srv_batch *b);

/* Expected tokens a sequence gains per decode step: 1 without speculative
 * decoding, else (1 - a^(k+1)) / (1 - a) for k drafts accepted with
 * probability a each (Leviathan et al. 2023, eq. 1). */
double srv_tokens_per_step(const struct srv_speculative *spec);

/* Bytes of KV cache a prompt of n tokens moves from a prefill replica to a
 * decode replica, per GPU pair (each GPU sends its own shard). */
double srv_kv_transfer_bytes(const struct srv_replica *r, double n);

/* Time to move those bytes over span s (models/collective send/recv: the
 * network model's alpha and bandwidth of the tier s crosses). */
double srv_kv_transfer_time(const struct srv_replica *r, const struct net_span *s, double n);

#endif
