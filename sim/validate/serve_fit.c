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

/* Predict case vc's metrics with cal (pred in the case's units); false
 * when the simulation fails. */
static bool predict_metrics(struct sval_case *vc, const struct calibration *cal,
			    double pred[SVAL_METRICS])
{
	struct calibration keep = vc->sc->calibration;
	struct srv_result r;
	struct sc_error err;
	enum sc_status st;

	vc->sc->calibration = *cal;
	st = srv_simulate(vc->sc, &r, &err);
	vc->sc->calibration = keep;
	if (st != SC_OK)
		return false;
	pred[SVAL_THROUGHPUT] = r.output_tokens_per_s;
	pred[SVAL_TTFT] = 1e3 * (strcmp(vc->m[SVAL_TTFT].stat, "median") == 0 ? r.ttft_s.p50
									: r.ttft_s.mean);
	pred[SVAL_TPOT] = 1e3 * (strcmp(vc->m[SVAL_TPOT].stat, "median") == 0 ? r.tpot_s.p50
				 : strcmp(vc->m[SVAL_TPOT].stat, "itl mean") == 0 ? r.itl_mean_s
				 : r.tpot_s.mean);
	return true;
}

/* Simulate the selected cases with ctx->cal; mean |log(predicted /
 * measured)| over their published metrics (ctx->mape gets the MAPE). */
static double objective(struct sfit_ctx *x)
{
	double sum_log = 0, sum_ape = 0;
	int n = 0;

	for (int i = 0; i < x->set->n_cases; i++) {
		struct sval_case *vc = &x->set->cases[i];
		double pred[SVAL_METRICS];

		if (!in_family(vc, x->cal))
			continue;
		if (x->exclude_group && strcmp(vc->source_group, x->exclude_group) == 0)
			continue;
		if (x->only_group && strcmp(vc->source_group, x->only_group) != 0)
			continue;
		if (!predict_metrics(vc, x->cal, pred))
			continue;
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

/* ---- the serving set's side of fit.h's leave-one-group-out loop ---- */

static const char *cv_group_of(void *set, int i, const struct calibration *in)
{
	const struct sval_case *vc = &((struct sval_set *)set)->cases[i];

	return in_family(vc, in) ? vc->source_group : NULL;
}

static enum sc_status cv_fit(void *set, struct calibration *cal, const int *params, int n_params,
			     int max_iterations, const char *exclude_group,
			     struct val_fit_result *res, struct sc_error *err)
{
	return sval_fit(set, cal, params, n_params, max_iterations, exclude_group, res, err);
}

static void cv_predict_group(void *vset, const char *group, const struct calibration *in,
			     const struct calibration *held, struct val_cv_group *gr)
{
	struct sval_set *set = vset;

	for (int i = 0; i < set->n_cases; i++) {
		struct sval_case *vc = &set->cases[i];
		double p_in[SVAL_METRICS], p_out[SVAL_METRICS];

		if (!in_family(vc, in) || strcmp(vc->source_group, group) != 0)
			continue;
		if (!predict_metrics(vc, in, p_in) || !predict_metrics(vc, held, p_out))
			continue;
		for (int k = 0; k < SVAL_METRICS; k++) {
			struct sval_value *v = &vc->m[k];

			if (!sval_compared(vc, (enum sval_metric)k) || !(p_in[k] > 0) || !(p_out[k] > 0) ||
			    !(v->measured > 0))
				continue;
			v->has_oos = true;
			v->oos_predicted = p_out[k];
			v->oos_err_rel = (p_out[k] - v->measured) / v->measured;
			gr->mape_in += fabs(p_in[k] - v->measured) / v->measured;
			gr->mape_out += fabs(v->oos_err_rel);
			gr->cases++;
		}
	}
}

static void cv_restore(void *set, const struct calibration *in)
{
	(void)set;   /* predict_metrics puts each case's own profile back */
	(void)in;
}

enum sc_status sval_cross_validate(struct sval_set *set, const struct calibration *in,
				   const int *params, int n_params, int max_iterations,
				   struct val_cv_result *res, struct sc_error *err)
{
	const struct val_cv_ops ops = { set, set->n_cases, cv_group_of, cv_fit, cv_predict_group,
					cv_restore };
	enum sc_status st = val_cv_run(&ops, in, params, n_params, max_iterations, res, err);

	if (st == SC_OK)
		set->oos = true;
	return st;
}
