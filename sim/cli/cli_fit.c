/* cli_fit.c: the --fit parameter list and the profile writer (see
 * cli_fit.h). */
#include "cli_fit.h"

#include <stdio.h>
#include <string.h>

#include "../../reports/rpt_catalog.h"
#include "cli.h"
#include "cli_output.h"

int cli_parse_fit_params(const char *list, int max, int *params, int *n)
{
	char buf[1024], *tok, *save = NULL;

	snprintf(buf, sizeof(buf), "%s", list);
	*n = 0;
	for (tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		int idx = calib_param_index(tok);

		if (idx < 0)
			return cli_usage_error("validate", "--fit: unknown calibration parameter '%s'", tok);
		if (*n >= max)
			return cli_usage_error("validate", "--fit: at most %d parameters", max);
		params[(*n)++] = idx;
	}
	if (*n == 0)
		return cli_usage_error("validate", "--fit needs at least one parameter");
	return EXIT_OK;
}

int cli_write_profile(const struct calibration *cal, const char *output)
{
	/* the profile must load back before it replaces anything */
	return cli_write_json(output, rpt_calibration_json(cal), cli_check_profile, (void *)output);
}
