/* scenario.h: one what-if question as plain structs: a model, a cluster,
 * training settings and a parallelism layout, with every catalogue reference
 * already resolved into a copy.  Filled by sim/config (scenario files) or by
 * the validation reader; read by models/ and sim/.  Fixed buffers only.
 */
#ifndef SC_SCENARIO_H
#define SC_SCENARIO_H

#include "calibration.h"
#include "catalog.h"
#include "enum_names.h"
#include "resilience_types.h"

/* Each scenario enum is spelt once, as X(ID, "name") in the enum's order
 * (enum_names.h): the enum, its table of names sc_..._names[] (the
 * spellings scenario files, the CLI and reports use) and its ..._name(). */
#define SC_PRECISION_LIST(X) X(PREC_BF16, "bf16") X(PREC_FP16, "fp16") X(PREC_FP8, "fp8") \
	X(PREC_MXFP8, "mxfp8") X(PREC_NVFP4, "nvfp4")
#define SC_RECOMPUTE_LIST(X) X(RECOMPUTE_NONE, "none") X(RECOMPUTE_SELECTIVE, "selective") \
	X(RECOMPUTE_FULL, "full")
#define SC_SCHEDULE_LIST(X) X(SCHED_1F1B, "1f1b") X(SCHED_INTERLEAVED_1F1B, "interleaved-1f1b") \
	X(SCHED_GPIPE, "gpipe") X(SCHED_ZB_H1, "zb-h1") X(SCHED_ZB_V, "zb-v") X(SCHED_DUALPIPE, "dualpipe")
#define SC_OPTIMIZER_LIST(X) X(OPT_ADAM, "adam") X(OPT_SGD, "sgd")
#define SC_FRAMEWORK_LIST(X) X(FW_MEGATRON_CORE, "megatron-core") X(FW_TORCHTITAN, "torchtitan") \
	X(FW_DEEPSPEED, "deepspeed")
#define SC_ATTENTION_LIST(X) X(ATTN_FLASH, "flash") X(ATTN_UNFUSED, "unfused")
#define SC_ATTENTION_KERNEL_LIST(X) X(ATTN_KERNEL_FUSED, "fused") X(ATTN_KERNEL_PORTABLE, "portable")
#define SC_CUDA_GRAPHS_LIST(X) X(CUDA_GRAPHS_NONE, "none") X(CUDA_GRAPHS_FULL_ITERATION, "full-iteration")
#define SC_DTYPE_LIST(X) X(DTYPE_FP32, "fp32") X(DTYPE_BF16, "bf16")
#define SC_LAYER_SPLIT_LIST(X) X(SPLIT_AUTO, "auto") X(SPLIT_EVEN, "even") X(SPLIT_SLOTS, "slots") \
	X(SPLIT_BALANCED, "balanced") X(SPLIT_UNEVEN, "uneven")
#define SC_MOE_DISPATCHER_LIST(X) X(MOE_DISPATCH_ALLTOALL, "alltoall") X(MOE_DISPATCH_FLEX, "flex") \
	X(MOE_DISPATCH_UCCL_EP, "uccl-ep") X(MOE_DISPATCH_PPLX_GARDEN, "pplx-garden") \
	X(MOE_DISPATCH_ALLGATHER, "allgather") X(MOE_DISPATCH_EFA_GDA, "efa-gda")

enum sc_precision { SC_PRECISION_LIST(SC_ENUM_ID) };
enum sc_recompute { SC_RECOMPUTE_LIST(SC_ENUM_ID) };
enum sc_schedule { SC_SCHEDULE_LIST(SC_ENUM_ID) };
enum sc_optimizer { SC_OPTIMIZER_LIST(SC_ENUM_ID) };
/* Which training framework allocates the memory (models/memory.c has each
 * one's rules): Megatron-Core (also NeMo and Megatron-Bridge), torchtitan
 * (FSDP2) or DeepSpeed (ZeRO). */
enum sc_framework { SC_FRAMEWORK_LIST(SC_ENUM_ID) };
/* Attention kernels: flash (FlashAttention / cuDNN fused: no s x s tensor
 * kept) or unfused (Megatron --attention-backend unfused, eager math
 * attention: the softmax output is kept for the backward). */
enum sc_attention { SC_ATTENTION_LIST(SC_ENUM_ID) };
/* Which flash-attention kernel runs, for its speed (the step model): fused
 * (Transformer Engine / cuDNN fused attention, the Megatron-Core default;
 * FlashAttention-3-class on Hopper: wgmma and TMA) at attn_eta, or portable
 * (FlashAttention-2 and its Triton port, written for sm80 mma.sync: on Hopper
 * FlashAttention-2 reaches about 35 % of the peak, Shah et al. 2024) at
 * attn_eta_portable. */
enum sc_attention_kernel { SC_ATTENTION_KERNEL_LIST(SC_ENUM_ID) };
/* CUDA graphs of the training step: none (kernels launched eagerly, or
 * per-module graphs such as Transformer Engine's --cuda-graph-scope attn,
 * moe_router, whose captured share of the launches is not modelled), or
 * full-iteration (Megatron-Core --cuda-graph-impl full_iteration: forward,
 * backward and the MoE dispatch of a whole iteration captured once and
 * replayed, so no kernel waits for the host launch path). */
enum sc_cuda_graphs { SC_CUDA_GRAPHS_LIST(SC_ENUM_ID) };
/* Megatron-Core's --recompute-modules (with recompute "selective"): which
 * parts of a layer are recomputed in the backward instead of kept; none
 * given means core_attn, Megatron's default. */
enum sc_recompute_module {
	RECOMPUTE_MOD_CORE_ATTN = 1u << 0,   /* the attention scores and softmax */
	RECOMPUTE_MOD_LAYERNORM = 1u << 1,   /* the norms' outputs */
	RECOMPUTE_MOD_MLA_UP_PROJ = 1u << 2, /* MLA's Q/K/V up-projections */
	RECOMPUTE_MOD_MLP = 1u << 3,         /* a dense MLP, from its input */
	RECOMPUTE_MOD_MOE_ACT = 1u << 4,     /* the experts' activation function */
	RECOMPUTE_MOD_MOE = 1u << 5,         /* a whole MoE block, from its input */
	RECOMPUTE_MOD_SHARED_EXPERTS = 1u << 6
};
const char *recompute_module_name(unsigned bit);

/* Element type of a training copy: optimizer master weights and moments. */
enum sc_dtype { SC_DTYPE_LIST(SC_ENUM_ID) };
/* How the decoder layers are split over the pp x vpp virtual pipeline
 * stages (models/layout.h has the rules):
 *   even      every virtual stage the same number of layers; the embedding
 *             and the loss head on top of the first and last (Megatron-Core
 *             default: layers divisible by pp x vpp);
 *   slots     the embedding and the loss each take one layer's slot
 *             (--account-for-embedding-in-pipeline-split and
 *             --account-for-loss-in-pipeline-split: layers + 2 divisible);
 *   balanced  an explicit --pipeline-model-parallel-layout that spreads the
 *             layers + 2 slots as evenly as possible (any pp x vpp up to
 *             layers + 2; what the Megatron-Bridge recipes use for 61- and
 *             94-layer models);
 *   uneven    first_stage_layers / last_stage_layers on the first / last
 *             pipeline rank, the rest even (--decoder-first/last-pipeline-
 *             num-layers).
 * auto (the default) takes even where the layers divide, else slots, else
 * balanced; giving first/last_stage_layers means uneven. */
enum sc_layer_split { SC_LAYER_SPLIT_LIST(SC_ENUM_ID) };
/* MoE token dispatch: Megatron's all-to-all (top_k copies of every token
 * to their experts' ranks), or the flex dispatcher (DeepEP, HybridEP) that
 * sends a token once to each remote NVLink domain and fans it out there. */
enum sc_moe_dispatcher { SC_MOE_DISPATCHER_LIST(SC_ENUM_ID) };
/* (uccl-ep, pplx-garden: CPU-proxy EP over EFA; allgather: Megatron's
 * all-gather dispatcher; efa-gda: DeepEP-style kernels on GPU-initiated EFA;
 * models/moe_dispatch.h has each one's rules) */

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
	enum sc_layer_split layer_split;
	int first_stage_layers;  /* decoder layers on the first pipeline rank; 0 = not given */
	int last_stage_layers;   /* decoder layers on the last pipeline rank; 0 = not given */
	bool tp_comm_overlap;
	bool ep_comm_overlap;
	enum sc_moe_dispatcher moe_dispatcher;
	/* routing (models/moe_dispatch.h moe_routing_imbalance): the busiest
	 * expert rank's tokens over the mean, 1 = forced balance, 0 = not
	 * given (the profile's moe_router_imbalance); and the expert capacity
	 * factor, 0 = dropless */
	double moe_routing_imbalance;
	double moe_capacity_factor;
};

struct training {
	int seq_len;
	int global_batch_seqs;
	int micro_batch_seqs;
	enum sc_precision precision;
	enum sc_recompute recompute;
	unsigned recompute_modules;  /* enum sc_recompute_module bits; 0: core_attn */
	enum sc_optimizer optimizer;
	bool grad_fp32;          /* gradients accumulated in FP32 (4 bytes) */
	enum sc_framework framework;
	enum sc_dtype master_dtype;    /* optimizer's master weights (Megatron --main-params-dtype) */
	enum sc_dtype moments_dtype;   /* Adam moments (Megatron --exp-avg-dtype) */
	enum sc_attention attention;
	enum sc_attention_kernel attention_kernel;
	enum sc_cuda_graphs cuda_graphs;
	bool dropout;            /* dropout on (masks kept); modern pre-training runs without */
	bool compile;            /* torch.compile (torchtitan): fused elementwise ops and loss */
	bool no_lp_weight_cache; /* Megatron --disable-parameter-transpose-cache: TE's FP8/FP4
				    weight copies cast per GEMM, not kept across micro-batches */
	bool no_compile_loss;    /* with compile: the loss runs eager (torchtitan
				    compile.components without "loss") */
	bool sac_attention_recomputed; /* torchtitan op-level selective: the attention
				    kernel is not in the save list, its output recomputed */
	bool no_loss_upcast;     /* an eager loss on the BF16 logits as they are (no
				    logits.float() nor autocast): its log-softmax in BF16 */
	bool no_mem_efficient_linear; /* DeepSpeed ZeRO-3 model built outside
				    deepspeed.zero.Init: plain F.linear keeps each gathered
				    weight for its backward */
	bool activation_input_fp8; /* the MLP activation's (SwiGLU) input kept in FP8 with
				      1 x 128 tile scales (DeepSeek-V3 report 3.3.4) */
	int recompute_layer_interval; /* with selective: one decoder layer in this many fully
				    recomputed, the others keep everything (torchtitan's
				    layer-selective AC, selective_ac_option "N"); 0 = off */
	int loss_chunks;         /* loss computed in this many sequence chunks, each's logits
				    and backward before the next (torchtitan ChunkedLossWrapper);
				    0 or 1 = the full logits at once */
	double tokens_to_train;  /* 0 = not given */
};

struct placement; /* models/placement.h */

struct cluster {
	struct instance_spec instance;
	struct gpu_spec gpu;
	struct fabric_spec fabric;
	int nodes;
	/* where the nodes sit (cluster.placement, --placement), NULL: packed.
	 * Not owned: sim/config/placement_load.h keeps it for the process. */
	const struct placement *placement;
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

extern const char *const sc_precision_names[];
extern const char *const sc_recompute_names[];
extern const char *const sc_schedule_names[];
extern const char *const sc_optimizer_names[];
extern const char *const sc_framework_names[];
extern const char *const sc_attention_names[];
extern const char *const sc_attention_kernel_names[];
extern const char *const sc_cuda_graphs_names[];
extern const char *const sc_dtype_names[];
extern const char *const sc_layer_split_names[];
extern const char *const sc_moe_dispatcher_names[];

const char *precision_name(enum sc_precision p);
const char *recompute_name(enum sc_recompute r);
const char *schedule_name(enum sc_schedule s);
const char *moe_dispatcher_name(enum sc_moe_dispatcher d);
const char *framework_name(enum sc_framework f);
const char *attention_kernel_name(enum sc_attention_kernel k);
const char *cuda_graphs_name(enum sc_cuda_graphs g);
const char *attention_name(enum sc_attention a);
const char *dtype_name(enum sc_dtype d);

#endif
