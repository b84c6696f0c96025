/* cmd_cluster.c: `stepcast cluster CLUSTER`: several jobs on one fabric,
 * simulated together by the DES; each job's step alone (on the same
 * nodes) and together, and its slowdown (sim/config/cluster_load.h,
 * des_predict_together in sim/des/des.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "../analytic/step.h"
#include "../config/cluster_load.h"
#include "../config/rpt_num.h"
#include "../des/des.h"
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
	"\"name\")}], an optional \"placement\" over all their nodes) together on one\n"
	"fabric with the discrete-event engine, and each one alone on the same nodes:\n"
	"its step time both ways and its slowdown from sharing the fabric's links.\n",
	cluster_opts, NULL, 0
};

int cmd_cluster(int argc, char **argv)
{
	struct cli_args args;
	static struct cluster_jobs cj;
	static struct des_result alone[CLUSTER_MAX_JOBS], together[CLUSTER_MAX_JOBS];
	static struct step_result an[CLUSTER_MAX_JOBS];
	const struct scenario *scs[CLUSTER_MAX_JOBS];
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
	st = cluster_jobs_load(path, &args.cat, &cj, &err);
	cli_args_free(&args);
	if (st != SC_OK)
		return cli_fail(&err);
	cli_progress_begin("cluster");
	for (int k = 0; st == SC_OK && k < cj.n; k++) {
		scs[k] = &cj.sc[k];
		st = sim_step_predict(&cj.sc[k], &an[k], &err);
		if (st == SC_OK)
			st = des_predict(&cj.sc[k], NULL, &alone[k], &err);
	}
	if (st == SC_OK)
		st = des_predict_together(scs, cj.n, &cj.fabric, NULL, together, &err);
	cli_progress_end();
	if (st != SC_OK) {
		cluster_jobs_free(&cj);
		if (!err.file[0])
			snprintf(err.file, sizeof(err.file), "%s", path);
		return cli_fail(&err);
	}
	if (fmt == FMT_JSON) {
		cJSON *root = cJSON_CreateObject(), *a = cJSON_CreateArray();
		char *text = NULL;

		if (root && a && cJSON_AddItemToObject(root, "jobs", a)) {
			cJSON_AddStringToObject(root, "cluster", cj.name);
			cJSON_AddNumberToObject(root, "nodes", cj.nodes);
			cJSON_AddStringToObject(root, "fabric", cj.fabric.fabric.name);
			cJSON_AddStringToObject(root, "placement", cj.fabric.placement ? cj.fabric.placement->source : "");
			for (int k = 0; k < cj.n; k++) {
				cJSON *o = cJSON_CreateObject();

				if (!o || !cJSON_AddItemToArray(a, o))
					break;
				cJSON_AddStringToObject(o, "name", cj.job_name[k]);
				cJSON_AddNumberToObject(o, "nodes", cj.sc[k].cluster.nodes);
				cJSON_AddNumberToObject(o, "first_node", cj.first_node[k]);
				rpt_json_add_number(o, "analytic_step_time_s", an[k].step_time_s);
				rpt_json_add_number(o, "alone_step_time_s", alone[k].step.step_time_s);
				rpt_json_add_number(o, "together_step_time_s", together[k].step.step_time_s);
				rpt_json_add_number(o, "slowdown", together[k].step.step_time_s / alone[k].step.step_time_s);
			}
			text = cJSON_Print(root);
		} else if (!root || !cJSON_IsArray(a)) {
			cJSON_Delete(a);
		}
		cJSON_Delete(root);
		if (!text) {
			fprintf(stderr, "stepcast: error: out of memory\n");
			cluster_jobs_free(&cj);
			return EXIT_INTERNAL;
		}
		printf("%s\n", text);
		free(text);
	} else {
		printf("cluster     %s\n", cj.name);
		printf("fabric      %d x %s, %s (%d nodes per leaf, %.1f:1 leaf-to-spine)\n", cj.nodes,
		       cj.fabric.instance.name, cj.fabric.fabric.name, cj.fabric.fabric.nodes_per_leaf,
		       cj.fabric.fabric.leaf_spine_oversubscription > 1 ? cj.fabric.fabric.leaf_spine_oversubscription
									 : 1.0);
		printf("placement   %s\n\n", cj.fabric.placement ? cj.fabric.placement->source : "packed");
		printf("%-24s %6s %12s %12s %12s %9s\n", "job", "nodes", "analytic s", "des alone s", "des shared s",
		       "slowdown");
		for (int k = 0; k < cj.n; k++)
			printf("%-24.24s %6d %12.4f %12.4f %12.4f %8.3fx\n", cj.job_name[k], cj.sc[k].cluster.nodes,
			       an[k].step_time_s, alone[k].step.step_time_s, together[k].step.step_time_s,
			       together[k].step.step_time_s / alone[k].step.step_time_s);
	}
	cluster_jobs_free(&cj);
	return cli_finish(EXIT_OK);
}
