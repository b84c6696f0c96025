/* val_oos.c: the profiles an out-of-sample run refits (see val_oos.h). */
#include "val_oos.h"

#include <string.h>

#include "serve_validate.h"
#include "validate.h"

int val_oos_add_profile(struct val_oos_profile *profiles, int n, int max,
			const struct calibration *cal, bool by_name, bool serving)
{
	struct val_oos_profile *p;

	for (int j = 0; j < n; j++)
		if (strcmp(profiles[j].cal.gpu_family, cal->gpu_family) == 0 &&
		    (!by_name || strcmp(profiles[j].cal.name, cal->name) == 0))
			return n;
	if (n >= max)
		return n;
	p = &profiles[n];
	p->cal = *cal;
	p->n_params = 0;
	for (int k = 0; k < CALIB_COUNT && p->n_params < VAL_FIT_MAX_PARAMS; k++)
		if (calib_is_validate_fitted(cal, (enum calib_param)k, serving))
			p->params[p->n_params++] = k;
	return n + 1;
}

void val_oos_as_is(struct val_set *set, const struct calibration *cal)
{
	for (int k = 0; k < set->n_cases; k++) {
		struct val_case *c = &set->cases[k];

		if (c->expressible && c->scenario && strcmp(c->scenario->calibration.name, cal->name) == 0) {
			c->has_oos = true;
			c->oos_predicted_step_s = c->predicted_step_s;
			c->oos_err_rel = c->err_rel;
		}
	}
}

void sval_oos_as_is(struct sval_set *set, const struct calibration *cal)
{
	for (int k = 0; k < set->n_cases; k++) {
		struct sval_case *c = &set->cases[k];

		if (!c->sc || strcmp(c->sc->calibration.gpu_family, cal->gpu_family) != 0)
			continue;
		for (int m = 0; m < SVAL_METRICS; m++) {
			c->m[m].has_oos = true;
			c->m[m].oos_predicted = c->m[m].predicted;
			c->m[m].oos_err_rel = c->m[m].err_rel;
		}
	}
	set->oos = true;
}
