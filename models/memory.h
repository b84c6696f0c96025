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
	enum sc_framework framework; /* what "selective" means, which tensors are fused */
	bool compile;          /* torchtitan torch.compile: elementwise ops fused */
	bool sac_attention_recomputed; /* torchtitan op-level SAC: attention not in its save list */
	double linear_input_bytes; /* bytes per element of a kept linear input: 2 (BF16),
				      1 (FP8 casts kept, Transformer Engine), 0.5625 (NVFP4) */
	double gated_input_bytes;  /* bytes per element of the kept gated-activation
				      (SwiGLU) input: 2 (BF16), or MEM_FP8_TILE_BYTES
				      when cached in FP8 (0 = 2) */
	unsigned recompute_modules; /* with selective, Megatron: enum sc_recompute_module bits */
	enum sc_precision precision;
};

/* Activation bytes of one layer for one micro-batch.  stored_bytes is what
 * the layer keeps until its backward under opts->recompute; working_bytes is
 * everything it would keep without recompute (the peak while a fully
 * recomputed layer is rebuilt during its backward). */
struct mem_act {
	double stored_bytes;
	double working_bytes;
};

/* Bytes per element of an activation cached in FP8 with DeepSeek-V3's
 * fine-grained quantization: one FP32 scale per 1 x 128 tile (DeepSeek-V3
 * technical report, arXiv 2412.19437, section 3.3.2 "Fine-Grained
 * Quantization"; section 3.3.4 "Low-Precision Storage and Communication":
 * the SwiGLU input is cached in FP8 and the output recomputed from it). */
#define MEM_FP8_TILE_BYTES (1.0 + 4.0 / 128.0)

void mem_layer_activations(const struct model_arch *m,
			   const struct mem_act_opts *opts, bool moe_layer,
			   struct mem_act *out);

/* Share of the decoder layers whose forward is rerun whole in the backward
 * (they keep only their input): 1 under full recompute, 1 / N under
 * torchtitan's layer-selective checkpointing (selective_ac_option "N":
 * every N-th block gets the checkpoint wrapper, torchtitan
 * activation_checkpoint.py _apply_layer_sac), 0 otherwise.  The one owner
 * of that rule: the step time's recompute, the hardware FLOPs and the
 * activations read it. */
double mem_full_recompute_share(const struct training *tr);

/* Layer-selective checkpointing: some layers recomputed whole, the others
 * keep everything (0 < mem_full_recompute_share < 1, or N = 1 under
 * recompute selective). */
bool mem_layer_selective(const struct training *tr);

struct mem_in {
	enum sc_framework framework;
	double params_dense;   /* non-expert parameters on this GPU */
	double params_expert;  /* expert parameters on this GPU */
	double unit_params;    /* largest FSDP / ZeRO-3 unit on this GPU, unsharded
				  (a decoder layer, or the embedding or head) */
	int dense_shard;       /* ranks sharing ZeRO shards of dense params */
	int expert_shard;      /* ranks sharing ZeRO shards of expert params */
	int zero_stage;        /* 0..3; FSDP is 3 */
	bool grad_fp32;
	enum sc_dtype master_dtype;
	enum sc_dtype moments_dtype;
	enum sc_precision precision;
	enum sc_optimizer optimizer;
	bool compile;
	bool compile_loss;               /* the loss compiled (compile, less no_compile_loss) */
	bool no_loss_upcast;             /* an eager loss on the BF16 logits, no FP32 upcast */
	bool no_lp_weight_cache;         /* TE's low-precision weight copies not kept */
	double retained_weight_params;   /* DeepSpeed ZeRO-3 without zero.Init's memory-
					    efficient linear, no recompute: the linear
					    weights on this GPU, unsharded, kept by autograd */
	double act_per_microbatch_bytes; /* the stage's layers, one micro-batch */
	double inflight_microbatches;    /* from the pipeline schedule */
	double act_extra_bytes;          /* held once (recompute working set) */
	double logits_elements;          /* last stage: logits of one micro-batch on this GPU */
	int loss_chunks;                 /* the loss in chunks (0, 1: all logits at once) */
	double loss_hidden_elements;     /* last stage: the loss head's input, one micro-batch */
	double capacity_bytes;           /* GPU HBM, as nvidia-smi reports it */
	double driver_reserved_bytes;    /* of it, what the driver keeps */
};

/* Per GPU, by category.  allocated_bytes is the peak of live tensors
 * (torch.cuda.max_memory_allocated(), Megatron's "max allocated");
 * reserved_bytes adds the caching allocator's slack (max_memory_reserved(),
 * torchtitan's "memory:" line); device_bytes adds what lives outside the
 * allocator (CUDA context and libraries, NCCL buffers): nvidia-smi's "used".
 * The verdict: need_bytes, the allocated peak plus what lives outside the
 * allocator, against capacity less the driver's reserve: the caching
 * allocator hands its cached free blocks back to the driver and retries
 * before it raises an out-of-memory error (PyTorch
 * c10/cuda/CUDACachingAllocator.cpp, release_cached_blocks), so its slack
 * shows in nvidia-smi but does not make a run fail. */
struct mem_out {
	double weights_bytes;
	double gradients_bytes;
	double optimizer_bytes;
	double activations_bytes;
	double buffers_bytes;       /* framework transients: FSDP/ZeRO-3 gathers and
				       reduce buffers, the loss's logits, workspaces */
	double fragmentation_bytes; /* reserved - allocated */
	double comm_buffers_bytes;  /* NCCL, outside the allocator */
	double reserve_bytes;       /* CUDA context and libraries, outside the allocator */
	double allocated_bytes;
	double reserved_bytes;
	double device_bytes;
	double need_bytes;          /* allocated + comm_buffers + reserve: the verdict's */
	double usable_bytes;        /* capacity less the driver's reserve */
	double total_bytes;         /* = need_bytes */
	bool oom;
};

/* Bytes per parameter of the training copy of the weights: 2 (BF16/FP16),
 * plus the low-precision copies that FP8/FP4 GEMMs read (Transformer
 * Engine keeps a row-wise and a column-wise (transposed) copy). */
double mem_weight_bytes_per_param(enum sc_precision p);

/* Optimizer state bytes per parameter: Adam master + 2 moments (12 with
 * FP32 throughout), SGD master + momentum (8). */
double mem_optimizer_bytes_per_param(enum sc_optimizer o, enum sc_dtype master,
				     enum sc_dtype moments);

/* Bytes per element of a linear layer's input kept for its weight-gradient
 * GEMM: Transformer Engine (Megatron-Core) keeps the FP8 cast (1 byte, MXFP8
 * plus one E8M0 scale per 32) or the NVFP4 cast (0.5625); torchao under
 * torchtitan keeps the BF16 input for FP8 recipes and the NVFP4 cast for
 * NVFP4; BF16 otherwise (2). */
double mem_linear_input_bytes(enum sc_framework f, enum sc_precision p);

/* PyTorch's caching allocator keeps freed blocks for reuse: max reserved
 * over max allocated, minus 1.  Megatron-Bridge's Moonlight-16B study on 8 x
 * H100 (skills/nemo-mbridge-perf-activation-recompute/SKILL.md) reports
 * about 40 GB reserved against 35.9-36.6 GB allocated: 9-11 %; one value
 * for every framework (all use the same allocator). */
#define MEM_ALLOCATOR_SLACK 0.10

/* torchtitan's ChunkedLossWrapper (torchtitan/components/loss.py,
 * ChunkedLossWrapper.Config num_chunks = 8): the loss head and the loss run
 * on one sequence chunk at a time, forward and backward, so one chunk's
 * logits are held; the hidden states' gradient is assembled in an FP32
 * [T, D] buffer (GradAccumulator, dtype torch.float32). */
#define MEM_TORCHTITAN_LOSS_CHUNKS 8
#define MEM_CHUNKED_LOSS_GRAD_BYTES 4.0

void mem_estimate(const struct mem_in *in, const struct calibration *cal,
		  struct mem_out *out);

#endif
