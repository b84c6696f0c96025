/* val_oos.h: which calibration profiles an out-of-sample run refits, and
 * which parameters in each: the walk that `validate --out-of-sample` and
 * `validate --serving --out-of-sample` share (each then refits a profile
 * per source group left out: val_cross_validate, sval_cross_validate). */
#ifndef SC_VAL_OOS_H
#define SC_VAL_OOS_H

#include <stdbool.h>

#include "../../models/calibration.h"
#include "fit.h"

/* One profile the cases are predicted with, as first seen, and the
 * parameters `validate --fit` moves in it. */
struct val_oos_profile {
	struct calibration cal;
	int params[VAL_FIT_MAX_PARAMS];
	int n_params;   /* 0: nothing to refit: its cases are out of sample as they are */
};

/* profiles[0..n) with cal appended unless one there is the same profile
 * (the same gpu_family and, with by_name, the same name) or max are there
 * already; the appended entry lists cal's validate-fitted parameters
 * (calib_is_validate_fitted with serving).  Returns the new count. */
int val_oos_add_profile(struct val_oos_profile *profiles, int n, int max,
			const struct calibration *cal, bool by_name, bool serving);

/* A profile with nothing to refit: its cases' in-sample predictions are
 * their out-of-sample ones (training: the cases predicted with cal's
 * name; serving: those on cal's GPU family, every metric, and the set
 * marked as having out-of-sample values). */
struct val_set;
struct sval_set;
void val_oos_as_is(struct val_set *set, const struct calibration *cal);
void sval_oos_as_is(struct sval_set *set, const struct calibration *cal);

#endif
