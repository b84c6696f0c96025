/* search.c: layout enumeration, memory pruning and ranking (see search.h). */
#include "search.h"

#include "../../models/layout.h"
#include "../../models/schedule.h"

#include <stdlib.h>
#include <string.h>

SC_ENUM_DEFINE(search_objective_name, enum search_objective,
	       search_objective_names, SEARCH_OBJECTIVE_LIST)

bool search_objective_parse(const char *s, enum search_objective *out)
{
	int i = sc_enum_parse(search_objective_names, s);

	return i >= 0 ? (*out = (enum search_objective)i, true) : false;
}

void search_opts_default(struct search_opts *o)
{
	memset(o, 0, sizeof(*o));
	o->objective = SEARCH_TOKENS_PER_S;
	o->top = 10;
	o->shard = 0;
	o->shards = 1;
	o->pricing = PRICING_ON_DEMAND;
	o->min_headroom_bytes = -1;
	o->confidence = MODEL_DECISION_CONFIDENCE;
}

enum sc_status search_result_init(struct search_result *res, int top, struct sc_error *err)
{
	memset(res, 0, sizeof(*res));
	if (top < 1)
		return sc_error_set(err, SC_EINVAL, NULL, NULL, "top must be at least 1 (got \"%d\")", top);
	res->rows = calloc((size_t)top, sizeof(*res->rows));
	if (!res->rows)
		return sc_error_set(err, SC_ENOMEM, NULL, NULL, "out of memory for %d result rows", top);
	res->cap = top;
	return SC_OK;
}

void search_result_free(struct search_result *res)
{
	free(res->rows);
	memset(res, 0, sizeof(*res));
}

double search_score(enum search_objective o, double tokens_per_s, double usd_per_mtoken,
		    double time_to_train_s)
{
	switch (o) {
	case SEARCH_TOKENS_PER_S: return -tokens_per_s;
	case SEARCH_USD_PER_TOKEN: return usd_per_mtoken;
	case SEARCH_TIME_TO_TRAIN: return time_to_train_s;
	case SEARCH_OBJECTIVE_COUNT: break;
	}
	return 0;
}

/* The ranking: objective, then enumeration order (a total order, so that
 * shards merge into exactly the unsharded result). */
static bool better(const struct search_row *a, const struct search_row *b)
{
	if (a->score != b->score)
		return a->score < b->score;
	return a->index < b->index;
}

void search_offer(struct search_result *res, const struct search_row *row)
{
	int i;

	if (res->cap < 1)
		return;
	if (res->n_rows == res->cap && !better(row, &res->rows[res->n_rows - 1]))
		return;
	i = res->n_rows < res->cap ? res->n_rows++ : res->n_rows - 1;
	while (i > 0 && better(row, &res->rows[i - 1])) {
		res->rows[i] = res->rows[i - 1];
		i--;
	}
	res->rows[i] = *row;
}

void search_sort(struct search_result *res)
{
	/* insertion sort: a few hundred rows at most */
	for (int i = 1; i < res->n_rows; i++) {
		struct search_row r = res->rows[i];
		int j = i;

		while (j > 0 && better(&r, &res->rows[j - 1])) {
			res->rows[j] = res->rows[j - 1];
			j--;
		}
		res->rows[j] = r;
	}
}

void search_row_scenario(const struct scenario *sc, const struct search_row *row,
			 struct scenario *out)
{
	*out = *sc;
	out->layout = row->layout;
	out->training.micro_batch_seqs = row->micro_batch_seqs;
	out->training.recompute = row->recompute;
}

enum sc_status search_band_rows(const struct scenario *sc, struct search_result *res,
				struct sc_error *err)
{
	/* a scenario and a step result are large: one of each, on the heap */
	struct scenario *rs = malloc(sizeof(*rs));
	struct step_result *r = calloc(1, sizeof(*r));

	if (!rs || !r) {
		free(rs);
		free(r);
		return sc_error_set(err, SC_ENOMEM, NULL, NULL, "out of memory");
	}
	for (int i = 0; i < res->n_rows; i++) {
		search_row_scenario(sc, &res->rows[i], rs);
		r->step_time_s = res->rows[i].step_time_s;
		res->rows[i].band = sim_step_band(rs, r, NULL);
	}
	free(rs);
	free(r);
	return SC_OK;
}

double search_row_decided(enum search_objective o, const struct search_row *row)
{
	switch (o) {
	case SEARCH_USD_PER_TOKEN:
		return row->train.tokens > 0 ? row->train.usd_per_mtoken : row->usd_per_mtoken;
	case SEARCH_TIME_TO_TRAIN:
		return row->train.time_s;
	case SEARCH_TOKENS_PER_S:
	case SEARCH_OBJECTIVE_COUNT:
		break;
	}
	return row->step_time_s;
}

int search_mark_ties(struct search_result *res, enum search_objective o, double c)
{
	int ties = 0;

	if (!(c > 0 && c < 1))
		c = MODEL_DECISION_CONFIDENCE;
	for (int i = 0; i < res->n_rows; i++) {
		const struct search_row *b = &res->rows[0];
		struct search_row *r = &res->rows[i];

		r->tie_with_best = i > 0 &&
				   model_band_order(&b->band, search_row_decided(o, b), &r->band,
						    search_row_decided(o, r), 0.0, c) == MODEL_ORDER_TIE;
		ties += r->tie_with_best;
	}
	return ties;
}

/* ---- the enumeration ------------------------------------------------------------ */

void search_space_resolve(const struct scenario *sc, const struct search_space *in,
			  struct search_space *out)
{
	int domain = sc->cluster.instance.nvlink_domain_gpus > 0
		     ? sc->cluster.instance.nvlink_domain_gpus
		     : sc->cluster.instance.gpus_per_node;

	out->max_tp = in->max_tp > 0 ? in->max_tp : domain;
	out->max_cp = in->max_cp > 0 ? in->max_cp : SEARCH_DEFAULT_MAX_CP;
	out->max_pp = in->max_pp > 0 ? in->max_pp : sc->model.layers;
	out->max_vpp = in->max_vpp > 0 ? in->max_vpp : sc->model.layers;
	out->max_ep = in->max_ep > 0 ? in->max_ep : (sc->model.experts > 0 ? sc->model.experts : 1);
	out->max_micro_batch = in->max_micro_batch > 0 ? in->max_micro_batch
			       : sc->training.global_batch_seqs;
	out->recompute_mask = in->recompute_mask ? in->recompute_mask : 0x7u;
	out->zero_mask = in->zero_mask ? in->zero_mask : 0xfu;
	out->schedule_mask = in->schedule_mask ? in->schedule_mask
			     : SEARCH_ALL_SCHEDULES & ~(1u << SCHED_GPIPE);
}

/* TP inside one NVLink domain, dividing the query heads, and the key/value
 * heads and TP dividing one another (replicated KV heads), as Megatron-LM
 * requires; MLA has no KV heads to split. */
static bool tp_ok(const struct scenario *sc, int tp, int gpus, int domain)
{
	return gpus % tp == 0 && domain % tp == 0 && layout_tp_fits_heads(&sc->model, tp);
}

/* Context parallelism in load-balanced chunks (2 cp chunks of the
 * sequence) and, with sequence parallelism, seq / cp divisible by tp
 * (models/layout). */
static bool cp_ok(const struct scenario *sc, int tp, int cp, int gpus)
{
	return (gpus / tp) % cp == 0 && layout_cp_fits_seq(sc->training.seq_len, tp, cp, tp > 1);
}

/* More than any int has (1344 for 32-bit integers). */
#define SEARCH_MAX_DIVISORS 2048

/* The divisors of n up to max, ascending, into out (SEARCH_MAX_DIVISORS
 * entries); returns how many. */
static int divisors(int n, int max, int *out)
{
	int small[SEARCH_MAX_DIVISORS], ns = 0, k = 0;

	for (long long d = 1; d * d <= n && ns < SEARCH_MAX_DIVISORS; d++)
		if (n % d == 0)
			small[ns++] = (int)d;
	for (int i = 0; i < ns; i++)
		if (small[i] <= max)
			out[k++] = small[i];
	for (int i = ns - 1; i >= 0 && k < SEARCH_MAX_DIVISORS; i--) {
		int e = n / small[i];

		if (e != small[i] && e <= max)
			out[k++] = e;
	}
	return k;
}

struct walker {
	const struct search_opts *o;
	struct search_space sp;   /* resolved */
	struct scenario sc;        /* the candidate, mutated in place */
	struct step_prep prep;
	struct step_pipe_memo memo; /* the exact pipeline of the last layout timed exactly */
	struct layout_info li;     /* the candidate's, from the layout owner */
	bool prepared;
	long long index;           /* next layout's enumeration index */
	int mbs[SEARCH_MAX_DIVISORS]; /* micro-batch sizes: divisors of the global batch */
	int n_mbs;
	int pps[SEARCH_MAX_DIVISORS]; /* pipeline sizes of the current tp, cp */
	int n_pps;
	int *n_vpps, *vpp_at, *vpps;  /* vpp_table() */
	double usd_per_h;          /* the cluster's, under o->pricing */
	double tokens;
	struct search_result *res;
};

/* The closed form of a pipeline schedule is exact for equal chunks and
 * free sends.  The exact step (STEP_EXACT_PIPELINE) adds what the sends
 * expose, and with unequal chunks it can be shorter than the closed form,
 * by at most sched_closed_form_slack() (models/schedule).  A layout whose
 * closed-form step, that much faster, would not enter the ranking does not
 * enter it when timed exactly (tests/unit/test_search.c checks the bound
 * over every pipelined layout of two spaces). */
static bool could_rank(const struct walker *w, const struct step_result *r)
{
	const struct search_row *worst;
	double opt_tps;

	if (w->res->n_rows < w->res->cap)
		return true;
	worst = &w->res->rows[w->res->n_rows - 1];
	opt_tps = r->tokens_per_s / (1.0 - sched_closed_form_slack(w->sc.layout.schedule));
	switch (w->o->objective) {
	case SEARCH_TOKENS_PER_S:
		return -opt_tps < worst->score;
	case SEARCH_USD_PER_TOKEN:
	case SEARCH_TIME_TO_TRAIN:
		/* both grow with the step time on the search's one cluster:
		 * the row's tokens/s orders them as well */
		return opt_tps > worst->tokens_per_s;
	case SEARCH_OBJECTIVE_COUNT:
		break;
	}
	return true;
}

/* One layout (its shape fields and pp/vpp/dp/zero already set). */
static void visit(struct walker *w)
{
	struct step_result r;
	struct search_row row;
	struct plan_train tr;
	long long idx = w->index++;
	double usd_mtok, score;

	if (idx % w->o->shards != w->o->shard)
		return;
	w->res->stats.layouts++;
	if (!w->prepared) {
		if (sim_step_prepare(&w->sc, &w->prep, NULL) != SC_OK) {
			w->res->stats.rejected++;
			return;
		}
		w->prepared = true;
		w->memo.valid = false;   /* the pipeline's part; the straggler stretch holds for the search */
		w->res->stats.shapes++;
	}
	if (sim_step_finish_memo(&w->sc, &w->prep, &w->li, STEP_STOP_IF_OOM, &w->memo, &r, NULL) != SC_OK) {
		w->res->stats.rejected++;
		return;
	}
	if (r.oom) {
		w->res->stats.oom++;
		return;
	}
	{
		double need = w->o->min_headroom_bytes >= 0 ? w->o->min_headroom_bytes
							   : SEARCH_DEFAULT_HEADROOM * r.mem_capacity_bytes;

		if (r.mem_capacity_bytes - r.mem_total_bytes < need) {
			w->res->stats.oom++;
			return;
		}
	}
	/* screen with the schedule's closed form, then time exactly
	 * (STEP_EXACT_PIPELINE: the schedule replayed with every chunk's own
	 * times and the sends, as predict does) only what could still enter
	 * the ranking */
	if (w->sc.layout.pp > 1) {
		if (!could_rank(w, &r)) {
			w->res->stats.predicted++;
			return;
		}
		if (sim_step_finish_memo(&w->sc, &w->prep, &w->li, STEP_EXACT_PIPELINE, &w->memo, &r,
					 NULL) != SC_OK) {
			w->res->stats.rejected++;
			return;
		}
	}
	w->res->stats.predicted++;
	if (!(r.tokens_per_s > 0)) {
		w->res->stats.rejected++;
		return;
	}
	usd_mtok = w->usd_per_h / 3600.0 / r.tokens_per_s * 1e6;
	/* throughput needs no time to train to rank: skip the hook for a
	 * layout that will not be kept */
	if (w->o->objective == SEARCH_TOKENS_PER_S && w->res->n_rows == w->res->cap &&
	    !(-r.tokens_per_s < w->res->rows[w->res->n_rows - 1].score))
		return;
	memset(&tr, 0, sizeof(tr));
	if (w->tokens > 0)
		plan_time_to_train(&w->sc, &r, w->tokens, w->usd_per_h, &tr);
	score = search_score(w->o->objective, r.tokens_per_s,
			     w->tokens > 0 ? tr.usd_per_mtoken : usd_mtok, tr.time_s);
	if (w->res->n_rows == w->res->cap) {
		const struct search_row *worst = &w->res->rows[w->res->n_rows - 1];

		if (!(score < worst->score))   /* ties keep the earlier index */
			return;
	}
	memset(&row, 0, sizeof(row));
	row.index = idx;
	row.layout = w->sc.layout;
	row.micro_batch_seqs = w->sc.training.micro_batch_seqs;
	row.recompute = w->sc.training.recompute;
	row.step_time_s = r.step_time_s;
	row.tokens_per_s = r.tokens_per_s;
	row.mfu = r.mfu;
	memcpy(row.part_s, r.part_s, sizeof(row.part_s));
	row.mem_total_bytes = r.mem_total_bytes;
	row.mem_capacity_bytes = r.mem_capacity_bytes;
	row.bottleneck = r.bottleneck;
	row.micro_batches = r.micro_batches;
	row.bubble_fraction = r.bubble_fraction;
	row.train = tr;
	row.usd_per_mtoken = usd_mtok;
	row.score = score;
	search_offer(w->res, &row);
}

/* The layouts of one shape (tp, cp, ep, etp, micro-batch, recompute): pp
 * (w->pps, the divisors of gpus / (tp cp)), then vpp, then the ZeRO stage. */
static void walk_shape(struct walker *w, int gpus)
{
	struct scenario *sc = &w->sc;
	struct layout *l = &sc->layout;
	const struct model_arch *m = &sc->model;
	int tp = l->tp, cp = l->cp;
	int etp = l->etp > 0 ? l->etp : tp;
	int rest = gpus / (tp * cp);

	w->prepared = false;
	for (int pi = 0; pi < w->n_pps; pi++) {
		int pp = w->pps[pi], dp = rest / pp;

		/* two of the layout owner's rules, hoisted out of the vpp,
		 * schedule and ZeRO loops (it checks them again per layout) */
		if (!layout_dp_fits_batch(&sc->training, dp))
			continue;
		if (model_is_moe(m) && !layout_ep_folds(tp, cp, dp, etp, l->ep))
			continue;
		/* vpp 1, then the interleavings the frameworks accept (w->vpps);
		 * for each, every schedule of the space (the schedule's own
		 * rule decides which run with this pp, vpp and micro-batch
		 * count: models/schedule, through models/layout) */
		for (int vi = -1; vi < w->n_vpps[pp]; vi++) {
			int v = vi < 0 ? 1 : w->vpps[w->vpp_at[pp] + vi];

			for (int sch = 0; sch < SEARCH_SCHEDULES; sch++) {
			if (!(w->sp.schedule_mask & (1u << sch)))
				continue;
			if (pp == 1 && sch != SCHED_1F1B)
				continue;   /* one stage: every schedule is the same */
			for (int z = 0; z <= 3; z++) {
				if (!(w->sp.zero_mask & (1u << z)))
					continue;
				l->pp = pp;
				l->vpp = v;
				l->dp = dp;
				l->schedule = (enum sc_schedule)sch;
				l->zero_stage = z;
				l->fsdp = z == 3;
				l->fsdp_group = 0;
				l->layer_split = SPLIT_AUTO;
				l->first_stage_layers = 0;
				l->last_stage_layers = 0;
				/* only what the frameworks accept (models/layout:
				 * e.g. interleaving with micro-batches not a
				 * multiple of pp) is a layout of the space */
				if (layout_derive(sc, NULL, &w->li, NULL) != SC_OK)
					continue;
				visit(w);
			}
			}
		}
	}
}

/* For every pp in 2..L, the vpp > 1 the frameworks accept: every vpp with
 * pp x vpp <= L + 2 (up to max_vpp), since a layer split that is not even
 * is an explicit pipeline layout with the embedding and the loss in slots
 * (models/layout.h, SPLIT_BALANCED; Megatron-Core
 * --pipeline-model-parallel-layout), into one array: sum over pp of
 * (L + 2) / pp entries, O(L log L). */
static enum sc_status vpp_table(struct walker *w, int L, int max_vpp, struct sc_error *err)
{
	long long total = 0;
	int n = 0;

	for (int pp = 2; pp <= L; pp++)
		total += (L + 2) / pp;
	w->n_vpps = calloc((size_t)L + 1, sizeof(int));
	w->vpp_at = calloc((size_t)L + 1, sizeof(int));
	w->vpps = calloc((size_t)total + 1, sizeof(int));
	if (!w->n_vpps || !w->vpp_at || !w->vpps)
		return sc_error_set(err, SC_ENOMEM, NULL, NULL, "out of memory");
	for (int pp = 2; pp <= L; pp++) {
		w->vpp_at[pp] = n;
		for (int v = 2; v <= max_vpp && (long long)pp * v <= L + 2LL; v++) {
			w->vpps[n++] = v;
			w->n_vpps[pp]++;
		}
	}
	return SC_OK;
}

static void walker_free(struct walker *w)
{
	free(w->n_vpps);
	free(w->vpp_at);
	free(w->vpps);
	free(w);
}

enum sc_status search_run(const struct scenario *sc, const struct search_opts *o,
			  struct search_result *res, struct sc_error *err)
{
	struct walker *w;
	const struct model_arch *m = &sc->model;
	const struct instance_spec *inst = &sc->cluster.instance;
	int gpus;
	int domain = inst->nvlink_domain_gpus > 0 ? inst->nvlink_domain_gpus : inst->gpus_per_node;
	int gb = sc->training.global_batch_seqs;
	enum gpu_dtype dt;
	enum sc_status st;

	sc_error_clear(err);
	if (o->shards < 1 || o->shard < 0 || o->shard >= o->shards)
		return sc_error_set(err, SC_EINVAL, NULL, NULL,
				    "shard %d/%d is out of range (want 0 <= K < N)", o->shard, o->shards);
	if (res->cap < 1 || !res->rows)
		return sc_error_set(err, SC_EINVAL, NULL, NULL, "result not initialised");
	if (o->objective == SEARCH_TIME_TO_TRAIN && !(o->tokens > 0))
		return sc_error_set(err, SC_EINVAL, NULL, "/training/tokens_to_train",
				    "objective time_to_train needs a token budget (training.tokens_to_train or --tokens)");
	if ((st = plan_check_pricing(inst, o->pricing, err)) != SC_OK)
		return st;
	if ((st = layout_cluster_gpus(sc, NULL, &gpus, err)) != SC_OK)
		return st;
	if (gpus < 1 || m->layers < 1 || m->heads < 1 || gb < 1 || sc->training.seq_len < 1)
		return sc_error_set(err, SC_EINVAL, NULL, NULL,
				    "the scenario needs GPUs, layers, heads, a global batch and a sequence length");
	st = gpu_training_dtype(&sc->cluster.gpu, sc->training.precision, &dt, err);
	if (st != SC_OK)
		return st;

	w = malloc(sizeof(*w));
	if (!w)
		return sc_error_set(err, SC_ENOMEM, NULL, NULL, "out of memory");
	memset(w, 0, sizeof(*w));
	w->o = o;
	w->res = res;
	w->sc = *sc;
	w->usd_per_h = plan_cluster_usd_per_h(inst, sc->cluster.nodes, o->pricing);
	w->tokens = o->tokens;
	search_space_resolve(sc, &o->space, &w->sp);
	w->n_mbs = divisors(gb, w->sp.max_micro_batch, w->mbs);
	st = vpp_table(w, m->layers, w->sp.max_vpp, err);
	if (st != SC_OK) {
		walker_free(w);
		return st;
	}

	/* Order: tp, cp, ep, etp, micro-batch, recompute (the shape), then pp,
	 * vpp, ZeRO stage (walk_shape).  Changing it renumbers the layouts,
	 * which only matters to shards of one sweep (all from one binary). */
	for (int tp = 1; tp <= w->sp.max_tp && tp <= domain; tp++) {
		/* how far: the TP sizes walked of those there are (coarse, cheap) */
		sc_progress_report(o->progress, tp - 1, w->sp.max_tp < domain ? w->sp.max_tp : domain);
		if (!tp_ok(sc, tp, gpus, domain))
			continue;
		for (int cp = 1; cp <= w->sp.max_cp && cp <= gpus / tp; cp++) {
			if (!cp_ok(sc, tp, cp, gpus))
				continue;
			w->n_pps = divisors(gpus / (tp * cp),
					    w->sp.max_pp < m->layers ? w->sp.max_pp : m->layers, w->pps);
			int max_ep = model_is_moe(m) ? w->sp.max_ep : 1;

			for (int ep = 1; ep <= max_ep && ep <= gpus; ep++) {
				if (model_is_moe(m) && m->experts % ep != 0)
					continue;
				/* expert tensor parallelism: none (1) or the dense TP */
				for (int ei = 0; ei < (model_is_moe(m) && tp > 1 ? 2 : 1); ei++) {
					int etp = ei == 0 ? 1 : tp;

					if (!model_is_moe(m))
						etp = 0;    /* the scenario default: = tp */
					else if (m->moe_ffn_hidden % etp != 0)
						continue;
					for (int di = 0; di < w->n_mbs; di++) {
						int mb = w->mbs[di];

						for (int rc = 0; rc <= RECOMPUTE_FULL; rc++) {
							if (!(w->sp.recompute_mask & (1u << rc)))
								continue;
							w->sc.layout.tp = tp;
							w->sc.layout.cp = cp;
							w->sc.layout.ep = ep;
							w->sc.layout.etp = etp;
							w->sc.layout.sequence_parallel = layout_sp_default(tp);
							w->sc.training.micro_batch_seqs = mb;
							w->sc.training.recompute = (enum sc_recompute)rc;
							walk_shape(w, gpus);
						}
					}
				}
			}
		}
	}
	walker_free(w);
	return SC_OK;
}
