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
#include "../validate/bands.h"
#include "../validate/serve_fit.h"
#include "../validate/val_oos.h"
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

/* --cross-validate: the in-sample profile is the fit on every group of the
 * family; each group is then predicted by the fit without it (fit.h's one
 * leave-one-group-out loop, through sval_cross_validate). */
static int cross_validate(struct sval_set *set, const struct calibration *start, const int *params,
			  int n)
{
	static struct calibration all;
	static struct val_cv_result cv;
	struct val_fit_result res;
	struct sc_error err;

	all = *start;
	sc_error_clear(&err);
	if (sval_fit(set, &all, params, n, FIT_ITERATIONS, NULL, &res, &err) != SC_OK)
		return cli_fail(&err);
	if (sval_cross_validate(set, &all, params, n, FIT_ITERATIONS, &cv, &err) != SC_OK)
		return cli_fail(&err);
	cli_print_cross_validation(&all, &cv);
	return EXIT_OK;
}

/* Nelder-Mead iterations of each out-of-sample fold (a fold starts from
 * the parameters' priors, fit.h val_cv_run); every iteration simulates the
 * family's cases (seconds), so the folds get a tenth of a full fit's
 * budget. */
#define OOS_ITERATIONS 40

/* --out-of-sample: for each GPU family profile the expressed cases use,
 * refit the parameters it marks as fitted by `validate --serving --fit`
 * with each source group left out; the cases keep the out-of-sample
 * predictions for the summary's oos column.  A profile without such
 * parameters predicts out of sample as it stands. */
static int out_of_sample(struct sval_set *set, int iterations)
{
	static struct val_oos_profile prof[16];
	static struct val_cv_result cv;
	int n_prof = 0;

	for (int i = 0; i < set->n_cases; i++)
		if (set->cases[i].sc)
			n_prof = val_oos_add_profile(prof, n_prof, 16, &set->cases[i].sc->calibration, false,
						     true);
	for (int p = 0; p < n_prof; p++) {
		const struct calibration *cal = &prof[p].cal;
		struct sc_error err;

		if (prof[p].n_params == 0) {
			cli_note_oos_as_is(cal, true);
			sval_oos_as_is(set, cal);
			continue;
		}
		sc_error_clear(&err);
		if (sval_cross_validate(set, cal, prof[p].params, prof[p].n_params, iterations, &cv,
					&err) != SC_OK)
			return cli_fail(&err);
		cli_print_cross_validation(cal, &cv);
	}
	return EXIT_OK;
}

/* The serving regime bands of the out-of-sample values (stderr table), and
 * with path their entries written into the bands file there, the training
 * validation's entries kept (bands.h val_bands_carry). */
static int serve_bands(const struct sval_set *set, const char *path)
{
	static struct model_regime_band band[REGIME_COUNT];
	int covered[REGIME_COUNT];
	cJSON *doc, *arr;

	sval_regime_bands(set, NULL, band, covered);
	fprintf(stderr, "\nserving regimes (time-like ratio out of sample: measured / predicted TTFT and TPOT, "
		"predicted / measured throughput; coverage: P10-P90 of the other source groups)\n");
	fprintf(stderr, "%-22s %6s %7s %7s %7s %9s\n", "regime", "values", "P10", "P50", "P90", "coverage%");
	for (int r = 0; r < REGIME_COUNT; r++)
		if (band[r].present)
			fprintf(stderr, "%-22s %6d %7.3f %7.3f %7.3f %9.1f\n",
				model_regime_name((enum model_regime)r), band[r].cases, band[r].p10,
				band[r].p50, band[r].p90, band[r].coverage >= 0 ? 100 * band[r].coverage : -1.0);
	if (!path)
		return EXIT_OK;
	if (!(doc = cJSON_CreateObject()) || !(arr = cJSON_AddArrayToObject(doc, "regimes"))) {
		cJSON_Delete(doc);
		fprintf(stderr, "stepcast: error: out of memory\n");
		return EXIT_INTERNAL;
	}
	cJSON_AddNumberToObject(doc, "schema_version", 1);
	for (int r = 0; r < REGIME_COUNT; r++) {
		cJSON *o;

		if (!band[r].present || !(o = cJSON_CreateObject()))
			continue;
		cJSON_AddStringToObject(o, "family", "all");
		cJSON_AddStringToObject(o, "name", model_regime_name((enum model_regime)r));
		cJSON_AddNumberToObject(o, "cases", band[r].cases);
		cJSON_AddNumberToObject(o, "p10", band[r].p10);
		cJSON_AddNumberToObject(o, "p50", band[r].p50);
		cJSON_AddNumberToObject(o, "p90", band[r].p90);
		if (band[r].coverage >= 0) {
			cJSON_AddNumberToObject(o, "coverage_out_of_sample", band[r].coverage);
			cJSON_AddNumberToObject(o, "coverage_cases", covered[r]);
		} else {
			cJSON_AddNullToObject(o, "coverage_out_of_sample");
		}
		cJSON_AddItemToArray(arr, o);
	}
	/* the training regimes, their provenance and coverage_shown */
	val_bands_carry(doc, path, "serve-", false);
	return cli_write_json(path, doc, NULL, NULL);
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
		if (!vc->sc)
			return cli_explain_unexpressed(id, vc->reason);
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
	return cli_explain_no_case(id, set->path);
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
	if (o->out_of_sample &&
	    (code = out_of_sample(&set, o->oos_iterations >= 0 ? o->oos_iterations : OOS_ITERATIONS)) != EXIT_OK)
		goto out;
	if (o->out_of_sample && (code = serve_bands(&set, o->bands_output)) != EXIT_OK)
		goto out;
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
	if (o->max_oos_mape >= 0 && set.oos) {
		for (int k = 0; k < SVAL_METRICS; k++) {
			int n;
			double m = sval_oos_mape(&set, (enum sval_metric)k, NULL, NULL, &n);

			if (n > 0 && 100 * m > o->max_oos_mape) {
				fprintf(stderr, "stepcast: validate: %s out-of-sample MAPE %.1f %% is above "
					"--max-oos-mape %.1f %%\n", sval_metric_name((enum sval_metric)k), 100 * m,
					o->max_oos_mape);
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
