/* cli_serve_validate.c: `stepcast validate --serving [FILE]`: predict the
 * published serving measurements and report the error of throughput, TTFT
 * and TPOT separately (see cli_serve.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../reports/rpt_catalog.h"
#include "../../reports/rpt_serve.h"
#include "../../reports/rpt_serve_validate.h"
#include "../serve/serve_sim.h"
#include "../validate/serve_fit.h"
#include "cli_serve.h"
#include "cli_fit.h"
#include "cli_output.h"

#define FIT_ITERATIONS 400

/* --fit: fit, mark each fitted parameter's source, write the profile. */
static int run_fit(struct sval_set *set, struct calibration *cal, const int *params, int n,
		   const char *cases_path, const char *output)
{
	struct val_fit_result res;
	struct sc_error err;
	const char *base = strrchr(cases_path, '/') ? strrchr(cases_path, '/') + 1 : cases_path;
	double start_value[VAL_FIT_MAX_PARAMS];
	char how[256];

	for (int i = 0; i < n; i++)
		start_value[i] = calib_get(cal, (enum calib_param)params[i]);
	sc_error_clear(&err);
	if (sval_fit(set, cal, params, n, FIT_ITERATIONS, NULL, &res, &err) != SC_OK)
		return cli_fail(&err);
	fprintf(stderr, "stepcast: validate: fitted %d parameters of \"%s\" on %d serving metrics in %d "
		"iterations: MAPE %.1f %% -> %.1f %%, mean |log error| %.3f -> %.3f\n", n, cal->name,
		res.cases, res.iterations, 100 * res.mape_before, 100 * res.mape_after,
		res.mean_abs_log_before, res.mean_abs_log_after);
	snprintf(how, sizeof(how), "validate --serving --fit) over %d throughput/TTFT/TPOT values of the %s cases of %s",
		 res.cases, cal->gpu_family, base);
	val_fit_note_sources(cal, params, n, start_value, &res, how);
	for (int i = 0; i < n; i++)
		fprintf(stderr, "  %-28s %.6g%s\n", calib_params[params[i]].name,
			calib_get(cal, (enum calib_param)params[i]),
			calib_at_bound(cal, (enum calib_param)params[i]) ? "  AT BOUND" : "");
	if (res.n_at_bound > 0)
		fprintf(stderr, "stepcast: validate: warning: %d fitted parameter%s ended on a bound of "
			"its physical range\n", res.n_at_bound, res.n_at_bound > 1 ? "s" : "");
	return cli_write_profile(cal, output);
}

/* --cross-validate: refit without each source group of the family and
 * report that group's error out of sample (stderr). */
static int cross_validate(struct sval_set *set, const struct calibration *start, const int *params,
			  int n)
{
	static struct sval_cv_result cv;
	struct sc_error err;

	sc_error_clear(&err);
	if (sval_cross_validate(set, start, params, n, FIT_ITERATIONS, &cv, &err) != SC_OK)
		return cli_fail(&err);
	fprintf(stderr, "cross-validation of %s on the serving cases (leave one source group out)\n",
		start->name);
	fprintf(stderr, "  %-40s %7s %12s %14s\n", "left-out group", "metrics", "in-sample %",
		"out-of-sample %");
	for (int g = 0; g < cv.n_groups; g++) {
		const struct sval_cv_group *gr = &cv.groups[g];

		if (!gr->fitted)
			fprintf(stderr, "  %-40s %7d %12.1f %14s  (%s)\n", gr->name, gr->metrics,
				100 * gr->mape_in, "-", gr->why);
		else
			fprintf(stderr, "  %-40s %7d %12.1f %14.1f\n", gr->name, gr->metrics, 100 * gr->mape_in,
				100 * gr->mape_out);
	}
	if (cv.metrics)
		fprintf(stderr, "  %-40s %7d %12.1f %14.1f\n", "all", cv.metrics, 100 * cv.mape_in,
			100 * cv.mape_out);
	return EXIT_OK;
}

/* --explain: the serve report of one case, with what was measured. */
static int explain_case(const struct sval_set *set, const char *id)
{
	for (int i = 0; i < set->n_cases; i++) {
		const struct sval_case *vc = &set->cases[i];
		struct srv_result r;
		struct sc_error err;

		if (strcmp(vc->id, id) != 0)
			continue;
		if (!vc->sc) {
			fprintf(stderr, "stepcast: validate: case '%s' is not expressed: %s\n", id, vc->reason);
			return EXIT_UNSUPPORTED;
		}
		if (srv_simulate(vc->sc, &r, &err) != SC_OK)
			return cli_fail(&err);
		rpt_serve_text(stdout, vc->sc, &r);
		printf("\nmeasured    ");
		for (int k = 0; k < SVAL_METRICS; k++)
			if (vc->m[k].have)
				printf("%s %s %.4g (error %+.1f %%)  ", sval_metric_name((enum sval_metric)k),
				       vc->m[k].stat, vc->m[k].measured, 100 * vc->m[k].err_rel);
		printf("\nassumed     %s\n", vc->assumptions[0] ? vc->assumptions : "-");
		return EXIT_OK;
	}
	fprintf(stderr, "stepcast: validate: no case with id '%s' in %s\n", id, set->path);
	return EXIT_INVALID;
}

int cli_validate_serving(const struct cli_serve_validate_opts *o)
{
	const char *path = o->path ? o->path : sval_default_cases_path();
	const char *dir = o->config_dir ? o->config_dir : catalog_default_dir();
	const struct calibration *cal = NULL;
	struct calibration fitted;
	struct catalog cat;
	struct srv_engines engines;
	struct sval_set set;
	struct sc_error err;
	int params[VAL_FIT_MAX_PARAMS], n_params = 0, code;

	if (o->fit && (code = cli_parse_fit_params(o->fit, VAL_FIT_MAX_PARAMS, params, &n_params)) != EXIT_OK)
		return code;
	if ((code = cli_load_catalog(o->config_dir, &cat)) != EXIT_OK)
		return code;
	sc_error_clear(&err);
	if (srv_engines_load(dir, &engines, &err) != SC_OK) {
		catalog_free(&cat);
		return cli_fail(&err);
	}
	if (o->calibration) {
		/* cases span GPU families: sval_run applies the family rule per case */
		static struct calibration chosen;

		if (calibration_select(&cat, NULL, o->calibration, NULL, "--calibration", NULL,
				       &chosen, &err) != SC_OK) {
			code = cli_fail(&err);
			goto out_engines;
		}
		cal = &chosen;
	}
	if (sval_load(path, sval_default_supplement_path(), &cat, &engines, &set, &err) != SC_OK) {
		code = cli_fail(&err);
		goto out_engines;
	}
	if (o->fit) {
		fitted = *cal;
		if (o->cross_validate && (code = cross_validate(&set, cal, params, n_params)) != EXIT_OK)
			goto out;
		if ((code = run_fit(&set, &fitted, params, n_params, path, o->output)) != EXIT_OK)
			goto out;
		cal = &fitted;
	}
	sval_run(&set, cal);
	if (o->explain) {
		code = explain_case(&set, o->explain);
		goto out;
	}
	if (!rpt_serve_validate(stdout, &set, (enum rpt_validate_format)o->fmt, o->summary_only)) {
		fprintf(stderr, "stepcast: error: out of memory\n");
		code = EXIT_INTERNAL;
		goto out;
	}
	code = EXIT_OK;
	if (o->max_mape >= 0) {
		for (int k = 0; k < SVAL_METRICS; k++) {
			struct val_stats st;

			sval_stats(&set, (enum sval_metric)k, NULL, NULL, &st);
			if (st.count > 0 && 100 * st.mape > o->max_mape) {
				fprintf(stderr, "stepcast: validate: %s MAPE %.1f %% is above --max-mape %.1f %%\n",
					sval_metric_name((enum sval_metric)k), 100 * st.mape, o->max_mape);
				code = EXIT_CHECK_FAILED;
			}
		}
	}
out:
	sval_free(&set);
out_engines:
	srv_engines_free(&engines);
	catalog_free(&cat);
	return code;
}
