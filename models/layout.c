/* layout.c: layout validity and derived quantities (see layout.h).
 *
 * Sources of the rules (Megatron-Core unless said otherwise):
 * - world size = tp x pp x cp x dp (parallel_state.initialize_model_parallel);
 * - tp divides the attention heads, and the key/value heads and tp divide one
 *   another (replicated KV heads for GQA; MLA has none to split);
 * - TP inside one NVLink domain, TP groups not straddling domains: TP
 *   all-reduces every layer and is only run over NVLink in practice
 *   (Narayanan et al. 2021, section 3.3);
 * - expert layers refold tp x cp x dp as etp x ep x edp, so etp x ep divides
 *   tp x cp x dp, ep divides the experts, etp divides the expert FFN;
 * - interleaving needs pp > 1, vpp > 1 and micro-batches per step a
 *   multiple of pp (schedules.py, forward_backward_pipelining_with_
 *   interleaving: "number of microbatches is not divisible by
 *   pipeline-parallel size when using interleaved schedule");
 * - layers divisible by pp x vpp, unless the embedding and loss take
 *   slots, a pipeline layout is given, or first/last stage layer counts
 *   (transformer_config.py, get_num_layers_to_build);
 * - load-balanced context parallelism splits the sequence into 2 cp chunks;
 *   sequence parallelism shards seq / cp over tp;
 * - FSDP/HSDP shard groups divide dp x cp (torchtitan's dp_shard x
 *   dp_replicate; Megatron-FSDP).
 */
#include "layout.h"
#include "schedule.h"

#include "limits.h"

#include <stdio.h>
#include <string.h>

static enum sc_status fail(struct sc_error *err, const char *file, const char *ptr,
			   const char *msg)
{
	return sc_error_set(err, SC_EINVAL, file, ptr, "%s", msg);
}

/* The message is only formatted when someone reads it: a search checks
 * millions of layouts with err NULL. */
#define FAIL(ptr, ...)                                           \
	do {                                                     \
		char m_[SC_ERROR_MSG_MAX];                       \
		if (!err)                                        \
			return SC_EINVAL;                        \
		snprintf(m_, sizeof(m_), __VA_ARGS__);           \
		return fail(err, file, ptr, m_);                 \
	} while (0)

bool layout_tp_fits_heads(const struct model_arch *m, int tp)
{
	int kv = m->kv_heads > 0 ? m->kv_heads : m->heads;

	if (tp < 1 || m->heads % tp != 0)
		return false;
	return model_is_mla(m) || kv % tp == 0 || tp % kv == 0;
}

bool layout_cp_fits_seq(int seq_len, int tp, int cp, bool sp)
{
	if (cp < 1 || tp < 1)
		return false;
	if (cp > 1 && seq_len % (2LL * cp) != 0)
		return false;
	return !sp || (seq_len / cp) % tp == 0;
}

enum sc_status layout_cluster_gpus(const struct scenario *sc, const char *file, int *gpus,
				   struct sc_error *err)
{
	long long n;

	if (sc->cluster.nodes < 1)
		FAIL("/cluster/nodes", "nodes must be at least 1 (got %d)", sc->cluster.nodes);
	if (sc->cluster.instance.gpus_per_node < 1)
		FAIL("/cluster/instance/gpus_per_node", "gpus per node must be at least 1 (got %d)",
		     sc->cluster.instance.gpus_per_node);
	/* both factors are ints, so their product fits in 64 bits */
	n = (long long)sc->cluster.nodes * sc->cluster.instance.gpus_per_node;
	if (n > SC_MAX_GPUS)
		FAIL("/cluster/nodes", "the cluster has %lld GPUs (%d nodes x %d); at most %d",
		     n, sc->cluster.nodes, sc->cluster.instance.gpus_per_node, SC_MAX_GPUS);
	if (gpus)
		*gpus = (int)n;
	return SC_OK;
}

/* The counts every other rule divides by.  Each group size is at most the
 * cluster's GPUs (<= SC_MAX_GPUS, 2^20), so a product of two fits in 64
 * bits; products of more are checked (__builtin_mul_overflow) where used. */
static enum sc_status check_sizes(const struct scenario *sc, const char *file,
				  struct sc_error *err)
{
	const struct layout *l = &sc->layout;
	const struct training *t = &sc->training;
	enum sc_status st;

	if ((st = layout_cluster_gpus(sc, file, NULL, err)) != SC_OK)
		return st;
	if (sc->model.layers < 1 || sc->model.heads < 1)
		FAIL("/model", "model \"%s\" needs positive layers and heads", sc->model.name);
	if (t->seq_len < 1)
		FAIL("/training/seq_len", "seq_len must be at least 1 (got %d)", t->seq_len);
	if (t->micro_batch_seqs < 1)
		FAIL("/training/micro_batch_seqs", "micro_batch_seqs must be at least 1 (got %d)",
		     t->micro_batch_seqs);
	if (t->global_batch_seqs < 1)
		FAIL("/training/global_batch_seqs", "global_batch_seqs must be at least 1 (got %d)",
		     t->global_batch_seqs);
	if (l->tp < 1) FAIL("/layout/tp", "tp must be at least 1 (got %d)", l->tp);
	if (l->pp < 1) FAIL("/layout/pp", "pp must be at least 1 (got %d)", l->pp);
	if (l->dp < 1) FAIL("/layout/dp", "dp must be at least 1 (got %d)", l->dp);
	if (l->cp < 1) FAIL("/layout/cp", "cp must be at least 1 (got %d)", l->cp);
	if (l->ep < 1) FAIL("/layout/ep", "ep must be at least 1 (got %d)", l->ep);
	if (l->vpp < 1) FAIL("/layout/vpp", "vpp must be at least 1 (got %d)", l->vpp);
	if (l->etp < 0) FAIL("/layout/etp", "etp must not be negative (got %d)", l->etp);
	{
		static const char *const names[] = { "tp", "pp", "dp", "cp", "ep", "etp", "vpp", "fsdp_group" };
		const int v[] = { l->tp, l->pp, l->dp, l->cp, l->ep, l->etp, l->vpp, l->fsdp_group };

		for (int i = 0; i < 8; i++)
			if (v[i] > SC_MAX_GPUS) {
				char ptr[32];

				snprintf(ptr, sizeof(ptr), "/layout/%s", names[i]);
				FAIL(ptr, "%s (%d) is more than %d, the most GPUs a cluster may have",
				     names[i], v[i], SC_MAX_GPUS);
			}
	}
	if (l->zero_stage < 0 || l->zero_stage > 3)
		FAIL("/layout/zero_stage", "zero_stage must be 0..3 (got %d)", l->zero_stage);
	if (l->fsdp_group < 0)
		FAIL("/layout/fsdp_group", "fsdp_group must not be negative (got %d)", l->fsdp_group);
	if (l->first_stage_layers < 0 || l->last_stage_layers < 0)
		FAIL("/layout/first_stage_layers", "stage layer counts must not be negative");
	return SC_OK;
}

/* World size, TP against heads and the NVLink domain, CP and SP. */
static enum sc_status check_dense(const struct scenario *sc, const char *file,
				  struct sc_error *err)
{
	const struct layout *l = &sc->layout;
	const struct model_arch *m = &sc->model;
	const struct training *t = &sc->training;
	long long gpus = (long long)sc->cluster.nodes * sc->cluster.instance.gpus_per_node;
	long long prod;
	int domain = sc->cluster.instance.nvlink_domain_gpus > 0
		     ? sc->cluster.instance.nvlink_domain_gpus
		     : sc->cluster.instance.gpus_per_node;
	int kv = m->kv_heads > 0 ? m->kv_heads : m->heads;

	/* each factor <= 2^20 (check_sizes): tp pp and cp dp fit, their product may not */
	if (__builtin_mul_overflow((long long)l->tp * l->pp, (long long)l->cp * l->dp, &prod))
		FAIL("/layout/dp", "tp x pp x cp x dp overflows, but the cluster has %lld GPUs", gpus);
	if (prod != gpus)
		FAIL("/layout/dp", "tp x pp x cp x dp = %lld, but the cluster has %lld GPUs", prod, gpus);
	if (!layout_tp_fits_heads(m, l->tp)) {
		if (m->heads % l->tp != 0)
			FAIL("/layout/tp", "tp (%d) must divide the model's %d query heads", l->tp, m->heads);
		FAIL("/layout/tp", "tp (%d) and the model's %d key/value heads must divide one another",
		     l->tp, kv);
	}
	if (l->tp > domain)
		FAIL("/layout/tp", "tp (%d) is larger than the NVLink domain (%d GPUs)", l->tp, domain);
	if (domain % l->tp != 0)
		FAIL("/layout/tp", "tp (%d) must divide the NVLink domain (%d GPUs): a TP group would straddle two domains",
		     l->tp, domain);
	if (!layout_dp_fits_batch(t, l->dp))
		FAIL("/training/global_batch_seqs",
		     "global_batch_seqs (%d) is not a multiple of micro_batch_seqs x dp (%d x %d)",
		     t->global_batch_seqs, t->micro_batch_seqs, l->dp);
	/* the rules are layout_cp_fits_seq's; the checks below say which failed */
	if (!layout_cp_fits_seq(t->seq_len, l->tp, l->cp, false))
		FAIL("/layout/cp", "seq_len (%d) must be a multiple of 2 x cp (cp is %d) for load-balanced context parallelism",
		     t->seq_len, l->cp);
	if (l->sequence_parallel && l->tp == 1)
		FAIL("/layout/sequence_parallel", "sequence_parallel needs tp > 1 (tp is %d)", l->tp);
	if (!layout_cp_fits_seq(t->seq_len, l->tp, l->cp, l->sequence_parallel))
		FAIL("/layout/sequence_parallel",
		     "sequence parallelism needs seq_len / cp (%d) to be a multiple of tp (%d)",
		     t->seq_len / l->cp, l->tp);
	if (l->fsdp_group > 0 && ((long long)l->dp * l->cp) % l->fsdp_group != 0)
		FAIL("/layout/fsdp_group", "fsdp_group (%d) must divide dp x cp (%lld)", l->fsdp_group,
		     (long long)l->dp * l->cp);
	return SC_OK;
}

static enum sc_status check_moe(const struct scenario *sc, const char *file,
				struct sc_error *err)
{
	const struct layout *l = &sc->layout;
	const struct model_arch *m = &sc->model;
	int etp = l->etp > 0 ? l->etp : l->tp;
	long long fold = (long long)l->tp * l->cp * l->dp;

	if (!model_is_moe(m)) {
		if (l->ep > 1)
			FAIL("/layout/ep", "ep (%d) needs an MoE model (\"%s\" has no experts)", l->ep, m->name);
		return SC_OK;
	}
	if (m->top_k < 1 || m->moe_ffn_hidden < 1)
		FAIL("/model", "MoE model \"%s\" needs positive top_k and moe_ffn_hidden", m->name);
	if (m->experts % l->ep != 0)
		FAIL("/layout/ep", "ep (%d) must divide the model's %d experts", l->ep, m->experts);
	if (!layout_ep_folds(l->tp, l->cp, l->dp, etp, l->ep))
		FAIL("/layout/ep", "etp x ep (%lld) must divide tp x cp x dp (%lld)",
		     (long long)etp * l->ep, fold);
	if (m->moe_ffn_hidden % etp != 0)
		FAIL("/layout/etp", "etp (%d) must divide the expert FFN width %d", etp, m->moe_ffn_hidden);
	return SC_OK;
}

/* The schedule against pp, vpp and the micro-batches per step: the
 * schedule's own rule (models/schedule owns each schedule's; e.g.
 * Megatron-Core's interleaving needs m % pp == 0, DualPipe an even pp and
 * an even m >= 2 pp).  The key at fault: vpp when another vpp would do,
 * the schedule when no vpp would, the global batch when only the
 * micro-batch count is wrong. */
static enum sc_status check_schedule(const struct scenario *sc, int mb, const char *file,
				     struct sc_error *err)
{
	const struct layout *l = &sc->layout;
	char why[SC_ERROR_MSG_MAX];

	if (l->vpp > 1 && l->pp == 1)
		FAIL("/layout/vpp", "vpp (%d) needs pp > 1 (pp is %d)", l->vpp, l->pp);
	if (!err)   /* no message wanted: the rules alone */
		return sched_check(l->schedule, l->pp, l->vpp, mb, NULL, 0) ? SC_OK : SC_EINVAL;
	if (!sched_check(l->schedule, l->pp, l->vpp, 0, why, sizeof(why)))
		return fail(err, file,
			    sched_check(l->schedule, l->pp, 1, 0, NULL, 0) ||
			    sched_check(l->schedule, l->pp, 2, 0, NULL, 0) ? "/layout/vpp" : "/layout/schedule",
			    why);
	if (!sched_check(l->schedule, l->pp, l->vpp, mb, why, sizeof(why)))
		return fail(err, file, "/training/global_batch_seqs", why);
	return SC_OK;
}

/* Which split, and whether the layers fit it. */
static enum sc_status check_split(const struct scenario *sc, struct layout_info *li,
				  const char *file, struct sc_error *err)
{
	const struct layout *l = &sc->layout;
	int L = sc->model.layers, pp = l->pp, v = l->vpp;
	long long pv = (long long)pp * v;
	bool uneven = l->first_stage_layers > 0 || l->last_stage_layers > 0;
	enum sc_layer_split s = l->layer_split;

	if (pp > L)
		FAIL("/layout/pp", "pp (%d) is more than the model's %d layers", pp, L);
	if (pv > L + 2LL)
		FAIL("/layout/vpp", "pp x vpp (%lld) is more than the model's %d layers + 2 (embedding and loss slots)",
		     pv, L);
	li->first_layers = li->last_layers = -1;
	li->mid_layers = 0;
	if (uneven && s != SPLIT_AUTO && s != SPLIT_UNEVEN)
		FAIL("/layout/layer_split",
		     "first_stage_layers / last_stage_layers need layer_split uneven (or none), not %s",
		     layer_split_name(s));
	if (s == SPLIT_UNEVEN && !uneven)
		FAIL("/layout/layer_split", "layer_split uneven needs first_stage_layers or last_stage_layers");
	if (pp == 1) {
		if (uneven)
			FAIL("/layout/first_stage_layers", "first/last_stage_layers need pp > 1 (pp is 1)");
		li->split = SPLIT_EVEN;
		return SC_OK;
	}
	if (uneven && (l->schedule == SCHED_ZB_V || l->schedule == SCHED_DUALPIPE))
		FAIL("/layout/first_stage_layers",
		     "first/last_stage_layers are Megatron-Core's, for its 1f1b and interleaved-1f1b schedules; %s places its stages itself",
		     schedule_name(l->schedule));
	if (uneven) {
		int f = l->first_stage_layers, la = l->last_stage_layers;
		int given = (f > 0) + (la > 0), rest = L - f - la, mid = pp - given;

		if (f % v != 0 || la % v != 0)
			FAIL("/layout/first_stage_layers",
			     "first/last_stage_layers (%d, %d) must be multiples of vpp (%d)", f, la, v);
		if (rest < 0 || (mid == 0 && rest != 0))
			FAIL("/layout/first_stage_layers",
			     "first/last_stage_layers (%d, %d) do not leave the model's %d layers for the other %d stages",
			     f, la, L, mid);
		if (mid > 0 && (rest % mid != 0 || (rest / mid) % v != 0 || rest / mid < v))
			FAIL("/layout/first_stage_layers",
			     "the %d layers left by first/last_stage_layers must split evenly over the other %d stages, in multiples of vpp (%d)",
			     rest, mid, v);
		li->split = SPLIT_UNEVEN;
		li->first_layers = f > 0 ? f : -1;
		li->last_layers = la > 0 ? la : -1;
		li->mid_layers = mid > 0 ? rest / mid : 0;
		return SC_OK;
	}
	if (s == SPLIT_AUTO)
		s = L % pv == 0 ? SPLIT_EVEN : (L + 2) % pv == 0 ? SPLIT_SLOTS : SPLIT_BALANCED;
	if (s == SPLIT_EVEN && L % pv != 0)
		FAIL("/layout/layer_split", "layer_split even needs the model's %d layers to be a multiple of pp x vpp (%lld)",
		     L, pv);
	if (s == SPLIT_SLOTS && (L + 2) % pv != 0)
		FAIL("/layout/layer_split",
		     "layer_split slots needs the model's %d layers + 2 to be a multiple of pp x vpp (%lld)", L, pv);
	li->split = s;
	return SC_OK;
}

static void groups(const struct scenario *sc, struct layout_info *li)
{
	const struct layout *l = &sc->layout;
	bool moe = model_is_moe(&sc->model);
	bool hsdp = li->zero >= 3 && l->fsdp_group > 0;

	li->g[LG_TP] = (struct layout_group_def){ li->tp, 1 };
	li->g[LG_CP] = (struct layout_group_def){ li->cp, li->tp };
	li->g[LG_DP] = (struct layout_group_def){ li->dense_shard, li->tp };
	li->g[LG_REPLICA] = hsdp ? (struct layout_group_def){ li->dp * li->cp / l->fsdp_group,
							      li->tp * l->fsdp_group }
				 : (struct layout_group_def){ 1, 1 };
	li->g[LG_ETP] = (struct layout_group_def){ moe ? li->etp : 1, 1 };
	li->g[LG_EP] = (struct layout_group_def){ moe ? li->ep : 1, li->etp };
	li->g[LG_EDP] = (struct layout_group_def){ li->edp, li->etp * li->ep };
	li->g[LG_PP] = (struct layout_group_def){ li->pp > 1 ? 2 : 1, li->stage_gpus };
}

enum sc_status layout_derive(const struct scenario *sc, const char *file,
			     struct layout_info *out, struct sc_error *err)
{
	const struct layout *l = &sc->layout;
	const struct training *t = &sc->training;
	struct layout_info li;
	enum sc_status st;

	if ((st = check_sizes(sc, file, err)) != SC_OK)
		return st;
	if ((st = check_dense(sc, file, err)) != SC_OK)
		return st;
	if ((st = check_moe(sc, file, err)) != SC_OK)
		return st;
	li.gpus = (long long)sc->cluster.nodes * sc->cluster.instance.gpus_per_node;
	li.micro_batches = (int)(t->global_batch_seqs / ((long long)t->micro_batch_seqs * l->dp));
	if ((st = check_schedule(sc, li.micro_batches, file, err)) != SC_OK)
		return st;
	if ((st = check_split(sc, &li, file, err)) != SC_OK)
		return st;
	li.tp = l->tp;
	li.pp = l->pp;
	li.vpp = l->vpp;
	li.dp = l->dp;
	li.cp = l->cp;
	li.ep = l->ep;
	li.layers = sc->model.layers;
	li.etp = l->etp > 0 ? l->etp : l->tp;
	li.stage_gpus = l->tp * l->cp * l->dp;
	li.edp = model_is_moe(&sc->model) ? li.stage_gpus / (li.etp * li.ep) : 1;
	li.zero = l->fsdp ? 3 : l->zero_stage;
	li.dense_shard = (li.zero >= 3 && l->fsdp_group > 0) ? l->fsdp_group : l->dp * l->cp;
	li.virtual_stages = l->pp * l->vpp;
	groups(sc, &li);
	if (out)
		*out = li;
	return SC_OK;
}


struct net_span layout_span(const struct cluster *cl, const struct layout_info *li,
			    enum layout_group g)
{
	return net_span_of(cl, li->g[g].ranks, li->g[g].stride);
}

/* ---- fix-ups (layout.h) ---- */

void layout_set_tp(struct layout *l, int tp)
{
	l->sequence_parallel = tp > 1 && (l->tp > 1 ? l->sequence_parallel : layout_sp_default(tp));
	l->tp = tp;
}

void layout_set_pipeline(struct layout *l, int pp, int vpp)
{
	l->pp = pp;
	l->vpp = pp == 1 ? 1 : vpp;
	if (!sched_check(l->schedule, l->pp, l->vpp, 0, NULL, 0))
		l->schedule = layout_schedule_default(l->vpp);
}

void layout_set_schedule(struct layout *l, enum sc_schedule s)
{
	const int tries[3] = { l->vpp, 1, 2 };

	l->schedule = s;
	for (int i = 0; i < 3; i++)
		if (sched_check(s, l->pp, tries[i], 0, NULL, 0)) {
			l->vpp = tries[i];
			return;
		}
}
