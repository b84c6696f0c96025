/* cmd_validate.c: `stepcast validate [FILE]`: predict published training
 * runs and report the error per case and in summary. */
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "../../reports/rpt_catalog.h"
#include "../../reports/rpt_step.h"
#include "../../reports/rpt_validate.h"
#include "../validate/bands.h"
#include "../validate/fit.h"
#include "../validate/validate.h"
#include "../validate/val_summary.h"
#include "cli.h"
#include "cli_progress.h"
#include "cli_set.h"
#include "cli_coll.h"
#include "cli_fit.h"
#include "cli_output.h"
#include "cli_serve.h"

/* Fit, mark each fitted parameter's source, write the profile to output. */
static int run_fit(struct val_set *set, struct calibration *cal, const int *params, int n,
		   const char *cases_path, const char *output)
{
	struct val_fit_result res;
	enum sc_status fit_st;
	struct sc_error err;
	const char *base;
	char how[256];

	double start_value[VAL_FIT_MAX_PARAMS];

	for (int i = 0; i < n; i++)
		start_value[i] = calib_get(cal, (enum calib_param)params[i]);
	sc_error_clear(&err);
	cli_progress_begin("validate --fit");
	fit_st = val_fit(set, cal, params, n, 2000, NULL, &res, &err);
	cli_progress_end();
	if (fit_st != SC_OK)
		return cli_fail(&err);
	fprintf(stderr, "stepcast: validate: fitted %d parameters of \"%s\" on %d cases in %d "
		"iterations: MAPE %.1f %% -> %.1f %%, mean |log error| %.3f -> %.3f\n", n, cal->name,
		res.cases, res.iterations, 100 * res.mape_before, 100 * res.mape_after,
		res.mean_abs_log_before, res.mean_abs_log_after);
	base = strrchr(cases_path, '/') ? strrchr(cases_path, '/') + 1 : cases_path;
	snprintf(how, sizeof(how), "validate --fit) over the %d %s cases of %s", res.cases, cal->gpu_family,
		 base);
	val_fit_note_sources(cal, params, n, start_value, &res, how);
	for (int i = 0; i < n; i++) {
		double lo, hi;

		calib_bounds(cal, (enum calib_param)params[i], &lo, &hi, NULL);
		fprintf(stderr, "  %-28s %.6g  [%.4g, %.4g]%s\n", calib_params[params[i]].name,
			calib_get(cal, (enum calib_param)params[i]), lo, hi,
			calib_at_bound(cal, (enum calib_param)params[i]) ? "  AT BOUND" : "");
	}
	if (res.n_at_bound > 0) {
		fprintf(stderr, "stepcast: validate: warning: %d fitted parameter%s ended on a bound of "
			"its physical range (the data push past what is physical: a missing effect, not "
			"a value to keep):", res.n_at_bound, res.n_at_bound > 1 ? "s" : "");
		for (int i = 0; i < res.n_at_bound; i++)
			fprintf(stderr, " %s", calib_params[res.at_bound[i]].name);
		fprintf(stderr, "\n");
	}
	return cli_write_profile(cal, output);
}

/* Print one profile's leave-one-source-group-out table (stderr). */
void cli_print_cross_validation(const struct calibration *cal, const struct val_cv_result *cv)
{
	fprintf(stderr, "cross-validation of %s (leave one source group out)\n", cal->name);
	fprintf(stderr, "  %-40s %5s %12s %14s\n", "left-out group", "cases", "in-sample %",
		"out-of-sample %");
	for (int g = 0; g < cv->n_groups; g++) {
		const struct val_cv_group *gr = &cv->groups[g];

		fprintf(stderr, "  %-40s %5d %12.1f %14.1f%s\n", gr->name, gr->cases, 100 * gr->mape_in,
			100 * gr->mape_out,
			!gr->from_priors ? "" : cv->no_refit ? "  (the parameters' priors: no refit asked for)"
			: "  (no other group to fit on: the parameters' priors)");
	}
	if (cv->cases)
		fprintf(stderr, "  %-40s %5d %12.1f %14.1f\n", "all", cv->cases, 100 * cv->mape_in,
			100 * cv->mape_out);
}

/* --cross-validate (with --fit): the in-sample profile is the fit on every
 * group; each group is then predicted by the fit without it. */
static int cross_validate(struct val_set *set, const struct calibration *start,
			  const int *params, int n)
{
	static struct calibration all;
	static struct val_cv_result cv;
	struct val_fit_result res;
	struct sc_error err;

	all = *start;
	sc_error_clear(&err);
	if (val_fit(set, &all, params, n, 2000, NULL, &res, &err) != SC_OK)
		return cli_fail(&err);
	if (val_cross_validate(set, &all, params, n, 2000, &cv, &err) != SC_OK)
		return cli_fail(&err);
	cli_print_cross_validation(start, &cv);
	return EXIT_OK;
}

/* --out-of-sample: for each profile the expressed cases use, refit the
 * parameters it marks as fitted by `validate --fit` with each source group
 * left out (val_cross_validate); the cases keep their out-of-sample
 * predictions for the summary. */
static int out_of_sample(struct val_set *set)
{
	static struct calibration seen[16];
	static struct val_cv_result cv;
	int n_seen = 0;

	for (int i = 0; i < set->n_cases; i++) {
		const struct val_case *vc = &set->cases[i];
		const struct calibration *cal;
		int params[VAL_FIT_MAX_PARAMS], n = 0;
		bool dup = false;
		struct sc_error err;

		if (!vc->expressible || !vc->scenario)
			continue;
		cal = &vc->scenario->calibration;
		for (int j = 0; j < n_seen; j++)
			dup |= strcmp(seen[j].name, cal->name) == 0 &&
			       strcmp(seen[j].gpu_family, cal->gpu_family) == 0;
		if (dup || n_seen >= 16)
			continue;
		seen[n_seen] = *cal;
		cal = &seen[n_seen++];
		for (int p = 0; p < CALIB_COUNT && n < VAL_FIT_MAX_PARAMS; p++)
			if (calib_is_validate_fitted(cal, (enum calib_param)p, false))
				params[n++] = p;
		if (n == 0) {
			fprintf(stderr, "stepcast: validate: profile \"%s\" has no parameter fitted by "
				"validate --fit: its cases are out of sample as they are\n", cal->name);
			for (int k = 0; k < set->n_cases; k++) {
				struct val_case *c = &set->cases[k];
				if (c->expressible && c->scenario &&
				    strcmp(c->scenario->calibration.name, cal->name) == 0) {
					c->has_oos = true;
					c->oos_predicted_step_s = c->predicted_step_s;
					c->oos_err_rel = c->err_rel;
				}
			}
			continue;
		}
		sc_error_clear(&err);
		if (val_cross_validate(set, cal, params, n, 2000, &cv, &err) != SC_OK)
			return cli_fail(&err);
		cli_print_cross_validation(cal, &cv);
	}
	return EXIT_OK;
}

/* The per-regime bands of the out-of-sample residuals: a table, and with
 * bands_output the bands file (configs/uncertainty-bands.json). */
static int regime_bands(const struct val_set *set, FILE *out, const char *bands_output)
{
	static struct val_regime_stats st[9];
	const char *families[9];
	int n = 0;

	/* each GPU family's bands, then all pooled (the fallback) */
	for (int i = 0; i < set->n_cases && n < 8; i++) {
		const struct val_case *vc = &set->cases[i];
		bool seen = false;

		if (!vc->has_oos || !vc->scenario)
			continue;
		for (int k = 0; k < n; k++)
			seen |= strcmp(families[k], vc->scenario->calibration.gpu_family) == 0;
		if (!seen)
			families[n++] = vc->scenario->calibration.gpu_family;
	}
	families[n++] = "all";
	fprintf(out, "\nregimes (measured / predicted out of sample; coverage: P10-P90 of the other "
		"source groups, target >= 80 %%)\n");
	fprintf(out, "%-10s %-22s %5s %7s %7s %7s %9s\n", "family", "regime", "cases", "P10", "P50",
		"P90", "cover%");
	for (int k = 0; k < n; k++) {
		val_regime_bands(set, strcmp(families[k], "all") == 0 ? NULL : families[k], &st[k]);
		for (int r = 0; r < REGIME_COUNT; r++) {
			const struct model_regime_band *b = &st[k].band[r];
			char cov[16] = "-";

			if (!b->present)
				continue;
			if (b->coverage >= 0)
				snprintf(cov, sizeof(cov), "%.1f", 100 * b->coverage);
			fprintf(out, "%-10s %-22s %5d %7.3f %7.3f %7.3f %9s\n", families[k],
				model_regime_name((enum model_regime)r), b->cases, b->p10, b->p50, b->p90, cov);
		}
		if (st[k].shown_coverage >= 0)
			fprintf(out, "%-10s %-22s %5d %7s %7s %7s %9.1f\n", families[k], "shown (widest)",
				st[k].shown_cases, "", "", "", 100 * st[k].shown_coverage);
	}
	if (bands_output) {
		char created[32];
		const char *epoch = getenv("SOURCE_DATE_EPOCH");
		time_t t = epoch && *epoch ? (time_t)strtoll(epoch, NULL, 10) : time(NULL);
		struct tm tm;
		cJSON *j;

		gmtime_r(&t, &tm);
		strftime(created, sizeof(created), "%Y-%m-%dT%H:%M:%SZ", &tm);
		/* the file holds the pooled bands only: checked out of sample
		 * (nested), they cover 68 % where each family's own cover 26 %
		 * (Hopper) to 77 % (Ampere): a family has too few source groups
		 * for its between-group spread (README, Accuracy) */
		j = val_regime_bands_json(set, st + n - 1, families + n - 1, 1,
					  "stepcast validate --out-of-sample --bands-output "
					  "configs/uncertainty-bands.json (scripts/refit-calibration.sh)", created);
		if (j)   /* the serving validation's regimes stay in the file */
			val_bands_carry(j, bands_output, "serve-", true);
		return cli_write_json(bands_output, j, NULL, NULL);
	}
	return EXIT_OK;
}

/* --explain: the predict report of one case. */
static int explain_case(const struct val_set *set, const char *id)
{
	for (int i = 0; i < set->n_cases; i++) {
		const struct val_case *vc = &set->cases[i];
		struct step_result r;
		struct sc_error err;

		if (strcmp(vc->id, id) != 0)
			continue;
		if (!vc->scenario) {
			fprintf(stderr, "stepcast: validate: case '%s' is not expressed: %s\n", id, vc->reason);
			return EXIT_UNSUPPORTED;
		}
		sc_error_clear(&err);
		if (sim_step_predict(vc->scenario, &r, &err) != SC_OK)
			return cli_fail(&err);
		rpt_step_text(stdout, vc->scenario, &r);
		printf("\nmeasured    %.4g s (error %+.1f %%)\n", vc->measured_step_s,
		       100 * (r.step_time_s - vc->measured_step_s) / vc->measured_step_s);
		if (vc->assumptions[0])
			printf("assumed     %s\n", vc->assumptions);
		return EXIT_OK;
	}
	fprintf(stderr, "stepcast: validate: no case with id '%s' in %s\n", id, set->path);
	return EXIT_INVALID;
}

static void validate_usage(FILE *out)
{
	fprintf(out,
		"usage: stepcast validate [FILE] [--format text|json|csv|md] [--max-mape PCT]\n"
		"                         [--summary] [--calibration NAME|FILE] [--systems FILE]\n"
		"                         [--config-dir DIR] [--fit P1,P2,... --output FILE]\n"
		"                         [--out-of-sample] [--max-oos-mape PCT] [--bands-output FILE]\n"
		"\n"
		"Predict every case of FILE (default: the public training runs shipped in\n"
		"tests/validation/data/training-cases.json) and compare with the measured step\n"
		"time. Prints each case's error, the cases that cannot be expressed with the\n"
		"reason, and MAPE, median, 90th percentile and worst error overall, per source\n"
		"group and per GPU type.\n"
		"\n"
		"options:\n"
		"  -f, --format FMT        text (default), json, csv or md\n"
		"  -m, --max-mape PCT      exit 1 when the overall MAPE is above PCT percent\n"
		"  -s, --summary           print only the summary (and unexpressed cases)\n"
		"  -k, --calibration NAME|FILE\n"
		"                          use this profile (a catalogue NAME, or a profile FILE:\n"
		"                          a value with '/' or ending in .json) for every case on\n"
		"                          a GPU of its family (default: each GPU's own)\n"
		"  -y, --systems FILE      scale-out network per GPU type (default: systems.json\n"
		"                          next to the default cases file)\n"
		"  -c, --config-dir DIR    catalogue directory (default: $STEPCAST_CONFIG_DIR,\n"
		"                          else the configs/ of the data directory)\n"
		"      --fit P1,P2,...     fit these calibration parameters of the --calibration\n"
		"                          profile to the cases of its GPUs (Nelder-Mead on mean\n"
		"                          |log error|), report with the fitted values, and write\n"
		"                          the fitted profile to --output\n"
		"  -o, --output FILE       where --fit writes the profile (required with --fit)\n"
		"  -e, --explain ID        print the full prediction (as predict does) for case ID\n"
		"  -x, --cross-validate    with --fit: for each source group, refit without that\n"
		"                          group and report its error out of sample (stderr)\n"
		"  -O, --out-of-sample     also predict every case out of sample: for each\n"
		"                          profile, refit the parameters it marks as fitted by\n"
		"                          validate --fit with the case's source group left out\n"
		"                          (leave-one-source-group-out); the summary leads with\n"
		"                          that MAPE (JSON: mape_out_of_sample per row, and a\n"
		"                          row per GPU family); slow: minutes on 2 cores\n"
		"      --max-oos-mape PCT  with --out-of-sample (implied): exit 1 when the\n"
		"                          overall out-of-sample MAPE is above PCT percent\n"
		"      --bands-output FILE with --out-of-sample (implied): write the P10/P50/P90\n"
		"                          band of each regime (configs/uncertainty-bands.json)\n"
		"  -S, --serving           validate serving instead: predict the published\n"
		"                          serving measurements of FILE (default: the shipped\n"
		"                          serving-cases.json) with `stepcast serve`'s model and\n"
		"                          report throughput, TTFT and TPOT errors separately;\n"
		"                          --max-mape then applies to each of the three;\n"
		"                          with --out-of-sample each GPU family's fitted serving\n"
		"                          parameters are refitted without each source group\n"
		"                          (an oos%% column; --max-oos-mape applies to each\n"
		"                          metric; --bands-output writes the serving regime\n"
		"                          bands into the file, keeping its training entries)\n"
		"      --oos-iterations N  with --serving --out-of-sample (implied): Nelder-Mead\n"
		"                          iterations per left-out group (default 40, about half\n"
		"                          an hour on 2 cores); 0: no refit, every group\n"
		"                          predicted with the parameters at their priors\n"
		"  -M, --memory            validate memory instead: predict the published per-GPU\n"
		"                          peak memory of FILE (default: the shipped\n"
		"                          memory-cases.json), each case's statistic (max\n"
		"                          allocated, max reserved or nvidia-smi used); --max-mape\n"
		"                          then applies to the memory MAPE\n"
		"      --collectives       validate collectives instead: predict every curve of\n"
		"                          FILE (default: the shipped collective-cases.json and\n"
		"                          efa-collective-cases.json) point by point (time where\n"
		"                          published, else bus bandwidth) and report APE per curve,\n"
		"                          source group, system, collective and node count; with\n"
		"                          --fit P1,.. --calibration NAME --output FILE it fits\n"
		"                          those parameters to the curves (--cross-validate: leave\n"
		"                          one source group out)\n"
		"      --min-bytes B       with --collectives: count only points of >= B bytes\n"
		);
	cli_progress_usage(out);
	fprintf(out,
		"  -h, --help              show this help\n");
}

/* long-only options */
enum { OPT_MAX_OOS_MAPE = 0x200, OPT_BANDS_OUTPUT, OPT_OOS_ITERATIONS };

int cmd_validate(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "format", required_argument, NULL, 'f' },
		{ "max-mape", required_argument, NULL, 'm' },
		{ "summary", no_argument, NULL, 's' },
		{ "calibration", required_argument, NULL, 'k' },
		{ "systems", required_argument, NULL, 'y' },
		{ "config-dir", required_argument, NULL, 'c' },
		{ "fit", required_argument, NULL, 'F' },
		{ "output", required_argument, NULL, 'o' },
		{ "explain", required_argument, NULL, 'e' },
		{ "cross-validate", no_argument, NULL, 'x' },
		{ "serving", no_argument, NULL, 'S' },
		{ "memory", no_argument, NULL, 'M' },
		{ "quiet", no_argument, NULL, CLI_OPT_QUIET },
		{ "collectives", no_argument, NULL, 'C' },
		{ "min-bytes", required_argument, NULL, 'B' },
		{ "out-of-sample", no_argument, NULL, 'O' },
		{ "max-oos-mape", required_argument, NULL, OPT_MAX_OOS_MAPE },
		{ "bands-output", required_argument, NULL, OPT_BANDS_OUTPUT },
		{ "oos-iterations", required_argument, NULL, OPT_OOS_ITERATIONS },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 }
	};
	enum cli_format fmt = FMT_TEXT;
	const char *dir = NULL, *path, *calib = NULL, *systems = NULL;
	const char *fit = NULL, *output = NULL, *explain = NULL, *bands_output = NULL;
	double max_mape = -1, max_oos_mape = -1;
	bool oos = false;
	long oos_iterations = -1;
	bool summary_only = false;
	struct catalog cat;
	struct val_set set;
	struct val_summary_row all;
	struct sc_error err;
	const struct calibration *cal = NULL;
	int c, code, n_fit = 0;
	int fit_params[VAL_FIT_MAX_PARAMS];
	bool val_run_keep_calibration = false, cross = false, serving = false, memory = false;
	bool collectives = false;
	double min_bytes = 0;
	char *end;

	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":f:m:sk:y:c:o:e:xSMOh", opts, NULL)) != -1) {
		switch (c) {
		case 'f':
			if (!cli_parse_format("validate", optarg, 1u << FMT_TEXT | 1u << FMT_JSON |
					      1u << FMT_CSV | 1u << FMT_MD, &fmt))
				return EXIT_USAGE;
			break;
		case 'm':
			max_mape = strtod(optarg, &end);
			if (end == optarg || *end || !(max_mape >= 0))
				return cli_usage_error("validate", "--max-mape needs a percentage >= 0, got '%s'", optarg);
			break;
		case 's':
			summary_only = true;
			break;
		case 'k':
			calib = optarg;
			break;
		case 'y':
			systems = optarg;
			break;
		case 'c':
			dir = optarg;
			break;
		case 'F':
			fit = optarg;
			break;
		case 'o':
			output = optarg;
			break;
		case 'e':
			explain = optarg;
			break;
		case 'x':
			cross = true;
			break;
		case 'S':
			serving = true;
			break;
		case 'M':
			memory = true;
			break;
		case CLI_OPT_QUIET:
			cli_quiet = true;
			break;
		case 'C':
			collectives = true;
			break;
		case 'B':
			min_bytes = strtod(optarg, &end);
			if (end == optarg || *end || !(min_bytes >= 0) || min_bytes > 1e15)
				return cli_usage_error("validate", "--min-bytes needs a size >= 0, got '%s'", optarg);
			break;
		case 'O':
			oos = true;
			break;
		case OPT_OOS_ITERATIONS:
			oos_iterations = strtol(optarg, &end, 10);
			if (end == optarg || *end || oos_iterations < 0 || oos_iterations > 100000)
				return cli_usage_error("validate", "--oos-iterations needs a count from 0 to 100000, got '%s'",
						       optarg);
			oos = true;
			break;
		case OPT_BANDS_OUTPUT:
			bands_output = optarg;
			oos = true;
			break;
		case OPT_MAX_OOS_MAPE:
			max_oos_mape = strtod(optarg, &end);
			if (end == optarg || *end || !(max_oos_mape >= 0))
				return cli_usage_error("validate", "--max-oos-mape needs a percentage >= 0, got '%s'",
						       optarg);
			oos = true;
			break;
		case 'h':
			validate_usage(stdout);
			return cli_finish(EXIT_OK);
		case ':':
			return cli_usage_error("validate", "option '%s' needs a value", argv[optind - 1]);
		default:
			return cli_usage_error("validate", "unknown option '%s'", argv[optind - 1]);
		}
	}
	path = optind < argc ? argv[optind++] : val_default_cases_path();
	if (optind < argc)
		return cli_usage_error("validate", "unexpected argument '%s'", argv[optind]);
	if (memory) {
		if (serving || fit || calib || explain || cross)
			return cli_usage_error("validate", "--memory takes only --format, --summary, "
					       "--max-mape, --systems and --config-dir");
		return cli_finish(cli_validate_memory(
			optind > 1 && path != val_default_cases_path() ? path : NULL, systems, fmt,
			max_mape, summary_only, dir));
	}
	if (min_bytes > 0 && !collectives)
		return cli_usage_error("validate", "--min-bytes is only used with --collectives");
	if (collectives) {
		struct cli_cv_opts co = {
			optind > 1 && path != val_default_cases_path() ? path : NULL, fmt, max_mape,
			summary_only, calib, dir, fit, output, cross, min_bytes
		};

		if (serving || systems || explain)
			return cli_usage_error("validate", "--collectives takes none of --serving, --systems, --explain");
		return cli_finish(cli_validate_collectives(&co));
	}
	if (serving) {
		struct cli_serve_validate_opts so = {
			optind > 1 && path != val_default_cases_path() ? path : NULL, fmt, max_mape,
			summary_only, calib, dir, fit, output, explain, cross, oos, bands_output,
			max_oos_mape, (int)oos_iterations
		};

		if (systems)
			return cli_usage_error("validate", "--systems is not used with --serving");
		if (oos && (fit || explain))
			return cli_usage_error("validate", "--out-of-sample is not used with --fit or --explain");
		if (fit && !calib)
			return cli_usage_error("validate", "--fit needs --calibration NAME (the profile to fit)");
		if (fit && !output)
			return cli_usage_error("validate", "--fit needs --output FILE for the fitted profile");
		if (output && !fit)
			return cli_usage_error("validate", "--output is only used with --fit");
		if (cross && !fit)
			return cli_usage_error("validate", "--cross-validate needs --fit");
		return cli_finish(cli_validate_serving(&so));
	}

	if (oos_iterations >= 0)
		return cli_usage_error("validate", "--oos-iterations is only used with --serving");
	if (fit && !calib)
		return cli_usage_error("validate", "--fit needs --calibration NAME (the profile to fit)");
	if (fit && !output)
		return cli_usage_error("validate", "--fit needs --output FILE for the fitted profile");
	if (output && !fit)
		return cli_usage_error("validate", "--output is only used with --fit");
	if (cross && !fit)
		return cli_usage_error("validate", "--cross-validate needs --fit");
	if (oos && fit)
		return cli_usage_error("validate", "--out-of-sample does not go with --fit "
				       "(--cross-validate is the fit's own)");
	if (fit && (code = cli_parse_fit_params(fit, VAL_FIT_MAX_PARAMS, fit_params, &n_fit)) != EXIT_OK)
		return code;
	if ((code = cli_load_catalog(dir, &cat)) != EXIT_OK)
		return code;
	sc_error_clear(&err);
	if (calib) {
		/* cases span GPU families: val_run applies the family rule per case */
		static struct calibration chosen;

		if (calibration_select(&cat, NULL, calib, NULL, "--calibration", NULL, &chosen,
				       &err) != SC_OK) {
			catalog_free(&cat);
			return cli_fail(&err);
		}
		cal = &chosen;
	}
	if (val_load(path, systems ? systems : val_default_systems_path(), &cat, &set, &err) != SC_OK) {
		catalog_free(&cat);
		return cli_fail(&err);
	}
	if (fit) {
		static struct calibration fitted;
		fitted = *cal;
		if (cross && (code = cross_validate(&set, cal, fit_params, n_fit)) != EXIT_OK) {
			val_free(&set);
			catalog_free(&cat);
			return code;
		}
		if ((code = run_fit(&set, &fitted, fit_params, n_fit, path, output)) != EXIT_OK) {
			val_free(&set);
			catalog_free(&cat);
			return code;
		}
		/* Report each GPU with its own profile, the fitted one in place. */
		for (int i = 0; i < set.n_cases; i++)
			if (set.cases[i].scenario &&
			    calibration_fits_gpu(&fitted, &set.cases[i].scenario->cluster.gpu))
				set.cases[i].scenario->calibration = fitted;
		cal = NULL;
		val_run_keep_calibration = true;
	}
	cli_progress_begin("validate");
	c = val_run(&set, val_run_keep_calibration ? NULL : &cat, cal, &err) != SC_OK;
	cli_progress_end();
	if (c) {
		val_free(&set);
		catalog_free(&cat);
		return cli_fail(&err);
	}
	catalog_free(&cat);
	if (oos && !explain && (code = out_of_sample(&set)) != EXIT_OK) {
		val_free(&set);
		return code;
	}
	if (explain) {
		code = explain_case(&set, explain);
		val_free(&set);
		return cli_finish(code);
	}
	if (!rpt_validate(stdout, &set, (enum rpt_validate_format)fmt, summary_only)) {
		val_free(&set);
		fprintf(stderr, "stepcast: error: out of memory\n");
		return EXIT_INTERNAL;
	}
	if (oos && (code = regime_bands(&set, fmt == FMT_TEXT || fmt == FMT_MD ? stdout : stderr,
					bands_output)) != EXIT_OK) {
		val_free(&set);
		return code;
	}
	/* the gate reads the summary's "all" row, as the report prints it */
	val_summary_rows(&set, &all, 1);
	code = EXIT_OK;
	if (max_mape >= 0 && 100 * all.st.mape > max_mape) {
		fprintf(stderr, "stepcast: validate: MAPE %.1f %% is above --max-mape %.1f %%\n",
			100 * all.st.mape, max_mape);
		code = EXIT_CHECK_FAILED;
	}
	if (max_oos_mape >= 0 && all.oos.count > 0 && 100 * all.oos.mape > max_oos_mape) {
		fprintf(stderr, "stepcast: validate: out-of-sample MAPE %.1f %% is above "
			"--max-oos-mape %.1f %%\n", 100 * all.oos.mape, max_oos_mape);
		code = EXIT_CHECK_FAILED;
	}
	val_free(&set);
	return cli_finish(code);
}
