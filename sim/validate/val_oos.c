/* val_oos.c: the profiles an out-of-sample run refits (see val_oos.h). */
#include "val_oos.h"

#include <string.h>

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
