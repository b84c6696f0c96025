/* fit_core.c: multi-start trust-region least squares (see fit_core.h). */
#include "fit_core.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <gsl/gsl_blas.h>
#include <gsl/gsl_errno.h>
#include <gsl/gsl_fit.h>
#include <gsl/gsl_multifit_nlinear.h>
#include <gsl/gsl_vector.h>

#define U_SPAN 4.0 /* starts are drawn from u in [-U_SPAN, U_SPAN] */

static bool log_scaled(const struct calib_param_info *p)
{
	return strcmp(p->unit, "s") == 0 && p->max > 0;
}

static double lo_of(const struct calib_param_info *p)
{
	return log_scaled(p) ? fmax(p->min, 1e-9) : p->min;
}

/* The profile's physical range of parameter p in place of the catalogue's. */
static struct calib_param_info info_of(const struct calibration *cal, int p)
{
	struct calib_param_info i = calib_params[p];

	calib_bounds(cal, (enum calib_param)p, &i.min, &i.max, NULL);
	return i;
}

static double to_value(const struct calib_param_info *p, double u)
{
	double s = 1.0 / (1.0 + exp(-u)), lo = lo_of(p);

	if (log_scaled(p))
		return lo * exp(log(p->max / lo) * s);
	return lo + (p->max - lo) * s;
}

static double to_u(const struct calib_param_info *p, double v)
{
	double lo = lo_of(p), f;

	if (log_scaled(p))
		f = v > lo ? log(v / lo) / log(p->max / lo) : 0;
	else
		f = (v - lo) / (p->max - lo);
	/* a value on a bound is a start (and prior centre) at the edge of
	 * the start region, |u| <= U_SPAN, not 14 units out, where the
	 * logistic is flat and the prior alone would hold the fit there */
	f = fmin(fmax(f, 1.0 / (1.0 + exp(U_SPAN))), 1.0 / (1.0 + exp(-U_SPAN)));
	return log(f / (1 - f));
}

/* Radical inverse in base b: the Halton sequence's i-th coordinate. */
static double halton(int i, int b)
{
	double f = 1, r = 0;

	for (i++; i > 0; i /= b) {
		f /= b;
		r += f * (i % b);
	}
	return r;
}

struct ctx {
	const struct fit_problem *prob;
	struct calibration cal;
	double u0[CALIB_COUNT];
	double *r;
};

static void apply(struct ctx *c, const gsl_vector *u)
{
	for (int i = 0; i < c->prob->n_params; i++) {
		int p = c->prob->params[i];
		struct calib_param_info info = info_of(&c->cal, p);

		*calib_value(&c->cal, (enum calib_param)p) = to_value(&info, gsl_vector_get(u, (size_t)i));
	}
}

static int f_eval(const gsl_vector *u, void *arg, gsl_vector *out)
{
	struct ctx *c = arg;
	const struct fit_problem *p = c->prob;

	apply(c, u);
	p->residuals(&c->cal, c->r, p->ctx);
	for (int i = 0; i < p->n_points; i++) {
		double v = c->r[i];
		gsl_vector_set(out, (size_t)i, isfinite(v) ? v : 1e3);
	}
	for (int j = 0; j < p->n_params; j++)
		gsl_vector_set(out, (size_t)(p->n_points + j),
			       p->prior_weight * (gsl_vector_get(u, (size_t)j) - c->u0[j]));
	return GSL_SUCCESS;
}

enum sc_status fit_run(const struct fit_problem *prob, struct calibration *cal,
		       double *cost, struct sc_error *err)
{
	static const int primes[] = { 2, 3, 5, 7, 11, 13, 17, 19, 23, 29, 31, 37, 41, 43, 47, 53,
				      59, 61, 67, 71, 73, 79, 83, 89, 97, 101, 103, 107, 109, 113,
				      127, 131, 137, 139, 149, 151, 157, 163, 167, 173, 179, 181 };
	size_t n = (size_t)(prob->n_points + prob->n_params), np = (size_t)prob->n_params;
	struct ctx c;
	gsl_multifit_nlinear_fdf fdf;
	gsl_multifit_nlinear_parameters prm = gsl_multifit_nlinear_default_parameters();
	gsl_multifit_nlinear_workspace *w;
	gsl_vector *x, *best;
	double best_cost = INFINITY;

	if (prob->n_params <= 0 || prob->n_points <= 0)
		return sc_error_set(err, SC_EINVAL, NULL, NULL, "nothing to fit");
	if (prob->n_params > (int)(sizeof(primes) / sizeof(primes[0])))
		return sc_error_set(err, SC_EINVAL, NULL, NULL, "too many parameters to fit at once");
	memset(&c, 0, sizeof(c));
	c.prob = prob;
	c.cal = *cal;
	c.r = malloc((size_t)prob->n_points * sizeof(double));
	w = gsl_multifit_nlinear_alloc(gsl_multifit_nlinear_trust, &prm, n, np);
	x = gsl_vector_alloc(np);
	best = gsl_vector_alloc(np);
	if (!c.r || !w || !x || !best) {
		free(c.r);
		if (w)
			gsl_multifit_nlinear_free(w);
		if (x)
			gsl_vector_free(x);
		if (best)
			gsl_vector_free(best);
		return sc_error_set(err, SC_ENOMEM, NULL, NULL, "out of memory");
	}
	for (int j = 0; j < prob->n_params; j++) {
		struct calib_param_info info = info_of(cal, prob->params[j]);

		c.u0[j] = to_u(&info, calib_get(cal, (enum calib_param)prob->params[j]));
	}
	fdf.f = f_eval;
	fdf.df = NULL;
	fdf.fvv = NULL;
	fdf.n = n;
	fdf.p = np;
	fdf.params = &c;
	for (int s = 0; s <= prob->starts; s++) {
		int info = 0;
		double chisq = 0;
		gsl_vector *res;

		for (int j = 0; j < prob->n_params; j++)
			gsl_vector_set(x, (size_t)j, s == 0 ? c.u0[j]
					: U_SPAN * (2.0 * halton(s, primes[j]) - 1.0));
		if (gsl_multifit_nlinear_init(x, &fdf, w) != GSL_SUCCESS)
			continue;
		(void)gsl_multifit_nlinear_driver(200, 1e-10, 1e-10, 1e-12, NULL, NULL, &info, w);
		res = gsl_multifit_nlinear_residual(w);
		gsl_blas_ddot(res, res, &chisq);
		if (!isfinite(chisq))
			continue;
		if (chisq < best_cost) {
			best_cost = chisq;
			gsl_vector_memcpy(best, gsl_multifit_nlinear_position(w));
		}
	}
	if (isfinite(best_cost)) {
		apply(&c, best);
		prob->residuals(&c.cal, c.r, prob->ctx);
		*cost = 0;
		for (int i = 0; i < prob->n_points; i++)
			*cost += c.r[i] * c.r[i];
		*cal = c.cal;
	}
	free(c.r);
	gsl_multifit_nlinear_free(w);
	gsl_vector_free(x);
	gsl_vector_free(best);
	if (!isfinite(best_cost))
		return sc_error_set(err, SC_ERANGE, NULL, NULL, "the fit did not converge from any start");
	return SC_OK;
}

double fit_r2(const double *y, const double *yhat, int n)
{
	double mean = 0, ss_tot = 0, ss_res = 0;

	if (n <= 0)
		return 0;
	for (int i = 0; i < n; i++)
		mean += y[i] / n;
	for (int i = 0; i < n; i++) {
		ss_tot += (y[i] - mean) * (y[i] - mean);
		ss_res += (y[i] - yhat[i]) * (y[i] - yhat[i]);
	}
	if (ss_tot <= 0)
		return ss_res <= 0 ? 1.0 : 0.0;
	return 1.0 - ss_res / ss_tot;
}

bool fit_relative_line(const double *x, const double *y, int n, double *yhat, double *rel,
		       struct fit_line *out)
{
	double w[CAL_FIT_MAX_POINTS] = { 0 }, cov00, cov01, cov11, chisq, rms = 0, mx = 0;

	memset(out, 0, sizeof(*out));
	if (n > CAL_FIT_MAX_POINTS)
		return false;
	for (int i = 0; i < n; i++)
		w[i] = 1.0 / (y[i] * y[i]);
	if (gsl_fit_wlinear(x, 1, w, 1, y, 1, (size_t)n, &out->c0, &out->c1, &cov00, &cov01, &cov11,
			    &chisq))
		return false;
	for (int i = 0; i < n; i++) {
		yhat[i] = out->c0 + out->c1 * x[i];
		rel[i] = yhat[i] / y[i] - 1;
		rms += rel[i] * rel[i] / n;
		mx = fmax(mx, fabs(rel[i]));
	}
	out->rms_rel = sqrt(rms);
	out->max_rel = mx;
	return true;
}
