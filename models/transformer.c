/* transformer.c: parameter counts, FLOPs and the per-GPU op list (see transformer.h).
 *
 * Conventions: activations are BF16 (2 bytes), a GEMM's weight is its K x N
 * matrix, biases are not modelled (Llama-style models have none; GPT-3's are
 * 0.01 % of its parameters), norms carry one vector of h weights.  "Local"
 * means on one GPU after the tensor (tp), context (cp), expert (ep) and
 * expert-tensor (etp) parallel split, following Megatron-LM's layers:
 * column-parallel QKV and MLP input, row-parallel output projections
 * (Shoeybi et al. 2019), sequence parallelism for norms and residuals
 * (Korthikanti et al. 2022), and the MoE "alltoall" token dispatcher.
 */
#include "transformer.h"

#include <string.h>

/* ---- dimensions ---------------------------------------------------------- */

struct dims {
	double h, a, kv, d_qk, d_v, f, fe, V;
	double mats;     /* weight matrices of an MLP: 3 gated, 2 plain */
	double E, k, shared;
	bool mla;
	double q_lora, kv_lora, d_rope, d_nope;
};

static struct dims dims_of(const struct model_arch *m)
{
	struct dims d;

	memset(&d, 0, sizeof(d));
	d.h = m->hidden;
	d.a = m->heads;
	d.kv = m->kv_heads > 0 ? m->kv_heads : m->heads;
	d.mla = model_is_mla(m);
	if (d.mla) {
		d.d_rope = m->qk_rope_head_dim;
		d.d_nope = m->qk_nope_head_dim;
		d.d_qk = d.d_rope + d.d_nope;
		d.d_v = m->v_head_dim;
		d.q_lora = m->q_lora_rank;
		d.kv_lora = m->kv_lora_rank;
	} else {
		d.d_qk = model_head_dim(m);
		d.d_v = d.d_qk;
	}
	d.f = m->ffn_hidden;
	d.fe = m->moe_ffn_hidden;
	d.V = m->vocab;
	/* SwiGLU/GeGLU have gate, up and down matrices (Shazeer 2020) */
	d.mats = (m->gated_mlp || m->activation == ACT_SWIGLU ||
		  m->activation == ACT_GEGLU) ? 3.0 : 2.0;
	d.E = m->experts;
	d.k = m->top_k;
	d.shared = m->shared_experts;
	return d;
}

/* ---- which layers are MoE ------------------------------------------------- */

/* DeepSeek's first_k_dense_replace and Megatron's moe_layer_freq: layer i is
 * MoE when i >= first_dense_layers and (i - first_dense_layers) is a multiple
 * of moe_layer_freq (0 treated as 1). */
bool tf_layer_is_moe(const struct model_arch *m, int i)
{
	int f = m->moe_layer_freq > 0 ? m->moe_layer_freq : 1;

	if (!model_is_moe(m) || i < m->first_dense_layers)
		return false;
	return (i - m->first_dense_layers) % f == 0;
}

/* Multiples of f in [0, n). */
static int multiples_below(int n, int f)
{
	return n <= 0 ? 0 : (n + f - 1) / f;
}

int tf_moe_layers_in(const struct model_arch *m, int begin, int end)
{
	int f = m->moe_layer_freq > 0 ? m->moe_layer_freq : 1;
	int fd = m->first_dense_layers;

	if (!model_is_moe(m))
		return 0;
	if (begin < fd)
		begin = fd;
	if (end <= begin)
		return 0;
	return multiples_below(end - fd, f) - multiples_below(begin - fd, f);
}

/* ---- parameters ----------------------------------------------------------- */

/* Attention GEMM weights of one layer (global). */
static double attn_gemm_params(const struct dims *d)
{
	if (d->mla) {
		double q = d->q_lora > 0 ? d->h * d->q_lora + d->q_lora * d->a * d->d_qk
					 : d->h * d->a * d->d_qk;
		double kv = d->h * (d->kv_lora + d->d_rope) +
			    d->kv_lora * d->a * (d->d_nope + d->d_v);
		return q + kv + d->a * d->d_v * d->h;
	}
	return d->h * d->a * d->d_qk + 2.0 * d->h * d->kv * d->d_qk +
	       d->a * d->d_v * d->h;
}

/* Norm weights of one layer's attention block (input norm and MLA's latent
 * norms). */
static double attn_norm_params(const struct dims *d)
{
	return d->h + (d->mla ? d->q_lora + d->kv_lora : 0.0);
}

void tf_params(const struct model_arch *m, struct tf_params *out)
{
	struct dims d = dims_of(m);
	double attn = attn_gemm_params(&d) + attn_norm_params(&d);
	double mlp = d.mats * d.h * d.f + d.h;
	double expert = d.mats * d.h * d.fe;
	double router = d.E * d.h;

	memset(out, 0, sizeof(*out));
	out->moe_layers = tf_moe_layers_in(m, 0, m->layers);
	out->dense_layers = m->layers - out->moe_layers;
	out->dense_layer = attn + mlp;
	if (model_is_moe(m)) {
		out->moe_layer_expert = d.E * expert;
		out->moe_layer = attn + router + d.E * expert + d.shared * expert + d.h;
		out->moe_layer_active = attn + router + (d.k + d.shared) * expert + d.h;
	}
	out->embedding = d.V * d.h;
	out->output = m->tied_embeddings ? 0.0 : d.V * d.h;
	out->total = out->dense_layers * out->dense_layer +
		     out->moe_layers * out->moe_layer + out->embedding +
		     out->output + d.h /* final norm */;
	out->active = out->dense_layers * out->dense_layer +
		      out->moe_layers * out->moe_layer_active + out->embedding +
		      out->output + d.h;
	/* DeepSeek-V3 MTP module: two RMSNorms, a 2h -> h projection and one
	 * decoder block (MoE in an MoE model); embedding and output head are
	 * shared with the main model (DeepSeek-V3 report, section 2.2). */
	if (m->mtp_layers > 0)
		out->mtp = m->mtp_layers *
			   (2.0 * d.h + 2.0 * d.h * d.h + d.h +
			    (model_is_moe(m) ? out->moe_layer : out->dense_layer));
}

/* ---- FLOPs ---------------------------------------------------------------- */

/* Mean number of keys a query attends to.  Full attention: s (non-causal) or
 * (s + 1) / 2 ~ s / 2 (causal; flash attention skips fully masked blocks).
 * A sliding window w (query i sees keys max(0, i - w) .. i): mean
 * (w (w + 1) / 2 + (s - w) w) / s for w < s.  Windowed layers are every
 * sliding_window_layer_freq-th layer (all layers when the frequency is 0). */
static double mean_keys(const struct model_arch *m, double s, bool causal)
{
	double full = causal ? s / 2.0 : s;
	double w = m->sliding_window, win, frac;

	if (w <= 0 || w >= s)
		return full;
	win = causal ? (w * (w + 1.0) / 2.0 + (s - w) * w) / s : w;
	frac = m->sliding_window_layer_freq > 0 ? 1.0 / m->sliding_window_layer_freq : 1.0;
	return frac * win + (1.0 - frac) * full;
}

void tf_flops_per_token(const struct model_arch *m, int seq_len, bool causal,
			struct tf_flops *out)
{
	struct dims d = dims_of(m);
	struct tf_params p;
	double attn_gemm = attn_gemm_params(&d);
	double keys = mean_keys(m, seq_len, causal);
	/* scores Q K^T and values P V: 2 FLOPs per multiply-add, per head */
	double attn_core = 2.0 * d.a * (d.d_qk + d.d_v) * keys;
	double dense_gemm = attn_gemm + d.mats * d.h * d.f;
	double moe_gemm = attn_gemm + d.E * d.h + (d.k + d.shared) * d.mats * d.h * d.fe;
	double layer_gemm_flops;

	tf_params(m, &p);
	memset(out, 0, sizeof(*out));
	/* forward: 2 FLOPs per weight touched per token (Kaplan et al. 2020) */
	layer_gemm_flops = 2.0 * (p.dense_layers * dense_gemm + p.moe_layers * moe_gemm);
	out->layers_gemm = layer_gemm_flops;
	out->layers_attn = m->layers * attn_core;
	out->logits = 2.0 * d.h * d.V;
	if (m->mtp_layers > 0)
		out->mtp = m->mtp_layers *
			   (2.0 * (model_is_moe(m) ? moe_gemm : dense_gemm) + attn_core +
			    2.0 * 2.0 * d.h * d.h + out->logits);
	out->total = out->layers_gemm + out->layers_attn + out->logits + out->mtp;
}

double tf_megatron_flops_per_step(const struct model_arch *m, int seq_len, double batch_seqs)
{
	double h = m->hidden, L = m->layers, s = seq_len;
	double q_ratio = (double)m->heads * model_head_dim(m) / h;
	double groups = m->kv_heads > 0 ? (double)m->kv_heads / m->heads : 1.0;
	double ffn = model_is_moe(m) && m->moe_ffn_hidden > 0 ? m->moe_ffn_hidden : m->ffn_hidden;
	double routed = model_is_moe(m) ? m->top_k : 1.0;
	double gated = m->gated_mlp ? 1.5 : 1.0;

	if (model_is_mla(m) || h <= 0 || L <= 0)
		return 0;
	return 12.0 * batch_seqs * s * L * h * h *
	       ((1.0 + groups + s / h) * q_ratio + ffn / h * routed * gated + m->vocab / (2.0 * L * h));
}

/* ---- op list ----------------------------------------------------------------- */

static void add_gemm(struct tf_layer *l, const char *name, double m, double n,
		     double k, double count, bool keep_bf16, bool expert,
		     bool params_local)
{
	struct tf_gemm *g;

	if (l->n_gemms >= TF_MAX_GEMMS || m <= 0 || n <= 0 || k <= 0 || count <= 0)
		return;
	g = &l->gemm[l->n_gemms++];
	g->name = name;
	g->m = m;
	g->n = n;
	g->k = k;
	g->count = count;
	g->keep_bf16 = keep_bf16;
	g->expert = expert;
	g->attention = false;
	l->gemm_flops += 2.0 * m * n * k * count;
	if (params_local) {
		if (expert)
			l->params_expert_local += n * k * count;
		else
			l->params_dense_local += n * k * count;
	}
}

/* An attention-block GEMM (tf_gemm.attention). */
static void add_attn_gemm(struct tf_layer *l, const char *name, double m, double n, double k)
{
	int before = l->n_gemms;

	add_gemm(l, name, m, n, k, 1, false, false, true);
	if (l->n_gemms > before)
		l->gemm[before].attention = true;
}

static void add_mem(struct tf_layer *l, const char *name, double bytes,
		    double kernels)
{
	struct tf_memop *o;

	if (l->n_memops >= TF_MAX_MEMOPS || bytes <= 0)
		return;
	o = &l->memop[l->n_memops++];
	o->name = name;
	o->bytes = bytes;
	o->kernels = kernels;
}

/* Per-GPU view shared by the builders. */
struct local {
	double b, s, T, Tn;   /* micro-batch, sequence, GEMM tokens, norm tokens */
	double tp, cp, ep, etp;
	double a_l, kv_l;     /* local query heads and key/value heads */
	bool low_precision;
};

/* Quantising a GEMM's activation input to FP8/FP4 reads it in BF16 and
 * writes it back in the narrow format (Transformer Engine casts each input;
 * weights are cast once per step and not counted). */
static void add_casts(struct tf_layer *l, const struct local *x, double elems)
{
	if (x->low_precision)
		add_mem(l, "quantize", elems * 3.0, 1.0);
}

static void build_attention(struct tf_layer *l, const struct dims *d,
			    const struct local *x, const struct model_arch *m)
{
	double T = x->T, Tn = x->Tn, h = d->h;
	double keys = mean_keys(m, x->s, true);

	add_mem(l, "input_norm", 4.0 * Tn * h, 1.0);
	if (d->mla) {
		/* Megatron MLA: down projections are duplicated on every TP rank,
		 * up projections split by heads (DeepSeek-V2 report, section 2.1) */
		if (d->q_lora > 0) {
			add_attn_gemm(l, "q_down", T, d->q_lora, h);
			add_attn_gemm(l, "q_up", T, x->a_l * d->d_qk, d->q_lora);
		} else {
			add_attn_gemm(l, "q", T, x->a_l * d->d_qk, h);
		}
		add_attn_gemm(l, "kv_down", T, d->kv_lora + d->d_rope, h);
		add_attn_gemm(l, "kv_up", T, x->a_l * (d->d_nope + d->d_v), d->kv_lora);
		add_mem(l, "latent_norms", 4.0 * T * (d->q_lora + d->kv_lora), 2.0);
		add_mem(l, "rotary", 4.0 * T * (x->a_l + 1.0) * d->d_rope, 1.0);
		l->params_dense_local += d->q_lora + d->kv_lora;
		add_casts(l, x, T * h * 2.0 + T * (d->q_lora + d->kv_lora));
	} else {
		add_attn_gemm(l, "qkv", T, (x->a_l + 2.0 * x->kv_l) * d->d_qk, h);
		add_mem(l, "rotary", 4.0 * T * (x->a_l + x->kv_l) * d->d_qk, 1.0);
		add_casts(l, x, T * h);
	}
	/* flash-attention core: the local query chunk (s / cp tokens) against
	 * the keys of the whole sequence; Megatron's CP splits the sequence in
	 * 2 cp load-balanced chunks, so each rank does 1 / cp of the causal work */
	{
		double kv_heads = d->mla ? x->a_l : x->kv_l;

		l->attn_flops = 2.0 * x->b * (x->s / x->cp) * keys * x->a_l *
				(d->d_qk + d->d_v);
		l->attn_bytes = 2.0 * T * x->a_l * (d->d_qk + d->d_v) +
				2.0 * x->b * x->s * kv_heads * (d->d_qk + d->d_v) +
				4.0 * T * x->a_l;
		l->cp_kv_bytes = 2.0 * T * kv_heads * (d->d_qk + d->d_v);
		l->attn_head_dim = 0.5 * (d->d_qk + d->d_v);
	}
	add_attn_gemm(l, "proj", T, h, x->a_l * d->d_v);
	add_casts(l, x, T * x->a_l * d->d_v);
	add_mem(l, "residual", 6.0 * Tn * h, 1.0);
	l->params_dense_local += h;
	/* f before QKV, g after proj */
	l->tp_f += 1;
	l->tp_g += 1;
	l->tp_bytes = 2.0 * T * h;
}

static void build_mlp(struct tf_layer *l, const struct dims *d,
		      const struct local *x, double width_global, double tp,
		      const char *in_name, const char *out_name)
{
	double T = x->T, h = d->h, f_l = width_global / tp;

	add_gemm(l, in_name, T, (d->mats - 1.0) * f_l, h, 1, false, false, true);
	/* gated: read gate and up (2 f), write f; plain: read f, write f */
	add_mem(l, "activation", 2.0 * T * (d->mats == 3.0 ? 3.0 : 2.0) * f_l, 1.0);
	add_gemm(l, out_name, T, h, f_l, 1, false, false, true);
	add_casts(l, x, T * h + T * f_l);
}

static void build_dense(struct tf_layer *l, const struct dims *d,
			const struct local *x, const struct model_arch *m)
{
	memset(l, 0, sizeof(*l));
	build_attention(l, d, x, m);
	add_mem(l, "post_attn_norm", 4.0 * x->Tn * d->h, 1.0);
	build_mlp(l, d, x, d->f, x->tp, "fc1", "fc2");
	add_mem(l, "residual", 6.0 * x->Tn * d->h, 1.0);
	l->params_dense_local += d->h;
	l->tp_f += 1;
	l->tp_g += 1;
}

static void build_moe(struct tf_layer *l, const struct dims *d,
		      const struct local *x, const struct model_arch *m)
{
	double h = d->h, T = x->T;
	double E_l = d->E / x->ep;
	/* Tokens the GPU's experts process: the stage's tp*cp*dp GPUs share
	 * the T*dp*cp tokens' top_k copies evenly, and each etp group splits
	 * every expert's weights etp ways, so each GPU sees T * k * etp / tp
	 * token-expert rows (before routing imbalance). */
	double rows = T * d->k * x->etp / x->tp;
	double m_e = rows / E_l;

	memset(l, 0, sizeof(*l));
	build_attention(l, d, x, m);
	add_mem(l, "post_attn_norm", 4.0 * x->Tn * h, 1.0);
	add_gemm(l, "router", x->T / x->tp, d->E, h, 1, true, false, true);
	add_mem(l, "router_topk", 8.0 * (x->T / x->tp) * d->E, 2.0);
	add_mem(l, "permute", 8.0 * rows * h, 2.0);
	add_gemm(l, "expert_fc1", m_e, (d->mats - 1.0) * d->fe / x->etp, h, E_l,
		 false, true, true);
	add_mem(l, "expert_activation",
		2.0 * rows * (d->mats == 3.0 ? 3.0 : 2.0) * d->fe / x->etp, 1.0);
	add_gemm(l, "expert_fc2", m_e, h, d->fe / x->etp, E_l, false, true, true);
	add_casts(l, x, rows * h + rows * d->fe / x->etp);
	if (d->shared > 0) {
		build_mlp(l, d, x, d->shared * d->fe, x->tp, "shared_fc1", "shared_fc2");
		l->tp_f += 1;
		l->tp_g += 1;
	}
	add_mem(l, "residual", 6.0 * x->Tn * h, 1.0);
	l->params_dense_local += h;
	/* dispatch and combine: each rank sends its sequence-parallel shard of
	 * tokens, top_k copies each (Megatron MoEAlltoAllTokenDispatcher) */
	l->ep_calls = 2;
	l->ep_bytes = 2.0 * (T / x->tp) * d->k * h;
	if (x->etp > 1) {
		l->etp_f = 1;
		l->etp_g = 1;
		l->etp_bytes = 2.0 * rows * h;
	}
}

void tf_build(const struct model_arch *m, const struct tf_shard *sh,
	      struct tf_ops *out)
{
	struct dims d = dims_of(m);
	struct local x;

	memset(out, 0, sizeof(*out));
	x.b = sh->micro_batch;
	x.s = sh->seq_len;
	x.tp = sh->tp > 0 ? sh->tp : 1;
	x.cp = sh->cp > 0 ? sh->cp : 1;
	x.ep = sh->ep > 0 ? sh->ep : 1;
	x.etp = sh->etp > 0 ? sh->etp : x.tp;
	x.T = x.b * x.s / x.cp;
	x.Tn = (sh->sp && x.tp > 1) ? x.T / x.tp : x.T;
	x.a_l = d.a / x.tp;
	/* fewer KV heads than TP ranks: each rank keeps (replicates) one */
	x.kv_l = d.kv >= x.tp ? d.kv / x.tp : 1.0;
	x.low_precision = sh->low_precision;

	build_dense(&out->dense, &d, &x, m);
	if (model_is_moe(m))
		build_moe(&out->moe, &d, &x, m);
	out->mtp_layer_is_moe = model_is_moe(m);

	/* vocab-parallel embedding: a lookup, then a reduction over TP
	 * (reduce-scatter with SP, all-reduce without) */
	add_mem(&out->embed, "embedding", 4.0 * x.Tn * d.h + 2.0 * x.T * d.h, 1.0);
	out->embed.params_dense_local = d.V * d.h / x.tp;
	out->embed.tp_g = 1;
	out->embed.tp_bytes = 2.0 * x.T * d.h;

	/* final norm, output projection (kept BF16 by Transformer Engine
	 * recipes), vocab-parallel cross entropy in FP32 (logits read, FP32
	 * softmax written and read back) */
	add_mem(&out->logits, "final_norm", 4.0 * x.Tn * d.h, 1.0);
	add_gemm(&out->logits, "logits", x.T, d.V / x.tp, d.h, 1, true, false, true);
	add_mem(&out->logits, "cross_entropy", x.T * (d.V / x.tp) * 10.0, 3.0);
	out->logits.params_dense_local += d.h;
	out->logits.tp_f = 1;
	out->logits.tp_bytes = 2.0 * x.T * d.h;

	if (m->mtp_layers > 0) {
		struct tf_layer *t = &out->mtp_extra;

		add_mem(t, "mtp_norms", 8.0 * x.Tn * d.h + 6.0 * x.Tn * d.h, 3.0);
		add_gemm(t, "mtp_proj", x.T, d.h / x.tp, 2.0 * d.h, 1, false, false, true);
		add_mem(t, "final_norm", 4.0 * x.Tn * d.h, 1.0);
		add_gemm(t, "logits", x.T, d.V / x.tp, d.h, 1, true, false, false);
		add_mem(t, "cross_entropy", x.T * (d.V / x.tp) * 10.0, 3.0);
		t->params_dense_local += 3.0 * d.h;
		t->tp_f = 2;
		t->tp_g = 1;
		t->tp_bytes = 2.0 * x.T * d.h;
	}
}
