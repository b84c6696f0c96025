/* serve_fit.h: fit general calibration parameters to the serving cases.
 *
 * sval_fit() moves the named parameters of one calibration profile to
 * minimise the mean absolute log error of predicted versus measured
 * throughput, TTFT and TPOT (every published metric of every expressible
 * case whose GPU belongs to the profile's family counts once), by GSL's
 * Nelder-Mead simplex with the parameters kept inside their physical
 * ranges (calib_bounds) under fit.h's prior, as sim/validate/fit.c does for
 * training.  Parameters are shared
 * by all cases of a GPU family: never per case, per source or per model.
 * The caller owns every struct; nothing to free.
 */
#ifndef SC_SERVE_FIT_H
#define SC_SERVE_FIT_H

#include "fit.h"
#include "serve_validate.h"

/* Fit params (indices into calib_params) of *cal over set's cases of
 * cal's GPU family, leaving out source group exclude_group (NULL: none).
 * On success *cal holds the fitted values; the cases keep their own
 * profiles. */
enum sc_status sval_fit(struct sval_set *set, struct calibration *cal, const int *params,
			int n_params, int max_iterations, const char *exclude_group,
			struct val_fit_result *res, struct sc_error *err);

/* MAPE (fraction, over the published metrics) and metric count of the
 * cases of source group `group` in cal's family, predicted with cal. */
double sval_group_mape(struct sval_set *set, const struct calibration *cal, const char *group,
		       int *count);

/* Leave-one-source-group-out cross-validation of the serving cases of
 * start's family: fit params on every case (from start), then for each
 * source group refit from that fit without the group and predict the
 * group's metrics with it.  A fold that cannot be fitted (too few metrics
 * outside the group) keeps its in-sample MAPE, fitted false and the reason
 * in why.  Fails only when the fit on every case fails. */
struct sval_cv_group {
	char name[SC_NAME_MAX * 2];
	int metrics;
	double mape_in, mape_out; /* fractions; mape_out only when fitted */
	bool fitted;
	char why[SC_ERROR_MSG_MAX];
};

struct sval_cv_result {
	int n_groups;
	struct sval_cv_group groups[VAL_CV_MAX_GROUPS];
	int metrics;              /* over the fitted folds */
	double mape_in, mape_out;
};

enum sc_status sval_cross_validate(struct sval_set *set, const struct calibration *start, const int *params,
				   int n_params, int max_iterations, struct sval_cv_result *res,
				   struct sc_error *err);

#endif
