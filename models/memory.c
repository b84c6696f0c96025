/* memory.c: per-GPU memory (see memory.h). */
#include "memory.h"

#include <string.h>

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
	double d_qk, d_v, mats, kv_l;
	double attn = 0, scores = 0, mlp = 0, mask = o->dropout ? 1.0 : 0.0;

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
	attn += 2.0 * sb * h * rep * 2.0;                          /* norm in, QKV in */
	attn += 2.0 * sb * ((a / t) * d_qk + kv_l * (d_qk + d_v));  /* Q, K, V */
	attn += 2.0 * sb * (a / t) * d_v;                           /* attention output */
	attn += mask * sb * h * rep;                                /* dropout mask */
	if (o->flash)
		scores = 4.0 * sb * (a / t);                        /* log-sum-exp */
	else
		scores = (o->dropout ? 5.0 : 2.0) * a * s * s * b / t;

	mlp += 2.0 * sb * h * rep * 2.0;                            /* norm in, fc1 in */
	mlp += mask * sb * h * rep;
	if (moe_layer && model_is_moe(m)) {
		double rows = sb * m->top_k * etp / t;
		double fe = m->moe_ffn_hidden;

		mlp += 4.0 * sb * rep * m->experts;                 /* router probs */
		mlp += rows * (2.0 * h + 2.0 * (mats - 1.0) * fe / etp + 2.0 * fe / etp);
		if (m->shared_experts > 0) {
			double fs = m->shared_experts * fe / t;

			mlp += 2.0 * sb * ((mats - 1.0) * fs + fs);
		}
	} else {
		double f = m->ffn_hidden / t;

		mlp += 2.0 * sb * ((mats - 1.0) * f + f);
	}

	out->working_bytes = attn + scores + mlp;
	switch (o->recompute) {
	case RECOMPUTE_NONE:
		out->stored_bytes = out->working_bytes;
		break;
	case RECOMPUTE_SELECTIVE:
		/* core attention is recomputed: its s^2 tensors are not kept */
		out->stored_bytes = attn + mlp + (o->flash ? scores : 0.0);
		break;
	case RECOMPUTE_FULL:
		out->stored_bytes = 2.0 * sb * h * ((o->sp && t > 1) ? 1.0 / t : 1.0);
		break;
	}
}

double mem_weight_bytes_per_param(enum sc_precision p)
{
	switch (p) {
	case PREC_BF16:
	case PREC_FP16: return 2.0;
	case PREC_FP8:
	case PREC_MXFP8: return 3.0;
	case PREC_NVFP4: return 2.0 + 0.5625;
	}
	return 2.0;
}

double mem_optimizer_bytes_per_param(enum sc_optimizer o)
{
	return o == OPT_SGD ? 8.0 : 12.0;
}

void mem_estimate(const struct mem_in *in, const struct calibration *cal,
		  struct mem_out *out)
{
	double ds = in->dense_shard > 0 ? in->dense_shard : 1;
	double es = in->expert_shard > 0 ? in->expert_shard : 1;
	double wb = mem_weight_bytes_per_param(in->precision);
	double gb = in->grad_fp32 ? 4.0 : 2.0;
	double ob = mem_optimizer_bytes_per_param(in->optimizer);
	/* ZeRO-1 shards optimizer state, ZeRO-2 also gradients, ZeRO-3 (FSDP)
	 * also weights, each over its data-parallel group (Rajbhandari et al.
	 * 2020, figure 1) */
	double pd_w = in->zero_stage >= 3 ? in->params_dense / ds : in->params_dense;
	double pe_w = in->zero_stage >= 3 ? in->params_expert / es : in->params_expert;
	double pd_g = in->zero_stage >= 2 ? in->params_dense / ds : in->params_dense;
	double pe_g = in->zero_stage >= 2 ? in->params_expert / es : in->params_expert;
	double pd_o = in->zero_stage >= 1 ? in->params_dense / ds : in->params_dense;
	double pe_o = in->zero_stage >= 1 ? in->params_expert / es : in->params_expert;

	memset(out, 0, sizeof(*out));
	out->weights_bytes = wb * (pd_w + pe_w);
	out->gradients_bytes = gb * (pd_g + pe_g);
	out->optimizer_bytes = ob * (pd_o + pe_o);
	out->activations_bytes = in->act_per_microbatch_bytes * in->inflight_microbatches +
				 in->act_extra_bytes;
	out->comm_buffers_bytes = cal->nccl_buffer_bytes;
	out->reserve_bytes = cal->framework_reserve_bytes;
	out->total_bytes = out->weights_bytes + out->gradients_bytes +
			   out->optimizer_bytes + out->activations_bytes +
			   out->comm_buffers_bytes + out->reserve_bytes;
	out->oom = out->total_bytes > in->capacity_bytes;
}
