/* serving.c: inference iteration time and KV-cache memory (see serving.h).
 *
 * The op list is transformer.c's, built once for ONE token (seq_len 1,
 * micro-batch 1, no sequence parallelism, no context parallelism): every
 * GEMM's N and K and every memory-bound op's bytes per token are then
 * scaled by the tokens of an iteration.  What inference does differently
 * from a training forward pass is done here:
 *  - GEMMs read their weights in the weight format (FP8, NVFP4, or a
 *    weight-only 4-bit format dequantised inside a BF16 kernel) and compute
 *    in the activation format;
 *  - a GEMM with few rows (decode) is padded to the tensor core's M tile
 *    (serve_gemm_m_tile) instead of the training curve's M factor, so at
 *    small batch the weight stream from HBM bounds it: decode is HBM-bound;
 *  - a routed-expert GEMM reads only the experts its tokens reach;
 *  - attention is computed from the batch: causal prefill over the new
 *    chunk and its cached prefix (compute-bound), decode over the paged KV
 *    cache (HBM-bound for GQA, near the ridge for absorbed MLA);
 *  - only sampled tokens reach the output projection; the logits are
 *    gathered across TP;
 *  - TP needs one all-reduce per attention block and one per MLP (one per
 *    layer with parallel attention), timed by models/collective on the tier
 *    the TP group spans; PP stages send the hidden state on.  Experts split
 *    over ep of the TP ranks (expert TP tp/ep) read the tokens every TP rank
 *    already holds and the MLP's all-reduce combines their outputs, as vLLM
 *    and TensorRT-LLM run expert parallelism without attention data
 *    parallelism: no all-to-all;
 *  - with attention data parallelism (attention_dp ranks of tp/attention_dp
 *    GPUs) each rank holds the attention weights of its own TP size and the
 *    KV cache of its own sequences only (the MLA latent is no longer copied
 *    on every TP rank), runs attention on its share of the batch, and the
 *    ranks' tokens are all-gathered for the MLP/MoE over the whole group
 *    and reduce-scattered back (SGLang dp_attention.py, TensorRT-LLM
 *    enable_attention_dp).
 */
#include "serving.h"

#include <math.h>
#include <string.h>

#include "collective.h"
#include "units.h"

SC_ENUM_DEFINE(srv_format_name, enum srv_format, srv_format_names, SRV_FORMAT_LIST)

#define SRV_MEM_BASIS_NAME(id, name, hbm) [id] = name,
#define SRV_MEM_BASIS_HBM(id, name, hbm) [id] = hbm,
const char *const srv_mem_basis_names[] = { SRV_MEM_BASIS_LIST(SRV_MEM_BASIS_NAME) NULL };
static const char *const mem_basis_hbm[] = { SRV_MEM_BASIS_LIST(SRV_MEM_BASIS_HBM) NULL };

const char *srv_mem_basis_hbm(enum srv_mem_basis b)
{
	return SC_NAME_OF(mem_basis_hbm, b);
}

double srv_format_bytes(enum srv_format f)
{
	switch (f) {
	case SRV_FMT_BF16:
	case SRV_FMT_FP16: return 2.0;
	case SRV_FMT_FP8: return 1.0;
	/* NVFP4: 4-bit E2M1 values plus one FP8 scale per 16 (NVIDIA
	 * Blackwell NVFP4 format); MXFP4: plus one E8M0 scale per 32 (OCP
	 * Microscaling spec v1.0); AWQ: FP16 scale and zero point per group of
	 * 128 (Lin et al. 2024, AWQ, default group size) */
	case SRV_FMT_NVFP4: return 0.5 + 1.0 / 16.0;
	case SRV_FMT_MXFP4: return 0.5 + 1.0 / 32.0;
	case SRV_FMT_INT4_AWQ: return 0.5 + 4.0 / 128.0;
	case SRV_FMT_COUNT: break;
	}
	return 2.0;
}

/* KV bytes of one token in one layer, not sharded. */
static double kv_per_layer(const struct model_arch *m, double kv_bytes)
{
	if (model_is_mla(m))
		return (m->kv_lora_rank + m->qk_rope_head_dim) * kv_bytes;
	return 2.0 * (m->kv_heads > 0 ? m->kv_heads : m->heads) * model_head_dim(m) * kv_bytes;
}

double srv_kv_bytes_per_token(const struct model_arch *m, double kv_bytes)
{
	return m->layers * kv_per_layer(m, kv_bytes);
}

/* KV bytes of one token in one layer on one GPU of a TP group of tp.  GQA
 * splits the KV heads over TP and replicates a head when there are fewer
 * heads than ranks (Megatron/vLLM); MLA's latent is shared by all heads, so
 * every TP rank holds all of it (vLLM and SGLang MLA without attention DP). */
static double kv_per_layer_local(const struct model_arch *m, int tp, double kv_bytes)
{
	double kv;

	if (model_is_mla(m))
		return kv_per_layer(m, kv_bytes);
	kv = m->kv_heads > 0 ? m->kv_heads : m->heads;
	kv = kv >= tp ? kv / tp : 1.0;
	return 2.0 * kv * model_head_dim(m) * kv_bytes;
}

double srv_tokens_per_step(const struct srv_speculative *spec)
{
	double a, k;

	if (!spec || spec->draft_tokens <= 0)
		return 1.0;
	a = spec->acceptance_rate;
	k = spec->draft_tokens;
	if (a >= 1.0)
		return k + 1.0;
	if (a <= 0.0)
		return 1.0;
	return (1.0 - pow(a, k + 1.0)) / (1.0 - a);
}

static enum sc_status fail(struct sc_error *err, enum sc_status st, const char *ptr,
			   const char *msg, int v)
{
	return sc_error_set(err, st, NULL, ptr, "%s (got \"%d\")", msg, v);
}

static bool weight_only(enum srv_format f)
{
	return f == SRV_FMT_MXFP4 || f == SRV_FMT_INT4_AWQ;
}

/* The tensor-core format of the GEMMs: that of the activations (a weight-only
 * format is dequantised into a BF16 GEMM, as Marlin/AWQ kernels do). */
static enum sc_status compute_dtype(const struct gpu_spec *gpu, const struct srv_precision *p,
				    enum gpu_dtype *out, struct sc_error *err)
{
	switch (p->activations) {
	case SRV_FMT_BF16:
	case SRV_FMT_FP16:
		*out = GPU_DTYPE_BF16;
		return SC_OK;
	case SRV_FMT_FP8:
		if (gpu->peak_fp8_flops <= 0)
			return sc_error_set(err, SC_EUNSUPPORTED, NULL, "/precision/activations",
					    "fp8 activations need FP8 tensor cores, which gpu \"%s\" lacks",
					    gpu->name);
		*out = GPU_DTYPE_FP8;
		return SC_OK;
	case SRV_FMT_NVFP4:
		if (gpu->peak_fp4_flops <= 0)
			return sc_error_set(err, SC_EUNSUPPORTED, NULL, "/precision/activations",
					    "nvfp4 activations need FP4 tensor cores, which gpu \"%s\" lacks",
					    gpu->name);
		*out = GPU_DTYPE_FP4;
		return SC_OK;
	default:
		return sc_error_set(err, SC_EINVAL, NULL, "/precision/activations",
				    "\"%s\" is a weight-only format; activations are bf16, fp16, fp8 or nvfp4",
				    srv_format_name(p->activations));
	}
}

static enum sc_status check_layout(const struct srv_arch *a, const struct instance_spec *inst,
				   const struct srv_layout *l, struct sc_error *err)
{
	const struct model_arch *m = &a->m;
	int kv = m->kv_heads > 0 ? m->kv_heads : m->heads;
	int domain = inst->nvlink_domain_gpus > 0 ? inst->nvlink_domain_gpus : inst->gpus_per_node;

	if (l->tp < 1)
		return fail(err, SC_EINVAL, "/replica/tp", "tp must be at least 1", l->tp);
	if (l->pp < 1)
		return fail(err, SC_EINVAL, "/replica/pp", "pp must be at least 1", l->pp);
	if (l->ep < 1)
		return fail(err, SC_EINVAL, "/replica/ep", "ep must be at least 1", l->ep);
	if (m->heads % l->tp != 0)
		return sc_error_set(err, SC_EINVAL, NULL, "/replica/tp",
				    "tp \"%d\" does not divide the model's %d attention heads",
				    l->tp, m->heads);
	if (!model_is_mla(m) && kv % l->tp != 0 && l->tp % kv != 0)
		return sc_error_set(err, SC_EINVAL, NULL, "/replica/tp",
				    "tp \"%d\" and the model's %d kv heads do not divide one another",
				    l->tp, kv);
	if (l->tp > domain)
		return sc_error_set(err, SC_EINVAL, NULL, "/replica/tp",
				    "tp \"%d\" is larger than the NVLink domain of %s (%d GPUs)",
				    l->tp, inst->name, domain);
	if (l->pp > m->layers)
		return sc_error_set(err, SC_EINVAL, NULL, "/replica/pp",
				    "pp \"%d\" is more than the model's %d layers", l->pp, m->layers);
	if (l->attention_dp < 0)
		return fail(err, SC_EINVAL, "/replica/attention_dp", "attention_dp must be at least 1",
			    l->attention_dp);
	if (l->attention_dp > 1) {
		int at = l->tp / l->attention_dp;

		if (!model_is_moe(m))
			return fail(err, SC_EINVAL, "/replica/attention_dp",
				    "attention_dp > 1 needs an MoE model (a dense model's data parallelism is replicas)",
				    l->attention_dp);
		if (l->tp % l->attention_dp != 0)
			return sc_error_set(err, SC_EINVAL, NULL, "/replica/attention_dp",
					    "attention_dp \"%d\" must divide tp (%d): the attention ranks split the TP group",
					    l->attention_dp, l->tp);
		if (m->heads % at != 0 || (!model_is_mla(m) && kv % at != 0 && at % kv != 0))
			return sc_error_set(err, SC_EINVAL, NULL, "/replica/attention_dp",
					    "the attention TP size tp/attention_dp = %d does not divide the model's heads (attention_dp \"%d\")",
					    at, l->attention_dp);
	}
	if (!model_is_moe(m)) {
		if (l->ep > 1)
			return fail(err, SC_EINVAL, "/replica/ep", "ep > 1 needs an MoE model", l->ep);
		return SC_OK;
	}
	if (l->tp % l->ep != 0)
		return sc_error_set(err, SC_EINVAL, NULL, "/replica/ep",
				    "ep \"%d\" must divide tp (%d): experts are split over the TP ranks",
				    l->ep, l->tp);
	if (m->experts % l->ep != 0)
		return sc_error_set(err, SC_EINVAL, NULL, "/replica/ep",
				    "ep \"%d\" does not divide the model's %d experts", l->ep, m->experts);
	if (m->moe_ffn_hidden % (l->tp / l->ep) != 0)
		return sc_error_set(err, SC_EINVAL, NULL, "/replica/ep",
				    "tp/ep = %d does not divide the expert width %d (ep \"%d\")",
				    l->tp / l->ep, m->moe_ffn_hidden, l->ep);
	return SC_OK;
}

/* The shared expert of some MoE models (Llama 4) has its own width: rescale
 * transformer.c's shared MLP, which assumes shared_experts x moe_ffn_hidden. */
static void fix_shared_width(struct tf_layer *l, const struct srv_arch *a)
{
	double want = a->shared_expert_ffn_hidden, have = a->m.moe_ffn_hidden;

	if (want <= 0 || have <= 0 || want == have)
		return;
	for (int i = 0; i < l->n_gemms; i++) {
		struct tf_gemm *g = &l->gemm[i];
		double before = g->n * g->k * g->count;

		if (strcmp(g->name, "shared_fc1") == 0)
			g->n *= want / have;
		else if (strcmp(g->name, "shared_fc2") == 0)
			g->k *= want / have;
		else
			continue;
		l->params_dense_local += g->n * g->k * g->count - before;
	}
}

/* HBM reads of the KV cache per decode step over the bytes it holds.  A
 * grouped kernel reads each KV head once for its g query heads (g = local
 * query heads / local KV heads; MLA: all local heads share the latent).
 * A per-head kernel (or a grouped one past its largest group, XQA's 32,
 * TensorRT-LLM kernelUtils.cpp supportConfigHMMA) runs g thread blocks
 * that each read it: the first from HBM, the other g - 1 from L2 with
 * probability serve_kv_reread_l2_hit. */
static double kv_read_amplification(const struct model_arch *m, int tp,
				    const struct srv_memory_opts *mem, const struct calibration *cal)
{
	double q = (double)m->heads / tp, kv, g;
	bool per_head = mem->decode_per_head;

	if (model_is_mla(m)) {
		kv = 1;
	} else {
		kv = m->kv_heads > 0 ? m->kv_heads : m->heads;
		kv = kv >= tp ? kv / tp : 1.0;
	}
	g = q / kv;
	if (g <= 1)
		return 1.0;
	if (mem->grouped_max_group > 0 && g > mem->grouped_max_group)
		per_head = true;
	if (!per_head)
		return 1.0;
	return 1.0 + (g - 1.0) * (1.0 - cal->serve_kv_reread_l2_hit);
}


static double attn_params(const struct tf_layer *l)
{
	double n = 0;

	for (int i = 0; i < l->n_gemms; i++)
		if (l->gemm[i].attention)
			n += l->gemm[i].n * l->gemm[i].k * l->gemm[i].count;
	return n;
}

/* Dense parameters of one layer on one GPU: with attention DP the
 * attention weights are those of the attention rank (replicated adp
 * times over the TP group), the MLP's are split over all of it. */
static double layer_dense_params(const struct srv_replica *r, const struct tf_layer *l,
				 const struct tf_layer *la)
{
	if (r->adp <= 1)
		return l->params_dense_local;
	return l->params_dense_local - attn_params(l) + attn_params(la);
}

/* Weight bytes on one GPU of pipeline stage s (layers [b, e)). */
static double stage_weights(const struct srv_replica *r, int b, int e, bool first, bool last)
{
	const struct model_arch *m = &r->arch.m;
	int moe = tf_moe_layers_in(m, b, e), dense = (e - b) - moe;
	double w = 0;

	w += dense * layer_dense_params(r, &r->ops.dense, &r->ops_attn.dense) * r->weight_bytes_per_param;
	if (moe > 0)
		w += moe * (layer_dense_params(r, &r->ops.moe, &r->ops_attn.moe) * r->weight_bytes_per_param +
			    r->ops.moe.params_expert_local * r->expert_weight_bytes_per_param);
	/* embedding and output head stay BF16 in quantised checkpoints
	 * (ModelOpt, AWQ and the MXFP4 gpt-oss release leave them unquantised) */
	if (first)
		w += r->ops.embed.params_dense_local * 2.0;
	if (last && !(m->tied_embeddings && first))
		w += r->ops.logits.params_dense_local * 2.0;
	return w;
}

/* Transient activation memory of a forward pass of max_tokens tokens: the
 * residual stream and a few copies of the hidden state (4 h), plus the
 * widest intermediate (the MLP's gate/up outputs and activation, or the
 * QKV projection), in BF16; plus the logits of max_seqs sampled tokens in
 * BF16 and their FP32 softmax.  This is what vLLM's profiling run measures
 * as peak activation memory. */
static double workspace_bytes(const struct srv_replica *r, const struct srv_memory_opts *mem)
{
	const struct model_arch *m = &r->arch.m;
	double h = m->hidden, tp = r->lay.tp, d = model_head_dim(m);
	double kv = m->kv_heads > 0 ? m->kv_heads : m->heads;
	double mats = (m->gated_mlp || m->activation == ACT_SWIGLU || m->activation == ACT_GEGLU) ? 3 : 2;
	double mlp = mats * m->ffn_hidden / tp;
	double attn = (m->heads / tp + 2.0 * (kv >= tp ? kv / tp : 1.0)) * d + m->heads / tp * d;
	double widest = mlp > attn ? mlp : attn;

	if (model_is_moe(m)) {
		double e = m->top_k * mats * m->moe_ffn_hidden / tp;
		if (e > widest)
			widest = e;
	}
	return 2.0 * mem->max_num_batched_tokens * (4.0 * h + widest) +
	       6.0 * mem->max_num_seqs * m->vocab / tp;
}

/* The KV pool per GPU and the memory around it (weights, activation
 * workspace, reserve): the stage whose KV pool holds the fewest tokens
 * bounds the replica (Megatron's even split of layers over stages); an
 * error when the pool cannot hold min_tokens, or when a stated pool does
 * not fit. */
static enum sc_status size_kv_pool(struct srv_replica *r, const struct srv_memory_opts *mem,
				   double frac_win, int min_tokens, struct sc_error *err)
{
	const struct model_arch *m = &r->arch.m;
	double best_tokens = -1;
	int L = m->layers;

	r->hbm_bytes = r->gpu.hbm_bytes;
	r->workspace_bytes = workspace_bytes(r, mem);
	r->reserve_bytes = r->cal.framework_reserve_bytes;
	for (int s = 0; s < r->lay.pp; s++) {
		int b = (int)((long long)s * L / r->lay.pp), e = (int)((long long)(s + 1) * L / r->lay.pp);
		double per_layer = kv_per_layer_local(m, r->attn_tp, r->kv_elem_bytes) / r->adp;
		double n_win = (e - b) * frac_win;
		double full = per_layer * ((e - b) - n_win), win = per_layer * n_win;
		double w = stage_weights(r, b, e, s == 0, s == r->lay.pp - 1);
		double left = r->gpu.hbm_bytes - w - r->workspace_bytes - r->reserve_bytes;
		double pool = mem->basis == SRV_MEM_FREE ? mem->kv_mem_fraction * left
			      : mem->basis == SRV_MEM_WEIGHTS_KV ? mem->kv_mem_fraction * r->gpu.hbm_bytes - w
			      : mem->basis == SRV_MEM_KV_ONLY ? mem->kv_mem_fraction * r->gpu.hbm_bytes
			      : mem->kv_mem_fraction * r->gpu.hbm_bytes - w - r->workspace_bytes -
				r->reserve_bytes;

		if (mem->kv_pool_tokens > 0) {
			/* a stated pool: the engine allocates it whole, or fails to start */
			pool = mem->kv_pool_tokens * (full + win);
			if (pool > left)
				return sc_error_set(err, SC_ERANGE, NULL, "/engine/kv_cache_tokens",
						    "a KV pool of %.0f tokens needs %.2f GiB per GPU; %s leaves %.2f GiB of the %.1f GiB of HBM after %.1f GiB of weights, %.1f GiB of activation workspace and %.1f GiB reserved",
						    mem->kv_pool_tokens, pool / SC_GiB_BYTES, m->name,
						    left / SC_GiB_BYTES, r->gpu.hbm_bytes / SC_GiB_BYTES,
						    w / SC_GiB_BYTES, r->workspace_bytes / SC_GiB_BYTES,
						    r->reserve_bytes / SC_GiB_BYTES);
		}
		/* TurboMind before v0.2.2 allocates total x cache_max_entry_count
		 * for the KV blocks whatever the weights took (BlockManager.cc
		 * GetBlockCount), or fails to start: an error, as a stated pool */
		if (mem->kv_pool_tokens <= 0 && mem->basis == SRV_MEM_KV_ONLY && pool > left)
			return sc_error_set(err, SC_ERANGE, NULL, "/engine/kv_mem_fraction",
					    "kv_mem_fraction %.3g of %.1f GiB of HBM is a KV pool of %.2f GiB per GPU; %s leaves %.2f GiB after %.1f GiB of weights, %.1f GiB of activation workspace and %.1f GiB reserved",
					    mem->kv_mem_fraction, r->gpu.hbm_bytes / SC_GiB_BYTES, pool / SC_GiB_BYTES,
					    m->name, left / SC_GiB_BYTES, w / SC_GiB_BYTES,
					    r->workspace_bytes / SC_GiB_BYTES, r->reserve_bytes / SC_GiB_BYTES);
		if (mem->basis == SRV_MEM_WEIGHTS_KV && pool > left)
			pool = left;   /* activations and reserve still need their room */
		double tokens = full + win > 0 ? pool / (full + win) : 0;

		if (best_tokens < 0 || tokens < best_tokens) {
			best_tokens = tokens;
			r->weights_bytes = w;
			r->kv_pool_bytes = pool;
			r->kv_bytes_per_token_full = full;
			r->kv_bytes_per_token_window = win;
		}
	}
	if (r->kv_pool_bytes < srv_kv_seq_bytes(r, min_tokens > 0 ? min_tokens : 1, 1))
		return sc_error_set(err, SC_ERANGE, NULL, "/replica",
				    "%s does not fit: per GPU %.1f GiB of weights, %.1f GiB of activation workspace and %.1f GiB reserved leave %.2f GiB of the %.1f GiB of HBM for the KV cache, not enough for %d token%s",
				    m->name, r->weights_bytes / SC_GiB_BYTES,
				    r->workspace_bytes / SC_GiB_BYTES, r->reserve_bytes / SC_GiB_BYTES,
				    r->kv_pool_bytes / SC_GiB_BYTES, r->gpu.hbm_bytes / SC_GiB_BYTES,
				    min_tokens > 0 ? min_tokens : 1, min_tokens > 1 ? "s" : "");
	return SC_OK;
}

enum sc_status srv_replica_init(struct srv_replica *r, const struct srv_arch *arch,
				const struct gpu_spec *gpu, const struct instance_spec *inst,
				const struct fabric_spec *fabric, const struct calibration *cal,
				const struct srv_precision *prec, const struct srv_layout *lay,
				const struct srv_memory_opts *mem, const struct srv_speculative *spec,
				int min_tokens, struct sc_error *err)
{
	const struct model_arch *m = &arch->m;
	struct tf_shard sh;
	struct cluster cl;
	enum sc_status st;
	double frac_win;
	int L = m->layers;

	memset(r, 0, sizeof(*r));
	sc_error_clear(err);
	if (m->layers < 1 || m->hidden < 1 || m->heads < 1 || m->vocab < 1 || m->ffn_hidden < 1)
		return sc_error_set(err, SC_EINVAL, NULL, "/model",
				    "model \"%s\" needs positive layers, hidden, ffn_hidden, heads and vocab",
				    m->name);
	if ((st = check_layout(arch, inst, lay, err)) != SC_OK)
		return st;
	if (!(gpu->hbm_bytes > 0 && gpu->hbm_GBps > 0 && gpu->nvlink_GBps > 0 &&
	      gpu_peak_flops(gpu, GPU_DTYPE_BF16) > 0))
		return sc_error_set(err, SC_EINVAL, NULL, "/instance",
				    "gpu \"%s\" needs positive hbm_bytes, hbm_GBps, nvlink_GBps and a bf16 peak",
				    gpu->name);
	r->arch = *arch;
	r->gpu = *gpu;
	r->instance = *inst;
	r->fabric = *fabric;
	r->cal = *cal;
	r->prec = *prec;
	r->lay = *lay;
	if (spec)
		r->spec = *spec;
	if ((st = compute_dtype(gpu, prec, &r->gemm_dtype, err)) != SC_OK)
		return st;
	if (srv_format_bytes(prec->activations) < srv_format_bytes(prec->weights) &&
	    !weight_only(prec->weights))
		return sc_error_set(err, SC_EINVAL, NULL, "/precision/activations",
				    "activations \"%s\" are narrower than the weights (%s)",
				    srv_format_name(prec->activations), srv_format_name(prec->weights));
	if (weight_only(prec->kv_cache))
		return sc_error_set(err, SC_EINVAL, NULL, "/precision/kv_cache",
				    "\"%s\" is a weight-only format; the KV cache is bf16, fp16, fp8 or nvfp4",
				    srv_format_name(prec->kv_cache));
	r->act_bytes = gpu_dtype_bytes(r->gemm_dtype);
	r->kv_elem_bytes = srv_format_bytes(prec->kv_cache);
	/* MXFP4 checkpoints (gpt-oss) quantise only the routed experts; the
	 * other formats every decoder GEMM */
	r->expert_weight_bytes_per_param = srv_format_bytes(prec->weights);
	r->weight_bytes_per_param = prec->weights == SRV_FMT_MXFP4 ? 2.0 : srv_format_bytes(prec->weights);

	memset(&sh, 0, sizeof(sh));
	sh.seq_len = 1;
	sh.micro_batch = 1;
	sh.tp = lay->tp;
	sh.cp = 1;
	sh.ep = lay->ep;
	sh.etp = lay->tp / lay->ep;
	sh.sp = false;
	sh.low_precision = r->gemm_dtype != GPU_DTYPE_BF16;
	tf_build(m, &sh, &r->ops);
	fix_shared_width(&r->ops.moe, arch);
	r->adp = lay->attention_dp > 1 ? lay->attention_dp : 1;
	r->attn_tp = lay->tp / r->adp;
	sh.tp = r->attn_tp;
	sh.ep = 1;
	sh.etp = r->attn_tp;
	tf_build(m, &sh, &r->ops_attn);   /* only its attention GEMMs are used */
	fix_shared_width(&r->ops_attn.moe, arch);

	r->moe_layers = tf_moe_layers_in(m, 0, L);
	r->dense_layers = L - r->moe_layers;
	/* an engine that ignores the window (TensorRT-LLM without
	 * max_attention_window_size) keeps and attends to every token */
	r->window_tokens = m->sliding_window > 0 && !mem->full_window ? m->sliding_window : 0;
	/* an engine without a sliding-window KV pool (SGLang 0.5 for gpt-oss)
	 * still attends to the window only, but holds every token's KV */
	r->kv_window_tokens = mem->full_window_kv_pool ? 0 : r->window_tokens;
	frac_win = r->window_tokens > 0
		   ? (m->sliding_window_layer_freq > 0 ? 1.0 / m->sliding_window_layer_freq : 1.0) : 0.0;
	r->window_dense = (int)floor(r->dense_layers * frac_win + 0.5);
	r->window_moe = (int)floor(r->moe_layers * frac_win + 0.5);
	r->allreduces_per_layer = lay->tp > 1 ? (arch->parallel_attention ? 1 : 2) : 0;
	r->kv_read_amp = kv_read_amplification(m, r->attn_tp, mem, cal);

	memset(&cl, 0, sizeof(cl));
	cl.instance = *inst;
	cl.gpu = *gpu;
	cl.fabric = *fabric;
	cl.nodes = (lay->tp * lay->pp + inst->gpus_per_node - 1) / inst->gpus_per_node;
	r->tp_span = net_span_of(&cl, lay->tp, 1);
	r->pp_span = net_span_of(&cl, lay->pp > 1 ? 2 : 1, lay->tp);
	r->attn_span = net_span_of(&cl, r->attn_tp, 1);

	return size_kv_pool(r, mem, frac_win, min_tokens, err);
}

double srv_kv_seq_bytes(const struct srv_replica *r, double ctx, int block_tokens)
{
	double b = block_tokens > 0 ? block_tokens : 1;
	double full = ceil(ctx / b) * b;
	double win = full;

	if (r->kv_window_tokens > 0 && ctx > r->kv_window_tokens)
		win = ceil(r->kv_window_tokens / b) * b;
	return full * r->kv_bytes_per_token_full + win * r->kv_bytes_per_token_window;
}

double srv_kv_transfer_bytes(const struct srv_replica *r, double n)
{
	return srv_kv_seq_bytes(r, n, 1);
}

double srv_kv_transfer_time(const struct srv_replica *r, const struct net_span *s, double n)
{
	return coll_time(&r->cal, s, COLL_SEND_RECV, srv_kv_transfer_bytes(r, n), NULL);
}

/* ---- the iteration ------------------------------------------------------- */

static double hbm_Bps(const struct srv_replica *r)
{
	return r->gpu.hbm_GBps * 1e9 * r->cal.serve_hbm_eta;
}

static double dmax(double a, double b) { return a > b ? a : b; }

/* One GEMM, or `count` identical ones in one grouped kernel, with m rows
 * each.  Why the tile: tensor-core GEMM kernels compute whole M tiles
 * (Hopper wgmma m64, Blackwell tcgen05 m128, Ampere mma.sync m16), so a
 * GEMM of m < tile rows costs a tile's FLOPs; its weights, read once,
 * make it memory-bound far below the roofline's ridge.  The N and K
 * factors are the training curve's (gpu_gemm_eta) with the M factor
 * replaced by the padding. */
static void gemm(const struct srv_replica *r, enum gpu_dtype dt, double wbytes, double m,
		 double n, double k, double count, struct srv_iter_parts *p)
{
	double tile = r->cal.serve_gemm_m_tile > 0 ? r->cal.serve_gemm_m_tile : 1;
	double mp = ceil(m / tile) * tile;
	double eta = gpu_gemm_eta(&r->cal, dt, 1e300, n, k);
	double peak = gpu_peak_flops(&r->gpu, dt);
	double tc, tm;

	if (m <= 0 || n <= 0 || k <= 0 || count <= 0)
		return;
	/* weights narrower than the tensor-core format (MXFP4, AWQ, FP8 on
	 * Ampere) run a weight-only kernel that dequantises each weight tile
	 * in registers (Marlin, triton_kernels matmul_ogs): slower when
	 * compute-bound, as fast on the narrow weights when HBM-bound */
	if (wbytes < gpu_dtype_bytes(dt))
		eta *= r->cal.serve_weight_only_compute_eta;
	tc = (peak > 0 && eta > 0) ? 2.0 * count * mp * n * k / (peak * eta) : 0;
	tm = (count * (n * k * wbytes + m * k * r->act_bytes + m * n * 2.0)) / hbm_Bps(r);
	if (tm >= tc) {
		p->gemm_s += tm;
		p->weight_read_s += count * n * k * wbytes / hbm_Bps(r);
	} else {
		p->gemm_s += tc;
	}
	p->overhead_s += r->cal.serve_kernel_overhead_s;
}

/* Attention of one layer.  Why these FLOPs and bytes: scores and values
 * are 2 x 2 x head_dim FLOPs per query-key pair and head (MODEL-NOTES);
 * prefill attends causally over the chunk and its cached prefix, reading
 * the prefix from the cache and writing the chunk's K and V; decode reads
 * each sequence's whole cache once per step for all its query tokens (the
 * draft tokens of speculative decoding share the read).  Absorbed MLA
 * decode (DeepSeek-V2 section 2.1.4, FlashMLA) scores against the latent
 * and rotary key (kv_lora + rope) and sums values in the latent (kv_lora)
 * for every head; prefill decompresses K and V per head (d_qk, d_v). */
static void attention(const struct srv_replica *r, const struct srv_batch *b, bool windowed,
		      double q_per_seq, double n_layers, struct srv_iter_parts *p)
{
	const struct model_arch *m = &r->arch.m;
	double a_l = (double)m->heads / r->attn_tp;
	double kvb = kv_per_layer_local(m, r->attn_tp, r->kv_elem_bytes);
	double dqk, dv, dec_flops_per_key;
	double pairs = windowed ? b->prefill_pairs_win : b->prefill_pairs;
	double ctx = windowed ? b->decode_ctx_win : b->decode_ctx;
	double peak = gpu_peak_flops(&r->gpu, GPU_DTYPE_BF16) * r->cal.attn_eta;
	double t = 0, kernels = 0;

	if (n_layers <= 0)
		return;
	if (model_is_mla(m)) {
		dqk = m->qk_rope_head_dim + m->qk_nope_head_dim;
		dv = m->v_head_dim;
		dec_flops_per_key = 2.0 * a_l * (2.0 * m->kv_lora_rank + m->qk_rope_head_dim);
	} else {
		dqk = model_head_dim(m);
		dv = dqk;
		dec_flops_per_key = 2.0 * a_l * (dqk + dv);
	}
	if (b->prefill_tokens > 0) {
		double flops = 2.0 * a_l * (dqk + dv) * pairs;
		double bytes = 2.0 * b->prefill_tokens * a_l * (dqk + dv) +
			       (2.0 * b->prefill_tokens + b->prefill_ctx) * kvb;
		/* a short prompt fills few key tiles per query block: the
		 * kernel's rate falls with the mean keys per query k as
		 * k / (k + serve_prefill_attn_half_keys) */
		double keys = pairs / b->prefill_tokens, half = r->cal.serve_prefill_attn_half_keys;
		double len_eff = half > 0 ? keys / (keys + half) : 1.0;

		t += dmax(flops / (peak * (len_eff > 1e-3 ? len_eff : 1e-3)), bytes / hbm_Bps(r));
		kernels++;
	}
	if (b->decode_seqs > 0) {
		double flops = dec_flops_per_key * ctx * q_per_seq;
		double bytes = ctx * kvb * r->kv_read_amp + 2.0 * b->decode_seqs * q_per_seq * a_l * (dqk + dv);

		t += dmax(flops / peak, bytes / hbm_Bps(r));
		kernels++;
	}
	p->attention_s += n_layers * t;
	p->overhead_s += n_layers * kernels * r->cal.serve_kernel_overhead_s;
}

/* Expected distinct experts, of E, that T tokens choosing k each reach:
 * E (1 - (1 - k/E)^T) under uniform routing. */
static double experts_touched(double E, double k, double T)
{
	if (E <= 0 || k <= 0 || T <= 0)
		return 0;
	if (k >= E)
		return E;
	return E * (1.0 - pow(1.0 - k / E, T));
}

/* With attention DP every rank runs attention on its share of the batch
 * (the engines balance sequences over the ranks: SGLang's DP controller,
 * TensorRT-LLM's attention-DP scheduler); the iteration takes the time of
 * a rank with the mean share. */
static struct srv_batch rank_share(const struct srv_batch *b, int adp)
{
	struct srv_batch s = *b;

	if (adp > 1) {
		s.prefill_tokens /= adp;
		s.prefill_pairs /= adp;
		s.prefill_pairs_win /= adp;
		s.prefill_ctx /= adp;
		s.decode_seqs /= adp;
		s.decode_ctx /= adp;
		s.decode_ctx_win /= adp;
		s.sampled /= adp;
		s.finish_keys /= adp;
		s.finish_keys_win /= adp;
	}
	return s;
}

/* n_layers decoder layers of one kind (op list l; la: the same layer at the
 * attention TP size) for T tokens, of which n_win use the sliding window.
 * With attention DP the attention GEMMs of la run on a rank's T / adp
 * tokens, the MLP's of l on all T, gathered over the TP group before it
 * and reduce-scattered back after it (SGLang's DP-attention gather and
 * scatter around the MoE; one all-reduce over the attention rank after
 * its output projection when tp / adp > 1). */
static void layers(const struct srv_replica *r, const struct tf_layer *l, const struct tf_layer *la,
		   bool moe, double T, const struct srv_batch *b, double q_per_seq, double n_layers,
		   double n_win, struct srv_iter_parts *p)
{
	const struct model_arch *m = &r->arch.m;
	struct srv_iter_parts one;
	struct srv_batch rb = rank_share(b, r->adp);
	double mem_bytes = 0, mem_kernels = 0;

	if (n_layers <= 0 || T <= 0)
		return;
	memset(&one, 0, sizeof(one));
	if (r->adp > 1) {
		for (int i = 0; i < la->n_gemms; i++) {
			const struct tf_gemm *g = &la->gemm[i];
			enum gpu_dtype dt = g->keep_bf16 ? GPU_DTYPE_BF16 : r->gemm_dtype;

			if (g->attention)
				gemm(r, dt, g->keep_bf16 ? 2.0 : r->weight_bytes_per_param, g->m * T / r->adp,
				     g->n, g->k, g->count, &one);
		}
	}
	for (int i = 0; i < l->n_gemms; i++) {
		const struct tf_gemm *g = &l->gemm[i];
		enum gpu_dtype dt = g->keep_bf16 ? GPU_DTYPE_BF16 : r->gemm_dtype;
		double wb = g->keep_bf16 ? 2.0 : r->weight_bytes_per_param;

		if (r->adp > 1 && g->attention)
			continue;

		if (moe && g->expert) {
			/* rows per token on this GPU, spread over the local
			 * experts the iteration's tokens reach; with ep > 1 the
			 * busiest rank waits for moe_router_imbalance x the mean */
			double rows = g->m * g->count * T;
			double touched = experts_touched(m->experts, m->top_k, T) * g->count / m->experts;
			double imb = r->lay.ep > 1 && r->cal.moe_router_imbalance > 1.0
				     ? r->cal.moe_router_imbalance : 1.0;

			if (touched < 1e-9)
				continue;
			gemm(r, dt, r->expert_weight_bytes_per_param, rows * imb / touched, g->n, g->k,
			     touched, &one);
			continue;
		}
		gemm(r, dt, wb, g->m * T, g->n, g->k, g->count, &one);
	}
	for (int i = 0; i < l->n_memops; i++) {
		mem_bytes += l->memop[i].bytes * T;
		mem_kernels += l->memop[i].kernels;
	}
	one.memory_s += mem_bytes / hbm_Bps(r);
	one.overhead_s += mem_kernels * r->cal.serve_kernel_overhead_s;
	if (r->adp > 1) {
		if (r->attn_tp > 1)
			one.comm_s += coll_time(&r->cal, &r->attn_span, COLL_ALL_REDUCE,
						2.0 * T / r->adp * m->hidden, NULL);
		one.comm_s += coll_time(&r->cal, &r->tp_span, COLL_ALL_GATHER, 2.0 * T * m->hidden, NULL) +
			      coll_time(&r->cal, &r->tp_span, COLL_REDUCE_SCATTER, 2.0 * T * m->hidden, NULL);
	} else if (r->allreduces_per_layer > 0) {
		one.comm_s += r->allreduces_per_layer *
			      coll_time(&r->cal, &r->tp_span, COLL_ALL_REDUCE, 2.0 * T * m->hidden, NULL);
	}
	p->gemm_s += n_layers * one.gemm_s;
	p->weight_read_s += n_layers * one.weight_read_s;
	p->memory_s += n_layers * one.memory_s;
	p->comm_s += n_layers * one.comm_s;
	p->overhead_s += n_layers * one.overhead_s;
	attention(r, &rb, false, q_per_seq, n_layers - n_win, p);
	attention(r, &rb, true, q_per_seq, n_win, p);
}

/* Final norm, output projection of the sampled tokens (BF16), the logits
 * gathered over TP (vLLM and TensorRT-LLM gather the vocab-parallel logits
 * before sampling) and the sampling pass (read BF16 logits, write and read
 * FP32 probabilities, as the training loss counts). */
static void head(const struct srv_replica *r, double sampled, struct srv_iter_parts *p)
{
	const struct model_arch *m = &r->arch.m;
	double vl = (double)m->vocab / r->lay.tp;

	if (sampled <= 0)
		return;
	gemm(r, GPU_DTYPE_BF16, 2.0, sampled, vl, m->hidden, 1, p);
	p->memory_s += (4.0 * sampled * m->hidden + 10.0 * sampled * vl) / hbm_Bps(r);
	p->overhead_s += 4.0 * r->cal.serve_kernel_overhead_s;
	if (r->lay.tp > 1)
		p->comm_s += coll_time(&r->cal, &r->tp_span, COLL_ALL_GATHER,
				       2.0 * sampled * m->vocab, NULL);
}

double srv_iteration_time(const struct srv_replica *r, const struct srv_batch *b,
			  struct srv_iter_parts *parts)
{
	const struct model_arch *m = &r->arch.m;
	struct srv_iter_parts p;
	double q = 1.0 + (r->spec.draft_tokens > 0 ? r->spec.draft_tokens : 0);
	double T = b->prefill_tokens + b->decode_seqs * q;

	memset(&p, 0, sizeof(p));
	if (T > 0) {
		/* embedding lookup and its TP all-reduce (vocab-parallel) */
		for (int i = 0; i < r->ops.embed.n_memops; i++)
			p.memory_s += r->ops.embed.memop[i].bytes * T / hbm_Bps(r);
		if (r->lay.tp > 1)
			p.comm_s += coll_time(&r->cal, &r->tp_span, COLL_ALL_REDUCE,
					      2.0 * T * m->hidden, NULL);
		layers(r, &r->ops.dense, &r->ops_attn.dense, false, T, b, q, r->dense_layers,
		       r->window_dense, &p);
		layers(r, &r->ops.moe, &r->ops_attn.moe, true, T, b, q, r->moe_layers, r->window_moe, &p);
		head(r, b->sampled, &p);
		if (r->lay.pp > 1)
			p.comm_s += (r->lay.pp - 1) *
				    coll_time(&r->cal, &r->pp_span, COLL_SEND_RECV, 2.0 * T * m->hidden, NULL);
		/* speculative decoding: each draft token runs a one-layer draft
		 * head (EAGLE, DeepSeek MTP) and its output projection over the
		 * decoding sequences */
		if (r->spec.draft_tokens > 0 && b->decode_seqs > 0) {
			struct srv_batch db = *b;
			bool moe = r->dense_layers == 0;

			db.prefill_tokens = db.prefill_pairs = db.prefill_pairs_win = db.prefill_ctx = 0;
			for (int i = 0; i < r->spec.draft_tokens; i++) {
				layers(r, moe ? &r->ops.moe : &r->ops.dense,
				       moe ? &r->ops_attn.moe : &r->ops_attn.dense, moe, b->decode_seqs, &db,
				       1.0, 1, 0, &p);
				head(r, b->decode_seqs, &p);
			}
		}
		/* the engine's host work: once per iteration, and per
		 * sequence that samples a token */
		p.overhead_s += r->cal.serve_iteration_overhead_s +
				r->cal.serve_seq_overhead_s * b->sampled;
	}
	p.total_s = p.gemm_s + p.attention_s + p.memory_s + p.comm_s + p.overhead_s;
	if (parts)
		*parts = p;
	return p.total_s;
}

void srv_split_context_pass(const struct srv_batch *b, struct srv_batch *ctx, struct srv_batch *dec)
{
	double n_new = b->sampled - b->decode_seqs;

	if (n_new < 0)
		n_new = 0;
	memset(ctx, 0, sizeof(*ctx));
	memset(dec, 0, sizeof(*dec));
	/* the context pass: each prompt's chunk but its last token, whose
	 * query-key pairs (it attends to p + c keys) leave with it */
	ctx->prefill_tokens = b->prefill_tokens - n_new;
	ctx->prefill_pairs = b->prefill_pairs - b->finish_keys;
	ctx->prefill_pairs_win = b->prefill_pairs_win - b->finish_keys_win;
	ctx->prefill_ctx = b->prefill_ctx;
	/* the decode pass: the running sequences and the last tokens */
	dec->decode_seqs = b->decode_seqs + n_new;
	dec->decode_ctx = b->decode_ctx + b->finish_keys;
	dec->decode_ctx_win = b->decode_ctx_win + b->finish_keys_win;
	dec->sampled = b->sampled;
}

double srv_context_pass_time(const struct srv_replica *r, const struct srv_batch *b)
{
	struct srv_batch ctx, dec;

	srv_split_context_pass(b, &ctx, &dec);
	return (ctx.prefill_tokens > 0 ? srv_iteration_time(r, &ctx, NULL) : 0) +
	       (dec.decode_seqs > 0 ? srv_iteration_time(r, &dec, NULL) : 0);
}
