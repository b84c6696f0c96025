/* fit_core.h: the nonlinear least-squares engine shared by the fits
 * (internal to calibrate/fit).
 *
 * Parameters are searched on unbounded variables mapped into their
 * catalogue bounds (calib_params[].min..max): latencies (unit "s") on a log
 * scale from max(min, 1 ns), everything else by a logistic.  The residual
 * vector is the caller's weighted residuals (usually log(model/measured))
 * followed by prior_weight * (u - u_base) per parameter, which keeps
 * parameters the data cannot see at the base value.  gsl_multifit_nlinear
 * (trust region, Levenberg-Marquardt, finite-difference Jacobian) runs from
 * the base and from `starts` quasi-random points (a Halton sequence, so the
 * result does not depend on a random seed); the best optimum wins.
 * Caller-owned everything; nothing to free.
 */
#ifndef SC_CAL_FIT_CORE_H
#define SC_CAL_FIT_CORE_H

#include "../../models/calibration.h"
#include "../../models/status.h"
#include "fit.h"

/* Fill r[0..n_points) with the weighted residuals of cal. */
typedef void (*fit_residuals_fn)(const struct calibration *cal, double *r, void *ctx);

struct fit_problem {
	int n_points;
	fit_residuals_fn residuals;
	void *ctx;
	const int *params;        /* indices into calib_params */
	int n_params;
	double prior_weight;
	int starts;
};

/* Fit prob's parameters of *cal (in: the base, out: the optimum).  *cost is
 * the sum of squared residuals (data part only). */
enum sc_status fit_run(const struct fit_problem *prob, struct calibration *cal,
		       double *cost, struct sc_error *err);

/* R^2 of y against yhat: 1 - sum (y - yhat)^2 / sum (y - mean y)^2 (1 when
 * y is constant and matched). */
double fit_r2(const double *y, const double *yhat, int n);

/* A straight line y = c0 + c1 x fitted for relative error, and how well
 * it fits: the RMS and the largest magnitude of the relative residuals
 * yhat / y - 1. */
struct fit_line {
	double c0, c1;
	double rms_rel, max_rel;
};

/* The line through (x, y)[0..n) weighted 1/y^2 (gsl_fit_wlinear), so that
 * every point counts by its relative error, small sizes as much as large:
 * its predictions yhat[0..n) and relative residuals rel[0..n).  false
 * when GSL finds no line.  The bandwidth fits' one line fit (collective
 * segments, HBM copies). */
bool fit_relative_line(const double *x, const double *y, int n, double *yhat, double *rel,
		       struct fit_line *out);

/* The fits of each kind (fit_coll.c, fit_gemm.c), run by cal_fit(). */

enum sc_status fit_collectives(const struct cal_measurements *m, const struct cluster *cl,
			       const struct cal_fit_opts *o, struct cal_fit_result *res,
			       struct sc_error *err);
enum sc_status fit_gemm(const struct cal_measurements *m, const struct cluster *cl,
			const struct cal_fit_opts *o, struct cal_fit_result *res,
			struct sc_error *err);
enum sc_status fit_hbm(const struct cal_measurements *m, const struct cluster *cl,
		       struct cal_fit_result *res, struct sc_error *err);

/* Append a note (printf-style) to res. */
void fit_note(struct cal_fit_result *res, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/* Append a fit record; NULL when the table is full (a note says so). */
struct calib_fit *fit_add(struct cal_fit_result *res);

#endif
