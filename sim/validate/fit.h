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

struct val_fit_result {
	int cases;               /* cases the profile covers */
	int iterations;
	double mape_before;      /* fraction */
	double mape_after;
	double mean_abs_log_before;
	double mean_abs_log_after;
};

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

#endif
