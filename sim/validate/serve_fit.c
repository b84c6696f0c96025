/* serve_fit.c: Nelder-Mead fit of serving calibration parameters (see
 * serve_fit.h). */
#include "serve_fit.h"

#include <math.h>
#include <string.h>

#include <gsl/gsl_errno.h>
#include <gsl/gsl_multimin.h>

#include "../config/calibration_select.h"
#include "../serve/serve_sim.h"

struct sfit_ctx {
	struct sval_set *set;
	struct calibration *cal;
	const int *params;
	int n_params;
	const char *exclude_group;
	const char *only_group;
	double mape;
	int metrics;
	double u_prior[VAL_FIT_MAX_PARAMS]; /* fit.h's prior, as in training */
	double prior_weight;
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

/* The logistic map of fit.c: an unbounded u into [min, max]. */
/* The profile's physical range of parameter p in place of the catalogue's. */
static struct calib_param_info info_of(const struct calibration *cal, int p)
{
	struct calib_param_info i = calib_params[p];

	calib_bounds(cal, (enum calib_param)p, &i.min, &i.max, NULL);
	return i;
}

static double to_value(const struct calib_param_info *p, double u)
{
	return p->min + (p->max - p->min) / (1.0 + exp(-u));
}

static double to_u(const struct calib_param_info *p, double v)
{
	double f = (v - p->min) / (p->max - p->min);

	if (f < 1e-9)
		f = 1e-9;
	if (f > 1 - 1e-9)
		f = 1 - 1e-9;
	return log(f / (1 - f));
}

static double to_value_of(const struct calibration *cal, int p, double u)
{
	struct calib_param_info i = info_of(cal, p);

	return to_value(&i, u);
}

static double to_u_of(const struct calibration *cal, int p, double v)
{
	struct calib_param_info i = info_of(cal, p);

	return to_u(&i, v);
}

static double gsl_objective(const gsl_vector *u, void *arg)
{
	struct sfit_ctx *x = arg;
	double penalty = 0;

	for (int i = 0; i < x->n_params; i++) {
		double ui = gsl_vector_get(u, (size_t)i), z = (ui - x->u_prior[i]) / VAL_FIT_PRIOR_SIGMA_U;

		*calib_value(x->cal, (enum calib_param)x->params[i]) = to_value_of(x->cal, x->params[i], ui);
		penalty += 0.5 * z * z;
	}
	return objective(x) + x->prior_weight * penalty;
}

enum sc_status sval_fit(struct sval_set *set, struct calibration *cal, const int *params,
			int n_params, int max_iterations, const char *exclude_group,
			struct val_fit_result *res, struct sc_error *err)
{
	struct sfit_ctx x = { set, cal, params, n_params, exclude_group, NULL, 0, 0, { 0 }, 0 };
	gsl_multimin_function fn = { gsl_objective, (size_t)n_params, &x };
	gsl_multimin_fminimizer *s;
	gsl_vector *u, *step;
	struct calibration start = *cal;
	int status = GSL_CONTINUE, it = 0;

	memset(res, 0, sizeof(*res));
	if (n_params <= 0 || n_params > VAL_FIT_MAX_PARAMS)
		return sc_error_set(err, SC_EINVAL, NULL, NULL, "fit needs 1 to %d parameters, got %d",
				    VAL_FIT_MAX_PARAMS, n_params);
	res->mean_abs_log_before = objective(&x);
	res->mape_before = x.mape;
	res->cases = x.metrics;
	x.prior_weight = x.metrics > 0 ? res->mean_abs_log_before / x.metrics : 0;
	for (int i = 0; i < n_params; i++)
		x.u_prior[i] = to_u_of(cal, params[i], calib_prior(cal, (enum calib_param)params[i]));
	if (x.metrics < 2 * n_params)
		return sc_error_set(err, SC_EINVAL, NULL, NULL,
				    "profile \"%s\" covers %d published metrics of expressible serving cases: too few to fit %d parameters",
				    cal->name, x.metrics, n_params);
	u = gsl_vector_alloc((size_t)n_params);
	step = gsl_vector_alloc((size_t)n_params);
	s = gsl_multimin_fminimizer_alloc(gsl_multimin_fminimizer_nmsimplex2, (size_t)n_params);
	if (!u || !step || !s) {
		gsl_vector_free(u);
		gsl_vector_free(step);
		if (s)
			gsl_multimin_fminimizer_free(s);
		return sc_error_set(err, SC_ENOMEM, NULL, NULL, "out of memory");
	}
	for (int i = 0; i < n_params; i++) {
		gsl_vector_set(u, (size_t)i, to_u_of(cal, params[i],
						     calib_get(cal, (enum calib_param)params[i])));
		gsl_vector_set(step, (size_t)i, 0.5);
	}
	gsl_multimin_fminimizer_set(s, &fn, u, step);
	while (status == GSL_CONTINUE && it < max_iterations) {
		it++;
		if (gsl_multimin_fminimizer_iterate(s))
			break;
		status = gsl_multimin_test_size(gsl_multimin_fminimizer_size(s), 1e-3);
	}
	*cal = start;
	for (int i = 0; i < n_params; i++)
		*calib_value(cal, (enum calib_param)params[i]) =
			to_value_of(cal, params[i], gsl_vector_get(s->x, (size_t)i));
	for (int i = 0; i < n_params; i++)
		if (calib_at_bound(cal, (enum calib_param)params[i]))
			res->at_bound[res->n_at_bound++] = params[i];
	res->iterations = it;
	res->mean_abs_log_after = objective(&x);
	res->mape_after = x.mape;
	gsl_multimin_fminimizer_free(s);
	gsl_vector_free(u);
	gsl_vector_free(step);
	return SC_OK;
}

double sval_group_mape(struct sval_set *set, const struct calibration *cal, const char *group,
		       int *count)
{
	struct calibration c = *cal;
	struct sfit_ctx x = { set, &c, NULL, 0, NULL, group, 0, 0, { 0 }, 0 };

	objective(&x);
	*count = x.metrics;
	return x.mape;
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
