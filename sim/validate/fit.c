/* fit.c: Nelder-Mead fit of calibration parameters (see fit.h). */
#include "fit.h"

#include <math.h>
#include <string.h>

#include <gsl/gsl_errno.h>
#include <gsl/gsl_multimin.h>

#include "../analytic/step.h"
#include "../config/calibration_select.h"

struct fit_ctx {
	struct val_set *set;
	struct calibration *cal;
	const int *params;
	int n_params;
	const char *exclude_group;
	double mape;
};

/* Parameters are searched on an unbounded variable u and mapped into
 * [min, max] by a logistic, so the simplex can never leave the bounds. */
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

static bool uses_profile(const struct val_case *vc, const struct calibration *cal)
{
	return vc->scenario && calibration_fits_gpu(cal, &vc->scenario->cluster.gpu);
}

/* Mean |log(predicted / measured)| over the profile's cases; fills ctx->mape. */
static double objective(struct fit_ctx *ctx, int *count)
{
	double sum_log = 0, sum_ape = 0;
	int n = 0;

	for (int i = 0; i < ctx->set->n_cases; i++) {
		struct val_case *vc = &ctx->set->cases[i];
		struct step_result r;
		struct sc_error err;

		if (!uses_profile(vc, ctx->cal))
			continue;
		if (ctx->exclude_group && strcmp(vc->source_group, ctx->exclude_group) == 0)
			continue;
		vc->scenario->calibration = *ctx->cal;
		if (sim_step_predict(vc->scenario, &r, &err) != SC_OK || !(r.step_time_s > 0))
			continue;
		sum_log += fabs(log(r.step_time_s / vc->measured_step_s));
		sum_ape += fabs(r.step_time_s - vc->measured_step_s) / vc->measured_step_s;
		n++;
	}
	if (count)
		*count = n;
	ctx->mape = n ? sum_ape / n : 0;
	return n ? sum_log / n : 0;
}

static double gsl_objective(const gsl_vector *u, void *arg)
{
	struct fit_ctx *ctx = arg;

	for (int i = 0; i < ctx->n_params; i++) {
		const struct calib_param_info *p = &calib_params[ctx->params[i]];
		*calib_value(ctx->cal, (enum calib_param)ctx->params[i]) =
			to_value(p, gsl_vector_get(u, (size_t)i));
	}
	return objective(ctx, NULL);
}

enum sc_status val_fit(struct val_set *set, struct calibration *cal,
		       const int *params, int n_params, int max_iterations,
		       const char *exclude_group, struct val_fit_result *res,
		       struct sc_error *err)
{
	struct fit_ctx ctx = { set, cal, params, n_params, exclude_group, 0 };
	gsl_multimin_function fn = { gsl_objective, (size_t)n_params, &ctx };
	gsl_multimin_fminimizer *s;
	gsl_vector *u, *step;
	int status = GSL_CONTINUE, it = 0;
	struct calibration start = *cal;

	memset(res, 0, sizeof(*res));
	if (n_params <= 0 || n_params > VAL_FIT_MAX_PARAMS)
		return sc_error_set(err, SC_EINVAL, NULL, NULL,
				    "fit needs 1 to %d parameters, got %d", VAL_FIT_MAX_PARAMS, n_params);
	res->mean_abs_log_before = objective(&ctx, &res->cases);
	res->mape_before = ctx.mape;
	if (res->cases < 2 * n_params)
		return sc_error_set(err, SC_EINVAL, NULL, NULL,
				    "profile \"%s\" covers %d expressible cases: too few to fit %d parameters",
				    cal->name, res->cases, n_params);
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
		const struct calib_param_info *p = &calib_params[params[i]];
		gsl_vector_set(u, (size_t)i, to_u(p, calib_get(cal, (enum calib_param)params[i])));
		gsl_vector_set(step, (size_t)i, 0.5);
	}
	gsl_multimin_fminimizer_set(s, &fn, u, step);
	while (status == GSL_CONTINUE && it < max_iterations) {
		it++;
		if (gsl_multimin_fminimizer_iterate(s))
			break;
		status = gsl_multimin_test_size(gsl_multimin_fminimizer_size(s), 1e-4);
	}
	*cal = start;
	for (int i = 0; i < n_params; i++) {
		const struct calib_param_info *p = &calib_params[params[i]];
		*calib_value(cal, (enum calib_param)params[i]) =
			to_value(p, gsl_vector_get(s->x, (size_t)i));
	}
	res->iterations = it;
	res->mean_abs_log_after = objective(&ctx, NULL);
	res->mape_after = ctx.mape;
	gsl_multimin_fminimizer_free(s);
	gsl_vector_free(u);
	gsl_vector_free(step);
	return SC_OK;
}

double val_group_mape(struct val_set *set, const struct calibration *cal,
		      const char *group, int *count)
{
	double sum = 0;
	int n = 0;

	for (int i = 0; i < set->n_cases; i++) {
		struct val_case *vc = &set->cases[i];
		struct step_result r;
		struct sc_error err;

		if (!uses_profile(vc, cal) || strcmp(vc->source_group, group) != 0)
			continue;
		vc->scenario->calibration = *cal;
		if (sim_step_predict(vc->scenario, &r, &err) != SC_OK || !(r.step_time_s > 0))
			continue;
		sum += fabs(r.step_time_s - vc->measured_step_s) / vc->measured_step_s;
		n++;
	}
	*count = n;
	return n ? sum / n : 0;
}
