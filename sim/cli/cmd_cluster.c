/* cmd_cluster.c: `stepcast cluster CLUSTER`: several jobs on one fabric,
 * simulated together by the DES; each job's step alone (on the same
 * nodes) and together, and its slowdown (sim/config/cluster_load.h,
 * des_predict_together in sim/des/des.h); rendered by reports/rpt_cluster. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../cluster/cluster_run.h"
#include "../config/cluster_load.h"
#include "../des/des.h"
#include "../../reports/rpt_cluster.h"
#include "cli.h"
#include "cli_args.h"
#include "cli_progress.h"
#include "cli_set.h"

static const struct cli_opt cluster_opts[] = {
	{ "format", 'f', "FMT", "text (default) or json", NULL },
	CLI_OPT_GROUP(cli_opts_config_dir),
	CLI_OPT_GROUP(cli_opts_quiet),
	CLI_OPT_GROUP(cli_opts_help),
	CLI_OPT_END
};

static const struct cli_usage cluster_usage = {
	"usage: stepcast cluster CLUSTER [--format text|json] [--config-dir DIR]\n",
	"Simulate the jobs of CLUSTER (a JSON file: \"name\", \"jobs\": [{\"scenario\"(,\n"
	"\"name\", \"kind\")}], an optional \"placement\" over all their nodes) together on\n"
	"one fabric with the discrete-event engine, and each one alone on the same nodes:\n"
	"its step time both ways and its slowdown from sharing the fabric's links and\n"
	"storage.  A job's kind: training (one step), checkpoint (the step that writes\n"
	"a checkpoint to its scenario's storage tier; several: a checkpoint storm) or\n"
	"serving (a serving scenario: its KV-cache transfers on the fabric, and its\n"
	"TTFT, TPOT and throughput alone and with the network share it gets).\n",
	cluster_opts, NULL, 0
};

int cmd_cluster(int argc, char **argv)
{
	struct cli_args args;
	static struct cluster_run run;
	struct srv_engines engines;
	enum cli_format fmt = FMT_TEXT;
	const char *path;
	struct sc_error err;
	enum sc_status st;
	int c;

	cli_args_init(&args, &cluster_usage, argc, argv);
	while ((c = cli_next_option(&args)) > 0)
		if (c == 'f' && !cli_parse_format("cluster", args.arg, 1u << FMT_TEXT | 1u << FMT_JSON, &fmt))
			return EXIT_USAGE;
	if (c == CLI_STOP || !cli_operand(&args, &path, "missing CLUSTER file") || !cli_operands_end(&args) ||
	    !cli_setup(&args, NULL))
		return args.code;
	sc_error_clear(&err);
	if (srv_engines_load(args.config_dir ? args.config_dir : catalog_default_dir(), &engines, &err) != SC_OK) {
		cli_args_free(&args);
		return cli_fail(&err);
	}
	st = cluster_run_load(path, &args.cat, &engines, &run, &err);
	if (st == SC_OK) {
		cli_progress_begin("cluster");
		st = cluster_run_simulate(&run, &err);
		cli_progress_end();
		if (st != SC_OK && !err.file[0])
			snprintf(err.file, sizeof(err.file), "%s", path);
	}
	cli_args_free(&args);
	srv_engines_free(&engines);
	if (st != SC_OK) {
		cluster_run_free(&run);
		return cli_fail(&err);
	}
	if (fmt == FMT_JSON) {
		char *text = rpt_cluster_json(&run);

		if (!text) {
			fprintf(stderr, "stepcast: error: out of memory\n");
			cluster_run_free(&run);
			return EXIT_INTERNAL;
		}
		printf("%s\n", text);
		free(text);
	} else {
		rpt_cluster_text(stdout, &run);
	}
	cluster_run_free(&run);
	return cli_finish(EXIT_OK);
}
