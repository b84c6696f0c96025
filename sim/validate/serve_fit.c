/* serve_fit.c: Nelder-Mead fit of serving calibration parameters (see
 * serve_fit.h). */
#include "serve_fit.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "../config/calibration_select.h"
#include "../serve/serve_sim.h"

struct sfit_ctx {
	struct sval_set *set;
	struct calibration *cal;
	const char *exclude_group;
	const char *only_group;
	double mape;
	int metrics;
};

static bool in_family(const struct sval_case *vc, const struct calibration *cal)
{
	return vc->sc && calibration_fits_gpu(cal, &vc->sc->gpu);
}

/* Simulate the selected cases with ctx->cal; mean |log(predicted /
 * measured)| over their published metrics (ctx->mape gets the MAPE). */
static double objective(struct sfit_ctx *x)
{
	double sum_log = 0, sum_ape = 0;
	int n = 0;

	for (int i = 0; i < x->set->n_cases; i++) {
		struct sval_case *vc = &x->set->cases[i];
		struct calibration keep;
		struct srv_result r;
		struct sc_error err;
		double pred[SVAL_METRICS];
		enum sc_status st;

		if (!in_family(vc, x->cal))
			continue;
		if (x->exclude_group && strcmp(vc->source_group, x->exclude_group) == 0)
			continue;
		if (x->only_group && strcmp(vc->source_group, x->only_group) != 0)
			continue;
		keep = vc->sc->calibration;
		vc->sc->calibration = *x->cal;
		st = srv_simulate(vc->sc, &r, &err);
		vc->sc->calibration = keep;
		if (st != SC_OK)
			continue;
		pred[SVAL_THROUGHPUT] = r.output_tokens_per_s;
		pred[SVAL_TTFT] = 1e3 * (strcmp(vc->m[SVAL_TTFT].stat, "median") == 0 ? r.ttft_s.p50
										: r.ttft_s.mean);
		pred[SVAL_TPOT] = 1e3 * (strcmp(vc->m[SVAL_TPOT].stat, "median") == 0 ? r.tpot_s.p50
					 : strcmp(vc->m[SVAL_TPOT].stat, "itl mean") == 0 ? r.itl_mean_s
					 : r.tpot_s.mean);
		for (int k = 0; k < SVAL_METRICS; k++) {
			double m = vc->m[k].measured;

			if (!sval_compared(vc, (enum sval_metric)k) || !(pred[k] > 0) || !(m > 0))
				continue;
			sum_log += fabs(log(pred[k] / m));
			sum_ape += fabs(pred[k] - m) / m;
			n++;
		}
	}
	x->metrics = n;
	x->mape = n ? sum_ape / n : 0;
	return n ? sum_log / n : 0;
}

/* The data term of the serving fit (fit.h val_fit_bounded). */
static double serving_objective(void *arg, int *count, double *mape)
{
	struct sfit_ctx *x = arg;
	double v = objective(x);

	*count = x->metrics;
	*mape = x->mape;
	return v;
}

enum sc_status sval_fit(struct sval_set *set, struct calibration *cal, const int *params,
			int n_params, int max_iterations, const char *exclude_group,
			struct val_fit_result *res, struct sc_error *err)
{
	struct sfit_ctx x = { set, cal, exclude_group, NULL, 0, 0 };
	struct val_fit_problem p = { cal, params, n_params, max_iterations, 1e-3, serving_objective, &x,
				     "published metrics of expressible serving cases" };

	return val_fit_bounded(&p, res, err);
}

double sval_group_mape(struct sval_set *set, const struct calibration *cal, const char *group,
		       int *count)
{
	struct calibration c = *cal;
	struct sfit_ctx x = { set, &c, NULL, group, 0, 0 };

	objective(&x);
	*count = x.metrics;
	return x.mape;
}

enum sc_status sval_cross_validate(struct sval_set *set, const struct calibration *start, const int *params,
				   int n_params, int max_iterations, struct sval_cv_result *res,
				   struct sc_error *err)
{
	static struct calibration all, held;
	struct val_fit_result fr;
	double sum_in = 0, sum_out = 0;

	memset(res, 0, sizeof(*res));
	for (int i = 0; i < set->n_cases; i++) {
		const struct sval_case *vc = &set->cases[i];
		bool seen = false;

		if (!in_family(vc, start))
			continue;
		for (int j = 0; j < res->n_groups; j++)
			seen |= strcmp(res->groups[j].name, vc->source_group) == 0;
		if (!seen && res->n_groups < VAL_CV_MAX_GROUPS)
			snprintf(res->groups[res->n_groups++].name, sizeof(res->groups[0].name), "%s",
				 vc->source_group);
	}
	all = *start;
	if (sval_fit(set, &all, params, n_params, max_iterations, NULL, &fr, err) != SC_OK)
		return err->status;
	for (int g = 0; g < res->n_groups; g++) {
		struct sval_cv_group *gr = &res->groups[g];
		struct sc_error ferr;

		held = all; /* start from the full fit */
		gr->mape_in = sval_group_mape(set, &all, gr->name, &gr->metrics);
		sc_error_clear(&ferr);
		if (sval_fit(set, &held, params, n_params, max_iterations, gr->name, &fr, &ferr) != SC_OK) {
			snprintf(gr->why, sizeof(gr->why), "%s", ferr.message);
			continue;
		}
		gr->fitted = true;
		gr->mape_out = sval_group_mape(set, &held, gr->name, &gr->metrics);
		sum_in += gr->mape_in * gr->metrics;
		sum_out += gr->mape_out * gr->metrics;
		res->metrics += gr->metrics;
	}
	if (res->metrics) {
		res->mape_in = sum_in / res->metrics;
		res->mape_out = sum_out / res->metrics;
	}
	return SC_OK;
}
