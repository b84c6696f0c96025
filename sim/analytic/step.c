/* step.c: the analytical step-time engine (see step.h and DESIGN.md, "The
 * step, analytically").
 *
 * Order of work: validate the layout; build the op list of one layer of each
 * kind for one micro-batch on one GPU (models/transformer); time each kind's
 * forward, backward and recompute on the roofline (models/gpu) and its
 * TP/CP/EP communication on the tier its group spans (models/network,
 * models/collective) with the overlap rules below; add up each pipeline
 * stage's layers; run the pipeline schedule (models/schedule); place the DP /
 * FSDP collectives and the optimizer step; take memory from models/memory.
 * Nothing allocates; the cost is a few hundred roofline evaluations and a
 * loop over pipeline stages x virtual chunks.
 *
 * Overlap rule, used for every overlappable communication c with a window w
 * of computation it can hide under and a calibrated fraction f:
 *   hidden = min(f * c, w),  exposed = c - hidden,
 * and the computation runs slower by comm_interference * hidden while the
 * hidden communication shares SMs and HBM with it.
 */
#include "step.h"
#include "goodput.h"

#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include "../../models/collective.h"
#include "../../models/gpu.h"
#include "../../models/layout.h"
#include "../../models/memory.h"
#include "../../models/moe_dispatch.h"
#include "../../models/network.h"
#include "../../models/schedule.h"
#include "../../models/transformer.h"

/* ---- names ------------------------------------------------------------------ */

static const char *const step_part_names[] = SC_ENUM_NAMES(STEP_PART_LIST);
static const char *const mem_part_names[] = SC_ENUM_NAMES(MEM_PART_LIST);
static const char *const bottleneck_names[] = SC_ENUM_NAMES(BOTTLENECK_LIST);

const char *step_part_name(enum step_part p) { return SC_NAME_OF(step_part_names, p); }
const char *mem_part_name(enum mem_part p) { return SC_NAME_OF(mem_part_names, p); }
const char *bottleneck_name(enum bottleneck b) { return SC_NAME_OF(bottleneck_names, b); }

enum step_part step_part_of_collective(const char *what)
{
	/* the groups add_coll() names below: "etp" is timed inside tp_comm */
	if (strcmp(what, "tp") == 0 || strcmp(what, "etp") == 0)
		return PART_TP_COMM;
	if (strcmp(what, "cp") == 0)
		return PART_CP_COMM;
	if (strcmp(what, "ep") == 0)
		return PART_EP_COMM;
	if (strcmp(what, "pp") == 0)
		return PART_PP_COMM;
	return PART_DP_COMM; /* dp, fsdp and their second collectives */
}

/* ---- validation ------------------------------------------------------------- */

/* What the engine divides by beyond the layout (the GPU's peaks, the
 * model's widths), then the layout's rules (models/layout, their one
 * owner), deriving li. */
static enum sc_status validate(const struct scenario *sc, struct layout_info *li,
			       struct sc_error *err)
{
	const struct model_arch *m = &sc->model;
	const struct cluster *c = &sc->cluster;

	if (!(c->gpu.peak_bf16_flops > 0 || c->gpu.peak_fp16_flops > 0))
		return sc_error_set(err, SC_EINVAL, NULL, "/cluster/gpu/peak_bf16_flops",
				    "gpu \"%s\" has no positive bf16 peak", c->gpu.name);
	if (!(c->gpu.hbm_GBps > 0) || !(c->gpu.nvlink_GBps > 0))
		return sc_error_set(err, SC_EINVAL, NULL, "/cluster/gpu",
				    "gpu \"%s\" needs positive hbm_GBps and nvlink_GBps",
				    c->gpu.name);
	if (sc->layout.moe_dispatcher == MOE_DISPATCH_EFA_GDA &&
	    !net_efa_gda_capable(&c->instance))
		return sc_error_set(err, SC_EINVAL, NULL, "/layout/moe_dispatcher",
				    "efa-gda needs an instance whose EFA has the hardware completion counter "
				    "(aws-ofi-nccl efa_hw_comp_cntr: p5en, p6-b200, p6-b300); %s has none",
				    c->instance.name);
	if (m->layers < 1 || m->hidden < 1 || m->heads < 1 || m->vocab < 1)
		return sc_error_set(err, SC_EINVAL, NULL, "/model",
				    "model \"%s\" needs positive layers, hidden, heads and vocab",
				    m->name);
	return layout_derive(sc, NULL, li, err);
}

/* ---- per-kind timing ---------------------------------------------------------- */

struct ctx {
	const struct scenario *sc;
	const struct gpu_spec *gpu;
	const struct calibration *cal;
	enum gpu_dtype dtype;
	bool sp;                   /* sequence parallel in effect (tp > 1) */
	struct net_span tp, etp, cp, ep, pp;
	double imbalance;
};

/* The scenario's dispatcher as a models/moe_dispatch backend, the one owner
 * of every backend's volume rule (alltoall: top_k copies; flex: one copy
 * per remote NVLink domain over EFA, per GPU over NVLink). */
enum moe_backend ep_backend_of(enum sc_moe_dispatcher d)
{
	switch (d) {
	case MOE_DISPATCH_ALLTOALL: return MOE_BACKEND_ALLTOALL;
	case MOE_DISPATCH_FLEX: return MOE_BACKEND_FLEX;
	case MOE_DISPATCH_UCCL_EP: return MOE_BACKEND_UCCL_EP;
	case MOE_DISPATCH_PPLX_GARDEN: return MOE_BACKEND_PPLX_GARDEN;
	case MOE_DISPATCH_ALLGATHER: return MOE_BACKEND_ALLGATHER;
	case MOE_DISPATCH_EFA_GDA: return MOE_BACKEND_EFA_GDA;
	}
	return MOE_BACKEND_ALLTOALL;
}

static double ep_a2a(const struct ctx *x, double bytes, struct coll_choice *out)
{
	/* bytes is top_k copies of the rank's tokens; the backend's own rule
	 * (models/moe_dispatch.h) gets them as one "token" of bytes / k */
	int k = x->sc->model.top_k > 0 ? x->sc->model.top_k : 1;
	struct moe_call mc;
	double t = moe_dispatch_time(x->cal, &x->ep, ep_backend_of(x->sc->layout.moe_dispatcher), 1.0,
				     bytes / k, k, false, &mc);

	if (out)
		*out = mc.choice;
	return t;
}

/* TP-style communication of one layer (f and g operators), one direction.
 * With SP: forward f = all-gather, g = reduce-scatter; backward f =
 * reduce-scatter plus the re-all-gather of the saved SP-sharded input for
 * the weight gradient (Megatron-LM), g = all-gather.  Without SP: forward
 * g = all-reduce, backward f = all-reduce. */
static void tp_comm(const struct ctx *x, const struct net_span *grp, int f,
		    int g, double bytes, double *fwd, double *bwd)
{
	*fwd = 0;
	*bwd = 0;
	if (grp->ranks <= 1 || (f == 0 && g == 0))
		return;
	if (x->sp) {
		double ag = coll_time(x->cal, grp, COLL_ALL_GATHER, bytes, NULL);
		double rs = coll_time(x->cal, grp, COLL_REDUCE_SCATTER, bytes, NULL);

		*fwd = f * ag + g * rs;
		*bwd = f * (rs + ag) + g * ag;
	} else {
		double ar = coll_time(x->cal, grp, COLL_ALL_REDUCE, bytes, NULL);

		*fwd = g * ar;
		*bwd = f * ar;
	}
}

/* One layer kind's work before overlap: compute (forward, backward, the
 * attention kernels apart for CP's window) and communication per
 * direction. */
struct kind_work {
	struct gpu_time fwd, bwd, attn, attn_b;
	double gemm_f, gemm_b;
	double tp_f, tp_b, etp_f, etp_b, ep_f, ep_b, cp_f, cp_b;
};

/* The GEMMs forward and backward (data and weight gradients). */
/* A full-iteration CUDA graph (Megatron-Bridge recipes' cuda_graph_impl
 * "full_iteration") replays the step's kernels without the host launch path
 * (PyTorch dispatch, Python, the driver's launch): each kernel costs
 * graph_kernel_overhead_s instead of the eager kernel_overhead_s.  Every
 * launch term is kernels x kernel_overhead_s (models/gpu.c), so a kernel
 * time's launch part is rescaled where it is computed, before it enters
 * any sum (the layer's forward and backward, the weight-gradient pass the
 * zero-bubble schedules split off, the GEMM window TP overlap hides under). */
static void graph_launches(const struct ctx *x, struct gpu_time *t)
{
	if (x->sc->training.cuda_graphs != CUDA_GRAPHS_FULL_ITERATION || !(x->cal->kernel_overhead_s > 0))
		return;
	t->launch_s *= x->cal->graph_kernel_overhead_s / x->cal->kernel_overhead_s;
}

static void kind_gemms(const struct ctx *x, const struct tf_layer *L, struct kind_work *w,
		       struct step_kind_time *kt)
{
	const struct calibration *cal = x->cal;

	for (int i = 0; i < L->n_gemms; i++) {
		const struct tf_gemm *g = &L->gemm[i];
		enum gpu_dtype dt = g->keep_bf16 ? GPU_DTYPE_BF16 : x->dtype;
		/* dropless routing: the busiest expert rank gets imbalance x the
		 * mean rows and everyone waits for it at the combine */
		double mm = g->expert ? g->m * x->imbalance : g->m;
		struct gpu_time f1 = { 0, 0, 0 }, b1 = { 0, 0, 0 }, w1 = { 0, 0, 0 };

		gpu_gemm_time(x->gpu, cal, dt, mm, g->n, g->k, g->count, &f1);
		/* backward: data gradient dX[m,k] = dY[m,n] W^T and weight
		 * gradient dW[k,n] = X^T dY, each as many FLOPs as the forward */
		gpu_gemm_time(x->gpu, cal, dt, mm, g->k, g->n, g->count, &b1);
		gpu_gemm_time(x->gpu, cal, dt, g->k, g->n, mm, g->count, &w1);
		graph_launches(x, &f1);
		graph_launches(x, &b1);
		graph_launches(x, &w1);
		gpu_time_add(&b1, &w1, 1.0);
		/* the weight-gradient GEMM alone: the W pass zero-bubble
		 * schedules postpone (Qi et al. 2023) */
		kt->wgrad_s += gpu_time_total(&w1);
		gpu_time_add(&w->fwd, &f1, 1.0);
		gpu_time_add(&w->bwd, &b1, 1.0);
		w->gemm_f += gpu_time_total(&f1);
		w->gemm_b += gpu_time_total(&b1);
	}
}

/* The attention core, and the element-wise kernels by their bytes. */
static void kind_attention_memops(const struct ctx *x, const struct tf_layer *L, struct kind_work *w)
{
	const struct calibration *cal = x->cal;
	double mem_bytes = 0, mem_kernels = 0;

	if (L->attn_flops > 0) {
		/* flash-attention backward recomputes the scores and does five
		 * matmuls to the forward's two (Dao 2023, FlashAttention-2,
		 * section 3.2): attn_bwd_flops_ratio x the forward's work */
		/* the fused kernels (cuDNN, FlashAttention-3 class) lose with a
		 * small head dimension (gpu_attention_head_factor); the portable
		 * mma.sync kernels are flatter (FlashAttention-2 on H100 about
		 * 0.88 at head dimension 64 of its rate at 128, Shah et al. 2024
		 * fig. 5) and keep their one fitted efficiency */
		double eta = x->sc->training.attention_kernel == ATTN_KERNEL_PORTABLE
				     ? cal->attn_eta_portable
				     : cal->attn_eta * gpu_attention_head_factor(cal, L->attn_head_dim);

		gpu_attention_time(x->gpu, cal, eta, L->attn_flops, L->attn_bytes, &w->attn);
		gpu_attention_time(x->gpu, cal, eta, L->attn_flops * cal->attn_bwd_flops_ratio,
				   2.0 * L->attn_bytes, &w->attn_b);
		graph_launches(x, &w->attn);
		graph_launches(x, &w->attn_b);
		gpu_time_add(&w->fwd, &w->attn, 1.0);
		gpu_time_add(&w->bwd, &w->attn_b, 1.0);
	}
	for (int i = 0; i < L->n_memops; i++) {
		mem_bytes += L->memop[i].bytes;
		mem_kernels += L->memop[i].kernels;
	}
	/* element-wise backward reads the saved input and the incoming
	 * gradient and writes the outgoing one: about twice the forward bytes */
	{
		struct gpu_time mf = { 0, 0, 0 }, mb = { 0, 0, 0 };

		gpu_memory_time(x->gpu, cal, mem_bytes, mem_kernels, &mf);
		gpu_memory_time(x->gpu, cal, 2.0 * mem_bytes, 2.0 * mem_kernels, &mb);
		graph_launches(x, &mf);
		graph_launches(x, &mb);
		gpu_time_add(&w->fwd, &mf, 1.0);
		gpu_time_add(&w->bwd, &mb, 1.0);
	}
}

/* TP (with expert TP), EP and CP communication before overlap. */
static void kind_comm(const struct ctx *x, const struct tf_layer *L, bool has_layer_attention,
		      struct kind_work *w, struct step_kind_time *kt)
{
	tp_comm(x, &x->tp, L->tp_f, L->tp_g, L->tp_bytes, &w->tp_f, &w->tp_b);
	tp_comm(x, &x->etp, L->etp_f, L->etp_g, L->etp_bytes, &w->etp_f, &w->etp_b);
	kt->etp_s = w->etp_f + w->etp_b;
	w->tp_f += w->etp_f;
	w->tp_b += w->etp_b;
	if (L->ep_calls > 0 && x->ep.ranks > 1) {
		double a2a = ep_a2a(x, L->ep_bytes * x->imbalance, NULL);

		w->ep_f = L->ep_calls * a2a;
		w->ep_b = L->ep_calls * a2a;
	}
	if (has_layer_attention && x->cp.ranks > 1 && L->cp_kv_bytes > 0) {
		/* ring attention: cp - 1 steps each passing one K,V chunk;
		 * backward passes K,V and their gradients (Megatron-LM CP) */
		struct net_span ring = x->cp;
		double step;

		ring.ranks = 2;
		step = coll_time(x->cal, &ring, COLL_SEND_RECV, L->cp_kv_bytes, NULL);
		w->cp_f = (x->cp.ranks - 1) * step;
		w->cp_b = 2.0 * (x->cp.ranks - 1) * step;
	}
}

/* What recomputation adds to the backward. */
static void kind_recompute(const struct ctx *x, const struct tf_layer *L, struct kind_work *w)
{
	enum sc_recompute rc = x->sc->training.recompute;

	/* recompute: full re-runs the whole forward (and its communication)
	 * before the backward; selective re-runs the attention core
	 * (Korthikanti et al. 2022, section 5) */
	if (mem_full_recompute_share(&x->sc->training) > 0) {
		double f = mem_full_recompute_share(&x->sc->training);

		gpu_time_add(&w->bwd, &w->fwd, f);
		w->gemm_b += f * w->gemm_f;
		w->tp_b += f * w->tp_f;
		w->ep_b += f * w->ep_f;
		w->cp_b += f * w->cp_f;
	} else if (rc == RECOMPUTE_SELECTIVE && L->attn_flops > 0) {
		gpu_time_add(&w->bwd, &w->attn, 1.0);
		w->cp_b += w->cp_f;
	}
}

/* The hidden parts of TP, CP and EP communication, the interference of
 * what is hidden, and the kind's total. */
static void kind_overlap(const struct ctx *x, const struct kind_work *w, struct step_kind_time *kt)
{
	const struct calibration *cal = x->cal;
	const struct layout *lay = &x->sc->layout;
	double hid_f, hid_b;

	/* TP: hidden under the GEMMs by userbuffer comm-GEMM overlap only
	 * when the layout enables it (Transformer Engine tp_comm_overlap) */
	hid_f = hid_b = 0;
	{
		double h_f = lay->tp_comm_overlap ? layout_hidden_s(cal->tp_overlap, w->tp_f, w->gemm_f) : 0;
		double h_b = lay->tp_comm_overlap ? layout_hidden_s(cal->tp_overlap, w->tp_b, w->gemm_b) : 0;

		kt->tp_exp_s = kt->tp_s - h_f - h_b;
		kt->tp_hid_dir_s[0] = h_f;
		kt->tp_hid_dir_s[1] = h_b;
		hid_f += h_f;
		hid_b += h_b;
	}
	/* CP: the ring exchange always runs under the attention kernels */
	{
		double af = gpu_time_total(&w->attn), ab = gpu_time_total(&w->attn_b);
		double h_f = layout_hidden_s(cal->cp_overlap, w->cp_f, af);
		double h_b = layout_hidden_s(cal->cp_overlap, w->cp_b, ab);

		kt->cp_exp_s = kt->cp_s - h_f - h_b;
		kt->cp_win_dir_s[0] = af;
		kt->cp_win_dir_s[1] = ab;
		hid_f += h_f;
		hid_b += h_b;
	}
	/* EP: dispatch/combine hidden only with the layout's overlap flag
	 * (e.g. Megatron's MoE a2a overlap, DeepEP), under the rest of the
	 * layer's compute */
	{
		double h_f = lay->ep_comm_overlap ? layout_hidden_s(cal->ep_overlap, w->ep_f, kt->fwd_s - hid_f) : 0;
		double h_b = lay->ep_comm_overlap ? layout_hidden_s(cal->ep_overlap, w->ep_b, kt->bwd_s - hid_b) : 0;

		kt->ep_exp_s = kt->ep_s - h_f - h_b;
		hid_f += h_f;
		hid_b += h_b;
	}
	kt->interference_s = cal->comm_interference * (hid_f + hid_b);
	kt->total_s = gpu_time_total(&kt->compute) + kt->tp_exp_s + kt->cp_exp_s +
		      kt->ep_exp_s + kt->interference_s;
}

static void time_kind(const struct ctx *x, const struct tf_layer *L,
		      bool has_layer_attention, struct step_kind_time *kt)
{
	struct kind_work w;

	memset(kt, 0, sizeof(*kt));
	memset(&w, 0, sizeof(w));
	kind_gemms(x, L, &w, kt);
	kind_attention_memops(x, L, &w);
	kind_comm(x, L, has_layer_attention, &w, kt);
	kind_recompute(x, L, &w);
	kt->compute = w.fwd;
	gpu_time_add(&kt->compute, &w.bwd, 1.0);
	kt->fwd_s = gpu_time_total(&w.fwd);
	kt->bwd_s = gpu_time_total(&w.bwd);
	kt->tp_s = w.tp_f + w.tp_b;
	kt->cp_s = w.cp_f + w.cp_b;
	kt->ep_s = w.ep_f + w.ep_b;
	kt->tp_dir_s[0] = w.tp_f;
	kt->tp_dir_s[1] = w.tp_b;
	kt->cp_dir_s[0] = w.cp_f;
	kt->cp_dir_s[1] = w.cp_b;
	kt->ep_dir_s[0] = w.ep_f;
	kt->ep_dir_s[1] = w.ep_b;
	kind_overlap(x, &w, kt);
}


static void kind_add(struct step_kind_time *acc, const struct step_kind_time *k, double n)
{
	if (n == 0)
		return;
	gpu_time_add(&acc->compute, &k->compute, n);
	acc->fwd_s += n * k->fwd_s;
	acc->bwd_s += n * k->bwd_s;
	acc->wgrad_s += n * k->wgrad_s;
	acc->tp_s += n * k->tp_s;
	acc->cp_s += n * k->cp_s;
	acc->ep_s += n * k->ep_s;
	acc->etp_s += n * k->etp_s;
	acc->tp_exp_s += n * k->tp_exp_s;
	acc->cp_exp_s += n * k->cp_exp_s;
	acc->ep_exp_s += n * k->ep_exp_s;
	acc->interference_s += n * k->interference_s;
	acc->total_s += n * k->total_s;
	for (int d = 0; d < 2; d++) {
		acc->tp_dir_s[d] += n * k->tp_dir_s[d];
		acc->tp_hid_dir_s[d] += n * k->tp_hid_dir_s[d];
		acc->cp_dir_s[d] += n * k->cp_dir_s[d];
		acc->cp_win_dir_s[d] += n * k->cp_win_dir_s[d];
		acc->ep_dir_s[d] += n * k->ep_dir_s[d];
	}
}

/* ---- collectives list ---------------------------------------------------------- */

/* Record one collective of the step as chosen (ch): algorithm and per-call
 * time on `bytes`, and total_s, the step's time in this group's
 * communication before overlap. */
static void record_coll(struct step_result *out, const char *what, enum coll_op op,
			const struct net_span *s, double bytes, const struct coll_choice *ch,
			double total_s)
{
	struct step_collective *c;

	if (s->ranks <= 1 || bytes <= 0 || out->n_collectives >= SC_STEP_MAX_COLLECTIVES)
		return;
	c = &out->collectives[out->n_collectives++];
	c->what = what;
	c->op = op;
	memcpy(c->algorithm, ch->algorithm, SC_ALGO_NAME_MAX < COLL_NAME_MAX
	       ? SC_ALGO_NAME_MAX : COLL_NAME_MAX);
	c->algorithm[SC_ALGO_NAME_MAX - 1] = '\0';
	c->tier = ch->tier;
	c->ranks = s->ranks;
	c->bytes = bytes;
	c->time_s = ch->time_s;
	c->total_time_s = total_s;
}

static void add_coll(struct step_result *out, const char *what,
		     const struct calibration *cal, const struct net_span *s,
		     enum coll_op op, double bytes, double total_s)
{
	struct coll_choice ch;

	if (s->ranks <= 1 || bytes <= 0)
		return;
	coll_time(cal, s, op, bytes, &ch);
	record_coll(out, what, op, s, bytes, &ch, total_s);
}

/* ---- DP / FSDP --------------------------------------------------------------------- */

/* Time of a bucketed collective over `params` parameters of `bpp` bytes each:
 * full buckets plus the remainder; *one_s is the time of one bucket (the
 * tail that cannot hide, at least). */
static double bucketed(const struct calibration *cal, const struct net_span *s,
		       enum coll_op op, double params, double bpp, double *one_s)
{
	double bk = cal->dp_bucket_params;
	double full, rest, t_full, t;

	*one_s = 0;
	if (s->ranks <= 1 || params <= 0)
		return 0;
	if (bk <= 0 || bk > params)
		bk = params;
	full = floor(params / bk);
	rest = params - full * bk;
	t_full = coll_time(cal, s, op, bk * bpp, NULL);
	t = full * t_full + (rest > 0 ? coll_time(cal, s, op, rest * bpp, NULL) : 0);
	*one_s = t_full;
	return t;
}

struct dp_result {
	double exposed_s;
	double hidden_s;
	double exposed_nvlink_s, exposed_efa_s;
};

static void dp_group_cost(const struct ctx *x, const struct net_span *grp,
			  double params, int zero, int m, double fwd_window,
			  double bwd_window, double mb_window, struct dp_result *r)
{
	const struct calibration *cal = x->cal;
	double gb = x->sc->training.grad_fp32 ? 4.0 : 2.0;
	double exposed = 0, hidden = 0, one;

	if (grp->ranks <= 1 || params <= 0)
		return;
	if (zero >= 3) {
		/* FSDP / ZeRO-3: every micro-batch gathers the parameters for
		 * forward and again for backward and reduce-scatters the
		 * gradients; prefetching hides part under the micro-batch's
		 * compute (Zhao et al. 2023, PyTorch FSDP) */
		double ag = bucketed(cal, grp, COLL_ALL_GATHER, params, 2.0, &one);
		double rs = bucketed(cal, grp, COLL_REDUCE_SCATTER, params, gb, &one);
		double c = 2.0 * ag + rs;
		double h = layout_hidden_s(cal->fsdp_prefetch_overlap, c, mb_window);

		exposed = m * (c - h);
		hidden = m * h;
	} else {
		/* gradients: bucketed all-reduce (ZeRO-0) or reduce-scatter
		 * (distributed optimizer) during the last micro-batch's
		 * backward; the last bucket always shows (Megatron-LM
		 * overlap_grad_reduce; Li et al. 2020, PyTorch DDP) */
		enum coll_op gop = zero == 0 ? COLL_ALL_REDUCE : COLL_REDUCE_SCATTER;
		double g = bucketed(cal, grp, gop, params, gb, &one);
		double h = layout_hidden_s(cal->dp_overlap, g, bwd_window);

		if (h > g - one)
			h = g - one > 0 ? g - one : 0;
		exposed += g - h;
		hidden += h;
		if (zero >= 1) {
			/* updated parameters: all-gather, overlapped with the next
			 * step's first forward (Megatron overlap_param_gather) */
			double a = bucketed(cal, grp, COLL_ALL_GATHER, params, 2.0, &one);
			double ha = layout_hidden_s(cal->dp_overlap, a, fwd_window);

			if (ha > a - one)
				ha = a - one > 0 ? a - one : 0;
			exposed += a - ha;
			hidden += ha;
		}
	}
	r->exposed_s += exposed;
	r->hidden_s += hidden;
	if (grp->inter)
		r->exposed_efa_s += exposed;
	else
		r->exposed_nvlink_s += exposed;
}

/* ---- the step -------------------------------------------------------------------------- */

struct stage {
	int dense, moe;
	bool first, last;
	double time_s;
	struct step_kind_time kt;
	double params_dense, params_expert;
};

/* One layer's activations (models/memory); under layer-selective
 * checkpointing the mean layer: one in N keeps only its input, the others
 * everything (torchtitan activation_checkpoint.py, _apply_layer_sac: every
 * N-th block gets the checkpoint wrapper). */
static void layer_activations(const struct model_arch *m, struct mem_act_opts *ao,
			      const struct training *tr, bool moe, struct mem_act *out)
{
	double f = mem_full_recompute_share(tr);

	if (mem_layer_selective(tr)) {
		struct mem_act none, full;

		ao->recompute = RECOMPUTE_NONE;
		mem_layer_activations(m, ao, moe, &none);
		ao->recompute = RECOMPUTE_FULL;
		mem_layer_activations(m, ao, moe, &full);
		ao->recompute = tr->recompute;
		out->working_bytes = none.working_bytes;
		out->stored_bytes = f * full.stored_bytes + (1.0 - f) * none.stored_bytes;
		return;
	}
	mem_layer_activations(m, ao, moe, out);
}

/* The shape part of a step (see struct step_prep): the op list of one
 * micro-batch on one GPU, each layer kind's time, the model FLOPs and the
 * activations of one layer.  sc has passed validate(). */
static enum sc_status prepare(const struct scenario *sc, const struct layout_info *li,
			      struct step_prep *p, struct sc_error *err)
{
	const struct layout *lay = &sc->layout;
	const struct training *tr = &sc->training;
	const struct model_arch *m = &sc->model;
	const struct cluster *cl = &sc->cluster;
	const struct calibration *cal = &sc->calibration;
	struct ctx x;
	struct tf_shard sh;
	enum sc_status rc;
	int tp = li->tp, cp = li->cp;
	int ep = li->ep, etp = li->etp;

	p->tp = tp;
	p->cp = cp;
	p->ep = ep;
	p->etp = etp;
	p->seq_len = tr->seq_len;
	p->micro_batch_seqs = tr->micro_batch_seqs;
	p->precision = tr->precision;
	p->recompute = tr->recompute;
	p->recompute_layer_interval = tr->recompute_layer_interval;
	p->cuda_graphs = tr->cuda_graphs;
	p->sequence_parallel = lay->sequence_parallel;
	p->tp_comm_overlap = lay->tp_comm_overlap;
	p->ep_comm_overlap = lay->ep_comm_overlap;
	p->moe_dispatcher = lay->moe_dispatcher;
	p->moe_routing_imbalance = lay->moe_routing_imbalance;
	p->moe_capacity_factor = lay->moe_capacity_factor;
	memset(&x, 0, sizeof(x));
	x.sc = sc;
	x.gpu = &cl->gpu;
	x.cal = cal;
	rc = gpu_training_dtype(&cl->gpu, tr->precision, &x.dtype, err);
	if (rc != SC_OK)
		return rc;
	x.sp = lay->sequence_parallel && tp > 1;
	x.imbalance = model_is_moe(m) ? moe_routing_imbalance(lay, cal, m->top_k) : 1.0;

	/* Megatron rank order: TP innermost (stride 1), then CP (stride tp),
	 * then DP (stride tp*cp), then PP (stride tp*cp*dp); expert layers
	 * refold tp*cp*dp as etp (stride 1) x ep (stride etp) x edp */
	x.tp = layout_span(cl, li, LG_TP);
	x.etp = layout_span(cl, li, LG_ETP);
	x.cp = layout_span(cl, li, LG_CP);
	x.ep = layout_span(cl, li, LG_EP);

	/* op lists of one micro-batch on one GPU */
	sh.seq_len = tr->seq_len;
	sh.micro_batch = tr->micro_batch_seqs;
	sh.tp = tp;
	sh.cp = cp;
	sh.ep = ep;
	sh.etp = etp;
	sh.sp = x.sp;
	sh.low_precision = x.dtype != GPU_DTYPE_BF16;
	tf_build(m, &sh, &p->ops);
	time_kind(&x, &p->ops.dense, true, &p->k_dense);
	if (model_is_moe(m))
		time_kind(&x, &p->ops.moe, true, &p->k_moe);
	else
		memset(&p->k_moe, 0, sizeof(p->k_moe));
	time_kind(&x, &p->ops.embed, false, &p->k_embed);
	time_kind(&x, &p->ops.logits, false, &p->k_logits);
	time_kind(&x, &p->ops.mtp_extra, false, &p->k_mtp);
	tf_flops_per_token(m, tr->seq_len, true, &p->flops);
	{
		struct mem_act_opts ao;

		ao.seq_len = (double)tr->seq_len / cp;
		ao.micro_batch = tr->micro_batch_seqs;
		ao.tp = tp;
		ao.etp = etp;
		ao.sp = x.sp;
		ao.flash = tr->attention == ATTN_FLASH;
		ao.dropout = tr->dropout;
		ao.recompute = tr->recompute;
		ao.framework = tr->framework;
		ao.compile = tr->compile;
		ao.sac_attention_recomputed = tr->sac_attention_recomputed;
		ao.recompute_modules = tr->recompute_modules;
		ao.precision = tr->precision;
		ao.linear_input_bytes = mem_linear_input_bytes(tr->framework, tr->precision);
		ao.gated_input_bytes = tr->activation_input_fp8 ? MEM_FP8_TILE_BYTES : 2.0;
		layer_activations(m, &ao, tr, false, &p->act_dense);
		if (model_is_moe(m))
			layer_activations(m, &ao, tr, true, &p->act_moe);
		else
			p->act_moe = p->act_dense;
	}
	p->dtype = x.dtype;
	p->sp = x.sp;
	p->imbalance = x.imbalance;
	p->tp_span = x.tp;
	p->etp_span = x.etp;
	p->cp_span = x.cp;
	p->ep_span = x.ep;
	return SC_OK;
}

/* Does sc have the shape p was prepared for? */
static bool same_shape(const struct scenario *sc, const struct step_prep *p)
{
	const struct layout *l = &sc->layout;
	const struct training *t = &sc->training;

	return l->tp == p->tp && l->cp == p->cp && l->ep == p->ep &&
	       (l->etp > 0 ? l->etp : l->tp) == p->etp && t->seq_len == p->seq_len &&
	       t->micro_batch_seqs == p->micro_batch_seqs && t->precision == p->precision &&
	       t->recompute == p->recompute && t->cuda_graphs == p->cuda_graphs &&
	       t->recompute_layer_interval == p->recompute_layer_interval && l->sequence_parallel == p->sequence_parallel &&
	       l->tp_comm_overlap == p->tp_comm_overlap &&
	       l->ep_comm_overlap == p->ep_comm_overlap && l->moe_dispatcher == p->moe_dispatcher &&
	       l->moe_routing_imbalance == p->moe_routing_imbalance &&
	       l->moe_capacity_factor == p->moe_capacity_factor;
}

/* ---- the exact pipeline ------------------------------------------------------------ */

/* Most (rank, chunk) pairs the exact pipeline takes on the stack: more
 * than any layout of a 1,000-layer model (pp x vpp <= layers + 2, and
 * DualPipe's two chunks per rank). */
#define STEP_MAX_CHUNKS 2048

/* Forward, input-gradient and weight-gradient time of the chunk at virtual
 * stage j for one micro-batch: its decoder layers, the embedding (j == 0)
 * and the loss head (j == pv - 1) where the layout puts them, plus the
 * sender's share of its two pipeline sends.  Exposed communication goes
 * with the direction it belongs to, split like the compute. */
/* The layer kinds a piece of the pipeline (a stage, or one chunk of it)
 * runs per micro-batch, and how many of each: nd dense and nm MoE decoder
 * layers, the embedding when it holds the first virtual stage, the logits
 * and the MTP heads when it holds the last.  Into kinds/n (6 entries);
 * returns how many.  The one place that says what a piece holds: the
 * stage loop and the exact pipeline's chunks both ask it. */
static int piece_kinds(const struct model_arch *m, const struct step_prep *p, int nd, int nm,
		       bool first, bool last, const struct step_kind_time **kinds, double *n)
{
	int k = 0;

	kinds[k] = &p->k_dense, n[k++] = nd;
	kinds[k] = &p->k_moe, n[k++] = nm;
	if (first)
		kinds[k] = &p->k_embed, n[k++] = 1;
	if (last) {
		kinds[k] = &p->k_logits, n[k++] = 1;
		if (m->mtp_layers > 0) {
			kinds[k] = p->ops.mtp_layer_is_moe ? &p->k_moe : &p->k_dense, n[k++] = m->mtp_layers;
			kinds[k] = &p->k_mtp, n[k++] = m->mtp_layers;
		}
	}
	return k;
}

static void chunk_fbw(const struct scenario *sc, const struct step_prep *p,
		      const struct layout_info *li, int j, double send_share_s,
		      double *f, double *b, double *w)
{
	const struct model_arch *m = &sc->model;
	const struct step_kind_time *kinds[6];
	double n[6], total = send_share_s, fwd = 0, bwd = 0, wg = 0, fb;
	int lb, le, nm, k;

	layout_vstage_layers(li, j, &lb, &le);
	nm = tf_moe_layers_in(m, lb, le);
	k = piece_kinds(m, p, (le - lb) - nm, nm, j == 0, j == li->virtual_stages - 1, kinds, n);
	/* only the four sums the split needs (kind_add would sum them all) */
	for (int i = 0; i < k; i++) {
		total += n[i] * kinds[i]->total_s;
		fwd += n[i] * kinds[i]->fwd_s;
		bwd += n[i] * kinds[i]->bwd_s;
		wg += n[i] * kinds[i]->wgrad_s;
	}
	fb = fwd + bwd - wg;
	*w = wg;
	*f = fb > 0 ? (total - wg) * fwd / fb : 0.5 * total;
	*b = total - *f - *w;
	if (*b < 0)
		*b = 0;
}

/* The exact step of the pipeline (models/schedule, sched_replay: the
 * schedule's own op order, every op starting when its rank is free and
 * its input has arrived): with every chunk's own times, so that unequal
 * chunks (a balanced or uneven layer split, the embedding and loss
 * stages) cost what they cost, and with each pipeline send of send_s on
 * the critical path where nothing hides it (fill, drain, and every wait of
 * the steady state).  The closed forms of models/schedule are exact only
 * for equal chunks and free sends.  False when the layout has more chunks
 * than the stack holds or the replay fails: the caller keeps the closed
 * form. */
static bool pipeline_exact(const struct scenario *sc, const struct step_prep *p,
			   const struct layout_info *li, double send_share_s, double send_s,
			   double *time_s)
{
	enum sc_schedule sched = sc->layout.schedule;
	int pp = li->pp, v = li->vpp, C = sched_chunks(sched, v);
	double f[STEP_MAX_CHUNKS], b[STEP_MAX_CHUNKS], w[STEP_MAX_CHUNKS];

	if ((long long)pp * C > STEP_MAX_CHUNKS)
		return false;
	for (int s = 0; s < pp; s++)
		for (int c = 0; c < C; c++)
			chunk_fbw(sc, p, li, layout_vstage_of(li, sched, s, c), send_share_s,
				  &f[s * C + c], &b[s * C + c], &w[s * C + c]);
	*time_s = sched_replay(sched, pp, v, li->micro_batches, f, b, w, send_s, NULL, NULL);
	return *time_s > 0;
}

/* pipeline_exact through memo (may be NULL). */
static bool pipeline_memo(const struct scenario *sc, const struct step_prep *p,
			  const struct layout_info *li, struct step_pipe_memo *memo,
			  double send_share_s, double send_s, double *time_s)
{
	const struct layout *l = &sc->layout;
	struct step_pipe_key key;
	bool ok;

	memset(&key, 0, sizeof(key));
	key.pp = l->pp;
	key.vpp = l->vpp;
	key.micro_batches = li->micro_batches;
	key.first_stage_layers = l->first_stage_layers;
	key.last_stage_layers = l->last_stage_layers;
	key.schedule = (int)l->schedule;
	key.layer_split = (int)l->layer_split;
	key.send_share_s = send_share_s;
	key.send_s = send_s;
	if (memo && memo->valid && memcmp(&memo->key, &key, sizeof(key)) == 0) {
		*time_s = memo->time_s;
		return memo->ok;
	}
	ok = pipeline_exact(sc, p, li, send_share_s, send_s, time_s);
	if (memo) {
		memo->valid = true;
		memo->key = key;
		memo->time_s = *time_s;
		memo->ok = ok;
	}
	return ok;
}

/* The shared context of one layout's step: the scenario, the GPU, the
 * calibration and the network span of every parallel group. */
static void ctx_of(const struct scenario *sc, const struct step_prep *p,
		   const struct layout_info *li, struct ctx *x)
{
	x->sc = sc;
	x->gpu = &sc->cluster.gpu;
	x->cal = &sc->calibration;
	x->dtype = p->dtype;
	x->sp = p->sp;
	x->imbalance = p->imbalance;
	x->tp = p->tp_span;
	x->etp = p->etp_span;
	x->cp = p->cp_span;
	x->ep = p->ep_span;
	x->pp = layout_span(&sc->cluster, li, LG_PP);
}

/* What pipeline rank s holds: its chunks' dense and MoE layers
 * (models/layout), whether it has the first virtual stage (the embedding)
 * and the last (the output head, the loss and the MTP heads), and its
 * parameters on this GPU.  The one place both the memory and the time of a
 * stage ask. */
struct stage_content {
	int dense, moe;
	bool first, last;
	double params_dense, params_expert;
};

static void stage_content_of(const struct scenario *sc, const struct step_prep *p,
			     const struct layout_info *li, int s, struct stage_content *c)
{
	const struct model_arch *m = &sc->model;
	const struct tf_ops *ops = &p->ops;
	/* one embedding table serves input and output when tied and held by
	 * one rank */
	bool tied_shared = m->tied_embeddings && li->pp == 1;

	memset(c, 0, sizeof(*c));
	for (int k = 0; k < li->vpp; k++) {
		int j = layout_vstage_of(li, sc->layout.schedule, s, k), b, e, nm;

		layout_vstage_layers(li, j, &b, &e);
		nm = tf_moe_layers_in(m, b, e);
		c->moe += nm;
		c->dense += (e - b) - nm;
		c->first |= j == 0;
		c->last |= j == li->virtual_stages - 1;
	}
	c->params_dense = c->dense * ops->dense.params_dense_local +
			  c->moe * ops->moe.params_dense_local;
	c->params_expert = c->moe * ops->moe.params_expert_local;
	if (c->first)
		c->params_dense += ops->embed.params_dense_local;
	if (c->last) {
		c->params_dense += ops->logits.params_dense_local;
		if (tied_shared)
			c->params_dense -= ops->embed.params_dense_local;
		if (m->mtp_layers > 0) {
			const struct tf_layer *ml = ops->mtp_layer_is_moe ? &ops->moe : &ops->dense;

			c->params_dense += m->mtp_layers *
					   (ml->params_dense_local + ops->mtp_extra.params_dense_local);
			c->params_expert += m->mtp_layers * ml->params_expert_local;
		}
	}
}

/* Activation bytes one micro-batch keeps through what a pipeline piece c
 * holds: its layers' stored activations, the embedding's output (sbh_rep
 * elements) on the first, the MTP layers on the last (their logits are
 * held apart, once). */
static double stage_act_bytes(const struct scenario *sc, const struct step_prep *p,
			      const struct stage_content *c, double sbh_rep)
{
	const struct model_arch *m = &sc->model;
	double act = c->dense * p->act_dense.stored_bytes + c->moe * p->act_moe.stored_bytes;

	if (c->first)
		act += 2.0 * sbh_rep;
	if (c->last)
		act += m->mtp_layers * (p->ops.mtp_layer_is_moe ? p->act_moe.stored_bytes
								  : p->act_dense.stored_bytes);
	return act;
}

/* Memory of the first and the last pipeline stage (models/memory), the
 * worse one reported.  Computed before the step time, so that a search can
 * stop when the layout does not fit. */
static void stage_memory(const struct scenario *sc, const struct step_prep *p,
			 const struct layout_info *li, struct step_result *out)
{
	const struct training *tr = &sc->training;
	const struct model_arch *m = &sc->model;
	const struct cluster *cl = &sc->cluster;
	const struct tf_ops *ops = &p->ops;
	const struct mem_act a_dense = p->act_dense, a_moe = p->act_moe;
	int tp = li->tp, pp = li->pp;
	double sb = tr->micro_batch_seqs * ((double)tr->seq_len / li->cp);
	double rep = p->sp ? 1.0 / tp : 1.0;
	/* the largest FSDP / ZeRO-3 unit: one decoder layer (each is wrapped),
	 * or the embedding or the output head */
	double unit = fmax(ops->dense.params_dense_local,
			   model_is_moe(m) ? ops->moe.params_dense_local + ops->moe.params_expert_local
					   : 0.0);
	int worst = 0, rank1 = pp - 1;
	bool dualpipe = sc->layout.schedule == SCHED_DUALPIPE && pp > 1;
	/* the ranks to look at: the first and the last stage, where 1F1B-like
	 * schedules keep the most (the first: the most micro-batches in
	 * flight; the last: the loss); DualPipe's end ranks hold both ends,
	 * its middle ranks as many micro-batches and more layers, so each
	 * rank of one half (the other mirrors it) */
	int nranks = dualpipe ? (pp / 2 > 1 ? pp / 2 : 2) : 2;

	unit = fmax(unit, fmax(ops->embed.params_dense_local, ops->logits.params_dense_local));
	memset(out->mem_stage, 0, sizeof(out->mem_stage));
	for (int pass = 0; pass < nranks; pass++) {
		int s = pass == 0 ? 0 : dualpipe ? (pp / 2 > 1 ? pass : 1) : pp - 1;
		struct stage_content c;
		struct mem_in mi = { 0 };
		struct mem_out tmp, *mo = pass == 0 ? &out->mem_stage[0] : &tmp;
		double act, extra, logits = 0, inflight, copies;

		if (pass == 1 && pp == 1) {
			out->mem_stage[1] = out->mem_stage[0];
			break;
		}
		stage_content_of(sc, p, li, s, &c);
		act = stage_act_bytes(sc, p, &c, sb * m->hidden * rep);
		inflight = pp > 1 ? sched_inflight(sc->layout.schedule, pp, li->vpp, li->micro_batches, s)
				  : 1.0;
		copies = sched_param_copies(sc->layout.schedule);
		if (sc->layout.schedule == SCHED_DUALPIPE && pp > 1) {
			/* DualPipe's rank s holds stage s (the direction fed at
			 * rank 0) and stage pp - 1 - s (the one fed at the last
			 * rank): deepseek-ai/DualPipe example.py loads
			 * full_modules[rank] and full_modules[pp - 1 - rank], and
			 * DeepSeek-V3 (arXiv 2412.19437, section 3.2.3) puts the
			 * embedding and the output head on the same rank that
			 * way.  Its activations: each chunk's micro-batches in
			 * flight, from the rank's op order */
			struct stage_content c1;
			double cb[2], pk;
			int pipe, j1;

			/* chunk 1 of rank s: the stage models/schedule places it at */
			sched_place(SCHED_DUALPIPE, pp, li->vpp, s, 1, &pipe, &j1);
			stage_content_of(sc, p, li, j1, &c1);
			cb[0] = act;
			cb[1] = stage_act_bytes(sc, p, &c1, sb * m->hidden * rep);
			pk = sched_peak_bytes(SCHED_DUALPIPE, pp, li->vpp, li->micro_batches, s, cb);
			if (pk >= 0) {
				act = pk;
				inflight = 1.0;
				copies = 1.0;
				c.dense += c1.dense;
				c.moe += c1.moe;
				c.first |= c1.first;
				c.last |= c1.last;
				c.params_dense += c1.params_dense;
				c.params_expert += c1.params_expert;
			}
		}
		extra = mem_full_recompute_share(tr) > 0
			? fmax(a_dense.working_bytes, model_is_moe(m) ? a_moe.working_bytes : 0)
			: 0;
		/* the loss's logits of one micro-batch, held between the last
		 * stage's forward and backward (models/memory has the bytes per
		 * element of each framework); each MTP depth computes its own */
		if (c.last)
			logits = sb * m->vocab / tp * (1 + m->mtp_layers);
		mi.loss_chunks = tr->loss_chunks;
		mi.loss_hidden_elements = c.last ? sb * m->hidden : 0;
		mi.framework = tr->framework;
		/* a schedule that keeps both directions' stages without a
		 * rank-order model keeps two copies */
		mi.params_dense = c.params_dense * copies;
		mi.params_expert = c.params_expert * copies;
		mi.unit_params = unit;
		mi.dense_shard = li->dense_shard;
		mi.expert_shard = li->edp;
		mi.zero_stage = li->zero;
		mi.grad_fp32 = tr->grad_fp32;
		mi.master_dtype = tr->master_dtype;
		mi.moments_dtype = tr->moments_dtype;
		mi.precision = tr->precision;
		mi.optimizer = tr->optimizer;
		mi.compile = tr->compile;
		mi.compile_loss = tr->compile && !tr->no_compile_loss;
		mi.no_loss_upcast = tr->no_loss_upcast;
		/* every linear weight of the stage (not the input embedding,
		 * whose backward keeps only the indices) */
		if (tr->framework == FW_DEEPSPEED && tr->no_mem_efficient_linear &&
		    tr->recompute != RECOMPUTE_FULL)
			mi.retained_weight_params = c.params_dense + c.params_expert -
				(c.first && !(m->tied_embeddings && pp == 1) ? p->ops.embed.params_dense_local : 0);
		mi.no_lp_weight_cache = tr->no_lp_weight_cache;
		mi.act_per_microbatch_bytes = act;
		mi.inflight_microbatches = inflight;
		mi.act_extra_bytes = extra;
		mi.logits_elements = logits;
		mi.capacity_bytes = cl->gpu.hbm_bytes;
		mi.driver_reserved_bytes = cl->gpu.driver_reserved_bytes;
		mem_estimate(&mi, &sc->calibration, mo);
		if (pass >= 1 && (pass == 1 || mo->total_bytes > out->mem_stage[1].total_bytes)) {
			out->mem_stage[1] = *mo;
			rank1 = s;
		}
	}
	if (pp > 1 && out->mem_stage[1].total_bytes > out->mem_stage[0].total_bytes)
		worst = 1;
	{
		const struct mem_out *w = &out->mem_stage[worst];

		out->mem_worst_stage = worst;
		if (dualpipe && worst == 0)
			snprintf(out->mem_where, sizeof(out->mem_where), "first and last pipeline stage");
		else if (dualpipe)
			snprintf(out->mem_where, sizeof(out->mem_where), "pipeline rank %d, stages %d and %d",
				 rank1, rank1, pp - 1 - rank1);
		else
			snprintf(out->mem_where, sizeof(out->mem_where), "%s pipeline stage",
				 worst ? "last" : "first");
		out->mem_bytes[MEM_WEIGHTS] = w->weights_bytes;
		out->mem_bytes[MEM_GRADIENTS] = w->gradients_bytes;
		out->mem_bytes[MEM_OPTIMIZER] = w->optimizer_bytes;
		out->mem_bytes[MEM_ACTIVATIONS] = w->activations_bytes;
		out->mem_bytes[MEM_BUFFERS] = w->buffers_bytes;
		out->mem_bytes[MEM_COMM_BUFFERS] = w->comm_buffers_bytes;
		out->mem_bytes[MEM_RESERVE] = w->reserve_bytes;
		out->mem_total_bytes = w->total_bytes;
		out->mem_capacity_bytes = w->usable_bytes;
		out->oom = w->oom;
	}
}

/* Every pipeline rank's time for one micro-batch: the slowest (the
 * critical stage, whose work sets the step), their sum, and the most
 * parameters any rank holds (it bounds the DP collectives). */
struct stage_scan {
	struct stage crit;
	double sum_s;
	double max_params_dense, max_params_expert;
};

static void stage_times(const struct scenario *sc, const struct step_prep *p,
			const struct layout_info *li, double p2p_mb, struct stage_scan *r)
{
	const struct model_arch *m = &sc->model;
	int pp = li->pp;
	struct stage st, st_first, st_last, st_mid; /* DualPipe's pairing */

	memset(r, 0, sizeof(*r));
	r->crit.time_s = -1;
	memset(&st, 0, sizeof(st));
	st_first = st_last = st_mid = st;
	for (int s = 0; s < pp; s++) {
		struct stage_content c;

		stage_content_of(sc, p, li, s, &c);
		/* a stage with the same layers as the one before, neither first
		 * nor last, costs the same: keep st (a search finishes layouts
		 * of up to a hundred stages) */
		if (!(s > 0 && c.first == st.first && c.last == st.last && c.dense == st.dense &&
		      c.moe == st.moe)) {
			const struct step_kind_time *kinds[6];
			double n[6];
			int nk = piece_kinds(m, p, c.dense, c.moe, c.first, c.last, kinds, n);

			memset(&st, 0, sizeof(st));
			st.first = c.first;
			st.last = c.last;
			st.dense = c.dense;
			st.moe = c.moe;
			for (int i = 0; i < nk; i++)
				kind_add(&st.kt, kinds[i], n[i]);
			st.params_dense = c.params_dense;
			st.params_expert = c.params_expert;
			st.time_s = st.kt.total_s + p2p_mb;
		}
		r->sum_s += st.time_s;
		if (st.time_s > r->crit.time_s)
			r->crit = st;
		if (s == 0)
			st_first = st;
		else if (s == pp - 1)
			st_last = st;
		else if (st.time_s > st_mid.time_s)
			st_mid = st;
		if (st.params_dense > r->max_params_dense)
			r->max_params_dense = st.params_dense;
		if (st.params_expert > r->max_params_expert)
			r->max_params_expert = st.params_expert;
	}
	/* DualPipe: rank s runs stages s and pp - 1 - s, half the
	 * micro-batches each: the first and last ranks the mean of the first
	 * and last stages, the others a middle stage's (or less) */
	if (sc->layout.schedule == SCHED_DUALPIPE && pp > 1) {
		struct stage pair = st_first;

		memset(&pair.kt, 0, sizeof(pair.kt));
		kind_add(&pair.kt, &st_first.kt, 0.5);
		kind_add(&pair.kt, &st_last.kt, 0.5);
		pair.time_s = 0.5 * (st_first.time_s + st_last.time_s);
		r->crit = pair.time_s >= st_mid.time_s ? pair : st_mid;
	}
}

/* The pipeline schedule's step (models/schedule) from the stages: its
 * closed form, or with STEP_EXACT_PIPELINE the schedule replayed with
 * every chunk's own times and the sends on the critical path.  Of the
 * replay's wait beyond the busy time, the schedule's bubble (the closed
 * form's, at most) is the bubble; the rest, what the sends and unequal
 * chunks add, is exposed pipeline communication (*pp_wait_s). */
static void pipeline_step(const struct scenario *sc, const struct step_prep *p,
			  const struct layout_info *li, unsigned flags, struct step_pipe_memo *memo,
			  const struct stage_scan *r, double p2p_mb, double p2p_call,
			  struct sched_out *so, double *pp_wait_s)
{
	const struct stage *crit = &r->crit;
	struct sched_in si;

	si.p = li->pp;
	si.v = li->vpp;
	si.m = li->micro_batches;
	si.stage_max_s = crit->time_s;
	si.stage_sum_s = r->sum_s;
	/* the split of the slowest stage: W is its weight-gradient GEMMs,
	 * F and B share the rest (communication included) as their compute */
	{
		double fb = crit->kt.fwd_s + crit->kt.bwd_s - crit->kt.wgrad_s;

		si.wgrad_max_s = crit->kt.wgrad_s;
		si.fwd_max_s = fb > 0 ? (crit->time_s - crit->kt.wgrad_s) * crit->kt.fwd_s / fb : 0;
	}
	sched_step(sc->layout.schedule, &si, so);
	*pp_wait_s = 0;
	if ((flags & STEP_EXACT_PIPELINE) && li->pp > 1) {
		double t1, wait;

		if (pipeline_memo(sc, p, li, memo, p2p_mb / li->vpp, p2p_call, &t1)) {
			wait = t1 > so->busy_s ? t1 - so->busy_s : 0;
			so->bubble_s = so->bubble_s < wait ? so->bubble_s : wait;
			*pp_wait_s = wait - so->bubble_s;
			so->time_s = so->busy_s + wait;
			so->bubble_fraction = so->busy_s > 0 ? so->bubble_s / so->busy_s : 0;
		}
	}
}

/* DP gradient and parameter collectives, per stage, concurrently on all
 * stages: the stage with the most parameters bounds.  Dense parameters are
 * reduced over DP x CP (stride tp) or the FSDP group; expert parameters
 * over the expert-DP group (stride etp*ep).  *pd and *pe (the most
 * parameters of a rank) come back as held: DualPipe holds, reduces and
 * updates both directions' stages. */
static void dp_step(const struct ctx *x, const struct layout_info *li, const struct stage *crit,
		    double *pd, double *pe, struct dp_result *dpr)
{
	const struct scenario *sc = x->sc;
	const struct cluster *cl = &sc->cluster;
	struct net_span g_dense = layout_span(cl, li, LG_DP);
	struct net_span g_exp = layout_span(cl, li, LG_EDP);
	double mbw = crit->kt.fwd_s + crit->kt.bwd_s;
	int zero = li->zero, mb = li->micro_batches;
	/* FSDP gathers per micro-batch only the stage it runs */
	double copies = sched_param_copies(sc->layout.schedule), per_mb = zero >= 3 ? 1.0 : copies;

	memset(dpr, 0, sizeof(*dpr));
	*pd *= copies;
	*pe *= copies;
	dp_group_cost(x, &g_dense, *pd / copies * per_mb, zero, mb, crit->kt.fwd_s, crit->kt.bwd_s,
		      mbw, dpr);
	if (model_is_moe(&sc->model))
		dp_group_cost(x, &g_exp, *pe / copies * per_mb, zero, mb, crit->kt.fwd_s,
			      crit->kt.bwd_s, mbw, dpr);
	if (li->g[LG_REPLICA].ranks > 1) {
		/* hybrid sharding: all-reduce the gradient shards across the
		 * replicas once per step */
		struct net_span g_rep = layout_span(cl, li, LG_REPLICA);
		double one;
		double gb = sc->training.grad_fp32 ? 4.0 : 2.0;
		double t = bucketed(x->cal, &g_rep, COLL_ALL_REDUCE, *pd / li->dense_shard, gb, &one);

		dpr->exposed_s += t;
		if (g_rep.inter)
			dpr->exposed_efa_s += t;
		else
			dpr->exposed_nvlink_s += t;
	}
}

/* The step's collectives, one row per group and operation (only when
 * asked for: it costs as much as the rest of the step). */
static void list_collectives(const struct ctx *x, const struct step_prep *p,
			     const struct layout_info *li, const struct stage *crit,
			     double p2p_bytes, double p2p_call, double pd, double pe,
			     struct step_result *out)
{
	const struct scenario *sc = x->sc;
	const struct model_arch *m = &sc->model;
	const struct calibration *cal = x->cal;
	const struct tf_ops *ops = &p->ops;
	struct net_span g_dense = layout_span(&sc->cluster, li, LG_DP);
	struct net_span g_exp = layout_span(&sc->cluster, li, LG_EDP);
	int mb = li->micro_batches, zero = li->zero;

	add_coll(out, "tp", cal, &x->tp, x->sp ? COLL_ALL_GATHER : COLL_ALL_REDUCE,
		 ops->dense.tp_bytes, mb * (crit->kt.tp_s - crit->kt.etp_s));
	if (model_is_moe(m))
		add_coll(out, "etp", cal, &x->etp, x->sp ? COLL_ALL_GATHER : COLL_ALL_REDUCE,
			 ops->moe.etp_bytes, mb * crit->kt.etp_s);
	if (li->cp > 1) {
		struct net_span ring = x->cp;

		ring.ranks = 2;
		add_coll(out, "cp", cal, &ring, COLL_SEND_RECV, ops->dense.cp_kv_bytes,
			 mb * crit->kt.cp_s);
	}
	if (model_is_moe(m) && x->ep.ranks > 1) {
		struct coll_choice ch;
		double bytes = ops->moe.ep_bytes * x->imbalance;

		ep_a2a(x, bytes, &ch);
		record_coll(out, "ep", COLL_ALL_TO_ALL, &x->ep, bytes, &ch, mb * crit->kt.ep_s);
	}
	if (li->pp > 1)
		add_coll(out, "pp", cal, &x->pp, COLL_SEND_RECV, p2p_bytes,
			 2.0 * li->vpp * mb * p2p_call);
	{
		double gb = sc->training.grad_fp32 ? 4.0 : 2.0;
		double bk = cal->dp_bucket_params, one;
		double bd = (bk > 0 && bk < pd) ? bk : pd;
		double be = (bk > 0 && bk < pe) ? bk : pe;
		const char *w = zero >= 3 ? "fsdp" : "dp";
		double per = zero >= 3 ? mb : 1.0;
		enum coll_op gop = zero == 0 ? COLL_ALL_REDUCE : COLL_REDUCE_SCATTER;

		add_coll(out, w, cal, &g_dense, gop, bd * gb,
			 per * bucketed(cal, &g_dense, gop, pd, gb, &one));
		if (zero >= 1)
			add_coll(out, w, cal, &g_dense, COLL_ALL_GATHER, bd * 2.0,
				 per * (zero >= 3 ? 2.0 : 1.0) *
				 bucketed(cal, &g_dense, COLL_ALL_GATHER, pd, 2.0, &one));
		if (model_is_moe(m))
			add_coll(out, "edp", cal, &g_exp, gop, be * gb,
				 per * bucketed(cal, &g_exp, gop, pe, gb, &one));
	}
}

/* The breakdown: the optimizer step, the critical stage's work times the
 * micro-batches, the schedule's bubble, then what follows the pipeline;
 * the step time is their sum. */
static void breakdown(const struct ctx *x, const struct layout_info *li, const struct stage *crit,
		      const struct sched_out *so, double p2p_mb, double pp_wait_s,
		      const struct dp_result *dpr, double pd, double pe, struct step_result *out)
{
	const struct calibration *cal = x->cal;
	int mb = li->micro_batches;
	/* optimizer step: streams the local parameter shard's state through
	 * HBM (Adam: master, m, v, gradient read; master, m, v, weight
	 * written) */
	double ds = li->zero >= 1 ? li->dense_shard : 1;
	double es = li->zero >= 1 ? li->edp : 1;
	double local_params = pd / ds + pe / es;

	out->part_s[PART_OPTIMIZER] = local_params * cal->optimizer_bytes_per_param /
				      (x->gpu->hbm_GBps * 1e9 * cal->hbm_eta);
	out->part_s[PART_COMPUTE] = mb * (crit->kt.compute.compute_s + crit->kt.compute.memory_s +
					  crit->kt.interference_s) +
				    cal->comm_interference * dpr->hidden_s;
	out->part_s[PART_TP_COMM] = mb * crit->kt.tp_exp_s;
	out->part_s[PART_CP_COMM] = mb * crit->kt.cp_exp_s;
	out->part_s[PART_EP_COMM] = mb * crit->kt.ep_exp_s;
	out->part_s[PART_PP_COMM] = mb * p2p_mb + pp_wait_s;
	out->part_s[PART_BUBBLE] = so->bubble_s;
	out->part_s[PART_DP_COMM] = dpr->exposed_s;
	out->part_s[PART_OVERHEAD] = mb * crit->kt.compute.launch_s + cal->step_overhead_s;
	out->step_time_s = 0;
	for (int i = 0; i < PART_COUNT; i++)
		out->step_time_s += out->part_s[i];
	out->micro_batches = mb;
	out->bubble_fraction = so->bubble_fraction;
}

/* Throughput, model and hardware FLOPs, MFU and HFU of the step time. */
static void rates(const struct scenario *sc, const struct step_prep *p,
		  const struct layout_info *li, struct step_result *out)
{
	const struct training *tr = &sc->training;
	const struct model_arch *m = &sc->model;
	const struct tf_flops *fl = &p->flops;
	double tokens_per_step = (double)tr->global_batch_seqs * tr->seq_len;
	int gpus = (int)li->gpus;
	double peak = gpu_precision_peak_flops(&sc->cluster.gpu, tr->precision);

	out->tokens_per_s = tokens_per_step / out->step_time_s;
	out->tokens_per_s_per_gpu = out->tokens_per_s / gpus;
	/* model FLOPs: forward + backward (2x forward), no recompute */
	out->model_flops_per_step = 3.0 * fl->total * tokens_per_step;
	out->hardware_flops_per_step = out->model_flops_per_step;
	if (mem_full_recompute_share(tr) > 0)
		out->hardware_flops_per_step += mem_full_recompute_share(tr) *
						(fl->layers_gemm + fl->layers_attn +
						 fl->mtp - (m->mtp_layers > 0 ? m->mtp_layers * fl->logits : 0)) *
						tokens_per_step;
	else if (tr->recompute == RECOMPUTE_SELECTIVE)
		out->hardware_flops_per_step += fl->layers_attn * tokens_per_step;
	out->model_tflops_per_gpu = out->model_flops_per_step / out->step_time_s / gpus / 1e12;
	out->mfu = out->model_flops_per_step / (out->step_time_s * gpus * peak);
	out->hfu = out->hardware_flops_per_step / (out->step_time_s * gpus * peak);
	out->uncertainty_rel = sc->calibration.uncertainty_rel;
}

/* The bottleneck: the largest of the resources' shares of the step. */
static void bottleneck_of(const struct ctx *x, const struct stage *crit, int mb,
			  const struct dp_result *dpr, struct step_result *out)
{
	double share[BOTTLENECK_COUNT];
	double nv = 0, efa = 0;
	double parts_tier[4][2] = {
		{ out->part_s[PART_TP_COMM], x->tp.inter ? 1 : 0 },
		{ out->part_s[PART_CP_COMM], x->cp.inter ? 1 : 0 },
		{ out->part_s[PART_EP_COMM], x->ep.inter ? 1 : 0 },
		{ out->part_s[PART_PP_COMM], x->pp.inter ? 1 : 0 },
	};

	for (int i = 0; i < 4; i++) {
		if (parts_tier[i][1] > 0)
			efa += parts_tier[i][0];
		else
			nv += parts_tier[i][0];
	}
	nv += dpr->exposed_nvlink_s;
	efa += dpr->exposed_efa_s;
	share[BOTTLENECK_TENSOR_CORES] = mb * crit->kt.compute.compute_s;
	share[BOTTLENECK_HBM] = mb * crit->kt.compute.memory_s + out->part_s[PART_OPTIMIZER];
	share[BOTTLENECK_NVLINK] = nv;
	share[BOTTLENECK_EFA] = efa;
	share[BOTTLENECK_PIPELINE_BUBBLE] = out->part_s[PART_BUBBLE];
	share[BOTTLENECK_OVERHEAD] = out->part_s[PART_OVERHEAD];
	out->bottleneck = BOTTLENECK_TENSOR_CORES;
	for (int i = 1; i < BOTTLENECK_COUNT; i++)
		if (share[i] > share[out->bottleneck])
			out->bottleneck = (enum bottleneck)i;
}

/* The rest of the step of sc's (validated) layout from its shape p: memory
 * first (a search stops there when the layout does not fit), then the
 * stages, the pipeline schedule, the DP collectives, the breakdown, the
 * rates and the bottleneck. */
static void finish(const struct scenario *sc, const struct step_prep *p,
		   const struct layout_info *li, unsigned flags, struct step_pipe_memo *memo,
		   struct step_result *out)
{
	const struct training *tr = &sc->training;
	struct ctx x;
	struct stage_scan scan;
	struct sched_out so;
	struct dp_result dpr;
	int tp = li->tp, pp = li->pp, cp = li->cp, v = li->vpp;
	double p2p_mb = 0, p2p_call = 0, p2p_bytes = 0, pp_wait_s;
	double pd, pe;

	ctx_of(sc, p, li, &x);
	/* pipeline send/recv: the activation (SP-sharded when SP is on) of
	 * each chunk forward and its gradient backward */
	if (pp > 1) {
		p2p_bytes = 2.0 * tr->micro_batch_seqs * ((double)tr->seq_len / cp) *
			    sc->model.hidden / (x.sp ? tp : 1);
		p2p_call = coll_time(&sc->calibration, &x.pp, COLL_SEND_RECV, p2p_bytes, NULL);
		p2p_mb = (1.0 - sc->calibration.pp_overlap) * 2.0 * v * p2p_call;
	}
	stage_memory(sc, p, li, out);
	if ((flags & STEP_STOP_IF_OOM) && out->oom)
		return;
	stage_times(sc, p, li, p2p_mb, &scan);
	pipeline_step(sc, p, li, flags, memo, &scan, p2p_mb, p2p_call, &so, &pp_wait_s);
	pd = scan.max_params_dense;
	pe = scan.max_params_expert;
	dp_step(&x, li, &scan.crit, &pd, &pe, &dpr);
	if (flags & STEP_COLLECTIVES)
		list_collectives(&x, p, li, &scan.crit, p2p_bytes, p2p_call, pd, pe, out);
	breakdown(&x, li, &scan.crit, &so, p2p_mb, pp_wait_s, &dpr, pd, pe, out);
	rates(sc, p, li, out);
	bottleneck_of(&x, &scan.crit, li->micro_batches, &dpr, out);
}

enum sc_status sim_step_prepare(const struct scenario *sc, struct step_prep *prep,
				struct sc_error *err)
{
	struct layout_info li;
	enum sc_status rc;

	sc_error_clear(err);
	rc = validate(sc, &li, err);
	if (rc != SC_OK)
		return rc;
	return prepare(sc, &li, prep, err);
}

enum sc_status sim_step_finish(const struct scenario *sc, const struct step_prep *prep,
			       unsigned flags, struct step_result *out, struct sc_error *err)
{
	return sim_step_finish_memo(sc, prep, NULL, flags, NULL, out, err);
}

enum sc_status sim_step_finish_memo(const struct scenario *sc, const struct step_prep *prep,
				    const struct layout_info *given, unsigned flags,
				    struct step_pipe_memo *memo, struct step_result *out,
				    struct sc_error *err)
{
	struct layout_info li;
	enum sc_status rc;

	/* the collectives list is most of the struct: left alone unless asked for */
	memset(out, 0, (flags & STEP_COLLECTIVES) ? sizeof(*out)
		       : offsetof(struct step_result, collectives));
	sc_error_clear(err);
	if (given) {
		li = *given;
	} else {
		rc = validate(sc, &li, err);
		if (rc != SC_OK)
			return rc;
	}
	if (!same_shape(sc, prep))
		return sc_error_set(err, SC_EINVAL, NULL, "/layout",
				    "layout (tp \"%d\", cp %d, ep %d) differs from the prepared shape (tp %d, cp %d, ep %d) in a per-micro-batch setting",
				    sc->layout.tp, sc->layout.cp, sc->layout.ep, prep->tp, prep->cp, prep->ep);
	finish(sc, prep, &li, flags, memo, out);
	/* data stalls, checkpoints, stragglers (sim/analytic/goodput.h): only
	 * for scenarios that ask, one predictable branch otherwise */
	if (sc->storage.enabled || sc->stragglers.enabled)
		return sim_goodput_extend_memo(sc, out, memo ? &memo->goodput : NULL, err);
	return SC_OK;
}

enum sc_status sim_step_predict(const struct scenario *sc,
				struct step_result *out, struct sc_error *err)
{
	struct step_prep prep;
	struct layout_info li;
	enum sc_status rc;

	memset(out, 0, sizeof(*out));
	sc_error_clear(err);
	rc = validate(sc, &li, err);
	if (rc != SC_OK)
		return rc;
	rc = prepare(sc, &li, &prep, err);
	if (rc != SC_OK)
		return rc;
	finish(sc, &prep, &li, STEP_COLLECTIVES | STEP_EXACT_PIPELINE, NULL, out);
	if (sc->storage.enabled || sc->stragglers.enabled)
		return sim_goodput_extend(sc, out, err);
	return SC_OK;
}

struct model_band sim_step_band(const struct scenario *sc, const struct step_result *r,
				enum model_regime *regime)
{
	return model_band_of_regimes(&sc->calibration, model_regimes_of(sc, r->step_time_s), false,
				     regime);
}
