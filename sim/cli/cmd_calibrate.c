/* cmd_calibrate.c: `stepcast calibrate run|ingest|fit|show`: measure on a
 * GPU, read tool output, fit a calibration profile, show one.
 *
 * run     runs the CUDA microbenchmarks (calibrate/bench, built when CUDA is
 *         found) and prints their measurements as one JSON document;
 * ingest  reads nccl-tests text or -J JSON, fio JSON or our measurements
 *         JSON and prints them as measurements JSON;
 * fit     fits the model's parameters to measurements (or raw logs) and
 *         writes a schema_version 2 profile (configs/calibration/NAME.json
 *         by default) with ranges, provenance and residuals; prints the
 *         fit quality;
 * show    prints a profile (catalogue name or file) and its fit quality.
 */
#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "../../calibrate/cal_measure.h"
#include "../../calibrate/cal_profile.h"
#include "../../calibrate/fit/fit.h"
#include "../../calibrate/ingest/ingest.h"
#include "../config/datadir.h"
#include "../../reports/rpt_calibrate.h"
#include "cli.h"
#include "cli_args.h"
#include "cli_output.h"

extern char **environ;

enum {
	O_BENCH_DIR = CLI_KEY_BASE, O_QUICK, O_COLLECTIVE, O_RANKS, O_NODES, O_FABRIC, O_FORCE, O_PARAMS,
	O_PRIOR, O_INPLACE, O_DESCRIPTION
};

static const struct cli_opt calibrate_opts[] = {
	{ "output", 'o', "FILE", "run, ingest: write the JSON here instead of stdout;\n"
				 "fit: the profile (default CONFIG-DIR/calibration/NAME.json)", NULL },
	{ "bench-dir", O_BENCH_DIR, "DIR", "run: where the benchmark programs are (default: the\n"
					   "installed libexec/stepcast, or $STEPCAST_BENCH_DIR)", NULL },
	{ "quick", O_QUICK, NULL, "run: fewer sizes and repetitions (a smoke test)", NULL },
	{ "format", 'F', "FMT", "ingest, fit: input format: auto (default), nccl-text,\n"
				"nccl-json, fio or bench", NULL },
	{ "collective", O_COLLECTIVE, "NAME", "nccl-tests tables that do not name their test\n"
					      "(e.g. all_reduce); the log's own name wins", NULL },
	{ "ranks", O_RANKS, "N", "ranks of a log that lists none (no \"# Rank\" lines)", NULL },
	{ "nodes", O_NODES, "N", "hosts of a log that does not name them", NULL },
	{ "instance", 'i', "NAME", "fit: the instance type the measurements ran on", NULL },
	{ "name", 'n', "NAME", "fit: name of the new profile", NULL },
	{ "base", 'b', "PROFILE", "fit: profile the unfitted parameters come from, a\n"
				  "catalogue NAME or a profile FILE (a value with '/' or\n"
				  "ending in .json), for the instance's GPU family\n"
				  "(default: the instance GPU's default profile)", NULL },
	{ "fabric", O_FABRIC, "NAME", "fit: fabric of the instances (default ultracluster)", NULL },
	{ "force", O_FORCE, NULL, "fit: replace an existing profile file", NULL },
	{ "params", O_PARAMS, "LIST", "fit: the collective parameters to fit (default: those\n"
				      "the data can move: EFA ones from multi-node curves,\n"
				      "NVLink ones from single-node curves, LL ones from both)", NULL },
	{ "prior-weight", O_PRIOR, "X", "fit: pull towards the base profile (default 0.03)", NULL },
	{ "inplace", O_INPLACE, NULL, "fit: use nccl-tests' in-place times", NULL },
	{ "description", O_DESCRIPTION, "TEXT", "fit: the profile's description", NULL },
	{ "report-format", 'r', "FMT", "fit, show: text (default) or json", NULL },
	CLI_OPT_GROUP(cli_opts_config_dir),
	CLI_OPT_GROUP(cli_opts_help),
	CLI_OPT_END
};

static const struct cli_usage calibrate_usage = {
	"usage: stepcast calibrate run [--output FILE] [--bench-dir DIR] [--quick]\n"
	"       stepcast calibrate ingest FILE... [--format FMT] [--collective NAME]\n"
	"                                 [--ranks N] [--nodes N] [--output FILE]\n"
	"       stepcast calibrate fit FILE... --instance NAME --name NAME [--base PROFILE]\n"
	"                              [--fabric NAME] [--output FILE] [--force] [--params LIST]\n"
	"                              [--prior-weight X] [--inplace] [--description TEXT]\n"
	"                              [--report-format text|json]\n"
	"       stepcast calibrate show NAME|FILE [--report-format text|json]\n",
	"Measure, ingest and fit the calibration parameters of the performance model.\n"
	"\n"
	"  run     run the CUDA microbenchmarks (GEMM BF16/FP8, HBM copy, NCCL\n"
	"          collectives) on this machine's GPUs and print the measurements as\n"
	"          JSON; exits 77 when there is no GPU or stepcast was built without CUDA\n"
	"  ingest  read nccl-tests text logs or -J JSON, fio --output-format=json, or\n"
	"          measurements JSON, and print them as one measurements JSON document\n"
	"  fit     fit the model to measurements (JSON or raw logs, as ingest reads them)\n"
	"          and write a calibration profile with fitted ranges, provenance and\n"
	"          residuals; print the fit quality\n"
	"  show    print a profile (a catalogue name, or a file: a value with '/' or\n"
	"          ending in .json) and its fit quality\n",
	calibrate_opts,
	"\n"
	"exit: 0 done, 2 usage, 3 invalid input (with the file and line or JSON\n"
	"pointer), 4 a file could not be read or written, 77 run: no GPU, nothing measured.\n",
	27
};

struct args {
	const char *verb;
	const char *output, *bench_dir, *collective, *instance, *name, *base, *fabric;
	const char *params, *description, *dir;
	enum cal_format format;
	bool quick, force, inplace;
	int ranks, nodes;
	double prior;
	enum cli_format report;
	char **files;
	int n_files;
	bool given[O_DESCRIPTION + 1];
};

/* Which verbs take which option (letters and O_* codes). */
static const char *verb_of_option(int opt)
{
	switch (opt) {
	case O_BENCH_DIR: case O_QUICK: return "run";
	case 'F': case O_COLLECTIVE: case O_RANKS: case O_NODES: return "ingest fit";
	case 'i': case 'n': case 'b': case O_FABRIC: case O_FORCE: case O_PARAMS: case O_PRIOR:
	case O_INPLACE: case O_DESCRIPTION: return "fit";
	case 'r': return "fit show";
	case 'o': return "run ingest fit";
	case 'c': return "ingest fit show";
	}
	return "";
}

static bool parse_count(const char *s, int *out)
{
	char *end;
	long v;

	errno = 0;
	v = strtol(s, &end, 10);
	if (end == s || *end || errno || v < 1 || v > 1 << 24)
		return false;
	*out = (int)v;
	return true;
}

static int parse_args(int argc, char **argv, struct args *a)
{
	struct cli_args ca;
	int c;

	memset(a, 0, sizeof(*a));
	a->prior = -1;
	a->report = FMT_TEXT;
	if (argc < 2 || strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0) {
		if (argc >= 2) {
			cli_usage_print(stdout, &calibrate_usage);
			return cli_finish(EXIT_OK) == EXIT_OK ? -1 : EXIT_IO;
		}
		return cli_usage_error("calibrate", "missing subcommand (run, ingest, fit or show)");
	}
	a->verb = argv[1];
	if (strcmp(a->verb, "run") && strcmp(a->verb, "ingest") && strcmp(a->verb, "fit") &&
	    strcmp(a->verb, "show"))
		return cli_usage_error("calibrate", "unknown subcommand '%s' (expected run, ingest, fit or show)",
				       a->verb);
	cli_args_init(&ca, &calibrate_usage, argc - 1, argv + 1);
	ca.pass_shared = true; /* -c is not an option of every verb */
	while ((c = cli_next_option(&ca)) > 0) {
		const char *optarg = ca.arg;

		if (!strstr(verb_of_option(c), a->verb))
			return cli_usage_error("calibrate", "--%s is not an option of 'calibrate %s'",
					       cli_opt_name(calibrate_opts, c), a->verb);
		if (c <= O_DESCRIPTION)
			a->given[c] = true;
		switch (c) {
		case 'o': a->output = optarg; break;
		case O_BENCH_DIR: a->bench_dir = optarg; break;
		case O_QUICK: a->quick = true; break;
		case 'F':
			if (!cal_format_parse(optarg, &a->format))
				return cli_usage_error("calibrate", "unknown input format '%s' (expected auto, "
						       "nccl-text, nccl-json, fio or bench)", optarg);
			break;
		case O_COLLECTIVE: {
			char op[32];
			if (!cal_op_normalise(optarg, op, sizeof(op)))
				return cli_usage_error("calibrate", "unknown collective '%s'", optarg);
			a->collective = optarg;
			break;
		}
		case O_RANKS:
			if (!parse_count(optarg, &a->ranks))
				return cli_usage_error("calibrate", "--ranks needs a positive count, got '%s'", optarg);
			break;
		case O_NODES:
			if (!parse_count(optarg, &a->nodes))
				return cli_usage_error("calibrate", "--nodes needs a positive count, got '%s'", optarg);
			break;
		case 'i': a->instance = optarg; break;
		case 'n': a->name = optarg; break;
		case 'b': a->base = optarg; break;
		case O_FABRIC: a->fabric = optarg; break;
		case O_FORCE: a->force = true; break;
		case O_PARAMS: a->params = optarg; break;
		case O_PRIOR: {
			char *end;
			a->prior = strtod(optarg, &end);
			if (end == optarg || *end || !isfinite(a->prior) || a->prior < 0 || a->prior > 100)
				return cli_usage_error("calibrate", "--prior-weight needs a number from 0 to 100, got '%s'",
						       optarg);
			break;
		}
		case O_INPLACE: a->inplace = true; break;
		case O_DESCRIPTION: a->description = optarg; break;
		case 'r':
			if (!cli_parse_format("calibrate", optarg, 1u << FMT_TEXT | 1u << FMT_JSON, &a->report))
				return EXIT_USAGE;
			break;
		case 'c': a->dir = optarg; break;
		}
	}
	if (c == CLI_STOP)
		return ca.code == EXIT_OK ? -1 : ca.code;
	a->files = cli_operands_rest(&ca, &a->n_files);
	return EXIT_OK;
}

/* The largest SOURCE_DATE_EPOCH a date of four digits can show:
 * 9999-12-31T23:59:59Z. */
#define MAX_EPOCH_S 253402300799LL

/* $SOURCE_DATE_EPOCH (reproducible-builds.org: an integer of seconds since
 * 1970) when set, checked: true when unset or valid, else a usage error. */
static bool epoch_ok(void)
{
	const char *epoch = getenv("SOURCE_DATE_EPOCH");
	char *end;
	long long v;

	if (!epoch || !*epoch)
		return true;
	errno = 0;
	v = strtoll(epoch, &end, 10);
	if (*end || errno || v < 0 || v > MAX_EPOCH_S || !isdigit((unsigned char)epoch[0])) {
		cli_usage_error("calibrate", "SOURCE_DATE_EPOCH must be whole seconds from 0 to %lld (got '%s')",
				MAX_EPOCH_S, epoch);
		return false;
	}
	return true;
}

/* Now, or $SOURCE_DATE_EPOCH when set (reproducible outputs; epoch_ok has
 * checked it). */
static void utc_now(char *out, size_t n)
{
	const char *epoch = getenv("SOURCE_DATE_EPOCH");
	time_t t = epoch && *epoch ? (time_t)strtoll(epoch, NULL, 10) : time(NULL);
	struct tm tm;

	if (!gmtime_r(&t, &tm)) {
		snprintf(out, n, "1970-01-01T00:00:00Z");
		return;
	}
	strftime(out, n, "%Y-%m-%dT%H:%M:%SZ", &tm);
}

/* Ingest every file into m. */
static int ingest_files(const struct args *a, struct cal_measurements *m)
{
	struct cal_ingest_opts o = { a->collective, a->ranks, a->nodes };
	struct sc_error err;

	sc_error_clear(&err);
	if (cal_ingest_files(a->files, a->n_files, a->format, &o, m, &err) != SC_OK)
		return cli_fail(&err);
	return EXIT_OK;
}

static int do_ingest(const struct args *a)
{
	struct cal_measurements m;
	cJSON *j;
	int code;

	if (a->n_files == 0)
		return cli_usage_error("calibrate", "ingest: missing FILE");
	cal_measurements_init(&m);
	if ((code = ingest_files(a, &m)) != EXIT_OK) {
		cal_measurements_free(&m);
		return code;
	}
	snprintf(m.prov.tool, sizeof(m.prov.tool), "stepcast %s calibrate ingest", STEPCAST_VERSION);
	utc_now(m.prov.created, sizeof(m.prov.created));
	rpt_calibrate_summary(stderr, &m);
	j = cal_measurements_to_json(&m);
	cal_measurements_free(&m);
	if (!j) {
		fprintf(stderr, "stepcast: error: out of memory\n");
		return EXIT_INTERNAL;
	}
	return cli_finish(cli_write_json(a->output, j, NULL, NULL));
}

/* ---- run ----------------------------------------------------------------- */

/* Where the benchmark programs are, relative to the prefix of the data
 * directory (sim/config/datadir.h): PREFIX/libexec/stepcast when installed,
 * BUILD/libexec/stepcast (linked to BUILD/calibrate/bench) in a build tree.
 * calibrate/CMakeLists.txt defines it only when it builds them (CUDA). */
#ifndef STEPCAST_BENCH_DIR
#define STEPCAST_BENCH_DIR ""
#endif

/* Run one benchmark program with --output tmp (and --quick); its own
 * output (nccl-tests-style tables, progress) goes to our stderr.  Returns
 * its exit status, or -1 when it could not be started. */
static int run_bench(const char *prog, const char *tmp, bool quick)
{
	char *argv[6];
	int n = 0, status;
	pid_t pid;
	posix_spawn_file_actions_t fa;

	argv[n++] = (char *)prog;
	argv[n++] = "--output";
	argv[n++] = (char *)tmp;
	if (quick)
		argv[n++] = "--quick";
	argv[n] = NULL;
	fflush(stdout);
	fflush(stderr);
	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_adddup2(&fa, STDERR_FILENO, STDOUT_FILENO);
	if (posix_spawn(&pid, prog, &fa, NULL, argv, environ) != 0) {
		posix_spawn_file_actions_destroy(&fa);
		return -1;
	}
	posix_spawn_file_actions_destroy(&fa);
	if (waitpid(pid, &status, 0) < 0)
		return -1;
	return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + (WIFSIGNALED(status) ? WTERMSIG(status) : 0);
}

static int do_run(const struct args *a)
{
	static const char *const benches[] = { "sc_bench_hbm", "sc_bench_gemm", "sc_bench_nccl" };
	const char *dir = a->bench_dir ? a->bench_dir : getenv("STEPCAST_BENCH_DIR");
	struct cal_measurements m;
	int measured = 0, code = EXIT_OK;

	if (a->n_files > 0)
		return cli_usage_error("calibrate", "run: unexpected argument '%s'", a->files[0]);
	char bench_dir[PATH_MAX];
	const char *data = cfg_data_dir();

	if ((!dir || !dir[0]) && STEPCAST_BENCH_DIR[0] && data &&
	    snprintf(bench_dir, sizeof(bench_dir), "%s/../../%s", data, STEPCAST_BENCH_DIR) < (int)sizeof(bench_dir))
		dir = bench_dir;
	if (!dir || !dir[0]) {
		fprintf(stderr, "stepcast: calibrate run: this stepcast was built without CUDA (no nvcc when "
			"it was configured): there are no microbenchmarks to run; nothing measured\n");
		return EXIT_SKIPPED;
	}
	cal_measurements_init(&m);
	for (size_t i = 0; i < sizeof(benches) / sizeof(benches[0]); i++) {
		char prog[PATH_MAX], tmp[] = "/tmp/stepcast-bench-XXXXXX";
		struct sc_error err;
		int fd, rc;

		snprintf(prog, sizeof(prog), "%s/%s", dir, benches[i]);
		if (access(prog, X_OK) != 0) {
			fprintf(stderr, "stepcast: calibrate run: %s: not found (%s): skipped\n", prog,
				strerror(errno));
			continue;
		}
		if ((fd = mkstemp(tmp)) < 0) {
			fprintf(stderr, "stepcast: error: cannot create a temporary file: %s\n", strerror(errno));
			code = EXIT_IO;
			break;
		}
		close(fd);
		fprintf(stderr, "stepcast: calibrate run: %s\n", prog);
		rc = run_bench(prog, tmp, a->quick);
		if (rc == 0) {
			sc_error_clear(&err);
			if (cal_ingest_file(tmp, CAL_FMT_BENCH, NULL, &m, &err) != SC_OK) {
				code = cli_fail(&err);
				remove(tmp);
				break;
			}
			measured++;
		} else if (rc == 77) {
			fprintf(stderr, "stepcast: calibrate run: %s measured nothing (exit 77)\n", benches[i]);
		} else {
			fprintf(stderr, "stepcast: error: %s failed (exit %d)\n", prog, rc);
			code = EXIT_IO;
			remove(tmp);
			break;
		}
		remove(tmp);
	}
	if (code == EXIT_OK && measured == 0) {
		fprintf(stderr, "stepcast: calibrate run: no GPU measurement was made\n");
		code = EXIT_SKIPPED;
	}
	if (code == EXIT_OK) {
		cJSON *j;
		m.prov.inputs[0] = '\0';
		snprintf(m.prov.tool, sizeof(m.prov.tool), "stepcast %s calibrate run", STEPCAST_VERSION);
		rpt_calibrate_summary(stderr, &m);
		j = cal_measurements_to_json(&m);
		code = cli_write_json(a->output, j, NULL, NULL);
	}
	cal_measurements_free(&m);
	return code == EXIT_OK ? cli_finish(code) : code;
}

/* ---- fit and show -------------------------------------------------------- */

/* fit's own usage rules: measurements, --instance and a well-formed --name. */
static int fit_check_args(const struct args *a)
{
	if (a->n_files == 0)
		return cli_usage_error("calibrate", "fit: missing measurements FILE");
	if (!a->instance)
		return cli_usage_error("calibrate", "fit: --instance NAME is required (the instance type "
				       "the measurements ran on)");
	if (!a->name)
		return cli_usage_error("calibrate", "fit: --name NAME is required (the new profile's name)");
	for (const char *p = a->name; *p; p++)
		if (!((*p >= 'a' && *p <= 'z') || (*p >= '0' && *p <= '9') || *p == '-' || *p == '_' || *p == '.'))
			return cli_usage_error("calibrate", "fit: --name '%s': use lower-case letters, digits, "
					       "'-', '_' and '.'", a->name);
	if (strlen(a->name) >= SC_NAME_MAX)
		return cli_usage_error("calibrate", "fit: --name is longer than %d bytes", SC_NAME_MAX - 1);
	return EXIT_OK;
}

/* Write the fitted profile to path (what is written must load, the loader
 * is the judge, before it replaces anything: cli_output checks the
 * temporary file), then the report. */
static int fit_write(const struct args *a, const struct cal_fit_result *res, const struct calibration *base,
		     char *path)
{
	cJSON *j = cal_profile_json(&res->cal, res->fits, res->n_fits);
	int code;

	if (!j) {
		fprintf(stderr, "stepcast: error: out of memory\n");
		return EXIT_INTERNAL;
	}
	if ((code = cli_write_json(path, j, cli_check_profile, path)) != EXIT_OK)
		return code;
	if (a->report == FMT_JSON)
		code = cli_write_json(NULL, rpt_calibrate_fit_json(res, path), NULL, NULL);
	else
		rpt_calibrate_fit_text(stdout, res, base, path);
	return cli_finish(code);
}

static int do_fit(const struct args *a)
{
	struct catalog cat;
	struct cal_measurements m;
	struct cluster cl;
	struct cal_fit_opts o;
	struct cal_fit_result *res = NULL;
	/* the base must be for the measured GPU: its unfitted parameters go
	 * into the new profile of that family */
	static struct calibration base;
	struct sc_error err;
	char path[PATH_MAX], created[32];
	int code;

	if ((code = fit_check_args(a)) != EXIT_OK)
		return code;
	memset(&o, 0, sizeof(o));
	o.prior_weight = a->prior;
	o.inplace = a->inplace;
	sc_error_clear(&err);
	if (a->params && !cal_fit_parse_params(a->params, &o, &err))
		return cli_usage_error("calibrate", "fit: %s", err.message);
	if ((code = cli_load_catalog(a->dir, &cat)) != EXIT_OK)
		return code;
	cal_measurements_init(&m);
	if ((code = ingest_files(a, &m)) != EXIT_OK)
		goto out;
	if (cal_cluster_of(&cat, a->instance, a->fabric, &cl, &err) != SC_OK ||
	    calibration_select(&cat, &cl.gpu, a->base, NULL, "--base", NULL, &base, &err) != SC_OK) {
		code = cli_fail(&err);
		goto out;
	}
	if (cal_profile_output_path(a->output, cat.dir, a->name, a->force, path, sizeof(path), &err) != SC_OK) {
		code = cli_usage_error("calibrate", "fit: %s", err.message);
		goto out;
	}
	if (!(res = calloc(1, sizeof(*res)))) {
		fprintf(stderr, "stepcast: error: out of memory\n");
		code = EXIT_INTERNAL;
		goto out;
	}
	rpt_calibrate_summary(stderr, &m);
	if (cal_fit(&m, &cl, &base, &o, res, &err) != SC_OK) {
		code = cli_fail(&err);
		goto out;
	}
	utc_now(created, sizeof(created));
	cal_profile_describe(&res->cal, a->name, a->description, &m, &cl, &base, created);
	code = fit_write(a, res, &base, path);
out:
	free(res);
	cal_measurements_free(&m);
	catalog_free(&cat);
	return code;
}

/* The file of the profile show names: a FILE as given (*given set), or a
 * catalogue NAME the catalogue must load and know. */
static int show_profile_path(const struct args *a, char *path, size_t size, bool *given)
{
	const char *what = a->files[0];
	struct catalog cat;
	struct sc_error err;
	int code;

	*given = calibration_ref_is_path(what);
	if (*given) {
		snprintf(path, size, "%s", what);
		return EXIT_OK;
	}
	if ((code = cli_load_catalog(a->dir, &cat)) != EXIT_OK)
		return code;
	sc_error_clear(&err);
	if (!catalog_calibration(&cat, what))
		catalog_unknown(&cat, "calibration", what, "calibrate show", NULL, &err);
	else
		calibration_ref_path(&cat, what, NULL, path, size);
	catalog_free(&cat);
	return err.message[0] ? cli_fail(&err) : EXIT_OK;
}

static int do_show(const struct args *a)
{
	struct calibration *cal = calloc(1, sizeof(*cal));
	struct calib_fit *fits = calloc(CAL_FIT_MAX_FITS, sizeof(*fits));
	struct sc_error err;
	char path[PATH_MAX];
	int n = 0, code;
	bool path_given;

	if (!cal || !fits) {
		fprintf(stderr, "stepcast: error: out of memory\n");
		code = EXIT_INTERNAL;
	} else if (a->n_files != 1) {
		code = cli_usage_error("calibrate", a->n_files ? "show: one profile at a time"
							  : "show: missing profile NAME or FILE");
	} else if ((code = show_profile_path(a, path, sizeof(path), &path_given)) == EXIT_OK) {
		sc_error_clear(&err);
		if (calibration_load_file(path, cal, &err) != SC_OK ||
		    cal_profile_read_fits(path, fits, CAL_FIT_MAX_FITS, &n, &err) != SC_OK) {
			code = cli_fail(&err);
		} else if (a->report == FMT_JSON) {
			code = cli_finish(cli_write_json(NULL, rpt_calibrate_show_json(cal, fits, n), NULL, NULL));
		} else {
			rpt_calibrate_show_text(stdout, cal, fits, n, path_given ? path : NULL);
			code = cli_finish(EXIT_OK);
		}
	}
	free(cal);
	free(fits);
	return code;
}

int cmd_calibrate(int argc, char **argv)
{
	struct args a;
	int code = parse_args(argc, argv, &a);

	if (code < 0)
		return EXIT_OK; /* --help */
	if (code != EXIT_OK)
		return code;
	if (!epoch_ok())
		return EXIT_USAGE;
	if (strcmp(a.verb, "run") == 0)
		return do_run(&a);
	if (strcmp(a.verb, "ingest") == 0)
		return do_ingest(&a);
	if (strcmp(a.verb, "fit") == 0)
		return do_fit(&a);
	return do_show(&a);
}
