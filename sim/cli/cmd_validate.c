/* cmd_validate.c: `stepcast validate [FILE]`: predict published training
 * runs and report the error per case and in summary. */
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
#include "../validate/val_oos.h"
#include "../validate/val_summary.h"
#include "cli.h"
#include "cli_args.h"
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
			: gr->pooled ? "  (no other group to fit on: the priors; software parameters from "
				       "the other families' folds)"
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

void cli_note_oos_as_is(const struct calibration *cal, bool serving)
{
	fprintf(stderr, "stepcast: validate: profile \"%s\" has no %sparameter fitted by validate %s--fit: "
		"its cases are out of sample as they are\n", cal->name, serving ? "serving " : "",
		serving ? "--serving " : "");
}

/* --out-of-sample: for each profile the expressed cases use, refit the
 * parameters it marks as fitted by `validate --fit` with each source group
 * left out (val_cross_validate); the cases keep their out-of-sample
 * predictions for the summary. */
static int out_of_sample(struct val_set *set)
{
	static struct val_oos_profile prof[16];
	static struct calibration cv_cal[16];
	static struct val_cv_result cv[16];
	int n_prof = 0, n_cv = 0;

	for (int i = 0; i < set->n_cases; i++)
		if (set->cases[i].expressible && set->cases[i].scenario)
			n_prof = val_oos_add_profile(prof, n_prof, 16, &set->cases[i].scenario->calibration,
						     true, false);
	for (int p = 0; p < n_prof; p++) {
		const struct calibration *cal = &prof[p].cal;
		struct sc_error err;

		if (prof[p].n_params == 0) {
			cli_note_oos_as_is(cal, false);
			val_oos_as_is(set, cal);
			continue;
		}
		sc_error_clear(&err);
		cv_cal[n_cv] = *cal;
		if (val_cross_validate(set, cal, prof[p].params, prof[p].n_params, 2000, &cv[n_cv++],
				       &err) != SC_OK)
			return cli_fail(&err);
	}
	/* a family's fold without data of its own: the software parameters
	 * from the other families' folds (fit.h) */
	val_cv_pool_software(set, cv_cal, cv, n_cv);
	for (int k = 0; k < n_cv; k++)
		cli_print_cross_validation(&cv_cal[k], &cv[k]);
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
		 * for its between-group spread (docs/accuracy.md) */
		j = val_regime_bands_json(set, st + n - 1, families + n - 1, 1,
					  "stepcast validate --out-of-sample --bands-output "
					  "configs/uncertainty-bands.json (scripts/refit-calibration.sh)", created);
		if (j)   /* the serving validation's regimes stay in the file */
			val_bands_carry(j, bands_output, "serve-", true);
		return cli_write_json(bands_output, j, NULL, NULL);
	}
	return EXIT_OK;
}

int cli_explain_unexpressed(const char *id, const char *reason)
{
	fprintf(stderr, "stepcast: validate: case '%s' is not expressed: %s\n", id, reason);
	return EXIT_UNSUPPORTED;
}

int cli_explain_no_case(const char *id, const char *path)
{
	fprintf(stderr, "stepcast: validate: no case with id '%s' in %s\n", id, path);
	return EXIT_INVALID;
}

int cli_explain_training_case(const struct val_case *vc, struct step_result *r)
{
	struct sc_error err;

	if (!vc->scenario)
		return cli_explain_unexpressed(vc->id, vc->reason);
	sc_error_clear(&err);
	if (sim_step_predict(vc->scenario, r, &err) != SC_OK)
		return cli_fail(&err);
	rpt_step_text(stdout, vc->scenario, r);
	return EXIT_OK;
}

/* --explain: the predict report of one case, with the measured step time. */
static int explain_case(const struct val_set *set, const char *id)
{
	for (int i = 0; i < set->n_cases; i++) {
		const struct val_case *vc = &set->cases[i];
		struct step_result r;
		int code;

		if (strcmp(vc->id, id) != 0)
			continue;
		if ((code = cli_explain_training_case(vc, &r)) != EXIT_OK)
			return code;
		printf("\nmeasured    %.4g s (error %+.1f %%)\n", vc->measured_step_s,
		       100 * (r.step_time_s - vc->measured_step_s) / vc->measured_step_s);
		if (vc->assumptions[0])
			printf("assumed     %s\n", vc->assumptions);
		return EXIT_OK;
	}
	return cli_explain_no_case(id, set->path);
}

/* long-only options */
enum {
	OPT_MAX_OOS_MAPE = CLI_KEY_BASE, OPT_BANDS_OUTPUT, OPT_OOS_ITERATIONS, OPT_FIT, OPT_COLLECTIVES,
	OPT_MIN_BYTES
};

static const struct cli_opt validate_opts[] = {
	{ "format", 'f', "FMT", "text (default), json, csv or md", NULL },
	{ "max-mape", 'm', "PCT", "exit 1 when the overall MAPE is above PCT percent", NULL },
	{ "summary", 's', NULL, "print only the summary (and unexpressed cases)", NULL },
	{ "calibration", 'k', "NAME|FILE", "use this profile (a catalogue NAME, or a profile FILE:\n"
					   "a value with '/' or ending in .json) for every case on\n"
					   "a GPU of its family (default: each GPU's own)", NULL },
	{ "systems", 'y', "FILE", "scale-out network per GPU type (default: systems.json\n"
				  "next to the default cases file)", NULL },
	CLI_OPT_GROUP(cli_opts_config_dir),
	{ "fit", OPT_FIT, "P1,P2,...", "fit these calibration parameters of the --calibration\n"
				       "profile to the cases of its GPUs (Nelder-Mead on mean\n"
				       "|log error|), report with the fitted values, and write\n"
				       "the fitted profile to --output", NULL },
	{ "output", 'o', "FILE", "where --fit writes the profile (required with --fit)", NULL },
	{ "explain", 'e', "ID", "print the full prediction (as predict does) for case ID", NULL },
	{ "cross-validate", 'x', NULL, "with --fit: for each source group, refit without that\n"
				       "group and report its error out of sample (stderr)", NULL },
	{ "out-of-sample", 'O', NULL, "also predict every case out of sample: for each\n"
				      "profile, refit the parameters it marks as fitted by\n"
				      "validate --fit with the case's source group left out\n"
				      "(leave-one-source-group-out); the summary leads with\n"
				      "that MAPE (JSON: mape_out_of_sample per row, and a\n"
				      "row per GPU family); slow: minutes on 2 cores", NULL },
	{ "max-oos-mape", OPT_MAX_OOS_MAPE, "PCT", "with --out-of-sample (implied): exit 1 when the\n"
						   "overall out-of-sample MAPE is above PCT percent", NULL },
	{ "bands-output", OPT_BANDS_OUTPUT, "FILE", "with --out-of-sample (implied): write the P10/P50/P90\n"
						    "band of each regime (configs/uncertainty-bands.json)", NULL },
	{ "serving", 'S', NULL, "validate serving instead: predict the published\n"
				"serving measurements of FILE (default: the shipped\n"
				"serving-cases.json) with `stepcast serve`'s model and\n"
				"report throughput, TTFT and TPOT errors separately;\n"
				"--max-mape then applies to each of the three;\n"
				"with --out-of-sample each GPU family's fitted serving\n"
				"parameters are refitted without each source group\n"
				"(an oos% column; --max-oos-mape applies to each\n"
				"metric; --bands-output writes the serving regime\n"
				"bands into the file, keeping its training entries)", NULL },
	{ "oos-iterations", OPT_OOS_ITERATIONS, "N", "with --serving --out-of-sample (implied): Nelder-Mead\n"
						     "iterations per left-out group (default 40, about half\n"
						     "an hour on 2 cores); 0: no refit, every group\n"
						     "predicted with the parameters at their priors", NULL },
	{ "memory", 'M', NULL, "validate memory instead: predict the published per-GPU\n"
			       "peak memory of FILE (default: the shipped\n"
			       "memory-cases.json), each case's statistic (max\n"
			       "allocated, max reserved or nvidia-smi used); --max-mape\n"
			       "then applies to the memory MAPE", NULL },
	{ "collectives", OPT_COLLECTIVES, NULL, "validate collectives instead: predict every curve of\n"
						"FILE (default: the shipped collective-cases.json and\n"
						"efa-collective-cases.json) point by point (time where\n"
						"published, else bus bandwidth) and report APE per curve,\n"
						"source group, system, collective and node count; with\n"
						"--fit P1,.. --calibration NAME --output FILE it fits\n"
						"those parameters to the curves (--cross-validate: leave\n"
						"one source group out)", NULL },
	{ "min-bytes", OPT_MIN_BYTES, "B", "with --collectives: count only points of >= B bytes", NULL },
	CLI_OPT_GROUP(cli_opts_quiet),
	CLI_OPT_GROUP(cli_opts_help),
	CLI_OPT_END
};

static const struct cli_usage validate_usage = {
	"usage: stepcast validate [FILE] [--format text|json|csv|md] [--max-mape PCT]\n"
	"                         [--summary] [--calibration NAME|FILE] [--systems FILE]\n"
	"                         [--config-dir DIR] [--fit P1,P2,... --output FILE]\n"
	"                         [--out-of-sample] [--max-oos-mape PCT] [--bands-output FILE]\n",
	"Predict every case of FILE (default: the public training runs shipped in\n"
	"tests/validation/data/training-cases.json) and compare with the measured step\n"
	"time. Prints each case's error, the cases that cannot be expressed with the\n"
	"reason, and MAPE, median, 90th percentile and worst error overall, per source\n"
	"group and per GPU type.\n",
	validate_opts,
	NULL,
	0
};

/* What `stepcast validate` was asked. */
struct validate_args {
	enum cli_format fmt;
	const char *file;  /* the FILE operand (NULL: the shipped cases) */
	const char *path;  /* file, else the shipped training cases */
	const char *dir, *calib, *systems, *fit, *output, *explain, *bands_output;
	double max_mape, max_oos_mape, min_bytes;
	long oos_iterations;
	bool oos, summary_only, cross, serving, memory, collectives;
};

/* strtod of all of s into *v: false when s is not a number. */
static bool parse_number(const char *s, double *v)
{
	char *end;

	*v = strtod(s, &end);
	return end != s && !*end;
}

/* Parse argv into *o: CLI_GO to go on, else the exit code. */
static int validate_parse(int argc, char **argv, struct validate_args *o)
{
	struct cli_args a;
	int c;
	char *end;

	*o = (struct validate_args){ .fmt = FMT_TEXT, .max_mape = -1, .max_oos_mape = -1,
				     .oos_iterations = -1 };
	cli_args_init(&a, &validate_usage, argc, argv);
	while ((c = cli_next_option(&a)) > 0) {
		const char *optarg = a.arg;

		switch (c) {
		case 'f':
			if (!cli_parse_format("validate", optarg, 1u << FMT_TEXT | 1u << FMT_JSON |
					      1u << FMT_CSV | 1u << FMT_MD, &o->fmt))
				return EXIT_USAGE;
			break;
		case 'm':
			if (!parse_number(optarg, &o->max_mape) || !(o->max_mape >= 0))
				return cli_usage_error("validate", "--max-mape needs a percentage >= 0, got '%s'", optarg);
			break;
		case 's': o->summary_only = true; break;
		case 'y': o->systems = optarg; break;
		case OPT_FIT: o->fit = optarg; break;
		case 'o': o->output = optarg; break;
		case 'e': o->explain = optarg; break;
		case 'x': o->cross = true; break;
		case 'S': o->serving = true; break;
		case 'M': o->memory = true; break;
		case OPT_COLLECTIVES: o->collectives = true; break;
		case OPT_MIN_BYTES:
			if (!parse_number(optarg, &o->min_bytes) || !(o->min_bytes >= 0) || o->min_bytes > 1e15)
				return cli_usage_error("validate", "--min-bytes needs a size >= 0, got '%s'", optarg);
			break;
		case 'O': o->oos = true; break;
		case OPT_OOS_ITERATIONS:
			o->oos_iterations = strtol(optarg, &end, 10);
			if (end == optarg || *end || o->oos_iterations < 0 || o->oos_iterations > 100000)
				return cli_usage_error("validate", "--oos-iterations needs a count from 0 to 100000, got '%s'",
						       optarg);
			o->oos = true;
			break;
		case OPT_BANDS_OUTPUT:
			o->bands_output = optarg;
			o->oos = true;
			break;
		case OPT_MAX_OOS_MAPE:
			if (!parse_number(optarg, &o->max_oos_mape) || !(o->max_oos_mape >= 0))
				return cli_usage_error("validate", "--max-oos-mape needs a percentage >= 0, got '%s'",
						       optarg);
			o->oos = true;
			break;
		}
	}
	if (c == CLI_STOP)
		return a.code;
	o->dir = a.config_dir;
	o->calib = a.calibration;
	if (!cli_operand(&a, &o->file, NULL) || !cli_operands_end(&a))
		return a.code;
	o->path = o->file ? o->file : val_default_cases_path();
	return CLI_GO;
}

/* The usage errors of --fit and its companions (one rule for training and
 * serving). */
static int fit_usage(const struct validate_args *o)
{
	if (o->fit && !o->calib)
		return cli_usage_error("validate", "--fit needs --calibration NAME (the profile to fit)");
	if (o->fit && !o->output)
		return cli_usage_error("validate", "--fit needs --output FILE for the fitted profile");
	if (o->output && !o->fit)
		return cli_usage_error("validate", "--output is only used with --fit");
	if (o->cross && !o->fit)
		return cli_usage_error("validate", "--cross-validate needs --fit");
	return CLI_GO;
}

/* --memory, --collectives and --serving: the exit code; CLI_GO for the
 * training cases. */
static int validate_other(const struct validate_args *o)
{
	int code;

	if (o->memory) {
		if (o->serving || o->fit || o->calib || o->cross)
			return cli_usage_error("validate", "--memory takes only --format, --summary, "
					       "--max-mape, --systems, --explain and --config-dir");
		return cli_finish(cli_validate_memory(o->file, o->systems, o->fmt, o->max_mape,
						      o->summary_only, o->dir, o->explain));
	}
	if (o->min_bytes > 0 && !o->collectives)
		return cli_usage_error("validate", "--min-bytes is only used with --collectives");
	if (o->collectives) {
		struct cli_cv_opts co = {
			o->file, o->fmt, o->max_mape, o->summary_only, o->calib, o->dir, o->fit,
			o->output, o->cross, o->min_bytes
		};

		if (o->serving || o->systems || o->explain)
			return cli_usage_error("validate", "--collectives takes none of --serving, --systems, --explain");
		if ((code = fit_usage(o)) != CLI_GO)
			return code;
		return cli_finish(cli_validate_collectives(&co));
	}
	if (o->serving) {
		struct cli_serve_validate_opts so = {
			o->file, o->fmt, o->max_mape, o->summary_only, o->calib, o->dir, o->fit,
			o->output, o->explain, o->cross, o->oos, o->bands_output, o->max_oos_mape,
			(int)o->oos_iterations
		};

		if (o->systems)
			return cli_usage_error("validate", "--systems is not used with --serving");
		if (o->oos && (o->fit || o->explain))
			return cli_usage_error("validate", "--out-of-sample is not used with --fit or --explain");
		if ((code = fit_usage(o)) != CLI_GO)
			return code;
		return cli_finish(cli_validate_serving(&so));
	}
	if (o->oos_iterations >= 0)
		return cli_usage_error("validate", "--oos-iterations is only used with --serving");
	if ((code = fit_usage(o)) != CLI_GO)
		return code;
	if (o->oos && o->fit)
		return cli_usage_error("validate", "--out-of-sample does not go with --fit "
				       "(--cross-validate is the fit's own)");
	return CLI_GO;
}

/* After the run: --out-of-sample, --explain or the report, the bands and
 * the gates; the exit code. */
static int validate_report(const struct validate_args *o, struct val_set *set)
{
	struct val_summary_row all;
	int code;

	if (o->oos && !o->explain && (code = out_of_sample(set)) != EXIT_OK)
		return code;
	if (o->explain)
		return explain_case(set, o->explain);
	if (!rpt_validate(stdout, set, (enum rpt_validate_format)o->fmt, o->summary_only)) {
		fprintf(stderr, "stepcast: error: out of memory\n");
		return EXIT_INTERNAL;
	}
	if (o->oos && (code = regime_bands(set, o->fmt == FMT_TEXT || o->fmt == FMT_MD ? stdout : stderr,
					  o->bands_output)) != EXIT_OK)
		return code;
	/* the gate reads the summary's "all" row, as the report prints it */
	val_summary_rows(set, &all, 1);
	code = EXIT_OK;
	if (o->max_mape >= 0 && 100 * all.st.mape > o->max_mape) {
		fprintf(stderr, "stepcast: validate: MAPE %.1f %% is above --max-mape %.1f %%\n",
			100 * all.st.mape, o->max_mape);
		code = EXIT_CHECK_FAILED;
	}
	if (o->max_oos_mape >= 0 && all.oos.count > 0 && 100 * all.oos.mape > o->max_oos_mape) {
		fprintf(stderr, "stepcast: validate: out-of-sample MAPE %.1f %% is above "
			"--max-oos-mape %.1f %%\n", 100 * all.oos.mape, o->max_oos_mape);
		code = EXIT_CHECK_FAILED;
	}
	return code;
}

int cmd_validate(int argc, char **argv)
{
	struct validate_args o;
	struct catalog cat;
	struct val_set set;
	struct sc_error err;
	const struct calibration *cal = NULL;
	int c, code, n_fit = 0;
	int fit_params[VAL_FIT_MAX_PARAMS];
	bool val_run_keep_calibration = false;

	if ((code = validate_parse(argc, argv, &o)) != CLI_GO ||
	    (code = validate_other(&o)) != CLI_GO)
		return code;
	if (o.fit && (code = cli_parse_fit_params(o.fit, VAL_FIT_MAX_PARAMS, fit_params, &n_fit)) != EXIT_OK)
		return code;
	if ((code = cli_load_catalog(o.dir, &cat)) != EXIT_OK)
		return code;
	sc_error_clear(&err);
	if (o.calib) {
		/* cases span GPU families: val_run applies the family rule per case */
		static struct calibration chosen;

		if (calibration_select(&cat, NULL, o.calib, NULL, "--calibration", NULL, &chosen,
				       &err) != SC_OK) {
			catalog_free(&cat);
			return cli_fail(&err);
		}
		cal = &chosen;
	}
	if (val_load(o.path, o.systems ? o.systems : val_default_systems_path(), &cat, &set, &err) != SC_OK) {
		catalog_free(&cat);
		return cli_fail(&err);
	}
	if (o.fit) {
		static struct calibration fitted;
		fitted = *cal;
		if (o.cross && (code = cross_validate(&set, cal, fit_params, n_fit)) != EXIT_OK) {
			val_free(&set);
			catalog_free(&cat);
			return code;
		}
		if ((code = run_fit(&set, &fitted, fit_params, n_fit, o.path, o.output)) != EXIT_OK) {
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
	code = validate_report(&o, &set);
	val_free(&set);
	return cli_finish(code);
}
