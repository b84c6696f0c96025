/* cmd_regress.c: `stepcast regress`: predict the pinned scenarios of
 * tests/regress/ with every committed calibration profile and compare with
 * the committed baselines (see calibrate/cal_regress.h). */
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "../../calibrate/cal_regress.h"
#include "../../reports/rpt_regress.h"
#include "../config/datadir.h"
#include "cli.h"
#include "cli_progress.h"
#include "cli_args.h"
#include "cli_set.h"
#include "cli_output.h"

static const struct cli_opt regress_opts[] = {
	{ "dir", 'd', "DIR", "the regress directory (default: regress/ of the data\n"
			     "directory: tests/regress in a build tree)", NULL },
	{ "tolerance", 't', "PCT", "relative tolerance per metric, percent (default 1)", NULL },
	{ "junit", 'j', "FILE", "also write the result as JUnit XML to FILE", NULL },
	{ "update", 'u', NULL, "rewrite DIR/baselines.json from the current predictions\n"
			       "(prints what changed; review the diff before committing)", NULL },
	CLI_OPT_GROUP(cli_opts_config_dir),
	CLI_OPT_GROUP_AT(cli_opts_set_cluster, 26),
	CLI_OPT_GROUP_AT(cli_opts_quiet, 26),
	CLI_OPT_GROUP(cli_opts_help),
	CLI_OPT_END
};

static const struct cli_usage regress_usage = {
	"usage: stepcast regress [--dir DIR] [--tolerance PCT] [--junit FILE] [--update]\n"
	"                        [--config-dir DIR]\n",
	"Predict every pinned scenario (DIR/scenarios/*.json) with every committed\n"
	"calibration profile of its GPU family and compare each metric (step time,\n"
	"tokens/s, MFU, HFU, memory, every part of the breakdown) with the baselines in\n"
	"DIR/baselines.json.  Exit 0 when every metric is within the tolerance, 1 with a\n"
	"table of what moved, by how much (and which cases are new or gone).\n",
	regress_opts, NULL, 25
};

static int write_junit(const char *path, const struct reg_report *rep)
{
	struct cli_output o;
	char ts[32];
	time_t t = time(NULL);
	struct tm tm;
	int code;

	if ((code = cli_output_open(&o, path)) != EXIT_OK)
		return code;
	gmtime_r(&t, &tm);
	strftime(ts, sizeof(ts), "%Y-%m-%dT%H:%M:%S", &tm);
	rpt_regress_junit(o.f, rep, ts);
	return cli_output_close(&o, true);
}

static int write_baselines(const char *path, const struct reg_run *run)
{
	return cli_write_json(path, reg_baselines_json(run), NULL, NULL);
}

int cmd_regress(int argc, char **argv)
{
	struct cli_args a;
	const char *dir = NULL, *junit = NULL, *cdir;
	char default_dir[PATH_MAX];
	double tol = 0.01;
	bool update = false;
	struct catalog cat;
	struct reg_run run;
	struct reg_baselines base;
	struct reg_report rep;
	struct sc_error err;
	char path[PATH_MAX];
	int c, code;

	cli_args_init(&a, &regress_usage, argc, argv);
	while ((c = cli_next_option(&a)) > 0) {
		const char *optarg = a.arg; /* getopt's name: the cases read as before */

		switch (c) {
		case 'd':
			dir = optarg;
			break;
		case 't': {
			char *end;
			tol = strtod(optarg, &end) / 100.0;
			if (end == optarg || *end || !isfinite(tol) || tol < 0 || tol > 10)
				return cli_usage_error("regress", "--tolerance needs a percentage from 0 to 1000, "
						       "got '%s'", optarg);
			break;
		}
		case 'j':
			junit = optarg;
			break;
		case 'u':
			update = true;
			break;
		}
	}
	if (c == CLI_STOP || !cli_operands_end(&a))
		return a.code;
	cdir = a.config_dir;
	if (update && cli_overrides.n > 0)
		return cli_usage_error("regress", "--update writes the committed baselines; not with --set, "
				       "--instance or --nodes");
	if (!dir && cfg_data_path(default_dir, sizeof(default_dir), "regress"))
		dir = default_dir; /* the data directory's (sim/config/datadir.h) */
	if (!dir)
		dir = "regress";
	snprintf(path, sizeof(path), "%s/baselines.json", dir);
	if ((code = cli_load_catalog(cdir, &cat)) != EXIT_OK)
		return code;
	sc_error_clear(&err);
	cli_progress_begin("regress");
	c = reg_run_ov(&cat, dir, &cli_overrides, cli_progress_hook(), &run, &err) != SC_OK;
	cli_progress_end();
	if (c) {
		catalog_free(&cat);
		return cli_fail(&err);
	}
	catalog_free(&cat);
	if (reg_read_baselines(path, update, &base, &err) != SC_OK) {
		reg_run_free(&run);
		return cli_fail(&err);
	}
	if (reg_compare(&run, &base, tol, &rep, &err) != SC_OK) {
		reg_run_free(&run);
		reg_baselines_free(&base);
		return cli_fail(&err);
	}
	rpt_regress_text(stdout, &rep);
	code = rep.n_failed ? EXIT_CHECK_FAILED : EXIT_OK;
	if (junit && (c = write_junit(junit, &rep)) != EXIT_OK)
		code = c;
	if (update && code != EXIT_IO) {
		if ((c = write_baselines(path, &run)) != EXIT_OK) {
			code = c;
		} else {
			printf("regress: wrote %d baselines to %s\n", run.n_cases, path);
			code = EXIT_OK;
		}
	}
	reg_report_free(&rep);
	reg_baselines_free(&base);
	reg_run_free(&run);
	return cli_finish(code);
}
