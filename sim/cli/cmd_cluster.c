/* cmd_cluster.c: `stepcast cluster CLUSTER`: several jobs on one fabric,
 * simulated together by the DES; each job's step alone (on the same
 * nodes) and together, and its slowdown (sim/config/cluster_load.h,
 * des_predict_together in sim/des/des.h). */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "../analytic/step.h"
#include "../config/cluster_load.h"
#include "../config/rpt_num.h"
#include "../des/des.h"
#include "cli.h"
#include "cli_progress.h"
#include "cli_set.h"

static void cluster_usage(FILE *out)
{
	fprintf(out,
		"usage: stepcast cluster CLUSTER [--format text|json] [--config-dir DIR]\n"
		"\n"
		"Simulate the jobs of CLUSTER (a JSON file: \"name\", \"jobs\": [{\"scenario\"(,\n"
		"\"name\", \"kind\")}], an optional \"placement\" over all their nodes) together on\n"
		"one fabric with the discrete-event engine, and each one alone on the same nodes:\n"
		"its step time both ways and its slowdown from sharing the fabric's links and\n"
		"storage.  A job's kind: training (one step) or checkpoint (the step that writes\n"
		"a checkpoint to its scenario's storage tier; several: a checkpoint storm).\n"
		"\n"
		"options:\n"
		"  -f, --format FMT        text (default) or json\n"
		"  -c, --config-dir DIR    catalogue directory\n");
	cli_progress_usage(out);
	fprintf(out, "  -h, --help              show this help\n");
}

int cmd_cluster(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "format", required_argument, NULL, 'f' },
		{ "config-dir", required_argument, NULL, 'c' },
		{ "quiet", no_argument, NULL, CLI_OPT_QUIET },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 }
	};
	static struct cluster_jobs cj;
	static struct des_result alone[CLUSTER_MAX_JOBS], together[CLUSTER_MAX_JOBS];
	static struct step_result an[CLUSTER_MAX_JOBS];
	const struct scenario *scs[CLUSTER_MAX_JOBS];
	struct des_options ck, all;
	enum cli_format fmt = FMT_TEXT;
	const char *dir = NULL, *path;
	struct catalog cat;
	struct sc_error err;
	enum sc_status st;
	int c, code;

	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":f:c:h", opts, NULL)) != -1) {
		switch (c) {
		case 'f':
			if (!cli_parse_format("cluster", optarg, 1u << FMT_TEXT | 1u << FMT_JSON, &fmt))
				return EXIT_USAGE;
			break;
		case 'c':
			dir = optarg;
			break;
		case CLI_OPT_QUIET:
			cli_quiet = true;
			break;
		case 'h':
			cluster_usage(stdout);
			return cli_finish(EXIT_OK);
		case ':':
			return cli_usage_error("cluster", "option '%s' needs a value", argv[optind - 1]);
		default:
			return cli_usage_error("cluster", "unknown option '%s'", argv[optind - 1]);
		}
	}
	if (optind >= argc)
		return cli_usage_error("cluster", "missing CLUSTER file");
	path = argv[optind++];
	if (optind < argc)
		return cli_usage_error("cluster", "unexpected argument '%s'", argv[optind]);
	if ((code = cli_load_catalog(dir, &cat)) != EXIT_OK)
		return code;
	sc_error_clear(&err);
	st = cluster_jobs_load(path, &cat, &cj, &err);
	catalog_free(&cat);
	if (st != SC_OK)
		return cli_fail(&err);
	cli_progress_begin("cluster");
	memset(&ck, 0, sizeof(ck));
	memset(&all, 0, sizeof(all));
	ck.checkpoint_step = true;
	for (int k = 0; st == SC_OK && k < cj.n; k++) {
		bool ckpt = cj.kind[k] == CLUSTER_JOB_CHECKPOINT;

		scs[k] = &cj.sc[k];
		if (ckpt)
			all.checkpoint_jobs |= 1u << k;
		st = sim_step_predict(&cj.sc[k], &an[k], &err);
		if (st == SC_OK)
			st = des_predict(&cj.sc[k], ckpt ? &ck : NULL, &alone[k], &err);
	}
	if (st == SC_OK)
		st = des_predict_together(scs, cj.n, &cj.fabric, &all, together, &err);
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
				cJSON_AddStringToObject(o, "kind", cj.kind[k] == CLUSTER_JOB_CHECKPOINT ? "checkpoint" : "training");
				cJSON_AddNumberToObject(o, "nodes", cj.sc[k].cluster.nodes);
				cJSON_AddNumberToObject(o, "first_node", cj.first_node[k]);
				rpt_json_add_number(o, "analytic_step_time_s", an[k].step_time_s);
				rpt_json_add_number(o, "alone_step_time_s", alone[k].step.step_time_s);
				rpt_json_add_number(o, "together_step_time_s", together[k].step.step_time_s);
				rpt_json_add_number(o, "slowdown", together[k].step.step_time_s / alone[k].step.step_time_s);
				if (alone[k].storage.data) {
					rpt_json_add_number(o, "alone_data_read_s", alone[k].storage.read_s);
					rpt_json_add_number(o, "together_data_read_s", together[k].storage.read_s);
				}
				if (alone[k].storage.checkpoint) {
					rpt_json_add_number(o, "alone_checkpoint_write_s", alone[k].storage.write_s);
					rpt_json_add_number(o, "together_checkpoint_write_s", together[k].storage.write_s);
					cJSON_AddBoolToObject(o, "checkpoint_async", alone[k].storage.async);
				}
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
		printf("%-24s %-10s %6s %12s %12s %12s %9s\n", "job", "kind", "nodes", "analytic s", "des alone s",
		       "des shared s", "slowdown");
		for (int k = 0; k < cj.n; k++)
			printf("%-24.24s %-10s %6d %12.4f %12.4f %12.4f %8.3fx\n", cj.job_name[k],
			       cj.kind[k] == CLUSTER_JOB_CHECKPOINT ? "checkpoint" : "training", cj.sc[k].cluster.nodes,
			       an[k].step_time_s, alone[k].step.step_time_s, together[k].step.step_time_s,
			       together[k].step.step_time_s / alone[k].step.step_time_s);
		for (int k = 0; k < cj.n; k++) {
			if (alone[k].storage.checkpoint)
				printf("%-24.24s checkpoint %s write %.4f s alone, %.4f s shared (%.4g GB per GPU)\n",
				       cj.job_name[k], alone[k].storage.async ? "async drain" : "sync",
				       alone[k].storage.write_s, together[k].storage.write_s,
				       alone[k].storage.write_bytes / 1e9);
			if (alone[k].storage.data)
				printf("%-24.24s data batch read %.4f s alone, %.4f s shared (%.4g MB per reader)\n",
				       cj.job_name[k], alone[k].storage.read_s, together[k].storage.read_s,
				       alone[k].storage.read_bytes / 1e6);
		}
	}
	cluster_jobs_free(&cj);
	return cli_finish(EXIT_OK);
}
