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


/* Leave-one-source-group-out over the serving cases of `in`'s GPU family:
 * the one loop of fit.h (val_cv_run), each fold refitting params with
 * sval_fit on the other groups.  Each compared value of a group's cases
 * gets has_oos, oos_predicted and oos_err_rel; a group's cases count its
 * compared values (throughput, TTFT, TPOT each once). */
enum sc_status sval_cross_validate(struct sval_set *set, const struct calibration *in,
				   const int *params, int n_params, int max_iterations,
				   struct val_cv_result *res, struct sc_error *err);

#endif
