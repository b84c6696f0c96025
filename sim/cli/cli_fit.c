/* cli_fit.c: the --fit parameter list and the profile writer (see
 * cli_fit.h). */
#include "cli_fit.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

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
	cJSON *json = rpt_calibration_json(cal);
	char *text = json ? cJSON_Print(json) : NULL;
	int code;

	cJSON_Delete(json);
	if (!text) {
		fprintf(stderr, "stepcast: error: out of memory\n");
		return EXIT_INTERNAL;
	}
	/* the profile must load back before it replaces anything */
	code = cli_output_text(output, text, true, cli_check_profile, (void *)output);
	free(text);
	return code;
}
