/* plan.c: node-count sweeps, deadline plans and instance comparisons (see
 * plan.h). */
#include "plan.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../models/gpu.h"
#include "../../models/limits.h"
#include "../../models/placement.h"

void plan_opts_default(struct plan_opts *o)
{
	memset(o, 0, sizeof(*o));
	o->pricing = PRICING_ON_DEMAND;
	o->confidence = PLAN_DEFAULT_CONFIDENCE;
}

double plan_confidence(const struct plan_opts *o)
{
	return o->confidence > 0 && o->confidence < 1 ? o->confidence : PLAN_DEFAULT_CONFIDENCE;
}

void plan_result_free(struct plan_result *res)
{
	free(res->points);
	memset(res, 0, sizeof(*res));
	res->chosen = -1;
}

const struct plan_point *plan_chosen(const struct plan_result *res)
{
	return res->chosen >= 0 && res->chosen < res->n_points ? &res->points[res->chosen] : NULL;
}

static int cmp_int(const void *a, const void *b)
{
	int x = *(const int *)a, y = *(const int *)b;

	return (x > y) - (x < y);
}

/* The node counts to evaluate, ascending and distinct, into out
 * (PLAN_MAX_SWEEP + 1 entries); returns how many.  unit: instances per
 * purchase unit (models/purchase.h); the ladder counts whole units and
 * stays inside the largest cluster (models/limits.h). */
static int sweep_of(const struct plan_opts *o, int unit, int gpus_per_node, int *out)
{
	int n = 0, k = 0;

	for (int i = 0; i < o->n_sweep && n < PLAN_MAX_SWEEP; i++)
		if (o->sweep[i] > 0)
			out[n++] = o->sweep[i];
	if (o->nodes > 0)
		out[n++] = o->nodes;
	if (n == 0) {
		/* 1, 2, 3, 4, 6, 8, 12, ...: powers of two and 1.5 x them, the
		 * cluster sizes a global batch of 2^k sequences divides */
		int max = o->max_nodes > 0 ? o->max_nodes : PLAN_DEFAULT_MAX_NODES;

		/* the ladder stays inside the largest cluster (models/limits.h);
		 * an explicit --nodes or --sweep past it is an error (search) */
		if (gpus_per_node > 0 && max > SC_MAX_GPUS / gpus_per_node)
			max = SC_MAX_GPUS / gpus_per_node;
		max = max / unit > 0 ? max / unit : 1;   /* in units: at least one */
		for (long long p = 1; p <= max && n < PLAN_MAX_SWEEP; p *= 2) {
			out[n++] = (int)p * unit;
			if (p >= 2 && p * 3 / 2 <= max && n < PLAN_MAX_SWEEP)
				out[n++] = (int)(p * 3 / 2) * unit;
		}
	}
	qsort(out, (size_t)n, sizeof(int), cmp_int);
	for (int i = 0; i < n; i++)
		if (k == 0 || out[i] != out[k - 1])
			out[k++] = out[i];
	return k;
}

/* The time to train with r's step time at quantile q of its band: every
 * part of the step (and so the step) times the band's factor, through the
 * time-to-train hook.  The time to train grows with the step time, so this
 * is the time to train's own quantile q. */
static double time_at_quantile_s(const struct scenario *s, const struct step_result *r,
				 const struct model_band *b, double tokens, double q)
{
	struct step_result x = *r;
	struct plan_train t;
	double f = model_band_factor(b, q);

	x.step_time_s *= f;
	for (int i = 0; i < PART_COUNT; i++)
		x.part_s[i] *= f;
	x.tokens_per_s /= f;
	x.tokens_per_s_per_gpu /= f;
	plan_time_to_train(s, &x, tokens, 0, &t);
	return t.time_s;
}

/* Time and cost of the point's best layout under every pricing model (the
 * layout predicted again in full, so that the time-to-train hook sees the
 * whole step_result), and the time to train's quantiles from the step
 * time's band (its calibration's, models/uncertainty.h). */
static enum sc_status point_train(const struct scenario *sc, struct plan_point *pt, double tokens,
				  double confidence, struct sc_error *err)
{
	struct scenario *s = malloc(sizeof(*s));
	struct step_result r;
	enum sc_status st;

	if (!s)
		return sc_error_set(err, SC_ENOMEM, NULL, NULL, "out of memory");
	search_row_scenario(sc, &pt->best, s);
	st = sim_step_predict(s, &r, err);
	for (int p = 0; st == SC_OK && p < PRICING_COUNT; p++) {
		double usd_h = plan_cluster_usd_per_h(&sc->cluster.instance, sc->cluster.nodes,
						      (enum plan_pricing)p);

		plan_time_to_train(s, &r, tokens, usd_h, &pt->train[p]);
	}
	if (st == SC_OK) {
		enum model_regime regime;

		pt->band = sim_step_band(s, &r, &regime);
		pt->regime = (int)regime;
		pt->time_q_s.p10 = time_at_quantile_s(s, &r, &pt->band, tokens, 0.10);
		pt->time_q_s.p50 = time_at_quantile_s(s, &r, &pt->band, tokens, 0.50);
		pt->time_q_s.p90 = time_at_quantile_s(s, &r, &pt->band, tokens, 0.90);
		pt->time_conf_s = time_at_quantile_s(s, &r, &pt->band, tokens, confidence);
	}
	free(s);
	return st;
}

/* An UltraServer-only instance is bought in whole UltraServers: a node count
 * the user names (--nodes, --sweep) must be a multiple of its size, so that a
 * plan never shows a cluster that cannot be bought (and never charges for
 * nodes it does not use). */
static enum sc_status check_whole_units(const struct instance_spec *inst, const struct plan_opts *o,
					struct sc_error *err)
{
	const struct ultraserver_spec *u = purchase_unit(inst);

	for (int i = -1; u && i < o->n_sweep; i++) {
		int c = i < 0 ? o->nodes : o->sweep[i];

		if (c > 0 && c % u->instances != 0)
			return sc_error_set(err, SC_EINVAL, NULL, i < 0 ? "/cluster/nodes" : "--sweep",
					    "instance \"%s\" is sold only as whole %s UltraServers of %d "
					    "instances: %d nodes is not a whole number of them (use %d)",
					    inst->name, u->name, u->instances, c,
					    purchase_round_nodes(inst, c));
	}
	return SC_OK;
}

/* The pool's first n instances (--placement at n nodes). */
static enum sc_status pool_slice(const struct placement *pool, int n, struct placement *out, struct sc_error *err)
{
	int *idx = malloc((size_t)n * sizeof(*idx));
	enum sc_status st;

	if (!idx)
		return sc_error_set(err, SC_ENOMEM, NULL, NULL, "out of memory");
	for (int i = 0; i < n; i++)
		idx[i] = i;
	st = placement_subset(pool, idx, n, pool->source, out, err);
	free(idx);
	return st;
}

/* The fastest layout at s's node count and its time and cost to train. */
static enum sc_status point_at(const struct scenario *s, const struct search_opts *so, struct search_result *sr,
			       const struct plan_opts *o, struct plan_point *pt, struct sc_error *err)
{
	enum sc_status st = search_run(s, so, sr, err);

	if (st != SC_OK)
		return st;
	pt->layouts = sr->stats.layouts;
	pt->feasible = sr->n_rows > 0;
	if (!pt->feasible)
		return SC_OK;
	pt->best = sr->rows[0];
	if ((st = point_train(s, pt, o->tokens, plan_confidence(o), err)) != SC_OK)
		return st;
	/* at the plan's confidence (P90 by default): a point prediction
	 * that meets the deadline by less than the model's error does not */
	pt->meets_deadline = o->deadline_s > 0 && pt->time_conf_s <= o->deadline_s;
	return SC_OK;
}

enum sc_status plan_run(const struct scenario *sc, const struct plan_opts *o,
			struct plan_result *res, struct sc_error *err)
{
	int counts[PLAN_MAX_SWEEP + 1], n;
	struct scenario *s;
	struct search_opts so;
	struct search_result sr;
	struct placement slice;
	enum sc_status st = SC_OK;

	memset(res, 0, sizeof(*res));
	res->chosen = -1;
	sc_error_clear(err);
	if (!(o->tokens > 0))
		return sc_error_set(err, SC_EINVAL, NULL, "/training/tokens_to_train",
				    "a plan needs a token budget (training.tokens_to_train or --tokens)");
	if ((st = plan_check_pricing(&sc->cluster.instance, o->pricing, err)) != SC_OK ||
	    (st = check_whole_units(&sc->cluster.instance, o, err)) != SC_OK)
		return st;
	n = sweep_of(o, purchase_unit_nodes(&sc->cluster.instance), sc->cluster.instance.gpus_per_node,
		     counts);
	res->points = calloc((size_t)n, sizeof(*res->points));
	s = malloc(sizeof(*s));
	if (!res->points || !s) {
		free(s);
		return sc_error_set(err, SC_ENOMEM, NULL, NULL, "out of memory");
	}
	res->n_points = n;
	search_opts_default(&so);
	so.space = o->space;
	so.objective = SEARCH_TIME_TO_TRAIN;
	so.top = 1;
	so.tokens = o->tokens;
	so.pricing = o->pricing;
	if ((st = search_result_init(&sr, 1, err)) != SC_OK) {
		free(s);
		return st;
	}
	*s = *sc;
	for (int i = 0; i < n && st == SC_OK; i++) {
		struct plan_point *pt = &res->points[i];

		s->cluster.nodes = counts[i];
		pt->nodes = counts[i];
		pt->gpus = scenario_gpus(s);
		sr.n_rows = 0;
		memset(&sr.stats, 0, sizeof(sr.stats));
		if (o->pool && counts[i] > o->pool->nodes)
			continue; /* the placement has fewer instances: not planned */
		if (o->pool && (st = pool_slice(o->pool, counts[i], &slice, err)) != SC_OK)
			break;
		if (o->pool)
			s->cluster.placement = &slice;
		st = point_at(s, &so, &sr, o, pt, err);
		if (o->pool) {
			placement_free(&slice);
			s->cluster.placement = sc->cluster.placement;
		}
	}
	search_result_free(&sr);
	free(s);
	if (st != SC_OK)
		return st;

	/* the choice */
	if (o->nodes > 0) {
		for (int i = 0; i < n; i++)
			if (res->points[i].nodes == o->nodes && res->points[i].feasible)
				res->chosen = i;
		res->choice = res->chosen >= 0 ? PLAN_CHOSEN_NODES : PLAN_INFEASIBLE;
		return SC_OK;
	}
	if (plan_pick_cheapest(res, o->deadline_s > 0, o->pricing, plan_confidence(o)) >= 0) {
		res->choice = PLAN_CHOSEN_DEADLINE;
		return SC_OK;
	}
	/* nothing meets the deadline: the fastest */
	for (int i = 0; i < n; i++) {
		const struct plan_point *pt = &res->points[i];

		if (pt->feasible && (res->chosen < 0 || pt->train[o->pricing].time_s <
				     res->points[res->chosen].train[o->pricing].time_s))
			res->chosen = i;
	}
	res->choice = res->chosen >= 0 ? PLAN_MISSED_DEADLINE : PLAN_INFEASIBLE;
	return SC_OK;
}

/* ---- the cheapest, ties inside the band ------------------------------------- */

int plan_pick_cheapest(struct plan_result *res, bool need_deadline, enum plan_pricing pricing,
		       double confidence)
{
	const struct plan_point *pc;
	double best_cost = 0;

	res->chosen = res->point_cheapest = -1;
	res->n_tied = 0;
	for (int i = 0; i < res->n_points; i++) {
		const struct plan_point *pt = &res->points[i];
		double cost = pt->train[pricing].usd_total;

		if (!pt->feasible || (need_deadline && !pt->meets_deadline))
			continue;
		if (res->point_cheapest < 0 || cost < best_cost) {
			res->point_cheapest = i;
			best_cost = cost;
		}
	}
	if (res->point_cheapest < 0)
		return -1;
	/* the one decision rule: a count whose cost is inside the
	 * point-cheapest one's band is a tie (the cost's band is the step
	 * time's: the price is known); two counts are two predictions (rho 0) */
	pc = &res->points[res->point_cheapest];
	for (int i = 0; i < res->n_points; i++) {
		const struct plan_point *pt = &res->points[i];

		if (!pt->feasible || (need_deadline && !pt->meets_deadline))
			continue;
		if (i != res->point_cheapest &&
		    model_band_order(&pc->band, best_cost, &pt->band, pt->train[pricing].usd_total, 0.0,
				     confidence) == MODEL_ORDER_LESS)
			continue;
		res->tied[res->n_tied++] = i;
	}
	/* PLAN_TIE_BREAK: fewer nodes, then faster */
	res->chosen = res->tied[0];
	for (int k = 1; k < res->n_tied; k++) {
		const struct plan_point *a = &res->points[res->tied[k]], *b = &res->points[res->chosen];

		if (a->nodes < b->nodes || (a->nodes == b->nodes && a->train[pricing].time_s < b->train[pricing].time_s))
			res->chosen = res->tied[k];
	}
	return res->chosen;
}

/* ---- compare ------------------------------------------------------------------- */

void compare_result_free(struct compare_result *res)
{
	for (int i = 0; i < res->n && res->entries; i++)
		plan_result_free(&res->entries[i].plan);
	free(res->entries);
	memset(res, 0, sizeof(*res));
}

void compare_entry_describe(struct compare_entry *e, const struct scenario *sc)
{
	e->instance = sc->cluster.instance;
	snprintf(e->gpu, sizeof(e->gpu), "%s", sc->cluster.gpu.name);
	snprintf(e->calibration, sizeof(e->calibration), "%s", sc->calibration.name);
	e->precision = sc->training.precision;
	e->uncertainty_rel = sc->calibration.uncertainty_rel;
}

enum sc_status compare_retarget(const struct scenario *sc, const struct catalog *cat,
				const struct instance_spec *inst, struct scenario *out,
				struct compare_entry *e, struct sc_error *err)
{
	const struct gpu_spec *gpu = catalog_gpu(cat, inst->gpu);
	enum gpu_dtype dt;

	*out = *sc;
	if (!gpu)
		return catalog_unknown(cat, "gpu", inst->gpu, NULL, NULL, err);
	out->cluster.instance = *inst;
	out->cluster.gpu = *gpu;
	if (strcmp(sc->calibration.gpu_family, gpu->family) != 0 ||
	    strcmp(sc->cluster.gpu.name, gpu->name) != 0) {
		const struct calibration *cal = catalog_calibration(cat, gpu->calibration);

		if (!cal)
			return catalog_unknown(cat, "calibration", gpu->calibration, NULL, NULL, err);
		if (strcmp(cal->name, sc->calibration.name) != 0)
			out->calibration = *cal;
	}
	if (gpu_training_dtype(gpu, sc->training.precision, &dt, NULL) != SC_OK) {
		snprintf(e->note, sizeof(e->note), "bf16: %s has no %s tensor cores", gpu->name,
			 precision_name(sc->training.precision));
		out->training.precision = PREC_BF16;
	}
	compare_entry_describe(e, out);
	return SC_OK;
}

/* Index of the best and second best entries by key (lower wins), over
 * entries with a chosen point; -1 when absent. */
static void rank2(const struct compare_result *res, int pricing, bool by_time, bool only_meeting,
		  int *best, int *second)
{
	*best = *second = -1;
	for (int i = 0; i < res->n; i++) {
		const struct plan_point *pt = plan_chosen(&res->entries[i].plan);
		double k;

		if (!pt || (only_meeting && res->entries[i].plan.choice != PLAN_CHOSEN_DEADLINE))
			continue;
		k = by_time ? pt->train[0].time_s : pt->train[pricing].usd_total;
		if (!by_time && !(pt->train[pricing].usd_per_h > 0))
			continue;   /* not offered under this pricing */
		if (*best < 0) {
			*best = i;
			continue;
		}
		{
			const struct plan_point *b = plan_chosen(&res->entries[*best].plan);
			double kb = by_time ? b->train[0].time_s : b->train[pricing].usd_total;

			if (k < kb) {
				*second = *best;
				*best = i;
			} else if (*second < 0) {
				*second = i;
			} else {
				const struct plan_point *s2 = plan_chosen(&res->entries[*second].plan);
				double ks = by_time ? s2->train[0].time_s : s2->train[pricing].usd_total;

				if (k < ks)
					*second = i;
			}
		}
	}
}

double compare_error_correlation(const struct compare_result *res, int a, int b)
{
	const struct compare_entry *ea = &res->entries[a], *eb = &res->entries[b];
	const struct plan_point *pa = plan_chosen(&ea->plan), *pb = plan_chosen(&eb->plan);

	/* the layout is the search's choice from the same space: an equal step
	 * time on the same GPU, profile and node count is the same step */
	if (!pa || !pb || strcmp(ea->gpu, eb->gpu) != 0 || strcmp(ea->calibration, eb->calibration) != 0 ||
	    ea->precision != eb->precision || pa->nodes != pb->nodes ||
	    fabs(pa->best.step_time_s - pb->best.step_time_s) > 1e-9 * pa->best.step_time_s)
		return 0.0;
	return 1.0;
}

/* The entries (other than the winner w) that w is not surely ahead of at
 * confidence c, by time or by cost under pricing, among those rank2
 * considered; into out (COMPARE_MAX_INSTANCES), returns how many.  Cost
 * shares the time's band: the price per hour is known. */
static int tied_with(const struct compare_result *res, int w, int pricing, bool by_time,
		     bool only_meeting, double c, int *out)
{
	const struct plan_point *pw;
	double kw;
	int n = 0;

	if (w < 0)
		return 0;
	pw = plan_chosen(&res->entries[w].plan);
	kw = by_time ? pw->train[0].time_s : pw->train[pricing].usd_total;
	for (int i = 0; i < res->n; i++) {
		const struct plan_point *pt = plan_chosen(&res->entries[i].plan);
		double k;

		if (i == w || !pt || (only_meeting && res->entries[i].plan.choice != PLAN_CHOSEN_DEADLINE))
			continue;
		if (!by_time && !(pt->train[pricing].usd_per_h > 0))
			continue;
		k = by_time ? pt->train[0].time_s : pt->train[pricing].usd_total;
		if (model_band_order(&pw->band, kw, &pt->band, k, compare_error_correlation(res, w, i),
				     c) != MODEL_ORDER_LESS)
			out[n++] = i;
	}
	return n;
}

/* The smallest count of units on the sweep ladder (1, 2, 3, 4, 6, 8, 12,
 * ...: sweep_of's) holding nodes, for a scaling point of an UltraServer-only
 * kind: 256 nodes -> 16 x 18 = 288, where plain rounding up gives 15
 * UltraServers, a count no power-of-two global batch divides. */
static int ladder_units(int nodes, int unit)
{
	int need = (nodes + unit - 1) / unit;

	for (long long p = 1;; p *= 2) {
		if (p >= need)
			return (int)p;
		if (p >= 2 && p * 3 / 2 >= need)
			return (int)(p * 3 / 2);
	}
}

/* Append a sentence to an entry's note. */
static void note_add(struct compare_entry *e, const char *text)
{
	size_t len = strlen(e->note);

	snprintf(e->note + len, sizeof(e->note) - len, "%s%s", len ? "; " : "", text);
}

/* What one entry of a comparison can be bought as.  Not sold under the
 * compared pricing: planned under the option it has (its own cost shows
 * under that pricing, and the decision under the compared one leaves it
 * out), said in the note.  UltraServer-only: the compared node count and
 * the user's --sweep counts rounded up to whole UltraServers, said in the
 * note; the default scaling points go to the ladder's UltraServer counts
 * (the sweep drops duplicates). */
static void compare_purchase(struct compare_entry *e, struct plan_opts *eo, bool user_sweep)
{
	bool rounded = false;

	const struct ultraserver_spec *u = purchase_unit(&e->instance);
	char buf[COMPARE_NOTE_MAX];

	if (!purchase_offered(&e->instance, eo->pricing)) {
		enum plan_pricing has = purchase_default_pricing(&e->instance);

		snprintf(buf, sizeof(buf), "not sold %s: planned and priced %s, left out of the %s ranking",
			 eo->pricing == PRICING_ON_DEMAND ? "on demand" : "in capacity blocks",
			 plan_pricing_name(has), plan_pricing_name(eo->pricing));
		note_add(e, buf);
		eo->pricing = has;
	}
	if (!u)
		return;
	if (eo->nodes > 0 && eo->nodes % u->instances != 0) {
		snprintf(buf, sizeof(buf), "%d nodes: whole %s UltraServers of %d (asked %d)",
			 purchase_round_nodes(&e->instance, eo->nodes), u->name, u->instances, eo->nodes);
		note_add(e, buf);
		eo->nodes = purchase_round_nodes(&e->instance, eo->nodes);
	}
	for (int i = 0; i < eo->n_sweep; i++) {
		int c = user_sweep ? purchase_round_nodes(&e->instance, eo->sweep[i])
				   : ladder_units(eo->sweep[i], u->instances) * u->instances;

		rounded |= c != eo->sweep[i];
		eo->sweep[i] = c;
	}
	if (rounded && user_sweep) {
		snprintf(buf, sizeof(buf), "--sweep counts rounded up to whole %s UltraServers", u->name);
		note_add(e, buf);
	}
}

enum sc_status compare_run(const struct scenario *sc, const struct catalog *cat,
			   const char *const *names, int n, const struct plan_opts *o,
			   struct compare_result *res, struct sc_error *err)
{
	struct scenario *s;
	struct plan_opts po = *o;
	enum sc_status st = SC_OK;
	int base = o->nodes > 0 ? o->nodes : sc->cluster.nodes;

	memset(res, 0, sizeof(*res));
	sc_error_clear(err);
	if (n < 1 || n > COMPARE_MAX_INSTANCES)
		return sc_error_set(err, SC_EINVAL, NULL, NULL,
				    "compare takes 1 to %d instance types (got %d)", COMPARE_MAX_INSTANCES, n);
	for (int i = 0; i < n; i++) {
		if (!catalog_instance(cat, names[i]))
			return catalog_unknown(cat, "instance", names[i], "--instances", NULL, err);
		for (int j = 0; j < i; j++)
			if (strcmp(names[i], names[j]) == 0)
				return sc_error_set(err, SC_EINVAL, "--instances", NULL,
						    "instance \"%s\" is listed twice", names[i]);
	}
	if (o->deadline_s > 0) {
		po.nodes = 0;        /* each instance at its own count */
	} else {
		po.nodes = base;
	}
	if (po.n_sweep == 0 && o->deadline_s <= 0) {
		/* the scaling points around the compared count (with a deadline:
		 * plan_run's ladder, up to o->max_nodes) */
		static const double f[] = { 0.125, 0.25, 0.5, 1, 2, 4 };

		for (size_t i = 0; i < sizeof(f) / sizeof(f[0]); i++) {
			int c = (int)floor(base * f[i]);

			if (c >= 1)
				po.sweep[po.n_sweep++] = c;
		}
	}
	res->entries = calloc((size_t)n, sizeof(*res->entries));
	s = malloc(sizeof(*s));
	if (!res->entries || !s) {
		free(s);
		return sc_error_set(err, SC_ENOMEM, NULL, NULL, "out of memory");
	}
	res->n = n;
	for (int i = 0; i < n && st == SC_OK; i++) {
		struct compare_entry *e = &res->entries[i];
		struct plan_opts eo = po;

		e->plan.chosen = -1;
		st = compare_retarget(sc, cat, catalog_instance(cat, names[i]), s, e, err);
		if (st != SC_OK)
			break;
		compare_purchase(e, &eo, o->n_sweep > 0);
		st = plan_run(s, &eo, &e->plan, err);
		if (st != SC_OK && err && !err->file[0])
			snprintf(err->file, sizeof(err->file), "%s", names[i]);
	}
	free(s);
	if (st != SC_OK)
		return st;
	/* with a deadline, the cheapest among those that meet it (when any does) */
	{
		bool any = false;

		for (int i = 0; i < n; i++)
			any |= res->entries[i].plan.choice == PLAN_CHOSEN_DEADLINE;
		double c = plan_confidence(o);

		res->confidence = c;
		rank2(res, 0, true, false, &res->fastest, &res->fastest_runner_up);
		res->n_fastest_tied = tied_with(res, res->fastest, 0, true, false, c, res->fastest_tied);
		for (int p = 0; p < PRICING_COUNT; p++) {
			rank2(res, p, false, o->deadline_s > 0 && any, &res->cheapest[p],
			      &res->cheapest_runner_up[p]);
			res->n_cheapest_tied[p] = tied_with(res, res->cheapest[p], p, false,
							    o->deadline_s > 0 && any, c,
							    res->cheapest_tied[p]);
		}
	}
	return SC_OK;
}

int compare_pareto(const struct compare_result *res, enum plan_pricing p,
		   struct compare_ref *out, int max)
{
	int n = 0;

	for (int e = 0; e < res->n; e++) {
		const struct plan_result *pr = &res->entries[e].plan;

		for (int i = 0; i < pr->n_points; i++) {
			const struct plan_point *a = &pr->points[i];
			bool dominated = false;

			if (!a->feasible || !(a->train[p].usd_per_h > 0))
				continue;
			for (int f = 0; f < res->n && !dominated; f++) {
				const struct plan_result *q = &res->entries[f].plan;

				for (int j = 0; j < q->n_points && !dominated; j++) {
					const struct plan_point *b = &q->points[j];

					if ((f == e && j == i) || !b->feasible || !(b->train[p].usd_per_h > 0))
						continue;
					if (b->train[p].time_s <= a->train[p].time_s &&
					    b->train[p].usd_total <= a->train[p].usd_total &&
					    (b->train[p].time_s < a->train[p].time_s ||
					     b->train[p].usd_total < a->train[p].usd_total))
						dominated = true;
				}
			}
			if (dominated || n >= max)
				continue;
			/* insert by time (then entry, point) */
			{
				int k = n++;

				while (k > 0) {
					const struct compare_ref *r = &out[k - 1];
					const struct plan_point *b = &res->entries[r->entry].plan.points[r->point];

					if (b->train[p].time_s <= a->train[p].time_s)
						break;
					out[k] = out[k - 1];
					k--;
				}
				out[k].entry = e;
				out[k].point = i;
			}
		}
	}
	return n;
}
