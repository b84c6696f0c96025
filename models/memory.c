/* memory.c: per-GPU memory (see memory.h). */
#include "memory.h"

#include <math.h>
#include <string.h>

#include "units.h"

/* Why these terms (Korthikanti et al. 2022, section 4.1, rederived per stored
 * tensor; 2 bytes per BF16 element, 1 per dropout-mask element; sb = tokens
 * of the micro-batch on this GPU):
 *   attention block: input-norm input 2sbh, QKV input 2sbh, Q K V
 *     2sb(a d_qk + kv (d_qk + d_v)) / t, scores: softmax output 2as^2b / t,
 *     with dropout also its mask as^2b / t and output 2as^2b / t, the
 *     attention output (projection input) 2sb a d_v / t, dropout mask sbh;
 *   MLP block: norm input 2sbh, fc1 input 2sbh, fc1 output 2sb(gated ? 2f :
 *     f) / t, activation output 2sbf / t, dropout mask sbh.
 * For the paper's GPT (MHA, d = h / a, f = 4h, dropout) this sums to
 * sbh (10 + 24 / t + 5 a s / (h t)) with tensor parallelism t, and the
 * replicated 10 sbh becomes 10 sbh / t with sequence parallelism: the
 * paper's Table 2.  Flash attention stores only the FP32 log-sum-exp
 * (4 sb a / t) instead of the s^2 terms; selective recompute drops them;
 * full recompute keeps only the layer input 2sbh (/ t with SP).
 * MLA keeps its latent vectors (duplicated over TP): norm input and output
 * of c_q and c_kv, 4sb (q_lora + kv_lora + d_rope).  An MoE layer keeps the
 * router input, the router probabilities (FP32), and per routed token-expert
 * row its permuted input 2h and expert fc1 output and activation; shared
 * experts are a TP-split MLP. */
/* torchtitan's op-level selective activation checkpointing (the default
 * "selective" of its llama configs, activation_checkpoint.mode = selective,
 * selective_ac_option = op; torchtitan/distributed/activation_checkpoint.py):
 * the outputs of ops in its save list are kept (scaled-dot-product attention
 * output and log-sum-exp, reduce-scatter) and of every second matmul (it
 * alternates "save" and "recompute" over the mm calls), and everything else
 * is recomputed from the layer input.  With a layer's matmuls in forward
 * order q, k, v, o, fc1 (gate), fc1 (up), fc2 the kept ones are q, v, fc1
 * (gate) and fc2.  torchao's FP8 and MXFP8 linears run their GEMM as
 * aten.mm on a low-precision tensor subclass (Float8TrainingTensor,
 * MXTensor), and a TorchDispatchMode such as SAC's sees the op before the
 * subclass does, so the policy counts and keeps them as BF16 matmuls (the
 * published FP8 and BF16 peaks agree within 0.3 %); NVFP4 linears run
 * torchao's own kernels, not in the list, so under NVFP4 every matmul output
 * is recomputed.
 * Eager SAC caches every kept output until the layer's recompute in the
 * backward (torch/utils/checkpoint.py, _CachingTorchDispatchMode stores each
 * MUST_SAVE result); under torch.compile the policy only tags the graph and
 * AOTAutograd's min-cut partitioner saves what the backward graph reads
 * (torch/_functorch/partitioners.py: MUST_SAVE bans the recompute of a node,
 * it does not add an output nobody reads).  fc2's output feeds only the
 * residual add, whose backward reads neither input, so a compiled layer does
 * not keep it.
 * The save list named the flash and memory-efficient attention kernels only
 * until torchtitan b39377f (2025-12-01, #2095, "add all SDPA backends to
 * op_sac_save_list"), while its SDPA wrapper has put cuDNN attention first
 * on SM100 and later since 3b85aa3 (2025-05-14, #1196, "Use cudnn backend
 * on B200"): such a run recomputes the attention from the kept q and v and
 * a recomputed k, and keeps neither its output nor its log-sum-exp
 * (training sac_attention_recomputed). */
static double torchtitan_op_sac_bytes(double sb, double h_rep, double q, double v,
				      double attn_out, double lse, double fc1_gate,
				      double fc2_out, bool mm_saved, bool compiled,
				      bool attn_recomputed)
{
	return 2.0 * sb * h_rep + (attn_recomputed ? 0.0 : attn_out + lse) +
	       (mm_saved ? q + v + fc1_gate + (compiled ? 0.0 : fc2_out) : 0.0);
}

void mem_layer_activations(const struct model_arch *m,
			   const struct mem_act_opts *o, bool moe_layer,
			   struct mem_act *out)
{
	double t = o->tp > 0 ? o->tp : 1;
	double etp = o->etp > 0 ? o->etp : t;
	double rep = (o->sp && t > 1) ? 1.0 / t : 1.0;
	double sb = o->seq_len * o->micro_batch;
	double s = o->seq_len, b = o->micro_batch;
	double h = m->hidden, a = m->heads;
	double kv = m->kv_heads > 0 ? m->kv_heads : m->heads;
	double lin = o->linear_input_bytes > 0 ? o->linear_input_bytes : 2.0;
	double gin = o->gated_input_bytes > 0 ? o->gated_input_bytes : 2.0;
	double d_qk, d_v, mats, kv_l;
	double attn = 0, scores = 0, mlp = 0, mask = o->dropout ? 1.0 : 0.0;
	double q_b, v_b, o_in, lse_b, fc1_gate_b = 0, fc2_out_b, eager = 0;
	double norm_out, mlp_inner = 0, moe_act_b = 0, shared_b = 0;

	mats = (m->gated_mlp || m->activation == ACT_SWIGLU ||
		m->activation == ACT_GEGLU) ? 3.0 : 2.0;
	if (model_is_mla(m)) {
		d_qk = m->qk_nope_head_dim + m->qk_rope_head_dim;
		d_v = m->v_head_dim;
		kv_l = a / t;
		attn += 4.0 * sb * (m->q_lora_rank + m->kv_lora_rank + m->qk_rope_head_dim);
	} else {
		d_qk = model_head_dim(m);
		d_v = d_qk;
		kv_l = kv >= t ? kv / t : 1.0;
	}
	q_b = 2.0 * sb * (a / t) * d_qk;
	v_b = 2.0 * sb * kv_l * d_v;
	o_in = lin * sb * (a / t) * d_v;
	lse_b = 4.0 * sb * (a / t);
	norm_out = lin * sb * h * rep;
	attn += 2.0 * sb * h * rep + norm_out;                      /* norm in, QKV in */
	attn += q_b + 2.0 * sb * kv_l * d_qk + v_b;                 /* Q, K, V */
	attn += o_in;                                               /* attention output */
	attn += mask * sb * h * rep;                                /* dropout mask */
	if (o->flash)
		scores = lse_b;                                     /* log-sum-exp */
	else
		scores = (o->dropout ? 5.0 : 2.0) * a * s * s * b / t;

	mlp += 2.0 * sb * h * rep + norm_out;                       /* norm in, fc1 in */
	mlp += mask * sb * h * rep;
	fc2_out_b = 2.0 * sb * h * rep;
	if (moe_layer && model_is_moe(m)) {
		double rows = sb * m->top_k * etp / t;
		double fe = m->moe_ffn_hidden;

		mlp_inner += 4.0 * sb * rep * m->experts;           /* router probs */
		mlp_inner += rows * (lin * h + gin * (mats - 1.0) * fe / etp + lin * fe / etp);
		moe_act_b = rows * lin * fe / etp;
		fc1_gate_b = rows * 2.0 * fe / etp;
		if (m->shared_experts > 0) {
			double fs = m->shared_experts * fe / t;

			shared_b = gin * sb * (mats - 1.0) * fs + lin * sb * fs;
			mlp_inner += shared_b;
			fc1_gate_b += 2.0 * sb * fs;
		}
	} else {
		double f = m->ffn_hidden / t;

		mlp_inner += gin * sb * (mats - 1.0) * f + lin * sb * f;
		fc1_gate_b = 2.0 * sb * f;
		/* eager (uncompiled) PyTorch keeps the gated MLP's activation
		 * output apart from the product it feeds (silu(x1) and x1 * x3
		 * are two autograd nodes) */
		if (o->framework != FW_MEGATRON_CORE && !o->compile && mats > 2.0)
			eager += 2.0 * sb * f;
	}
	/* eager RMSNorm/LayerNorm (torchtitan without compile, Hugging Face
	 * models under DeepSpeed) keeps the FP32 upcast of its input for the
	 * backward, 4 bytes per element, at both norms of a layer; the fused
	 * norm kernels of Transformer Engine and compiled graphs do not */
	if (o->framework != FW_MEGATRON_CORE && !o->compile)
		eager += 2.0 * 4.0 * sb * h * rep;

	mlp += mlp_inner;
	out->working_bytes = attn + scores + mlp + eager;
	switch (o->recompute) {
	case RECOMPUTE_NONE:
		out->stored_bytes = out->working_bytes;
		break;
	case RECOMPUTE_SELECTIVE:
		if (o->framework == FW_TORCHTITAN) {
			double kept = torchtitan_op_sac_bytes(sb, h * rep, q_b, v_b,
							      2.0 * sb * (a / t) * d_v, lse_b,
							      fc1_gate_b, fc2_out_b,
							      o->precision != PREC_NVFP4, o->compile,
							      o->sac_attention_recomputed);
			out->stored_bytes = fmin(kept, out->working_bytes);
		} else {
			/* Megatron-Core --recompute-modules (default core_attn:
			 * Korthikanti et al. 2022, section 5): each listed
			 * module is rebuilt from its kept input in the backward,
			 * its inner tensors not kept */
			unsigned mods = o->recompute_modules ? o->recompute_modules
							     : RECOMPUTE_MOD_CORE_ATTN;
			double kept = out->working_bytes;

			if (mods & RECOMPUTE_MOD_CORE_ATTN)
				kept -= o->flash ? 0.0 : scores;
			if (mods & RECOMPUTE_MOD_LAYERNORM)
				kept -= 2.0 * norm_out;
			if ((mods & RECOMPUTE_MOD_MLA_UP_PROJ) && model_is_mla(m))
				kept -= q_b + 2.0 * sb * kv_l * d_qk + v_b;
			if (moe_layer && model_is_moe(m)) {
				if (mods & RECOMPUTE_MOD_MOE)
					kept -= mlp_inner;
				else {
					if (mods & RECOMPUTE_MOD_MOE_ACT)
						kept -= moe_act_b;
					if (mods & RECOMPUTE_MOD_SHARED_EXPERTS)
						kept -= shared_b;
				}
			} else if (mods & RECOMPUTE_MOD_MLP) {
				kept -= mlp_inner;
			}
			out->stored_bytes = fmax(kept, 2.0 * sb * h * rep);
		}
		break;
	case RECOMPUTE_FULL:
		out->stored_bytes = 2.0 * sb * h * rep;
		break;
	}
}

double mem_full_recompute_share(const struct training *tr)
{
	if (tr->recompute == RECOMPUTE_FULL)
		return 1.0;
	if (mem_layer_selective(tr))
		return 1.0 / tr->recompute_layer_interval;
	return 0.0;
}

bool mem_layer_selective(const struct training *tr)
{
	return tr->recompute == RECOMPUTE_SELECTIVE && tr->recompute_layer_interval > 0;
}

double mem_weight_bytes_per_param(enum sc_precision p)
{
	/* BF16 weights, plus Transformer Engine's cached low-precision copies
	 * (kept across micro-batches, is_first_microbatch): row-wise for the
	 * forward and column-wise (transposed) for the data-gradient GEMM;
	 * MXFP8 adds one E8M0 scale per 32 elements to each, NVFP4 one FP8
	 * scale per 16 4-bit elements (0.5625 bytes per element) */
	switch (p) {
	case PREC_BF16:
	case PREC_FP16: return 2.0;
	case PREC_FP8: return 2.0 + 2.0;
	case PREC_MXFP8: return 2.0 + 2.0 * (1.0 + 1.0 / 32.0);
	case PREC_NVFP4: return 2.0 + 2.0 * 0.5625;
	}
	return 2.0;
}

double mem_linear_input_bytes(enum sc_framework f, enum sc_precision p)
{
	if (p == PREC_NVFP4 && f != FW_DEEPSPEED)
		return 0.5625;
	if (f != FW_MEGATRON_CORE)
		return 2.0;
	switch (p) {
	case PREC_FP8: return 1.0;
	case PREC_MXFP8: return 1.0 + 1.0 / 32.0;
	default: return 2.0;
	}
}

double mem_optimizer_bytes_per_param(enum sc_optimizer o, enum sc_dtype master,
				     enum sc_dtype moments)
{
	double mb = master == DTYPE_BF16 ? 2.0 : 4.0;
	double sb = moments == DTYPE_BF16 ? 2.0 : 4.0;

	return mb + (o == OPT_SGD ? 1.0 : 2.0) * sb;
}


/* cuBLAS and Transformer Engine workspaces, allocated through the caching
 * allocator: 32 MiB for cuBLAS on Hopper and later (CUBLAS_WORKSPACE_CONFIG
 * ":4096:8" = 8 x 4 MiB, PyTorch's default there) and TE's 32 MiB cuBLASLt
 * workspace. */
#define MEM_WORKSPACE_BYTES (64.0 * SC_MiB_BYTES)

/* DeepSpeed ZeRO buckets (deepspeed/runtime/zero/config.py defaults):
 * reduce_bucket_size 5e8 elements (the contiguous gradient buffer ZeRO-2/3
 * reduce into), allgather_bucket_size 5e8 (ZeRO-1/2 parameter all-gather). */
#define DS_REDUCE_BUCKET_ELEMENTS 5e8
#define DS_ALLGATHER_BUCKET_ELEMENTS 5e8

/* DeepSpeed ZeRO-3 optimizer step (deepspeed/runtime/zero/stage3.py,
 * _prepare_fp32_grad_for_sub_group): the gradient partition, held in the
 * model's dtype through the backward (averaged_gradients), is flattened
 * into a new model-dtype tensor and that cast to FP32 for the FP32 master
 * weights (self.flatten(...).to(fp32 dtype)): 2 + 4 bytes per element of
 * one sub-group at a time, freed after its step; sub_group_size defaults
 * to 1e9 elements of the rank's partition (deepspeed/runtime/zero/config.py,
 * _create_fp16_sub_groups). */
#define DS_SUB_GROUP_ELEMENTS 1e9
#define DS_STEP_GRAD_COPY_BYTES (2.0 + 4.0)

/* Bytes per logit element held by the loss of one micro-batch:
 *   Megatron-Core: the BF16 logits and the FP32 softmax its vocab-parallel
 *     cross-entropy computes in place and keeps for the backward (6);
 *   torch.compile'd loss (torchtitan compile): BF16 logits and their BF16
 *     gradient, the softmax fused away (4);
 *   eager PyTorch (torchtitan without compile, Hugging Face under
 *     DeepSpeed): BF16 logits, their FP32 upcast (logits.float()) and the
 *     FP32 log-softmax output kept by cross_entropy (10);
 *   eager on the BF16 logits as they are (no .float(), no autocast, which
 *     would run cross_entropy in FP32): the logits and the BF16 log-softmax
 *     output cross_entropy keeps for its backward (log_softmax saves its
 *     result in the input's dtype) (4). */
static double loss_bytes_per_logit(enum sc_framework f, bool compile, bool no_upcast)
{
	if (f == FW_MEGATRON_CORE)
		return 6.0;
	if (compile)
		return 4.0;
	return no_upcast ? 2.0 + 2.0 : 10.0;
}

void mem_estimate(const struct mem_in *in, const struct calibration *cal,
		  struct mem_out *out)
{
	double ds = in->dense_shard > 0 ? in->dense_shard : 1;
	double es = in->expert_shard > 0 ? in->expert_shard : 1;
	/* parameters on this GPU after sharding at a given ZeRO level:
	 * ZeRO-1 shards optimizer state, ZeRO-2 also gradients, ZeRO-3 (FSDP)
	 * also weights, each over its data-parallel group (Rajbhandari et al.
	 * 2020, figure 1) */
#define SHARDED(level) (in->zero_stage >= (level) ? in->params_dense / ds + in->params_expert / es \
						  : in->params_dense + in->params_expert)
	double p_w = SHARDED(3), p_g = SHARDED(2), p_o = SHARDED(1);
#undef SHARDED
	double gb = in->grad_fp32 ? 4.0 : 2.0;
	double unit = in->unit_params;
	double slack;

	memset(out, 0, sizeof(*out));
	switch (in->framework) {
	case FW_MEGATRON_CORE:
		/* BF16 model weights (+ TE's FP8/FP4 copies), the contiguous
		 * gradient buffer (FP32 main grads, --accumulate-allreduce-grads-
		 * in-fp32, the bf16 default), the distributed optimizer's FP32
		 * main params and moments sharded over DP: 6 + 12 / d bytes per
		 * parameter, Megatron's theoretical_memory_usage.py */
		out->weights_bytes = (in->no_lp_weight_cache ? 2.0 : mem_weight_bytes_per_param(in->precision)) *
				     p_w;
		out->gradients_bytes = gb * p_g;
		out->optimizer_bytes = mem_optimizer_bytes_per_param(in->optimizer, in->master_dtype,
								     in->moments_dtype) * p_o;
		/* Megatron-FSDP (optim_grads_params): the unit being computed
		 * and the one prefetched unsharded in BF16, and the unit's
		 * unsharded FP32 gradient before its reduce-scatter */
		if (in->zero_stage >= 3)
			out->buffers_bytes += (2.0 * 2.0 + gb) * unit;
		break;
	case FW_TORCHTITAN:
		/* FSDP2 keeps the FP32 parameters sharded (they are the
		 * optimizer's master copy), FP32 sharded gradients and AdamW's
		 * moments: 16 / d bytes per parameter; MixedPrecisionPolicy
		 * param_dtype BF16, reduce_dtype FP32 (torchtitan
		 * parallelize.py).  Low-precision (torchao) weights are cast per
		 * forward, not kept. */
		out->weights_bytes = 4.0 * p_w;
		out->gradients_bytes = 4.0 * p_g;
		out->optimizer_bytes = (in->optimizer == OPT_SGD ? 1.0 : 2.0) *
				       (in->moments_dtype == DTYPE_BF16 ? 2.0 : 4.0) * p_o;
		/* all-gathered BF16 unit being computed and the one prefetched
		 * (forward and backward prefetch), the unit's unsharded BF16
		 * gradient and its FP32 copy for the reduce-scatter */
		if (in->zero_stage >= 3)
			out->buffers_bytes += (2.0 * 2.0 + 2.0 + 4.0) * unit;
		break;
	case FW_DEEPSPEED:
		out->weights_bytes = 2.0 * p_w;
		/* ZeRO-3 keeps the gradient partition in the model's dtype; its
		 * FP32 copy exists only at the optimizer step (below) */
		out->gradients_bytes = (in->zero_stage >= 3 ? 2.0 : gb) * p_g;
		out->optimizer_bytes = mem_optimizer_bytes_per_param(in->optimizer, in->master_dtype,
								     in->moments_dtype) * p_o;
		/* ZeRO-3: the live gathered BF16 parameters of the unit being
		 * computed and the prefetched one, and the reduce bucket;
		 * ZeRO-1/2: the reduce and all-gather buckets; each bucket at
		 * most the parameters there are */
		{
			double p_all = in->params_dense + in->params_expert;

			out->buffers_bytes += 2.0 * fmin(DS_REDUCE_BUCKET_ELEMENTS, p_all);
			if (in->zero_stage >= 3)
				out->buffers_bytes += 2.0 * 2.0 * unit;
			else if (in->zero_stage >= 1)
				out->buffers_bytes += 2.0 * fmin(DS_ALLGATHER_BUCKET_ELEMENTS, p_all);
		}
		/* a model built outside deepspeed.zero.Init runs the plain
		 * F.linear, whose autograd node keeps a view of the gathered
		 * weight, so ZeRO-3's release after the module's forward frees
		 * nothing until that backward: every linear weight of the stage,
		 * unsharded, at the start of the backward (zero.Init replaces
		 * F.linear with LinearFunctionForZeroStage3, which saves only an
		 * id, to avoid exactly this: deepspeed/runtime/zero/linear.py) */
		if (in->zero_stage >= 3)
			out->buffers_bytes += 2.0 * in->retained_weight_params;
		break;
	}
	out->buffers_bytes += MEM_WORKSPACE_BYTES +
			      loss_bytes_per_logit(in->framework, in->compile_loss, in->no_loss_upcast) * in->logits_elements /
			      (in->loss_chunks > 1 ? in->loss_chunks : 1);
	if (in->loss_chunks > 1)
		out->buffers_bytes += MEM_CHUNKED_LOSS_GRAD_BYTES * in->loss_hidden_elements;
	out->activations_bytes = in->act_per_microbatch_bytes * in->inflight_microbatches +
				 in->act_extra_bytes;
	/* DeepSpeed ZeRO-3 with FP32 master weights: the optimizer step's
	 * gradient copies of one sub-group, after the activations and the
	 * backward's buffers are freed; the peak is the larger phase */
	if (in->framework == FW_DEEPSPEED && in->zero_stage >= 3 &&
	    in->master_dtype != DTYPE_BF16) {
		double step = DS_STEP_GRAD_COPY_BYTES * fmin(DS_SUB_GROUP_ELEMENTS, p_g);

		if (step > out->activations_bytes + out->buffers_bytes)
			out->buffers_bytes = step - out->activations_bytes;
	}
	out->allocated_bytes = out->weights_bytes + out->gradients_bytes + out->optimizer_bytes +
			       out->activations_bytes + out->buffers_bytes;
	slack = MEM_ALLOCATOR_SLACK;
	out->fragmentation_bytes = slack * out->allocated_bytes;
	out->reserved_bytes = out->allocated_bytes + out->fragmentation_bytes;
	out->comm_buffers_bytes = cal->nccl_buffer_bytes;
	out->reserve_bytes = cal->framework_reserve_bytes;
	out->device_bytes = out->reserved_bytes + out->comm_buffers_bytes + out->reserve_bytes;
	out->need_bytes = out->allocated_bytes + out->comm_buffers_bytes + out->reserve_bytes;
	out->total_bytes = out->need_bytes;
	out->usable_bytes = in->capacity_bytes - in->driver_reserved_bytes;
	out->oom = out->need_bytes > out->usable_bytes;
}
