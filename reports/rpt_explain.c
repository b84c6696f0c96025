/* rpt_explain.c: the bottleneck's why and the ranked changes (see
 * rpt_explain.h). */
#include "rpt_explain.h"

#include <string.h>

#include "../models/collective.h"
#include "../sim/config/cfg_json.h"

static const char *resource_of(enum bottleneck b)
{
	switch (b) {
	case BOTTLENECK_TENSOR_CORES: return "the tensor cores (compute and optimizer)";
	case BOTTLENECK_HBM: return "HBM bandwidth (memory-bound kernels and the optimizer)";
	case BOTTLENECK_NVLINK: return "NVLink (collectives inside the NVLink domain)";
	case BOTTLENECK_EFA: return "EFA (collectives between nodes)";
	case BOTTLENECK_PIPELINE_BUBBLE: return "the pipeline (fill and drain)";
	case BOTTLENECK_OVERHEAD: return "fixed per-step overheads";
	case BOTTLENECK_COUNT: break;
	}
	return "?";
}

/* The parts by share, largest first (indices into part_s). */
static int parts_sorted(const struct step_result *r, int *idx)
{
	int n = 0;

	for (int i = 0; i < PART_COUNT; i++)
		if (r->part_s[i] > 0)
			idx[n++] = i;
	for (int i = 1; i < n; i++)
		for (int j = i; j > 0 && r->part_s[idx[j]] > r->part_s[idx[j - 1]]; j--) {
			int t = idx[j];
			idx[j] = idx[j - 1];
			idx[j - 1] = t;
		}
	return n;
}

static int colls_sorted(const struct step_result *r, int *idx)
{
	int n = r->n_collectives;

	for (int i = 0; i < n; i++)
		idx[i] = i;
	for (int i = 1; i < n; i++)
		for (int j = i; j > 0 && r->collectives[idx[j]].total_time_s > r->collectives[idx[j - 1]].total_time_s; j--) {
			int t = idx[j];
			idx[j] = idx[j - 1];
			idx[j - 1] = t;
		}
	return n;
}

/* An option against the current layout (model_band_order). */
static const char *verdict(enum model_order o)
{
	return o == MODEL_ORDER_LESS ? "faster" : o == MODEL_ORDER_GREATER ? "slower" : "tie";
}

void rpt_explain_text(FILE *out, const struct scenario *sc, const struct explain_result *x, int top)
{
	const struct step_result *r = &x->base;
	double st = r->step_time_s > 0 ? r->step_time_s : 1;
	int idx[PART_COUNT], cidx[SC_STEP_MAX_COLLECTIVES], n, nc, shown = 0, oom = 0, faster = 0;

	fprintf(out, "scenario    %s\n", sc->name);
	fprintf(out, "step time   %.4g s, bottleneck %s\n", r->step_time_s, bottleneck_name(r->bottleneck));
	fprintf(out, "why         %s: busy %.1f %% of the step, %.1f %% on the critical path",
		resource_of(r->bottleneck), 100 * x->busy_fraction, 100 * x->exposed_fraction);
	if (r->bottleneck == BOTTLENECK_NVLINK || r->bottleneck == BOTTLENECK_EFA) {
		fprintf(out, ", %.1f %% hidden under compute\n", 100 * x->share.hidden_s / st);
		fprintf(out, "            its collectives take %.4g s per step before overlap", x->share.work_s);
		if (x->share.concurrent_s > 0)
			fprintf(out, ", %.4g s of it concurrent with one another", x->share.concurrent_s);
	}
	fputc('\n', out);
	fprintf(out, "            MFU %.1f %%, HFU %.1f %%", 100 * r->mfu, 100 * r->hfu);
	if (r->hfu > r->mfu && r->hfu > 0)
		fprintf(out, " (recompute adds %.1f %% to the FLOPs)", 100 * (r->hfu / r->mfu - 1));
	fputc('\n', out);
	n = parts_sorted(r, idx);
	fprintf(out, "            step:");
	for (int i = 0; i < n && i < 5; i++)
		fprintf(out, "%s %s %.1f %%", i ? "," : "", step_part_name((enum step_part)idx[i]),
			100 * r->part_s[idx[i]] / st);
	fputc('\n', out);
	nc = colls_sorted(r, cidx);
	for (int i = 0; i < nc && i < 3; i++) {
		const struct step_collective *c = &r->collectives[cidx[i]];

		fprintf(out, "            %s %s %s over %s, %d ranks, %.3g MB a call: %.4g s per step before overlap\n",
			i ? "     " : "load:", c->what, coll_op_name(c->op), c->tier, c->ranks, c->bytes / 1e6,
			c->total_time_s);
	}
	fprintf(out, "\nwhat to change: %d neighbouring settings re-predicted (%d refused by the layout rules)\n",
		x->tried, x->invalid);
	fprintf(out, "            decided at P%.0f of the step band (regime %s, P(faster) under independent "
		"errors):\n            a change inside the band is a tie, not faster or slower\n",
		100 * x->confidence, x->regime == REGIME_COUNT ? "none" : model_regime_name((enum model_regime)x->regime));
	for (int i = 0; i < x->n; i++) {
		const struct explain_option *o = &x->opt[i];

		if (o->oom) {
			oom++;
			continue;
		}
		if (o->order == MODEL_ORDER_LESS)
			faster++;
		if (shown++ >= top)
			continue;
		fprintf(out, "  %-6s %+6.1f %%  %8.4g s  P(faster) %4.2f  %-28s %s\n", verdict(o->order),
			100 * o->rel, o->step_time_s, o->prob_faster, o->change, o->set);
	}
	if (!faster && x->n > oom)
		fprintf(out, "no change that fits is surely faster at P%.0f\n", 100 * x->confidence);
	if (oom) {
		fprintf(out, "does not fit in HBM (%d):", oom);
		for (int i = 0, k = 0; i < x->n; i++)
			if (x->opt[i].oom)
				fprintf(out, "%s %s (%+.1f %%)", k++ ? "," : "", x->opt[i].change, 100 * x->opt[i].rel);
		fputc('\n', out);
	}
}

cJSON *rpt_explain_json(const struct scenario *sc, const struct explain_result *x, int top)
{
	const struct step_result *r = &x->base;
	cJSON *root = cJSON_CreateObject(), *why, *opts, *load;
	int cidx[SC_STEP_MAX_COLLECTIVES], nc, shown = 0;

	if (!root)
		return NULL;
	cJSON_AddStringToObject(root, "scenario", sc->name);
	cJSON_AddNumberToObject(root, "step_time_s", r->step_time_s);
	cJSON_AddStringToObject(root, "bottleneck", bottleneck_name(r->bottleneck));
	why = cJSON_AddObjectToObject(root, "why");
	if (why) {
		cJSON_AddStringToObject(why, "resource", resource_of(r->bottleneck));
		cJSON_AddNumberToObject(why, "busy_fraction", x->busy_fraction);
		cJSON_AddNumberToObject(why, "exposed_fraction", x->exposed_fraction);
		cJSON_AddNumberToObject(why, "hidden_fraction",
					r->step_time_s > 0 ? x->share.hidden_s / r->step_time_s : 0);
		cJSON_AddNumberToObject(why, "work_s", x->share.work_s);
		cJSON_AddNumberToObject(why, "busy_s", x->share.busy_s);
		cJSON_AddNumberToObject(why, "exposed_s", x->share.exposed_s);
		cJSON_AddNumberToObject(why, "hidden_s", x->share.hidden_s);
		cJSON_AddNumberToObject(why, "concurrent_s", x->share.concurrent_s);
		cJSON_AddNumberToObject(why, "mfu", r->mfu);
		cJSON_AddNumberToObject(why, "hfu", r->hfu);
		load = cJSON_AddArrayToObject(why, "load");
		nc = colls_sorted(r, cidx);
		for (int i = 0; load && i < nc; i++) {
			const struct step_collective *c = &r->collectives[cidx[i]];
			cJSON *o = cfg_json_push(load, cJSON_CreateObject());

			if (!o)
				break;
			cJSON_AddStringToObject(o, "what", c->what);
			cJSON_AddStringToObject(o, "op", coll_op_name(c->op));
			cJSON_AddStringToObject(o, "tier", c->tier);
			cJSON_AddNumberToObject(o, "ranks", c->ranks);
			cJSON_AddNumberToObject(o, "total_time_s", c->total_time_s);
		}
	}
	cJSON_AddNumberToObject(root, "confidence", x->confidence);
	cJSON_AddStringToObject(root, "uncertainty_regime",
				x->regime == REGIME_COUNT ? "none" : model_regime_name((enum model_regime)x->regime));
	cJSON_AddNumberToObject(root, "step_time_log_sigma", x->band.log_sigma);
	cJSON_AddNumberToObject(root, "tried", x->tried);
	cJSON_AddNumberToObject(root, "refused", x->invalid);
	opts = cJSON_AddArrayToObject(root, "options");
	for (int i = 0; opts && i < x->n; i++) {
		const struct explain_option *p = &x->opt[i];
		cJSON *o;

		if (!p->oom && shown++ >= top)
			continue;
		if (!(o = cfg_json_push(opts, cJSON_CreateObject()))) {
			cJSON_Delete(root);
			return NULL;
		}
		cJSON_AddStringToObject(o, "change", p->change);
		cJSON_AddStringToObject(o, "set", p->set);
		cJSON_AddNumberToObject(o, "step_time_s", p->step_time_s);
		cJSON_AddNumberToObject(o, "rel", p->rel);
		cJSON_AddBoolToObject(o, "oom", p->oom);
		cJSON_AddStringToObject(o, "verdict", verdict(p->order));
		cJSON_AddBoolToObject(o, "tie", p->order == MODEL_ORDER_TIE);
		cJSON_AddNumberToObject(o, "prob_faster", p->prob_faster);
		cJSON_AddStringToObject(o, "bottleneck", bottleneck_name(p->bottleneck));
	}
	return root;
}
