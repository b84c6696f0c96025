/* fit.c: Nelder-Mead fit of calibration parameters (see fit.h). */
#include "fit.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include <gsl/gsl_errno.h>
#include <gsl/gsl_multimin.h>

#include "../analytic/step.h"
#include "../config/calibration_select.h"

struct fit_ctx {
	struct val_set *set;
	struct calibration *cal;
	const char *exclude_group;
	double mape;
};

/* Parameters are searched on an unbounded variable u and mapped into the
 * profile's physical range [min, max] (calib_bounds) by a logistic, so the
 * simplex can never leave it. */
static double to_value(const struct calibration *cal, int param, double u)
{
	double lo, hi;

	calib_bounds(cal, (enum calib_param)param, &lo, &hi, NULL);
	return lo + (hi - lo) / (1.0 + exp(-u));
}

static double to_u(const struct calibration *cal, int param, double v)
{
	double lo, hi, f;

	calib_bounds(cal, (enum calib_param)param, &lo, &hi, NULL);
	f = (v - lo) / (hi - lo);
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

/* The bounded fit driver (fit.h val_fit_bounded): the simplex moves u,
 * gsl_bounded_objective maps it into the parameters' ranges and adds the
 * prior's penalty to the problem's data term. */
struct bounded_ctx {
	const struct val_fit_problem *p;
	double u_prior[VAL_FIT_MAX_PARAMS]; /* each parameter's prior, on u */
	double prior_weight;                /* b / n of fit.h's posterior */
};

static double gsl_bounded_objective(const gsl_vector *u, void *arg)
{
	struct bounded_ctx *ctx = arg;
	const struct val_fit_problem *p = ctx->p;
	double penalty = 0, mape;
	int count;

	for (int i = 0; i < p->n_params; i++) {
		double ui = gsl_vector_get(u, (size_t)i), z = (ui - ctx->u_prior[i]) / VAL_FIT_PRIOR_SIGMA_U;

		*calib_value(p->cal, (enum calib_param)p->params[i]) = to_value(p->cal, p->params[i], ui);
		penalty += 0.5 * z * z;
	}
	return p->objective(p->arg, &count, &mape) + ctx->prior_weight * penalty;
}

/* The parameters of p the data depend on at all, into kept; their count.
 * One the cases never use (only a left-out group's runs do: the portable
 * attention efficiency of a fold without llm-foundry) is not identified:
 * the prior's pull (b / n) is too weak to hold it while the simplex moves
 * the others, so it would wander with them, and the left-out group would
 * be predicted with wherever it went.  It keeps its start value (in a
 * fold: its prior) and stays out of the simplex.  f0: the data term at the
 * start.  A parameter moves the data term when either a step of +1 or of
 * -1 in its unbounded coordinate does (a piecewise model can be flat on one
 * side: an overlap that already hides everything); the -1 step is tried
 * only when +1 moved nothing, so an identified parameter costs one
 * prediction of the fold's cases.  A change under VAL_FIT_IDENT_REL of the
 * data term is not a dependence: rounding of the same sums in another order
 * is about 1e-15 of it, while one case in a thousand moved by a part per
 * million is 1e-9. */
#define VAL_FIT_IDENT_REL 1e-9
static int identified_params(const struct val_fit_problem *p, double f0, int *kept)
{
	int n = 0;

	for (int i = 0; i < p->n_params; i++) {
		double *v = calib_value(p->cal, (enum calib_param)p->params[i]), v0 = *v, mape;
		double u0 = to_u(p->cal, p->params[i], v0);
		bool moves = false;
		int count;

		for (int sgn = 1; sgn >= -1 && !moves; sgn -= 2) {
			*v = to_value(p->cal, p->params[i], u0 + sgn);
			moves = fabs(p->objective(p->arg, &count, &mape) - f0) > VAL_FIT_IDENT_REL * f0;
		}
		*v = v0;
		if (moves)
			kept[n++] = p->params[i];
	}
	return n;
}

enum sc_status val_fit_bounded(const struct val_fit_problem *p_in, struct val_fit_result *res,
			       struct sc_error *err)
{
	struct val_fit_problem q = *p_in;
	const struct val_fit_problem *p = &q;
	struct bounded_ctx ctx = { p, { 0 }, 0 };
	gsl_multimin_function fn = { gsl_bounded_objective, 0, &ctx };
	struct calibration *cal = p->cal;
	int kept[VAL_FIT_MAX_PARAMS];
	const int *params = kept;
	int n_params;
	gsl_multimin_fminimizer *s;
	gsl_vector *u, *step;
	int status = GSL_CONTINUE, it = 0;
	struct calibration start = *cal;

	memset(res, 0, sizeof(*res));
	if (p_in->n_params <= 0 || p_in->n_params > VAL_FIT_MAX_PARAMS)
		return sc_error_set(err, SC_EINVAL, NULL, NULL,
				    "fit needs 1 to %d parameters, got %d", VAL_FIT_MAX_PARAMS, p_in->n_params);
	res->mean_abs_log_before = p->objective(p->arg, &res->cases, &res->mape_before);
	n_params = q.n_params = identified_params(p_in, res->mean_abs_log_before, kept);
	q.params = kept;
	fn.n = (size_t)n_params;
	if (n_params == 0)
		return sc_error_set(err, SC_EINVAL, NULL, NULL,
				    "profile \"%s\": its %d %s depend on none of the %d parameters to fit",
				    cal->name, res->cases, p->what, p_in->n_params);
	/* fit.h: the prior's weight is the data term's scale over the cases */
	ctx.prior_weight = res->cases > 0 ? res->mean_abs_log_before / res->cases : 0;
	for (int i = 0; i < n_params; i++)
		ctx.u_prior[i] = to_u(cal, params[i], calib_prior(cal, (enum calib_param)params[i]));
	if (res->cases < 2 * n_params)
		return sc_error_set(err, SC_EINVAL, NULL, NULL,
				    "profile \"%s\" covers %d %s: too few to fit %d parameters",
				    cal->name, res->cases, p->what, n_params);
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
		gsl_vector_set(u, (size_t)i, to_u(cal, params[i], calib_get(cal, (enum calib_param)params[i])));
		gsl_vector_set(step, (size_t)i, 0.5);
	}
	gsl_multimin_fminimizer_set(s, &fn, u, step);
	while (status == GSL_CONTINUE && it < p->max_iterations) {
		it++;
		if (gsl_multimin_fminimizer_iterate(s))
			break;
		status = gsl_multimin_test_size(gsl_multimin_fminimizer_size(s), p->size_tolerance);
	}
	*cal = start;
	for (int i = 0; i < n_params; i++)
		*calib_value(cal, (enum calib_param)params[i]) =
			to_value(cal, params[i], gsl_vector_get(s->x, (size_t)i));
	res->n_at_bound = 0;
	for (int i = 0; i < n_params; i++)
		if (calib_at_bound(cal, (enum calib_param)params[i]))
			res->at_bound[res->n_at_bound++] = params[i];
	res->iterations = it;
	res->mean_abs_log_after = p->objective(p->arg, &status, &res->mape_after);
	gsl_multimin_fminimizer_free(s);
	gsl_vector_free(u);
	gsl_vector_free(step);
	return SC_OK;
}

void val_fit_note_sources(struct calibration *cal, const int *params, int n, const double *start,
			  const struct val_fit_result *res, const char *how)
{
	for (int i = 0; i < n; i++) {
		char *src = cal->source[params[i]];
		char prior[SC_CALIB_SOURCE_MAX];

		/* a refit keeps one level: the prior behind an earlier fit */
		snprintf(prior, sizeof(prior), "%s",
			 strncmp(src, "fitted (stepcast validate", 25) == 0 && strstr(src, "; prior: ")
			 ? strstr(src, "; prior: ") + 9 : src);
		snprintf(src, SC_CALIB_SOURCE_MAX, "fitted (stepcast %s: MAPE %.1f%% -> %.1f%%; prior: %s", how,
			 100 * res->mape_before, 100 * res->mape_after, prior);
		if (!cal->has_prior[params[i]]) {
			/* the value the fit started from is the prior of later fits */
			cal->has_prior[params[i]] = true;
			cal->prior[params[i]] = start[i];
		}
	}
}

/* The data term of the training fit: fit.h's mean |log error| over the
 * profile's cases. */
static double training_objective(void *arg, int *count, double *mape)
{
	struct fit_ctx *ctx = arg;
	double v = objective(ctx, count);

	*mape = ctx->mape;
	return v;
}

enum sc_status val_fit(struct val_set *set, struct calibration *cal,
		       const int *params, int n_params, int max_iterations,
		       const char *exclude_group, struct val_fit_result *res,
		       struct sc_error *err)
{
	struct fit_ctx ctx = { set, cal, exclude_group, 0 };
	struct val_fit_problem p = { cal, params, n_params, max_iterations, 1e-4, training_objective, &ctx,
				     "expressible cases" };

	return val_fit_bounded(&p, res, err);
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

/* Predict case vc with cal: step time, or 0 when the model fails. */
static double predict_with(struct val_case *vc, const struct calibration *cal)
{
	struct step_result r;
	struct sc_error err;

	vc->scenario->calibration = *cal;
	if (sim_step_predict(vc->scenario, &r, &err) != SC_OK || !(r.step_time_s > 0))
		return 0;
	return r.step_time_s;
}

enum sc_status val_cv_run(const struct val_cv_ops *ops, const struct calibration *in,
			  const int *params, int n_params, int max_iterations,
			  struct val_cv_result *res, struct sc_error *err)
{
	static struct calibration held;
	double sum_in = 0, sum_out = 0;

	memset(res, 0, sizeof(*res));
	res->no_refit = max_iterations <= 0;
	for (int i = 0; i < ops->n_cases; i++) {
		const char *g = ops->group_of(ops->set, i, in);
		bool seen = false;

		if (!g)
			continue;
		for (int j = 0; j < res->n_groups; j++)
			seen |= strcmp(res->groups[j].name, g) == 0;
		if (!seen) {
			if (res->n_groups >= VAL_CV_MAX_GROUPS)
				return sc_error_set(err, SC_EINVAL, NULL, NULL,
						    "more than %d source groups", VAL_CV_MAX_GROUPS);
			snprintf(res->groups[res->n_groups++].name, sizeof(res->groups[0].name), "%s", g);
		}
	}
	for (int g = 0; g < res->n_groups; g++) {
		struct val_cv_group *gr = &res->groups[g];
		struct val_fit_result fr;
		struct sc_error ferr;

		/* a fold starts from the priors, not from `in`'s fit on every
		 * group: a parameter the other groups do not identify (only the
		 * left-out group's cases use it) would otherwise keep the value
		 * the left-out group fitted, the prior's pull on it being too
		 * weak to move the simplex (fit.h: b / n) */
		held = *in;
		for (int k = 0; k < n_params; k++)
			*calib_value(&held, (enum calib_param)params[k]) =
				calib_prior(in, (enum calib_param)params[k]);
		memset(&fr, 0, sizeof(fr));
		sc_error_clear(&ferr);
		if (max_iterations <= 0 ||
		    ops->fit(ops->set, &held, params, n_params, max_iterations, gr->name, &fr, &ferr) != SC_OK) {
			/* no refit asked for, or too few cases outside the
			 * group: the priors (what the model knows without any
			 * of these measurements) */
			held = *in;
			for (int k = 0; k < n_params; k++)
				*calib_value(&held, (enum calib_param)params[k]) =
					calib_prior(in, (enum calib_param)params[k]);
			gr->from_priors = true;
		}
		gr->iterations = fr.iterations;
		for (int k = 0; k < CALIB_COUNT; k++)
			gr->value[k] = calib_get(&held, (enum calib_param)k);
		ops->predict_group(ops->set, gr->name, in, &held, gr);
		sum_in += gr->mape_in;
		sum_out += gr->mape_out;
		res->cases += gr->cases;
		if (gr->cases) {
			gr->mape_in /= gr->cases;
			gr->mape_out /= gr->cases;
		}
	}
	if (res->cases) {
		res->mape_in = sum_in / res->cases;
		res->mape_out = sum_out / res->cases;
	}
	ops->restore(ops->set, in);
	return SC_OK;
}

/* ---- the training set's side of the loop ---- */

static const char *train_group_of(void *set, int i, const struct calibration *in)
{
	const struct val_case *vc = &((struct val_set *)set)->cases[i];

	return vc->expressible && uses_profile(vc, in) ? vc->source_group : NULL;
}

static enum sc_status train_fit(void *set, struct calibration *cal, const int *params, int n_params,
				int max_iterations, const char *exclude_group,
				struct val_fit_result *res, struct sc_error *err)
{
	return val_fit(set, cal, params, n_params, max_iterations, exclude_group, res, err);
}

static void train_predict_group(void *vset, const char *group, const struct calibration *in,
				const struct calibration *held, struct val_cv_group *gr)
{
	struct val_set *set = vset;

	for (int i = 0; i < set->n_cases; i++) {
		struct val_case *vc = &set->cases[i];
		double p_in, p_out;

		if (!vc->expressible || !uses_profile(vc, in) || strcmp(vc->source_group, group) != 0)
			continue;
		p_in = predict_with(vc, in);
		p_out = predict_with(vc, held);
		if (!(p_in > 0) || !(p_out > 0))
			continue;
		vc->has_oos = true;
		vc->oos_predicted_step_s = p_out;
		vc->oos_err_rel = (p_out - vc->measured_step_s) / vc->measured_step_s;
		gr->mape_in += fabs(p_in - vc->measured_step_s) / vc->measured_step_s;
		gr->mape_out += fabs(vc->oos_err_rel);
		gr->cases++;
	}
}

static void train_restore(void *vset, const struct calibration *in)
{
	struct val_set *set = vset;

	for (int i = 0; i < set->n_cases; i++)
		if (set->cases[i].scenario && uses_profile(&set->cases[i], in))
			set->cases[i].scenario->calibration = *in;
}

enum sc_status val_cross_validate(struct val_set *set, const struct calibration *in,
				  const int *params, int n_params, int max_iterations,
				  struct val_cv_result *res, struct sc_error *err)
{
	const struct val_cv_ops ops = { set, set->n_cases, train_group_of, train_fit,
					train_predict_group, train_restore };

	return val_cv_run(&ops, in, params, n_params, max_iterations, res, err);
}

/* ---- hierarchical priors for the software parameters ---- */

/* The framework of group g's cases (one recipe per group); -1 if none. */
static int group_framework(const struct val_set *set, const char *g)
{
	for (int i = 0; i < set->n_cases; i++)
		if (set->cases[i].scenario && strcmp(set->cases[i].source_group, g) == 0)
			return (int)set->cases[i].scenario->training.framework;
	return -1;
}

/* Cases of profile d outside group g on framework fw: the weight of d's fit
 * without g for a run of that framework. */
static int donor_weight(const struct val_set *set, const struct calibration *d, const char *g, int fw)
{
	int n = 0;

	for (int i = 0; i < set->n_cases; i++) {
		const struct val_case *vc = &set->cases[i];

		n += vc->expressible && uses_profile(vc, d) && strcmp(vc->source_group, g) != 0 &&
		     (int)vc->scenario->training.framework == fw;
	}
	return n;
}

void val_cv_pool_software(struct val_set *set, const struct calibration *cal,
			  struct val_cv_result *cv, int n)
{
	static struct calibration held;

	for (int i = 0; i < n; i++) {
		if (cv[i].no_refit)
			continue;
		for (int g = 0; g < cv[i].n_groups; g++) {
			struct val_cv_group *gr = &cv[i].groups[g];
			int fw = group_framework(set, gr->name);
			bool any = false;

			if (!gr->from_priors || fw < 0)
				continue;
			held = cal[i];
			for (int k = 0; k < CALIB_COUNT; k++)
				*calib_value(&held, (enum calib_param)k) = gr->value[k];
			for (int k = 0; k < CALIB_COUNT; k++) {
				double sum = 0, wsum = 0;

				if (!calib_is_software((enum calib_param)k))
					continue;
				for (int d = 0; d < n; d++) {
					const struct val_cv_group *dg = NULL;
					double w;

					if (d == i || !calib_is_validate_fitted(&cal[d], (enum calib_param)k, false))
						continue;
					for (int j = 0; j < cv[d].n_groups; j++)
						if (strcmp(cv[d].groups[j].name, gr->name) == 0)
							dg = &cv[d].groups[j];
					if (dg && dg->from_priors)
						continue;   /* that family could not fit without g either */
					w = donor_weight(set, &cal[d], gr->name, fw);
					sum += w * (dg ? dg->value[k] : calib_get(&cal[d], (enum calib_param)k));
					wsum += w;
				}
				if (wsum > 0) {
					*calib_value(&held, (enum calib_param)k) = sum / wsum;
					gr->value[k] = sum / wsum;
					any = true;
				}
			}
			if (!any)
				continue;
			cv[i].mape_in = cv[i].mape_in * cv[i].cases - gr->mape_in * gr->cases;
			cv[i].mape_out = cv[i].mape_out * cv[i].cases - gr->mape_out * gr->cases;
			cv[i].cases -= gr->cases;
			gr->cases = 0;
			gr->mape_in = gr->mape_out = 0;
			train_predict_group(set, gr->name, &cal[i], &held, gr);
			cv[i].mape_in += gr->mape_in;
			cv[i].mape_out += gr->mape_out;
			cv[i].cases += gr->cases;
			if (gr->cases) {
				gr->mape_in /= gr->cases;
				gr->mape_out /= gr->cases;
			}
			if (cv[i].cases) {
				cv[i].mape_in /= cv[i].cases;
				cv[i].mape_out /= cv[i].cases;
			}
			gr->pooled = true;
		}
		train_restore(set, &cal[i]);
	}
}
