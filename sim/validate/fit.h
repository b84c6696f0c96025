/* fit.h: fit general calibration parameters against a validation set.
 *
 * val_fit() moves the named parameters of one calibration profile to
 * minimise the mean absolute log error of predicted versus measured step
 * time over every expressible case whose GPU uses that profile (GSL's
 * Nelder-Mead simplex, parameters kept inside their catalogue bounds).  It
 * fits parameters shared by all cases of a GPU family, never per case, per
 * source or per model.  The caller owns every struct; nothing to free.
 */
#ifndef SC_VALIDATE_FIT_H
#define SC_VALIDATE_FIT_H

#include "../../models/calibration.h"
#include "../../models/status.h"
#include "validate.h"

#define VAL_FIT_MAX_PARAMS 16

/* The prior of each fitted parameter: normal on the logistic variable u of
 * its physical range (value = min + (max - min) / (1 + e^-u)), centred on
 * the parameter's prior value (calib_prior) with this standard deviation.
 * The fit minimises mean |log error| + (b / n) sum ((u - u_prior) / sigma)^2 / 2
 * with b the mean |log error| before the fit and n the cases: the
 * posterior mode for Laplace errors of scale b.  u of a bound is infinite,
 * so the prior keeps a fit off the bounds unless the data insist.
 * sigma 2: weakly informative on the logistic scale (Gelman, Jakulin, Pittau
 * and Su 2008, "A weakly informative default prior distribution for
 * logistic and other regression models", Ann. Appl. Stat. 2(4): scale 2.5
 * per logistic coefficient); from a centre mid-range, +/- 2 sigma covers
 * logistic(+/-4) = 1.8 % to 98.2 % of the physical range. */
#define VAL_FIT_PRIOR_SIGMA_U 2.0

struct val_fit_result {
	int cases;               /* cases the profile covers */
	int iterations;
	double mape_before;      /* fraction */
	double mape_after;
	double mean_abs_log_before;
	double mean_abs_log_after;
	int n_at_bound;                      /* fitted parameters that ended on a bound */
	int at_bound[VAL_FIT_MAX_PARAMS];    /* their indices */
};

/* The one bounded fit driver behind every fit of sim/validate (training,
 * serving): GSL's Nelder-Mead simplex on the logistic variable u of each
 * parameter (so a value never leaves calib_bounds' physical range), the
 * data term `objective` (mean |log error| over the data the current *cal
 * predicts; *count the data points, *mape their MAPE) plus the prior above.
 * Fails (SC_EINVAL) with fewer than 2 data points per parameter, naming
 * `what` the points are.  On success *cal holds the fitted values, the
 * other parameters as they were. */
struct val_fit_problem {
	struct calibration *cal;  /* moved in place; the objective reads it */
	const int *params;        /* indices into calib_params */
	int n_params;
	int max_iterations;
	double size_tolerance;    /* gsl_multimin_test_size on the simplex, in u */
	double (*objective)(void *arg, int *count, double *mape);
	void *arg;
	const char *what;         /* "expressible cases" */
};

enum sc_status val_fit_bounded(const struct val_fit_problem *p, struct val_fit_result *res,
			       struct sc_error *err);

/* After a fit of params of *cal: each one's source says how it was fitted,
 * "fitted (stepcast HOW: MAPE a% -> b%; prior: ...)" keeping one level of
 * prior (that of an earlier fit's), and a parameter without a prior gets
 * the value the fit started from (start[i]) as its prior. */
void val_fit_note_sources(struct calibration *cal, const int *params, int n, const double *start,
			  const struct val_fit_result *res, const char *how);

/* Fit params (indices into calib_params) of *cal over set's cases that use
 * the profile named cal->name, leaving out the cases of source group
 * exclude_group (NULL: none).  On success *cal holds the fitted values. */
enum sc_status val_fit(struct val_set *set, struct calibration *cal,
		       const int *params, int n_params, int max_iterations,
		       const char *exclude_group, struct val_fit_result *res,
		       struct sc_error *err);

/* MAPE (fraction) and count of the cases of source group `group` that use
 * cal's profile, predicted with cal. */
double val_group_mape(struct val_set *set, const struct calibration *cal,
		      const char *group, int *count);

/* Leave-one-source-group-out cross-validation, the one implementation
 * behind `validate --cross-validate` and `validate --out-of-sample`.
 * For each source group of the cases that use profile `in` (by family):
 * refit params (indices into calib_params) starting from their priors
 * (the rest of `in` as it is) on every other group, and predict the
 * group's cases with that fit (a start at `in`'s values would carry the
 * left-out group's fit into a parameter the other groups do not move).  A fold whose
 * other groups hold too few cases to fit predicts with the params at their
 * priors (calib_prior): what the model knows without that family's data.
 * Each such case gets has_oos, oos_predicted_step_s and oos_err_rel; each
 * group its MAPE in sample (predicted with `in`) and out of sample.  The
 * cases' scenarios hold `in` again on return. */
#define VAL_CV_MAX_GROUPS 64

struct val_cv_group {
	char name[SC_NAME_MAX * 2];
	int cases;
	double mape_in, mape_out; /* fractions */
	bool from_priors;         /* no other group to fit on */
	bool pooled;              /* from_priors, software parameters from other profiles' folds */
	int iterations;
	double value[CALIB_COUNT]; /* the parameters the group was predicted with out of sample */
};

struct val_cv_result {
	int n_groups;
	struct val_cv_group groups[VAL_CV_MAX_GROUPS];
	int cases;
	double mape_in, mape_out; /* over every case of the profile */
	bool no_refit;            /* max_iterations 0: every group at the priors */
};

enum sc_status val_cross_validate(struct val_set *set, const struct calibration *in,
				  const int *params, int n_params, int max_iterations,
				  struct val_cv_result *res, struct sc_error *err);

/* The leave-one-source-group-out loop itself, over any validation set
 * (training steps: val_cross_validate; serving metrics: sval_cross_validate):
 * the set says which of its cases profile `in` covers and their groups,
 * fits without a group, and predicts one group's cases in and out of
 * sample (adding |error| sums and the count to the group, recording each
 * case's out-of-sample prediction); the loop enumerates the groups, falls
 * back to the priors when a fold cannot be fitted (or max_iterations is
 * 0: every fold at the priors), and averages.  The set
 * restores `in` in its cases at the end. */
struct val_cv_ops {
	void *set;
	int n_cases;
	/* case i's source group when `in` covers it, else NULL */
	const char *(*group_of)(void *set, int i, const struct calibration *in);
	enum sc_status (*fit)(void *set, struct calibration *cal, const int *params, int n_params,
			      int max_iterations, const char *exclude_group,
			      struct val_fit_result *res, struct sc_error *err);
	void (*predict_group)(void *set, const char *group, const struct calibration *in,
			      const struct calibration *held, struct val_cv_group *gr);
	void (*restore)(void *set, const struct calibration *in);
};

/* Hierarchical priors across GPU families: for each profile cal[i] and
 * each of its folds cv[i] that had no group left to fit on (from_priors),
 * the software parameters (calibration.h calib_is_software) take the mean
 * of the values the other profiles fitted for them without that group
 * (their fold for it, or their whole fit where they have no case of it),
 * each weighted by that fit's cases of the left-out group's framework; a
 * donor's fit on another framework's runs carries no weight.  The fold's
 * cases are predicted again with those and their profile's priors.  No
 * left-out case enters any value it is predicted with. */
void val_cv_pool_software(struct val_set *set, const struct calibration *cal,
			  struct val_cv_result *cv, int n);

enum sc_status val_cv_run(const struct val_cv_ops *ops, const struct calibration *in,
			  const int *params, int n_params, int max_iterations,
			  struct val_cv_result *res, struct sc_error *err);

#endif
