/* serve_plan.c: replica layout and count search (see serve_plan.h). */
#include "serve_plan.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../config/calibration_select.h"
#include "serve_sim.h"
#include "../../models/layout.h"
#include "../../models/limits.h"
#include "../../models/purchase.h"

/* The base scenario moved onto instance type inst (its GPU, and the GPU's
 * calibration profile unless the base's profile is for the same family). */
static enum sc_status on_instance(const struct srv_scenario *base, const struct catalog *cat,
				  const struct instance_spec *inst, struct srv_scenario *sc,
				  struct sc_error *err)
{
	const struct gpu_spec *gpu = catalog_gpu(cat, inst->gpu);
	const struct calibration *cal;

	*sc = *base;
	if (!gpu)
		return catalog_unknown(cat, "gpu", inst->gpu, NULL, NULL, err);
	sc->instance = *inst;
	sc->gpu = *gpu;
	if (!calibration_fits_gpu(&base->calibration, gpu)) {
		if (!(cal = catalog_calibration(cat, gpu->calibration)))
			return catalog_unknown(cat, "calibration", gpu->calibration, NULL, NULL, err);
		sc->calibration = *cal;
	}
	sc->disagg.prefill_replicas = sc->disagg.decode_replicas = 0;
	return SC_OK;
}

double srv_plan_slo_margin(const struct srv_plan_opts *o, const struct calibration *cal)
{
	double m = o->slo_margin_given ? o->slo_margin : cal->serve_uncertainty_rel;

	return m > 0 ? (m < 0.99 ? m : 0.99) : 0;
}

static void at_rate(struct srv_scenario *sc, double rps, const struct srv_plan_opts *o)
{
	sc->workload.arrival = SRV_ARRIVAL_POISSON;
	sc->workload.rate_rps = rps;
	sc->workload.concurrency = 0;
	sc->slo.ttft_p50_ms = sc->slo.tpot_p50_ms = 0;
	sc->slo.ttft_p99_ms = o ? o->slo_ttft_p99_ms : sc->slo.ttft_p99_ms;
	sc->slo.tpot_p99_ms = o ? o->slo_tpot_p99_ms : sc->slo.tpot_p99_ms;
}

static void fill_row(struct srv_plan_row *row, const struct srv_result *r)
{
	row->replicas = r->gpus / (row->layout.tp * row->layout.pp);
	row->gpus = r->gpus;
	row->nodes = r->nodes;
	row->usd_per_h = r->usd_per_h;
	row->usd_per_m_output_tokens = r->usd_per_m_output_tokens;
	row->usd_per_m_total_tokens = r->usd_per_m_total_tokens;
	row->ttft_p50_s = r->ttft_s.p50;
	row->ttft_p99_s = r->ttft_s.p99;
	row->tpot_p50_s = r->tpot_s.p50;
	row->tpot_p99_s = r->tpot_s.p99;
	row->e2e_p99_s = r->e2e_s.p99;
	row->output_tokens_per_s = r->output_tokens_per_s;
	row->requests_per_s = r->requests_per_s;
	row->kv_util_mean = r->kv_util_mean;
}

static void reject(struct srv_plan_row *row, const char *fmt, const char *msg)
{
	row->feasible = false;
	snprintf(row->reason, sizeof(row->reason), fmt, msg);
}

/* A fleet of more replicas than this is simulated as a shard of this many
 * with its share of the arrivals (rate x shard / n): the least-loaded
 * router pools a queue over the replicas, and beyond a few dozen servers
 * adding more changes a pooled queue's waiting-time percentiles little
 * (Halfin & Whitt 1981: the wait depends on the load through
 * (1 - rho) sqrt(n)), while the work of a whole 1,000-replica fleet at
 * 10^4 requests/s, over the window that reaches steady state, is above
 * SC_MAX_REQUESTS.  Throughput and cost are scaled back to n. */
#define SRV_PLAN_SHARD_REPLICAS 64

/* Simulate sc with n replicas of cap_rps each at rate_rps; *met says
 * whether the SLOs hold in a steady run.  A run that is stable but whose
 * window spans too few request lifetimes is rerun with the requests it
 * needs (kept in sc for the counts after it); beyond SC_MAX_REQUESTS the
 * count fails with SC_ERANGE. */
static enum sc_status try_count(struct srv_scenario *sc, int n, double rate_rps, double cap_rps,
				struct srv_result *r, bool *met, int *sims, struct sc_error *err)
{
	int k = n > SRV_PLAN_SHARD_REPLICAS ? SRV_PLAN_SHARD_REPLICAS : n;
	enum sc_status st;

	sc->replicas = k;
	sc->workload.rate_rps = rate_rps * k / n;
	for (;;) {
		(*sims)++;
		if ((st = srv_simulate(sc, r, err)) != SC_OK)
			return st;
		srv_stability(sc, cap_rps * k, r);
		if (r->steady || !r->stable || r->steady_requests <= sc->workload.requests)
			break;
		if (r->steady_requests > SC_MAX_REQUESTS)
			return sc_error_set(err, SC_ERANGE, NULL, NULL,
					    "a steady measurement at %.4g requests/s needs %d requests, above the limit of %d",
					    sc->workload.rate_rps, r->steady_requests, SC_MAX_REQUESTS);
		sc->workload.warmup_requests = (int)((double)sc->workload.warmup_requests *
						     r->steady_requests / sc->workload.requests);
		sc->workload.requests = r->steady_requests;
	}
	if (k < n) {
		/* the shard's rates and cost back to the whole fleet */
		double f = (double)n / k, tok, all;

		sc->replicas = n;
		r->gpus = n * sc->replica.tp * sc->replica.pp;
		r->nodes = srv_scenario_nodes(sc);
		r->requests_per_s *= f;
		r->output_tokens_per_s *= f;
		r->input_tokens_per_s *= f;
		r->usd_per_h = purchase_cluster_usd_per_h(&sc->instance, r->nodes,
							  purchase_default_pricing(&sc->instance));
		tok = r->output_tokens_per_s;
		all = tok + r->input_tokens_per_s;
		r->usd_per_m_output_tokens = r->cost_known && tok > 0 ? r->usd_per_h / (tok * 3600.0) * 1e6 : 0;
		r->usd_per_m_total_tokens = r->cost_known && all > 0 ? r->usd_per_h / (all * 3600.0) * 1e6 : 0;
	}
	*met = r->slo_met && r->steady;
	return SC_OK;
}

/* Search the replica count of one layout on one instance type; rep and sc
 * are the caller's scratch space. */
static void search_layout(const struct srv_scenario *base_on_inst, const struct srv_plan_opts *o,
			  struct srv_plan_row *row, struct srv_replica *rep, struct srv_scenario *sc)
{
	struct srv_replica_summary sum;
	struct srv_result r, best;
	struct sc_error err;
	enum sc_status st;
	double cap = 0, need;
	int lo, hi, n, max_n = o->max_replicas > 0 ? o->max_replicas : 1024;
	bool met = false, have = false;

	*sc = *base_on_inst;
	sc->replica = row->layout;
	if ((st = srv_replica_for(sc, &row->layout, rep, &err)) != SC_OK) {
		row->too_big = st == SC_ERANGE;
		reject(row, "%s", err.message);
		return;
	}
	srv_replica_summarize(rep, sc, &sum);
	row->decode_step_batch1_s = sum.decode_step_batch1_s;
	if (o->slo_tpot_p99_ms > 0 && sum.decode_step_batch1_s * 1e3 > o->slo_tpot_p99_ms) {
		char msg[128];
		snprintf(msg, sizeof(msg), "%.1f ms, above %.1f ms", sum.decode_step_batch1_s * 1e3,
			 o->slo_tpot_p99_ms);
		reject(row, "one decode step at batch 1 takes %s (the TPOT SLO less its margin)", msg);
		return;
	}
	/* the sustainable rate of one replica (saturated, srv_capacity) */
	sc->replicas = 1;
	row->simulations++;
	if ((st = srv_capacity(sc, &cap, &err)) != SC_OK) {
		reject(row, "%s", err.message);
		return;
	}
	row->replica_capacity_rps = cap;
	if (!(cap > 0)) {
		reject(row, "%s", "a replica completes no requests");
		return;
	}
	*sc = *base_on_inst;
	sc->replica = row->layout;
	at_rate(sc, o->target_rps, o);
	/* fewer replicas than the rate over one replica's sustainable rate
	 * cannot carry it: their queue grows without bound */
	need = ceil(o->target_rps / cap);
	if (need > max_n) {
		char msg[200];
		snprintf(msg, sizeof(msg), "%.4g requests/s needs at least %.4g replicas at %.3g requests/s each (one replica's sustainable rate), above the limit of %d",
			 o->target_rps, need, cap, max_n);
		reject(row, "%s: fewer are unstable", msg);
		return;
	}
	n = need > 1 ? (int)need : 1;
	lo = n - 1;
	hi = 0;
	while (n <= max_n) {
		if ((st = try_count(sc, n, o->target_rps, cap, &r, &met, &row->simulations, &err)) != SC_OK) {
			reject(row, "%s", err.message);
			return;
		}
		if (met) {
			hi = n;
			best = r;
			have = true;
			break;
		}
		lo = n;
		if (n == max_n)
			break;
		n = n + 1 > (int)ceil(n * 1.25) ? n + 1 : (int)ceil(n * 1.25);
		if (n > max_n)
			n = max_n;
	}
	if (!have) {
		char msg[64];
		snprintf(msg, sizeof(msg), "%d", max_n);
		reject(row, "the SLOs are not met with up to %s replicas", msg);
		return;
	}
	/* ... then bisect back to the smallest count that meets them */
	while (hi - lo > 1) {
		int mid = lo + (hi - lo) / 2;

		if ((st = try_count(sc, mid, o->target_rps, cap, &r, &met, &row->simulations, &err)) != SC_OK) {
			reject(row, "%s", err.message);
			return;
		}
		if (met) {
			hi = mid;
			best = r;
		} else {
			lo = mid;
		}
	}
	/* whole instances are paid for: give their idle GPUs replicas too
	 * (same cost, more headroom) and report the filled deployment */
	row->replicas_needed = hi;
	{
		int g = row->layout.tp * row->layout.pp, gpn = sc->instance.gpus_per_node;

		if (g <= gpn && gpn % g == 0) {
			int per = gpn / g, filled = (hi + per - 1) / per * per;

			if (filled > hi &&
			    try_count(sc, filled, o->target_rps, cap, &r, &met, &row->simulations, &err) == SC_OK && met)
				best = r;
		}
	}
	row->feasible = true;
	row->requests = sc->workload.requests;
	row->warmup_requests = sc->workload.warmup_requests;
	fill_row(row, &best);
	row->sim_replicas = row->replicas < SRV_PLAN_SHARD_REPLICAS ? row->replicas : SRV_PLAN_SHARD_REPLICAS;
}

static void plan_layout(const struct srv_scenario *base_on_inst, const struct srv_plan_opts *o,
			struct srv_plan_row *row)
{
	struct srv_replica *rep = malloc(sizeof(*rep));
	struct srv_scenario *sc = malloc(sizeof(*sc));

	if (rep && sc)
		search_layout(base_on_inst, o, row, rep, sc);
	else
		reject(row, "%s", "out of memory");
	free(rep);
	free(sc);
}

/* tp against the heads: the layout owner's rule (models/layout). */
static bool tp_valid(const struct model_arch *m, int tp)
{
	return layout_tp_fits_heads(m, tp);
}

static int add_row(struct srv_plan *p, const struct instance_spec *inst, int tp, int pp, int ep)
{
	struct srv_plan_row *row;

	if (p->n_rows >= SRV_PLAN_MAX_ROWS)
		return -1;
	row = &p->rows[p->n_rows++];
	memset(row, 0, sizeof(*row));
	snprintf(row->instance, sizeof(row->instance), "%s", inst->name);
	snprintf(row->gpu, sizeof(row->gpu), "%s", inst->gpu);
	row->layout.tp = tp;
	row->layout.pp = pp;
	row->layout.ep = ep;
	return p->n_rows - 1;
}

static void plan_instance(const struct srv_scenario *base, const struct catalog *cat,
			  const struct instance_spec *inst, const struct srv_plan_opts *o,
			  struct srv_plan *p)
{
	struct srv_scenario *scp = malloc(sizeof(*scp));
	const struct model_arch *m = &base->arch.m;
	struct srv_plan_opts mo = *o;
	double margin;
	struct sc_error err;
	int domain = inst->nvlink_domain_gpus > 0 ? inst->nvlink_domain_gpus : inst->gpus_per_node;
	int first = p->n_rows, best = -1;
	bool any_fit = false, too_big = false;

	if (!scp || on_instance(base, cat, inst, scp, &err) != SC_OK) {
		int i = add_row(p, inst, 1, 1, 1);
		if (i >= 0)
			reject(&p->rows[i], "%s", scp ? err.message : "out of memory");
		free(scp);
		return;
	}
	/* the SLOs less the margin of this instance type's calibration: the
	 * layouts below are planned against these */
	margin = srv_plan_slo_margin(o, &scp->calibration);
	mo.slo_ttft_p99_ms = o->slo_ttft_p99_ms * (1 - margin);
	mo.slo_tpot_p99_ms = o->slo_tpot_p99_ms * (1 - margin);
	o = &mo;
	for (int tp = 1; tp <= domain; tp *= 2) {
		int eps[2] = { 1, tp }, n_ep = model_is_moe(m) && tp > 1 ? 2 : 1;

		if (!tp_valid(m, tp))
			continue;
		for (int k = 0; k < n_ep; k++) {
			int i;

			if (model_is_moe(m) && m->experts % eps[k] != 0)
				continue;
			if ((i = add_row(p, inst, tp, 1, eps[k])) < 0)
				goto out;
			plan_layout(scp, o, &p->rows[i]);
			p->simulations += p->rows[i].simulations;
			if (p->rows[i].feasible || p->rows[i].replica_capacity_rps > 0)
				any_fit = true;
			too_big |= p->rows[i].too_big;
		}
	}
	/* pipeline stages across instances only when no single-domain
	 * layout holds the model */
	if (!any_fit && too_big) {
		int tp = 1;

		while (tp * 2 <= domain && tp_valid(m, tp * 2))
			tp *= 2;
		for (int pp = 2; pp <= 16 && pp <= m->layers; pp *= 2) {
			int i = add_row(p, inst, tp, pp, 1);

			if (i < 0)
				goto out;
			plan_layout(scp, o, &p->rows[i]);
			p->simulations += p->rows[i].simulations;
			if (p->rows[i].feasible)
				break;
		}
	}
	for (int i = first; i < p->n_rows; i++)
		p->rows[i].slo_margin = margin;
	for (int i = first; i < p->n_rows; i++) {
		const struct srv_plan_row *r = &p->rows[i];

		if (!r->feasible)
			continue;
		if (best < 0 || r->usd_per_h < p->rows[best].usd_per_h - 1e-9 ||
		    (fabs(r->usd_per_h - p->rows[best].usd_per_h) <= 1e-9 &&
		     (r->gpus < p->rows[best].gpus ||
		      (r->gpus == p->rows[best].gpus && r->tpot_p99_s < p->rows[best].tpot_p99_s))))
			best = i;
	}
	if (best >= 0) {
		p->rows[best].best = true;
		if (p->best < 0 || p->rows[best].usd_per_h < p->rows[p->best].usd_per_h - 1e-9)
			p->best = best;
	}
out:
	free(scp);
}

enum sc_status srv_plan(const struct srv_scenario *base, const struct catalog *cat,
			const struct srv_plan_opts *opts, struct srv_plan *out,
			struct sc_error *err)
{
	memset(out, 0, sizeof(*out));
	sc_error_clear(err);
	out->best = -1;
	out->target_rps = opts->target_rps;
	out->slo_ttft_p99_ms = opts->slo_ttft_p99_ms;
	out->slo_tpot_p99_ms = opts->slo_tpot_p99_ms;
	out->slo_margin_given = opts->slo_margin_given;
	out->slo_margin = opts->slo_margin;
	if (!(opts->target_rps > 0))
		return sc_error_set(err, SC_EINVAL, NULL, NULL, "the target rate must be positive");
	if (!(opts->slo_ttft_p99_ms > 0) && !(opts->slo_tpot_p99_ms > 0))
		return sc_error_set(err, SC_EINVAL, NULL, NULL,
				    "planning needs a p99 TTFT or TPOT objective");
	if (base->workload.arrival == SRV_ARRIVAL_TRACE)
		return sc_error_set(err, SC_EINVAL, base->file, "/workload/arrival",
				    "planning draws Poisson arrivals from the length distributions; a trace has none");
	if (opts->instances) {
		for (int i = 0; opts->instances[i]; i++) {
			const struct instance_spec *in = catalog_instance(cat, opts->instances[i]);
			if (!in)
				return catalog_unknown(cat, "instance", opts->instances[i], "--instances",
						       NULL, err);
		}
		for (int i = 0; opts->instances[i]; i++)
			plan_instance(base, cat, catalog_instance(cat, opts->instances[i]), opts, out);
	} else {
		for (int i = 0; i < cat->n_instances; i++)
			plan_instance(base, cat, &cat->instances[i], opts, out);
	}
	return SC_OK;
}

enum sc_status srv_plan_scenario(const struct srv_scenario *base, const struct catalog *cat,
				 const struct srv_plan_row *row, double rate_rps,
				 struct srv_scenario *out, struct sc_error *err)
{
	const struct instance_spec *inst = catalog_instance(cat, row->instance);
	enum sc_status st;

	if (!inst)
		return catalog_unknown(cat, "instance", row->instance, NULL, NULL, err);
	if ((st = on_instance(base, cat, inst, out, err)) != SC_OK)
		return st;
	out->replica = row->layout;
	out->replicas = row->replicas > 0 ? row->replicas : 1;
	if (row->requests > 0) {
		/* the requests its steady run needed, for the whole fleet */
		double f = row->sim_replicas > 0 ? (double)out->replicas / row->sim_replicas : 1;
		double n = row->requests * f, w = row->warmup_requests * f;

		out->workload.requests = n < SC_MAX_REQUESTS ? (int)n : SC_MAX_REQUESTS;
		out->workload.warmup_requests = (int)(w < out->workload.requests ? w : out->workload.requests / 10);
	}
	at_rate(out, rate_rps, NULL);
	return SC_OK;
}

enum sc_status srv_check_rate(const struct srv_scenario *sc, double sustainable_rps, double frac,
			      struct srv_result *out, struct sc_error *err)
{
	struct srv_scenario *c = malloc(sizeof(*c));
	enum sc_status st = SC_OK;

	if (!c)
		return sc_error_set(err, SC_ENOMEM, NULL, NULL, "out of memory");
	*c = *sc;
	c->workload.arrival = SRV_ARRIVAL_POISSON;
	c->workload.rate_rps = frac * sustainable_rps;
	c->workload.concurrency = 0;
	for (int tries = 0; tries < 4; tries++) {
		if ((st = srv_simulate(c, out, err)) != SC_OK)
			break;
		srv_stability(c, sustainable_rps, out);
		if (out->steady || !out->stable || out->steady_requests <= c->workload.requests ||
		    c->workload.requests >= SC_MAX_REQUESTS)
			break;
		c->workload.warmup_requests = (int)((double)c->workload.warmup_requests *
						    out->steady_requests / c->workload.requests);
		c->workload.requests = out->steady_requests < SC_MAX_REQUESTS ? out->steady_requests
									       : SC_MAX_REQUESTS;
		if (c->workload.warmup_requests >= c->workload.requests)
			c->workload.warmup_requests = c->workload.requests / 10;
	}
	free(c);
	return st;
}

enum sc_status srv_pick_layout(struct srv_scenario *sc, char *why, size_t why_n,
			       struct sc_error *err)
{
	struct srv_scenario *c = malloc(sizeof(*c));
	struct srv_replica *rep = malloc(sizeof(*rep));
	struct srv_result *r = malloc(sizeof(*r));
	const struct model_arch *m = &sc->arch.m;
	int gpus = sc->layout_gpus, pp = sc->replica.pp > 0 ? sc->replica.pp : 1;
	int domain = sc->instance.nvlink_domain_gpus > 0 ? sc->instance.nvlink_domain_gpus
							 : sc->instance.gpus_per_node;
	int tried = 0, fit = 0;
	bool have = false, best_ok = false;
	double best_cap = 0;
	struct srv_layout best = { 0 };
	struct sc_error e;
	enum sc_status st = SC_OK;

	if (!c || !rep || !r) {
		free(c); free(rep); free(r);
		return sc_error_set(err, SC_ENOMEM, NULL, NULL, "out of memory");
	}
	for (int tp = 1; tp <= domain && tp * pp <= gpus; tp *= 2) {
		int eps[2] = { sc->replica.ep > 1 ? sc->replica.ep : 1, tp }, n_ep = 1;
		bool open = sc->workload.arrival == SRV_ARRIVAL_POISSON ||
			    sc->workload.arrival == SRV_ARRIVAL_TRACE;

		if (gpus % (tp * pp) != 0 || !layout_tp_fits_heads(m, tp) ||
		    gpus / (tp * pp) > SC_MAX_REPLICAS)
			continue;
		if (model_is_moe(m) && sc->replica.ep <= 1 && tp > 1 && m->experts % tp == 0)
			n_ep = 2;
		for (int k = 0; k < n_ep; k++) {
			double cap = 0;
			bool ok;

			if (eps[k] > tp || tp % eps[k] != 0)
				continue;
			*c = *sc;
			c->layout_gpus = 0;
			c->replica.tp = tp;
			c->replica.pp = pp;
			c->replica.ep = model_is_moe(m) ? eps[k] : 1;
			c->replicas = gpus / (tp * pp);
			tried++;
			if (srv_replica_for(c, &c->replica, rep, &e) != SC_OK)
				continue;
			/* the capacity once: srv_simulate_checked would run the
			 * saturated simulation again */
			if (srv_capacity(c, &cap, &e) != SC_OK || srv_simulate(c, r, &e) != SC_OK)
				continue;
			srv_stability(c, cap, r);
			fit++;
			ok = (!r->slo_given || r->slo_met) && (!open || r->stable);
			if (!have || (ok && !best_ok) || (ok == best_ok && cap > best_cap * (1 + 1e-9))) {
				have = true;
				best_ok = ok;
				best_cap = cap;
				best = c->replica;
			}
		}
	}
	if (!have) {
		st = sc_error_set(err, SC_ERANGE, sc->file, "/replica",
				  "no layout of %d GPUs holds %s (%d tried)", gpus, m->name, tried);
	} else {
		sc->replica = best;
		sc->replicas = gpus / (best.tp * best.pp);
		snprintf(sc->layout_note, sizeof(sc->layout_note), "not stated: %d x (tp %d pp %d ep %d) chosen of %d layouts of %d GPUs that hold the model (%s, then the highest sustainable rate, %.4g requests/s)",
				 sc->replicas, best.tp, best.pp, best.ep, fit, gpus,
				 !(sc->slo.ttft_p99_ms > 0 || sc->slo.tpot_p99_ms > 0 || sc->slo.ttft_p50_ms > 0 ||
				   sc->slo.tpot_p50_ms > 0) ? (best_ok ? "stable" : "none is stable")
				 : best_ok ? "meets the SLOs" : "none meets the SLOs",
				 best_cap);
		if (why)
			snprintf(why, why_n, "%s", sc->layout_note);
	}
	free(c); free(rep); free(r);
	return st;
}

enum sc_status srv_max_rate(const struct srv_scenario *sc, double *rate, struct srv_result *at,
			    struct sc_error *err)
{
	struct srv_result *r = malloc(sizeof(*r));
	double cap = 0, lo = 0, hi;
	enum sc_status st;

	*rate = 0;
	memset(at, 0, sizeof(*at));
	if (!r)
		return sc_error_set(err, SC_ENOMEM, NULL, NULL, "out of memory");
	if (!(sc->slo.ttft_p99_ms > 0) && !(sc->slo.tpot_p99_ms > 0) && !(sc->slo.ttft_p50_ms > 0) &&
	    !(sc->slo.tpot_p50_ms > 0)) {
		free(r);
		return sc_error_set(err, SC_EINVAL, sc->file, "/slo",
				    "the largest rate that meets the objectives needs an objective");
	}
	if ((st = srv_capacity(sc, &cap, err)) != SC_OK) {
		free(r);
		return st;
	}
	hi = cap;
	/* the sustainable rate itself is unstable; so the top of the bracket
	 * never meets them, and the answer stays below it */
	for (int i = 0; i < 40 && hi - lo > SRV_MAX_RATE_REL_TOL * hi; i++) {
		double mid = lo > 0 ? 0.5 * (lo + hi) : 0.5 * hi;

		if ((st = srv_check_rate(sc, cap, mid / cap, r, err)) != SC_OK)
			break;
		if (r->steady && r->slo_met) {
			lo = mid;
			*at = *r;
		} else {
			hi = mid;
		}
	}
	free(r);
	if (st != SC_OK)
		return st;
	*rate = lo;
	return SC_OK;
}

enum sc_status srv_curve(const struct srv_scenario *sc, const double *rates_rps, int n,
			 const char *label, struct srv_curve *out, struct sc_error *err)
{
	struct srv_scenario *sp = malloc(sizeof(*sp));
	struct srv_result r;
	enum sc_status st = SC_OK;

	memset(out, 0, sizeof(*out));
	if (!sp)
		return sc_error_set(err, SC_ENOMEM, NULL, NULL, "out of memory");
	snprintf(out->label, sizeof(out->label), "%s", label);
	if (n > SRV_CURVE_MAX_POINTS)
		n = SRV_CURVE_MAX_POINTS;
	for (int i = 0; i < n; i++) {
		*sp = *sc;
		sp->workload.arrival = SRV_ARRIVAL_POISSON;
		sp->workload.rate_rps = rates_rps[i];
		sp->workload.concurrency = 0;
		if ((st = srv_simulate(sp, &r, err)) != SC_OK)
			break;
		out->pt[out->n].rate_rps = rates_rps[i];
		out->pt[out->n].output_tokens_per_s = r.output_tokens_per_s;
		out->pt[out->n].ttft_p99_s = r.ttft_s.p99;
		out->pt[out->n].tpot_p99_s = r.tpot_s.p99;
		out->pt[out->n].slo_met = r.slo_met;
		out->n++;
	}
	free(sp);
	return st;
}
