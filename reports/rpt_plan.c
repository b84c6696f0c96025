/* rpt_plan.c: plan and comparison renderers: text, JSON, CSV, Markdown
 * (the HTML one is rpt_html.c).  See rpt_plan.h. */
#include "rpt_plan.h"

#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "../sim/config/cfg_json.h"
#include "../sim/config/scenario_load.h"
#include "rpt_plan_int.h"
#include "rpt_util.h"
#include "../sim/config/rpt_num.h" /* after cJSON: output numbers checked */
#include "../models/units.h"


const char *rpt_layout_str(const struct search_row *row, char *buf, size_t n)
{
	const struct layout *l = &row->layout;

	/* with a pipeline, its schedule (the search tries several) */
	snprintf(buf, n, "tp%d cp%d pp%d vpp%d dp%d ep%d mb%d %s zero%d%s%s", l->tp, l->cp, l->pp, l->vpp,
		 l->dp, l->ep, row->micro_batch_seqs, recompute_name(row->recompute),
		 l->fsdp ? 3 : l->zero_stage, l->pp > 1 ? " " : "",
		 l->pp > 1 ? schedule_name(l->schedule) : "");
	return buf;
}

/* ---- shared wording (also used by rpt_html.c) ------------------------------------ */

const char *rpt_plan_choice_text(enum plan_choice c)
{
	switch (c) {
	case PLAN_CHOSEN_NODES: return "the node count asked for";
	case PLAN_CHOSEN_DEADLINE: return "the cheapest node count that meets the deadline";
	case PLAN_MISSED_DEADLINE: return "no node count meets the deadline: the fastest";
	case PLAN_INFEASIBLE: return "no layout fits in memory at any node count";
	}
	return "";
}

void rpt_plan_basis(const struct rpt_plan_input *in, char *buf, size_t n)
{
	char d[32];
	const struct plan_opts *o = in->opts;

	if (o->deadline_s > 0) {
		char q[16];

		snprintf(buf, n, "deadline %s: each instance type at its cheapest node count that meets it "
			 "at %s (%s), else its fastest", rpt_duration(o->deadline_s, d, sizeof(d)),
			 rpt_confidence(plan_confidence(o), q, sizeof(q)), plan_pricing_name(o->pricing));
	}
	else
		snprintf(buf, n, "%d nodes of each instance type; the layout of each is the one that "
			 "trains the budget soonest", o->nodes > 0 ? o->nodes : in->sc->cluster.nodes);
}

const char *rpt_confidence(double c, char *buf, size_t n)
{
	snprintf(buf, n, "P%.3g", 100 * c);
	return buf;
}

const char *rpt_plan_time_band(const struct plan_point *p, char *buf, size_t n)
{
	char a[32], b[32], c[32];

	snprintf(buf, n, "P10 %s, P50 %s, P90 %s", rpt_duration(p->time_q_s.p10, a, sizeof(a)),
		 rpt_duration(p->time_q_s.p50, b, sizeof(b)), rpt_duration(p->time_q_s.p90, c, sizeof(c)));
	return buf;
}

bool rpt_plan_tie_text(const struct rpt_plan_input *in, const struct compare_entry *e, char *buf,
		       size_t n)
{
	const struct plan_result *pl = &e->plan;
	size_t k;

	if (n)
		buf[0] = '\0';
	if (pl->choice != PLAN_CHOSEN_DEADLINE || pl->n_tied < 2 || n == 0)
		return false;
	k = (size_t)snprintf(buf, n, "a tie at P%.0f of the cost band: ", 100 * plan_confidence(in->opts));
	for (int i = 0; i < pl->n_tied && k < n; i++)
		k += (size_t)snprintf(buf + k, n - k, "%s%d", i ? ", " : "", pl->points[pl->tied[i]].nodes);
	if (k < n)
		snprintf(buf + k, n - k, " nodes (point-cheapest %d); tie-break: %s",
			 pl->points[pl->point_cheapest].nodes, PLAN_TIE_BREAK);
	return true;
}

bool rpt_plan_deadline_text(const struct rpt_plan_input *in, const struct plan_point *p, char *buf,
			    size_t n)
{
	double c = plan_confidence(in->opts);
	char d[32], q[16], m[32], t[32];

	buf[0] = '\0';
	if (!(in->opts->deadline_s > 0))
		return false;
	rpt_confidence(c, q, sizeof(q));
	if (c == 0.5)
		snprintf(buf, n, "%s the %s deadline at P50 (%s)", p->meets_deadline ? "meets" : "misses",
			 rpt_duration(in->opts->deadline_s, d, sizeof(d)),
			 rpt_duration(p->time_q_s.p50, m, sizeof(m)));
	else
		snprintf(buf, n, "%s the %s deadline at %s (P50 %s, %s %s)",
			 p->meets_deadline ? "meets" : "misses",
			 rpt_duration(in->opts->deadline_s, d, sizeof(d)), q,
			 rpt_duration(p->time_q_s.p50, m, sizeof(m)), q,
			 rpt_duration(p->time_conf_s, t, sizeof(t)));
	return true;
}

/* Append to line (RPT_LINE_MAX) the entries of tied (n of them) that the
 * winner w is tied with, by time or by cost under pricing pr: "tied within
 * the model's +/-22 % band at P90 with B (141.7 days on 64 nodes, 1.10x;
 * A is faster with probability 64 %)". */
static void tied_text(const struct rpt_plan_input *in, int w, const int *tied, int n, bool by_time,
		      int pr, char *line)
{
	const struct compare_result *r = in->res;
	const struct plan_point *pw = plan_chosen(&r->entries[w].plan);
	double u = r->entries[w].uncertainty_rel;
	size_t len = strlen(line);
	char q[16];

	if (n <= 0)
		return;
	for (int i = 0; i < n; i++)
		if (r->entries[tied[i]].uncertainty_rel > u)
			u = r->entries[tied[i]].uncertainty_rel;
	len += (size_t)snprintf(line + len, len < RPT_LINE_MAX ? RPT_LINE_MAX - len : 0,
				", tied within the model's +/-%.0f %% band at %s with", 100 * u,
				rpt_confidence(r->confidence, q, sizeof(q)));
	for (int i = 0; i < n && len < RPT_LINE_MAX; i++) {
		const struct plan_point *p = plan_chosen(&r->entries[tied[i]].plan);
		double kw = by_time ? pw->train[0].time_s : pw->train[pr].usd_total;
		double k = by_time ? p->train[0].time_s : p->train[pr].usd_total;
		double prob = model_band_prob_less(&pw->band, kw, &p->band, k,
						   compare_error_correlation(r, w, tied[i]));
		char a[32];

		if (by_time)
			len += (size_t)snprintf(line + len, RPT_LINE_MAX - len,
						"%s %s (%s on %d nodes, %.2fx; %s is faster with probability %.0f %%)",
						i ? "," : "", r->entries[tied[i]].instance.name,
						rpt_duration(k, a, sizeof(a)), p->nodes, k / kw,
						r->entries[w].instance.name, 100 * prob);
		else
			len += (size_t)snprintf(line + len, RPT_LINE_MAX - len,
						"%s %s (%s, %.1f %% more; %s is cheaper with probability %.0f %%)",
						i ? "," : "", r->entries[tied[i]].instance.name,
						rpt_usd(k, a, sizeof(a)), 100 * (k / kw - 1),
						r->entries[w].instance.name, 100 * prob);
	}
}

/* The decision, one sentence per line into lines (RPT_DECISION_MAX); returns
 * how many. */
int rpt_plan_decision(const struct rpt_plan_input *in, char lines[][RPT_LINE_MAX])
{
	const struct compare_result *r = in->res;
	int k = 0;
	char a[32], b[32];

	if (r->fastest < 0) {
		snprintf(lines[k++], RPT_LINE_MAX, "no instance type can train this model: no layout fits in memory");
		return k;
	}
	{
		const struct compare_entry *e = &r->entries[r->fastest];
		const struct plan_point *p = plan_chosen(&e->plan);

		if (r->n_fastest_tied > 0) {
			snprintf(lines[k++], RPT_LINE_MAX, "fastest: %s, %s on %d nodes", e->instance.name,
				 rpt_duration(p->train[0].time_s, a, sizeof(a)), p->nodes);
		} else if (r->fastest_runner_up >= 0) {
			const struct compare_entry *e2 = &r->entries[r->fastest_runner_up];
			const struct plan_point *p2 = plan_chosen(&e2->plan);

			snprintf(lines[k++], RPT_LINE_MAX,
				 "fastest: %s, %s on %d nodes, %.2fx faster than the runner-up %s (%s on %d nodes)",
				 e->instance.name, rpt_duration(p->train[0].time_s, a, sizeof(a)), p->nodes,
				 p2->train[0].time_s / p->train[0].time_s, e2->instance.name,
				 rpt_duration(p2->train[0].time_s, b, sizeof(b)), p2->nodes);
		} else {
			snprintf(lines[k++], RPT_LINE_MAX, "fastest: %s, %s on %d nodes (the only one that fits)",
				 e->instance.name, rpt_duration(p->train[0].time_s, a, sizeof(a)), p->nodes);
		}
		tied_text(in, r->fastest, r->fastest_tied, r->n_fastest_tied, true, 0, lines[k - 1]);
	}
	if (in->opts->deadline_s > 0) {
		char names[RPT_LINE_MAX] = "";
		size_t len = 0;
		int missed = 0;

		for (int i = 0; i < r->n; i++) {
			if (r->entries[i].plan.choice != PLAN_MISSED_DEADLINE)
				continue;
			missed++;
			len += (size_t)snprintf(names + len, len < sizeof(names) ? sizeof(names) - len : 0,
						"%s%s", len ? ", " : "", r->entries[i].instance.name);
		}
		if (missed > 0 && len < sizeof(names)) {
			char q[16];

			snprintf(lines[k++], RPT_LINE_MAX, "%s %s the deadline at %s at any node count of the "
				 "sweep (shown at their fastest)", names, missed > 1 ? "miss" : "misses",
				 rpt_confidence(plan_confidence(in->opts), q, sizeof(q)));
		}
	}
	for (int pr = 0; pr < PRICING_COUNT; pr++) {
		int w = r->cheapest[pr], w2 = r->cheapest_runner_up[pr];
		const struct plan_point *p, *p2;

		if (w < 0)
			continue;
		p = plan_chosen(&r->entries[w].plan);
		if (r->n_cheapest_tied[pr] > 0) {
			snprintf(lines[k++], RPT_LINE_MAX, "cheapest %s: %s, %s",
				 plan_pricing_name((enum plan_pricing)pr), r->entries[w].instance.name,
				 rpt_usd(p->train[pr].usd_total, a, sizeof(a)));
		} else if (w2 >= 0) {
			p2 = plan_chosen(&r->entries[w2].plan);
			snprintf(lines[k++], RPT_LINE_MAX,
				 "cheapest %s: %s, %s (%.1f %% less than the runner-up %s, %s)",
				 plan_pricing_name((enum plan_pricing)pr), r->entries[w].instance.name,
				 rpt_usd(p->train[pr].usd_total, a, sizeof(a)),
				 100.0 * (1.0 - p->train[pr].usd_total / p2->train[pr].usd_total),
				 r->entries[w2].instance.name, rpt_usd(p2->train[pr].usd_total, b, sizeof(b)));
		} else {
			snprintf(lines[k++], RPT_LINE_MAX, "cheapest %s: %s, %s (the only one with such a price)",
				 plan_pricing_name((enum plan_pricing)pr), r->entries[w].instance.name,
				 rpt_usd(p->train[pr].usd_total, a, sizeof(a)));
		}
		tied_text(in, w, r->cheapest_tied[pr], r->n_cheapest_tied[pr], false, pr, lines[k - 1]);
	}
	return k;
}

/* Is (e, i) on the frontier? */
bool rpt_plan_on_pareto(const struct compare_ref *f, int nf, int e, int i)
{
	for (int k = 0; k < nf; k++)
		if (f[k].entry == e && f[k].point == i)
			return true;
	return false;
}

/* ---- text ------------------------------------------------------------------------ */

static void header_text(FILE *out, const struct rpt_plan_input *in)
{
	const struct scenario *sc = in->sc;
	char d[32];

	fprintf(out, "scenario    %s\n", sc->name);
	fprintf(out, "model       %s (%d layers, hidden %d%s)\n", sc->model.name, sc->model.layers,
		sc->model.hidden, model_is_moe(&sc->model) ? ", MoE" : "");
	fprintf(out, "training    seq %d  global batch %d  %s\n", sc->training.seq_len,
		sc->training.global_batch_seqs, precision_name(sc->training.precision));
	fprintf(out, "budget      %.4g tokens", in->opts->tokens);
	if (in->opts->deadline_s > 0)
		fprintf(out, ", deadline %s", rpt_duration(in->opts->deadline_s, d, sizeof(d)));
	fprintf(out, ", costs %s\n", plan_pricing_name(in->opts->pricing));
}

static void prices_text(FILE *out, const struct compare_result *r)
{
	fprintf(out, "prices (USD per instance-hour, with the date each was read)\n");
	for (int i = 0; i < r->n; i++) {
		const struct instance_price *p = &r->entries[i].instance.price;
		char opts[512];

		char line[768];

		snprintf(line, sizeof(line), "%s, %s, read %s", rpt_price_options(p, opts, sizeof(opts)),
			 p->region, p->date);
		fprintf(out, "  %-18s ", r->entries[i].instance.name);
		rpt_wrap(out, 21, "            ", line, 100);
		fputs("    source: ", out);
		rpt_wrap(out, 12, "            ", p->source, 100);
		for (int k = 0; k < p->n_ultraservers; k++) {
			fprintf(out, "    %s (read %s): ", p->ultraservers[k].name, p->ultraservers[k].date);
			rpt_wrap(out, 4 + strlen(p->ultraservers[k].name) + 10 + strlen(p->ultraservers[k].date),
				 "            ", p->ultraservers[k].source, 100);
		}
	}
}

static void notes_text(FILE *out, const struct rpt_plan_input *in)
{
	const struct compare_result *r = in->res;

	fprintf(out, "notes\n");
	for (int i = 0; i < r->n; i++) {
		const struct compare_entry *e = &r->entries[i];
		const struct plan_point *p = plan_chosen(&e->plan);

		fprintf(out, "  %-18s calibration %s (step times +/- %.0f %%)%s%s", e->instance.name,
			e->calibration, e->uncertainty_rel * 100, e->note[0] ? "; " : "", e->note);
		if (p)
			fprintf(out, "; goodput %.0f %%", p->train[0].goodput * 100);
		fputc('\n', out);
	}
	fprintf(out, "  time to train = budget / throughput / goodput (sim/plan/cost.c, plan_time_to_train)\n");
}

static void point_row_text(FILE *out, const struct compare_entry *e, const struct plan_point *p,
			   bool name)
{
	char lay[96], t[32], od[32], cb[32];

	if (name)
		fprintf(out, "%-18s %-10s ", e->instance.name, e->gpu);
	if (!p->feasible) {
		fprintf(out, "%5d  %-61s\n", p->nodes, "no layout fits in memory");
		return;
	}
	const struct plan_train *o = &p->train[PRICING_ON_DEMAND], *c = &p->train[PRICING_CAPACITY_BLOCK];
	char mt[32];

	rpt_per_mtoken_if(o->usd_per_h, o->usd_per_mtoken, "-", mt, sizeof(mt));
	fprintf(out, "%5d  %-61s %7.3f %12.5g %6.1f  %-15s %13s %10s %10s %8s\n", p->nodes,
		rpt_layout_str(&p->best, lay, sizeof(lay)), p->best.step_time_s, p->best.tokens_per_s,
		p->best.mfu * 100, bottleneck_name(p->best.bottleneck),
		rpt_duration(p->train[0].time_s, t, sizeof(t)),
		rpt_usd_if(o->usd_per_h, o->usd_total, "-", od, sizeof(od)),
		rpt_usd_if(c->usd_per_h, c->usd_total, "-", cb, sizeof(cb)), mt);
}

static const char *point_head = "nodes  layout                                                         step s     tokens/s  MFU %  "
				"bottleneck      time to train  on-demand  cap-block  $/M tok\n";

static void text(FILE *out, const struct rpt_plan_input *in)
{
	const struct compare_result *r = in->res;
	char basis[256], lines[RPT_DECISION_MAX][RPT_LINE_MAX];
	int nd;

	header_text(out, in);
	if (!in->compare) {
		const struct compare_entry *e = &r->entries[0];
		const struct plan_point *p = plan_chosen(&e->plan);
		char lay[96], a[32], band[RPT_LINE_MAX];

		fprintf(out, "instance    %s (%d x %s), fabric %s\n", e->instance.name,
			e->instance.gpus_per_node, e->gpu, in->sc->cluster.fabric.name);
		if (!p) {
			fprintf(out, "plan        %s\n", rpt_plan_choice_text(e->plan.choice));
		} else {
			fprintf(out, "plan        %d nodes (%d GPUs): %s\n", p->nodes, p->gpus,
				rpt_plan_choice_text(e->plan.choice));
			if (rpt_plan_tie_text(in, e, band, sizeof(band))) {
				fputs("tie         ", out);
				rpt_wrap(out, 12, "            ", band, 100);
			}
			fprintf(out, "layout      %s\n", rpt_layout_str(&p->best, lay, sizeof(lay)));
			fprintf(out, "step        %.4g s, %.4g tokens/s, MFU %.1f %%, memory %.1f of %.1f GiB, "
				"bottleneck %s\n", p->best.step_time_s, p->best.tokens_per_s, p->best.mfu * 100,
				p->best.mem_total_bytes / SC_GiB_BYTES, p->best.mem_capacity_bytes / SC_GiB_BYTES,
				bottleneck_name(p->best.bottleneck));
			fprintf(out, "time        %s wall-clock, %.4g steps, goodput %.0f %% (+/- %.0f %% from "
				"the step time)\n", rpt_duration(p->train[0].time_s, a, sizeof(a)),
				p->train[0].steps, p->train[0].goodput * 100, e->uncertainty_rel * 100);
			fprintf(out, "band        %s (the step time's band, regime %s, calibration %s)\n",
				rpt_plan_time_band(p, band, sizeof(band)),
				p->regime == REGIME_COUNT ? "none" : model_regime_name((enum model_regime)p->regime),
				e->calibration);
			if (rpt_plan_deadline_text(in, p, band, sizeof(band)))
				fprintf(out, "deadline    %s\n", band);
			for (int pr = 0; pr < PRICING_COUNT; pr++) {
				const struct plan_train *t = &p->train[pr];

				char buy[192];

				if (!(t->usd_per_h > 0)) {
					char line[320];

					snprintf(line, sizeof(line), "%s: not offered for %s (%s)",
						 plan_pricing_name((enum plan_pricing)pr), e->instance.name,
						 rpt_price_options(&e->instance.price, buy, sizeof(buy)));
					fputs("cost        ", out);
					rpt_wrap(out, 12, "            ", line, 100);
					continue;
				}
				fprintf(out, "cost        %s: %s ($%.4g per million tokens; %s)\n",
					plan_pricing_name((enum plan_pricing)pr),
					rpt_usd(t->usd_total, a, sizeof(a)), t->usd_per_mtoken,
					rpt_purchase(&e->instance, p->nodes, (enum plan_pricing)pr, buy, sizeof(buy)));
			}
			fprintf(out, "gpu-hours   %.4g\n", p->train[0].gpu_hours);
		}
		fprintf(out, "\nsweep (best layout at each node count)\n%s", point_head);
		for (int i = 0; i < e->plan.n_points; i++) {
			const struct plan_point *q = &e->plan.points[i];

			point_row_text(out, e, q, false);
		}
		fputc('\n', out);
		notes_text(out, in);
		fputc('\n', out);
		prices_text(out, r);
		return;
	}
	rpt_plan_basis(in, basis, sizeof(basis));
	fputs("basis       ", out);
	rpt_wrap(out, 12, "            ", basis, 100);
	fprintf(out, "\n%-18s %-10s %s", "instance", "gpu", point_head);
	for (int i = 0; i < r->n; i++) {
		const struct compare_entry *e = &r->entries[i];
		const struct plan_point *p = plan_chosen(&e->plan);

		if (p) {
			point_row_text(out, e, p, true);
		} else {
			fprintf(out, "%-18s %-10s %5s  %s\n", e->instance.name, e->gpu, "-",
				rpt_plan_choice_text(e->plan.choice));
		}
	}
	nd = rpt_plan_decision(in, lines);
	fprintf(out, "\ndecision\n");
	for (int i = 0; i < nd; i++) {
		fputs("  ", out);
		rpt_wrap(out, 2, "    ", lines[i], 100);
	}
	fprintf(out, "\nscaling (best layout at each node count)\n%-18s %-10s %s", "instance", "gpu",
		point_head);
	for (int i = 0; i < r->n; i++)
		for (int k = 0; k < r->entries[i].plan.n_points; k++)
			point_row_text(out, &r->entries[i], &r->entries[i].plan.points[k], true);
	fputc('\n', out);
	notes_text(out, in);
	fputc('\n', out);
	prices_text(out, r);
}

/* ---- JSON ------------------------------------------------------------------------ */

/* A point's time to train under one pricing (sim/plan/cost.h), every
 * field written, zero or not (the budget is the plan's, written once). */
static const struct cfg_field train_fields[] = {
	CFG_F_NUM(struct plan_train, time_s, CFG_REQUIRED, "wall-clock time to train the budget"),
	CFG_F_NUM(struct plan_train, productive_s, CFG_REQUIRED, "of which steps that count"),
	CFG_F_NUM(struct plan_train, goodput, CFG_REQUIRED, "productive_s / time_s"),
	CFG_F_NUM(struct plan_train, steps, CFG_REQUIRED, "optimizer steps"),
	CFG_F_NUM(struct plan_train, gpu_hours, CFG_REQUIRED, "time_s x GPUs / 3600"),
	CFG_F_NUM(struct plan_train, usd_per_h, CFG_REQUIRED, "the cluster's price per hour (0: no price)"),
	CFG_F_NUM(struct plan_train, usd_total, CFG_REQUIRED, "usd_per_h x time_s / 3600"),
	CFG_F_NUM(struct plan_train, usd_per_mtoken, CFG_REQUIRED, "usd_total per million tokens"),
	CFG_END
};

static cJSON *train_json(const struct plan_train *t)
{
	return cfg_to_json(train_fields, t);
}

static cJSON *point_json(const struct plan_point *p, bool on_frontier)
{
	cJSON *o = cJSON_CreateObject(), *parts, *tr;

	if (!o)
		return NULL;
	cJSON_AddNumberToObject(o, "nodes", p->nodes);
	cJSON_AddNumberToObject(o, "gpus", p->gpus);
	cJSON_AddBoolToObject(o, "feasible", p->feasible);
	cJSON_AddNumberToObject(o, "layouts_searched", (double)p->layouts);
	if (!p->feasible)
		return o;
	cJSON_AddItemToObject(o, "layout", cfg_to_json(cfg_layout_fields, &p->best.layout));
	cJSON_AddNumberToObject(o, "micro_batch_seqs", p->best.micro_batch_seqs);
	cJSON_AddStringToObject(o, "recompute", recompute_name(p->best.recompute));
	cJSON_AddNumberToObject(o, "step_time_s", p->best.step_time_s);
	cJSON_AddNumberToObject(o, "tokens_per_s", p->best.tokens_per_s);
	cJSON_AddNumberToObject(o, "mfu", p->best.mfu);
	cJSON_AddNumberToObject(o, "memory_total_bytes", p->best.mem_total_bytes);
	cJSON_AddNumberToObject(o, "memory_capacity_bytes", p->best.mem_capacity_bytes);
	cJSON_AddStringToObject(o, "bottleneck", bottleneck_name(p->best.bottleneck));
	{
		struct model_quantiles q = model_band_quantiles(&p->band, p->best.step_time_s);

		cJSON_AddStringToObject(o, "uncertainty_regime", p->regime == REGIME_COUNT ? "none"
					: model_regime_name((enum model_regime)p->regime));
		cJSON_AddNumberToObject(o, "step_time_p10_s", q.p10);
		cJSON_AddNumberToObject(o, "step_time_p50_s", q.p50);
		cJSON_AddNumberToObject(o, "step_time_p90_s", q.p90);
	}
	parts = cJSON_AddObjectToObject(o, "breakdown_s");
	for (int i = 0; parts && i < PART_COUNT; i++)
		cJSON_AddNumberToObject(parts, step_part_name((enum step_part)i), p->best.part_s[i]);
	tr = cJSON_AddObjectToObject(o, "train");
	for (int i = 0; tr && i < PRICING_COUNT; i++) {
		if (p->train[i].usd_per_h > 0)
			cJSON_AddItemToObject(tr, plan_pricing_name((enum plan_pricing)i), train_json(&p->train[i]));
		else
			cJSON_AddNullToObject(tr, plan_pricing_name((enum plan_pricing)i));
	}
	cJSON_AddNumberToObject(o, "time_to_train_p10_s", p->time_q_s.p10);
	cJSON_AddNumberToObject(o, "time_to_train_p50_s", p->time_q_s.p50);
	cJSON_AddNumberToObject(o, "time_to_train_p90_s", p->time_q_s.p90);
	cJSON_AddNumberToObject(o, "time_to_train_at_confidence_s", p->time_conf_s);
	cJSON_AddBoolToObject(o, "meets_deadline", p->meets_deadline);
	cJSON_AddBoolToObject(o, "pareto", on_frontier);
	return o;
}

/* "tied_with": the names of the n entries tied with the winner of o. */
static void tied_json(cJSON *o, const struct compare_result *r, const int *tied, int n)
{
	cJSON *arr = cJSON_AddArrayToObject(o, "tied_with");

	for (int i = 0; arr && i < n; i++)
		cJSON_AddItemToArray(arr, cJSON_CreateString(r->entries[tied[i]].instance.name));
}

static cJSON *decision_json(const struct rpt_plan_input *in)
{
	const struct compare_result *r = in->res;
	cJSON *o = cJSON_CreateObject(), *c;
	char lines[RPT_DECISION_MAX][RPT_LINE_MAX];
	int nd = rpt_plan_decision(in, lines);
	cJSON *arr;

	if (!o)
		return NULL;
	cJSON_AddNumberToObject(o, "confidence", r->confidence);
	if (r->fastest >= 0) {
		cJSON *f = cJSON_AddObjectToObject(o, "fastest");

		if (f) {
			cJSON_AddStringToObject(f, "instance", r->entries[r->fastest].instance.name);
			cJSON_AddNumberToObject(f, "time_s", plan_chosen(&r->entries[r->fastest].plan)->train[0].time_s);
			tied_json(f, r, r->fastest_tied, r->n_fastest_tied);
		}
	} else {
		cJSON_AddNullToObject(o, "fastest");
	}
	if (r->fastest >= 0 && r->fastest_runner_up >= 0)
		cJSON_AddNumberToObject(o, "fastest_speedup",
					plan_chosen(&r->entries[r->fastest_runner_up].plan)->train[0].time_s /
					plan_chosen(&r->entries[r->fastest].plan)->train[0].time_s);
	c = cJSON_AddObjectToObject(o, "cheapest");
	for (int p = 0; c && p < PRICING_COUNT; p++) {
		int w = r->cheapest[p], w2 = r->cheapest_runner_up[p];
		cJSON *x;

		if (w < 0) {
			cJSON_AddNullToObject(c, plan_pricing_name((enum plan_pricing)p));
			continue;
		}
		x = cJSON_AddObjectToObject(c, plan_pricing_name((enum plan_pricing)p));
		if (!x)
			break;
		cJSON_AddStringToObject(x, "instance", r->entries[w].instance.name);
		cJSON_AddNumberToObject(x, "usd_total", plan_chosen(&r->entries[w].plan)->train[p].usd_total);
		tied_json(x, r, r->cheapest_tied[p], r->n_cheapest_tied[p]);
		if (w2 >= 0)
			cJSON_AddNumberToObject(x, "saving_vs_runner_up",
						1.0 - plan_chosen(&r->entries[w].plan)->train[p].usd_total /
						plan_chosen(&r->entries[w2].plan)->train[p].usd_total);
	}
	arr = cJSON_AddArrayToObject(o, "summary");
	for (int i = 0; arr && i < nd; i++)
		cJSON_AddItemToArray(arr, cJSON_CreateString(lines[i]));
	return o;
}

static bool json(FILE *out, const struct rpt_plan_input *in)
{
	const struct compare_result *r = in->res;
	const struct scenario *sc = in->sc;
	struct compare_ref front[256];
	int nf = compare_pareto(r, in->opts->pricing, front, 256);
	cJSON *root = cJSON_CreateObject(), *ents;
	char basis[256];

	if (!root)
		return false;
	cJSON_AddStringToObject(root, "report", in->compare ? "compare" : "plan");
	cJSON_AddStringToObject(root, "stepcast_version", STEPCAST_VERSION);
	cJSON_AddStringToObject(root, "scenario", sc->name);
	cJSON_AddStringToObject(root, "model", sc->model.name);
	cJSON_AddNumberToObject(root, "seq_len", sc->training.seq_len);
	cJSON_AddNumberToObject(root, "global_batch_seqs", sc->training.global_batch_seqs);
	cJSON_AddStringToObject(root, "precision", precision_name(sc->training.precision));
	cJSON_AddNumberToObject(root, "tokens", in->opts->tokens);
	cJSON_AddNumberToObject(root, "deadline_s", in->opts->deadline_s);
	cJSON_AddStringToObject(root, "pricing", plan_pricing_name(in->opts->pricing));
	cJSON_AddNumberToObject(root, "confidence", plan_confidence(in->opts));
	rpt_plan_basis(in, basis, sizeof(basis));
	if (in->compare)
		cJSON_AddStringToObject(root, "basis", basis);
	ents = cJSON_AddArrayToObject(root, "instances");
	for (int i = 0; ents && i < r->n; i++) {
		const struct compare_entry *e = &r->entries[i];
		cJSON *o = cJSON_CreateObject(), *pts, *price;

		if (!o)
			break;
		cJSON_AddStringToObject(o, "instance", e->instance.name);
		cJSON_AddStringToObject(o, "gpu", e->gpu);
		cJSON_AddNumberToObject(o, "gpus_per_node", e->instance.gpus_per_node);
		cJSON_AddStringToObject(o, "calibration", e->calibration);
		cJSON_AddNumberToObject(o, "uncertainty_rel", e->uncertainty_rel);
		cJSON_AddStringToObject(o, "precision", precision_name(e->precision));
		cJSON_AddStringToObject(o, "note", e->note);
		price = cfg_to_json(cfg_price_fields, &e->instance.price);
		if (price)
			cJSON_AddItemToObject(o, "price", price);
		/* the unit node counts are bought in: an UltraServer, or one instance */
		if (purchase_unit(&e->instance))
			cJSON_AddStringToObject(o, "purchase_unit", purchase_unit(&e->instance)->name);
		else
			cJSON_AddNullToObject(o, "purchase_unit");
		cJSON_AddNumberToObject(o, "purchase_unit_nodes", purchase_unit_nodes(&e->instance));
		cJSON_AddStringToObject(o, "choice", rpt_plan_choice_text(e->plan.choice));
		if (e->plan.choice == PLAN_CHOSEN_DEADLINE) {
			cJSON *tied = cJSON_AddArrayToObject(o, "tied_nodes");

			for (int k = 0; tied && k < e->plan.n_tied; k++)
				cJSON_AddItemToArray(tied, cJSON_CreateNumber(e->plan.points[e->plan.tied[k]].nodes));
			cJSON_AddNumberToObject(o, "point_cheapest_nodes",
						e->plan.points[e->plan.point_cheapest].nodes);
			cJSON_AddStringToObject(o, "tie_break", PLAN_TIE_BREAK);
		}
		if (plan_chosen(&e->plan))
			cJSON_AddItemToObject(o, "chosen", point_json(plan_chosen(&e->plan),
								    rpt_plan_on_pareto(front, nf, i, e->plan.chosen)));
		else
			cJSON_AddNullToObject(o, "chosen");
		pts = cJSON_AddArrayToObject(o, "points");
		for (int k = 0; pts && k < e->plan.n_points; k++)
			cJSON_AddItemToArray(pts, point_json(&e->plan.points[k],
							     rpt_plan_on_pareto(front, nf, i, k)));
		cJSON_AddItemToArray(ents, o);
	}
	if (in->compare)
		cJSON_AddItemToObject(root, "decision", decision_json(in));
	return rpt_json_print(out, root);
}

/* ---- CSV ------------------------------------------------------------------------- */

static void csv(FILE *out, const struct rpt_plan_input *in)
{
	const struct compare_result *r = in->res;
	struct compare_ref front[256];
	int nf = compare_pareto(r, in->opts->pricing, front, 256);

	fprintf(out, "instance,gpu,nodes,gpus,chosen,feasible,tp,cp,pp,vpp,dp,ep,etp,micro_batch_seqs,"
		"recompute,zero_stage,step_time_s,tokens_per_s,mfu,memory_total_bytes,bottleneck,"
		"time_to_train_s,goodput,gpu_hours,usd_on_demand,usd_capacity_block,"
		"usd_per_mtoken_on_demand,meets_deadline,pareto,price_date,time_to_train_p10_s,"
		"time_to_train_p50_s,time_to_train_p90_s\n");
	for (int i = 0; i < r->n; i++) {
		const struct compare_entry *e = &r->entries[i];

		for (int k = 0; k < e->plan.n_points; k++) {
			const struct plan_point *p = &e->plan.points[k];
			const struct layout *l = &p->best.layout;

			rpt_csv_str(out, e->instance.name);
			fputc(',', out);
			rpt_csv_str(out, e->gpu);
			fprintf(out, ",%d,%d,%s,%s", p->nodes, p->gpus, k == e->plan.chosen ? "true" : "false",
				p->feasible ? "true" : "false");
			if (!p->feasible) {
				fprintf(out, ",,,,,,,,,,,,,,,,,,,,,,,false,false,%s,,,\n", e->instance.price.date);
				continue;
			}
			fprintf(out, ",%d,%d,%d,%d,%d,%d,%d,%d,%s,%d,%.10g,%.10g,%.10g,%.10g,%s,%.10g,%.10g,%.10g,",
				l->tp, l->cp, l->pp, l->vpp, l->dp, l->ep, l->etp > 0 ? l->etp : l->tp,
				p->best.micro_batch_seqs, recompute_name(p->best.recompute),
				l->fsdp ? 3 : l->zero_stage, p->best.step_time_s, p->best.tokens_per_s,
				p->best.mfu, p->best.mem_total_bytes, bottleneck_name(p->best.bottleneck),
				p->train[0].time_s, p->train[0].goodput, p->train[0].gpu_hours);
			/* an empty cell: not sold under that pricing */
			if (p->train[PRICING_ON_DEMAND].usd_per_h > 0)
				fprintf(out, "%.10g", p->train[PRICING_ON_DEMAND].usd_total);
			fputc(',', out);
			if (p->train[PRICING_CAPACITY_BLOCK].usd_per_h > 0)
				fprintf(out, "%.10g", p->train[PRICING_CAPACITY_BLOCK].usd_total);
			fputc(',', out);
			if (p->train[PRICING_ON_DEMAND].usd_per_h > 0)
				fprintf(out, "%.10g", p->train[PRICING_ON_DEMAND].usd_per_mtoken);
			fprintf(out, ",%s,%s,%s,%.10g,%.10g,%.10g\n", p->meets_deadline ? "true" : "false",
				rpt_plan_on_pareto(front, nf, i, k) ? "true" : "false", e->instance.price.date,
				p->time_q_s.p10, p->time_q_s.p50, p->time_q_s.p90);
		}
	}
}

/* ---- Markdown -------------------------------------------------------------------- */

/* One point as a table row: with the instance's name and GPU first when
 * name, with a Pareto column last when pareto_col. */
static void md_point(FILE *out, const struct compare_entry *e, const struct plan_point *p,
		     bool name, bool pareto_col, bool frontier)
{
	char lay[96], t[32], od[32], cb[32];

	if (name)
		fprintf(out, "| %s | %s ", e->instance.name, e->gpu);
	if (!p->feasible) {
		fprintf(out, "| %d | no layout fits in memory | | | | | | | | |%s\n", p->nodes,
			pareto_col ? " |" : "");
		return;
	}
	const struct plan_train *o = &p->train[PRICING_ON_DEMAND], *c = &p->train[PRICING_CAPACITY_BLOCK];
	char mt[32];

	rpt_per_mtoken_if(o->usd_per_h, o->usd_per_mtoken, "not sold", mt, sizeof(mt));
	fprintf(out, "| %d | %s | %.3f | %.4g | %.1f %% | %s | %s | %s | %s | %s |%s\n", p->nodes,
		rpt_layout_str(&p->best, lay, sizeof(lay)), p->best.step_time_s, p->best.tokens_per_s,
		p->best.mfu * 100, bottleneck_name(p->best.bottleneck),
		rpt_duration(p->train[0].time_s, t, sizeof(t)),
		rpt_usd_if(o->usd_per_h, o->usd_total, "not sold", od, sizeof(od)),
		rpt_usd_if(c->usd_per_h, c->usd_total, "not offered", cb, sizeof(cb)), mt,
		pareto_col ? (frontier ? " yes |" : " |") : "");
}

static void md(FILE *out, const struct rpt_plan_input *in)
{
	const struct compare_result *r = in->res;
	const struct scenario *sc = in->sc;
	char basis[256], lines[RPT_DECISION_MAX][RPT_LINE_MAX], d[32];
	struct compare_ref front[256];
	int nf = compare_pareto(r, in->opts->pricing, front, 256);
	static const char *cols = "| nodes | layout | step (s) | tokens/s | MFU | bottleneck | time to train | "
				  "on-demand | capacity block | $/M tokens (on-demand) |";
	static const char *rule = "|---:|---|---:|---:|---:|---|---:|---:|---:|---:|";

	fprintf(out, "# %s: ", in->compare ? "Instance-type comparison" : "Capacity plan");
	rpt_md_str(out, sc->name);
	fprintf(out, "\n\n- model: %s (%d layers, hidden %d%s)\n", sc->model.name, sc->model.layers,
		sc->model.hidden, model_is_moe(&sc->model) ? ", MoE" : "");
	fprintf(out, "- training: seq %d, global batch %d, %s\n", sc->training.seq_len,
		sc->training.global_batch_seqs, precision_name(sc->training.precision));
	fprintf(out, "- budget: %.4g tokens", in->opts->tokens);
	if (in->opts->deadline_s > 0)
		fprintf(out, ", deadline %s", rpt_duration(in->opts->deadline_s, d, sizeof(d)));
	fprintf(out, ", costs %s\n", plan_pricing_name(in->opts->pricing));
	if (in->compare) {
		rpt_plan_basis(in, basis, sizeof(basis));
		fprintf(out, "- basis: %s\n", basis);
		fprintf(out, "\n## Decision\n\n");
		for (int i = 0, nd = rpt_plan_decision(in, lines); i < nd; i++)
			fprintf(out, "- %s\n", lines[i]);
		fprintf(out, "\n## Best layout per instance type\n\n| instance | gpu %s\n|---|---%s\n", cols, rule);
		for (int i = 0; i < r->n; i++) {
			const struct plan_point *p = plan_chosen(&r->entries[i].plan);

			if (p)
				md_point(out, &r->entries[i], p, true, false, false);
			else
				fprintf(out, "| %s | %s | - | %s | | | | | | | | |\n", r->entries[i].instance.name,
					r->entries[i].gpu, rpt_plan_choice_text(r->entries[i].plan.choice));
		}
		fprintf(out, "\n## Scaling, cost and time (Pareto frontier under %s pricing marked)\n\n"
			"| instance | gpu %s Pareto |\n|---|---%s---|\n", plan_pricing_name(in->opts->pricing),
			cols, rule);
		for (int i = 0; i < r->n; i++)
			for (int k = 0; k < r->entries[i].plan.n_points; k++)
				md_point(out, &r->entries[i], &r->entries[i].plan.points[k], true, true,
					 rpt_plan_on_pareto(front, nf, i, k));
	} else {
		const struct compare_entry *e = &r->entries[0];
		const struct plan_point *p = plan_chosen(&e->plan);
		char lay[96], a[32], band[RPT_LINE_MAX];

		fprintf(out, "- instance: %s (%d x %s), fabric %s\n", e->instance.name,
			e->instance.gpus_per_node, e->gpu, sc->cluster.fabric.name);
		fprintf(out, "\n## Plan\n\n");
		if (!p) {
			fprintf(out, "%s.\n", rpt_plan_choice_text(e->plan.choice));
		} else {
			fprintf(out, "- nodes: %d (%d GPUs), %s\n", p->nodes, p->gpus,
				rpt_plan_choice_text(e->plan.choice));
			if (rpt_plan_tie_text(in, e, band, sizeof(band)))
				fprintf(out, "- tie: %s\n", band);
			fprintf(out, "- layout: %s\n", rpt_layout_str(&p->best, lay, sizeof(lay)));
			fprintf(out, "- step: %.4g s, %.4g tokens/s, MFU %.1f %%, memory %.1f of %.1f GiB, "
				"bottleneck %s\n", p->best.step_time_s, p->best.tokens_per_s, p->best.mfu * 100,
				p->best.mem_total_bytes / SC_GiB_BYTES, p->best.mem_capacity_bytes / SC_GiB_BYTES,
				bottleneck_name(p->best.bottleneck));
			fprintf(out, "- time to train: %s (goodput %.0f %%; +/- %.0f %% from the step time)\n",
				rpt_duration(p->train[0].time_s, d, sizeof(d)), p->train[0].goodput * 100,
				e->uncertainty_rel * 100);
			fprintf(out, "- band: %s (the step time's band, regime %s, calibration %s)\n",
				rpt_plan_time_band(p, band, sizeof(band)),
				p->regime == REGIME_COUNT ? "none" : model_regime_name((enum model_regime)p->regime),
				e->calibration);
			if (rpt_plan_deadline_text(in, p, band, sizeof(band)))
				fprintf(out, "- deadline: %s\n", band);
			for (int pr = 0; pr < PRICING_COUNT; pr++) {
				char buy[512];

				if (p->train[pr].usd_per_h > 0)
					fprintf(out, "- cost, %s: %s ($%.4g per million tokens; %s)\n",
						plan_pricing_name((enum plan_pricing)pr),
						rpt_usd(p->train[pr].usd_total, a, sizeof(a)),
						p->train[pr].usd_per_mtoken,
						rpt_purchase(&e->instance, p->nodes, (enum plan_pricing)pr, buy,
							     sizeof(buy)));
				else
					fprintf(out, "- cost, %s: not offered (%s)\n",
						plan_pricing_name((enum plan_pricing)pr),
						rpt_price_options(&e->instance.price, buy, sizeof(buy)));
			}
			fprintf(out, "- GPU-hours: %.4g\n", p->train[0].gpu_hours);
		}
		fprintf(out, "\n## Sweep\n\n%s\n%s\n", cols, rule);
		for (int k = 0; k < e->plan.n_points; k++)
			md_point(out, e, &e->plan.points[k], false, false, false);
	}
	fprintf(out, "\n## Notes\n\n");
	for (int i = 0; i < r->n; i++) {
		const struct compare_entry *e = &r->entries[i];

		fprintf(out, "- %s: calibration %s, step times +/- %.0f %%%s%s\n", e->instance.name,
			e->calibration, e->uncertainty_rel * 100, e->note[0] ? "; " : "", e->note);
	}
	fprintf(out, "- time to train = budget / throughput / goodput (plan_time_to_train in sim/plan/cost.c); "
		"failures and checkpoints are not in it yet\n");
	fprintf(out, "\n## Prices\n\nUSD per instance-hour, with the date each was read.\n\n"
		"| instance | on-demand | capacity block | region | date | source |\n|---|---:|---:|---|---|---|\n");
	for (int i = 0; i < r->n; i++) {
		const struct instance_price *p = &r->entries[i].instance.price;

		char od[32], cb[512];

		fprintf(out, "| %s | %s | %s | ", r->entries[i].instance.name,
			rpt_price_cell(p, PRICING_ON_DEMAND, od, sizeof(od)),
			rpt_price_cell(p, PRICING_CAPACITY_BLOCK, cb, sizeof(cb)));
		rpt_md_str(out, p->region);
		fprintf(out, " | %s | ", p->date);
		rpt_md_str(out, p->source);
		for (int k = 0; k < p->n_ultraservers; k++) {
			fprintf(out, "<br>%s (read %s): ", p->ultraservers[k].name, p->ultraservers[k].date);
			rpt_md_str(out, p->ultraservers[k].source);
		}
		fputs(" |\n", out);
	}
}

bool rpt_plan(FILE *out, const struct rpt_plan_input *in, enum rpt_plan_format fmt)
{
	switch (fmt) {
	case RPT_PLAN_TEXT: text(out, in); return true;
	case RPT_PLAN_JSON: return json(out, in);
	case RPT_PLAN_CSV: csv(out, in); return true;
	case RPT_PLAN_MD: md(out, in); return true;
	case RPT_PLAN_HTML: rpt_plan_html(out, in); return true;
	}
	return false;
}
