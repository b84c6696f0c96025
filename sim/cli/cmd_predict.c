/* cmd_predict.c: `stepcast predict SCENARIO`: one training step of a
 * scenario with the analytical engine, or with the discrete-event engine
 * (--engine des, sim/des). */
#include <getopt.h>
#include <stdio.h>
#include <string.h>

#include <stdlib.h>

#include "../../reports/rpt_goodput.h"
#include "../../calibrate/cal_profile.h"
#include "../../reports/rpt_des.h"
#include "../../reports/rpt_prom.h"
#include "../../reports/rpt_step.h"
#include "../../reports/rpt_placement.h"
#include "../des/des.h"
#include "../analytic/goodput.h"
#include "../analytic/step.h"
#include "../config/placement_load.h"
#include "../config/scenario_load.h"
#include "../search/explain.h"
#include "cli.h"
#include "cli_progress.h"
#include "cli_des.h"
#include "cli_output.h"
#include "cli_set.h"

static void predict_usage(FILE *out)
{
	fprintf(out,
		"usage: stepcast predict SCENARIO [--format text|json|csv|prom]\n"
		"                        [--calibration NAME|FILE] [--config-dir DIR]\n"
		"                        [--engine analytic|des] [--fidelity FLOWS|exact]\n"
		"                        [--trace FILE] [--max-flows N] [--max-memory SIZE]\n"
		"                        [--max-events N] [--placement FILE]\n"
		"\n"
		"Predict one training step of SCENARIO (a JSON file, see scenarios/): step time,\n"
		"throughput, MFU, a breakdown that sums to the step time, memory per GPU with an\n"
		"out-of-memory verdict, the bottleneck and the collectives with their algorithms.\n"
		"\n"
		"options:\n"
		"  -f, --format FMT        text (default), json, csv or prom (Prometheus text\n"
		"                          exposition, for node_exporter's textfile collector)\n"
		"  -k, --calibration NAME|FILE\n"
		"                          use this profile instead of the scenario's: a\n"
		"                          catalogue NAME, or a profile FILE (a value with '/'\n"
		"                          or ending in .json); it must be for the GPU's family\n"
		"  -c, --config-dir DIR    catalogue directory (default: $STEPCAST_CONFIG_DIR,\n"
		"                          else the configs/ of the data directory)\n"
		"      --engine ENGINE     analytic (default: closed-form, milliseconds) or des\n"
		"                          (discrete-event simulation on SimGrid: sees contention\n"
		"                          between flows, adds the busiest links)\n"
		"      --fidelity FLOWS    des: simulate at most about FLOWS flows (default\n"
		"                          1000000), merging ring steps and DP buckets past it;\n"
		"                          'exact' merges nothing\n"
		"      --trace FILE        des: write the simulated timeline as Chrome/Perfetto\n"
		"                          trace JSON (open it in ui.perfetto.dev)\n"
		"      --placement FILE    place the nodes as this `aws ec2 describe-instance-\n"
		"                          topology` JSON says (its first nodes, in its order;\n"
		"                          overrides cluster.placement); with one, predict adds\n"
		"                          its cost against packed and the groups that pay it\n"
		);
	cli_set_usage(out, "cluster.instance", true);
	cli_progress_usage(out);
	cli_des_budget_usage(out);
	fprintf(out,
		"  -h, --help              show this help\n");
}

/* The tiers of the checkpoint comparison, one per kind (NVMe, FSx, S3):
 * the scenario's own tier of that kind if it uses one, else the
 * catalogue's (for FSx the fastest per TiB).  Copies into out[]. */
static int compare_tiers(const struct catalog *cat, const struct scenario *sc,
			 struct storage_spec *out)
{
	static const char *const kinds[] = { "nvme", "fsx-lustre", "s3" };
	int n = 0;

	for (int k = 0; k < 3; k++) {
		const struct storage_spec *best = NULL;

		if (strcmp(sc->storage.checkpoint_tier.kind, kinds[k]) == 0)
			best = &sc->storage.checkpoint_tier;
		else if (sc->storage.has_data_tier && strcmp(sc->storage.data_tier.kind, kinds[k]) == 0)
			best = &sc->storage.data_tier;
		else
			for (int i = 0; i < cat->n_storage; i++) {
				const struct storage_spec *t = &cat->storage[i];

				if (strcmp(t->kind, kinds[k]) == 0 &&
				    (!best || t->write_MBps_per_TiB > best->write_MBps_per_TiB))
					best = t;
			}
		if (best)
			out[n++] = *best;
	}
	return n;
}

int cmd_predict(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "format", required_argument, NULL, 'f' },
		{ "calibration", required_argument, NULL, 'k' },
		{ "config-dir", required_argument, NULL, 'c' },
		{ "engine", required_argument, NULL, 'E' },
		{ "fidelity", required_argument, NULL, 'F' },
		{ "trace", required_argument, NULL, 'T' },
		{ "placement", required_argument, NULL, 'P' },
		{ "set", required_argument, NULL, CLI_OPT_SET },
		{ "instance", required_argument, NULL, CLI_OPT_INSTANCE },
		{ "nodes", required_argument, NULL, CLI_OPT_NODES },
		{ "quiet", no_argument, NULL, CLI_OPT_QUIET },
		CLI_DES_BUDGET_OPTIONS,
		CLI_DES_EVENTS_OPTION,
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 }
	};
	enum cli_format fmt = FMT_TEXT;
	const char *dir = NULL, *path, *calib = NULL;
	struct catalog cat;
	static struct scenario sc;
	struct step_result r;
	struct sc_error err;
	static struct storage_spec tiers[3];
	static struct goodput_result g;
	static struct goodput_option options[4];
	int n_tiers = 0, n_opts = 0;
	bool extended = false, des = false;
	const char *trace = NULL, *placement = NULL;
	static struct pl_eval pe[2];
	struct des_options dopt;
	static struct des_result dr;
	int c, code;

	memset(&dopt, 0, sizeof(dopt));
	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":f:k:c:h", opts, NULL)) != -1) {
		bool ok;

		if (cli_des_budget_option("predict", c, optarg, &dopt, &ok)) {
			if (!ok)
				return EXIT_USAGE;
			continue;
		}
		switch (c) {
		case 'E':
			if (strcmp(optarg, "des") != 0 && strcmp(optarg, "analytic") != 0)
				return cli_usage_error("predict", "unknown engine '%s' (expected analytic or des)",
						       optarg);
			des = strcmp(optarg, "des") == 0;
			break;
		case 'F': {
			char *end = NULL;

			if (strcmp(optarg, "exact") == 0) {
				dopt.fidelity = -1;
				break;
			}
			dopt.fidelity = strtod(optarg, &end);
			if (!end || *end || !(dopt.fidelity >= 1) || dopt.fidelity > 1e12)
				return cli_usage_error("predict", "--fidelity wants a number of flows >= 1 or 'exact', not '%s'",
						       optarg);
			break;
		}
		case 'T':
			trace = optarg;
			break;
		case 'P':
			placement = optarg;
			break;
		case 'f':
			if (!cli_parse_format("predict", optarg,
					      1u << FMT_TEXT | 1u << FMT_JSON | 1u << FMT_CSV | 1u << FMT_PROM,
					      &fmt))
				return EXIT_USAGE;
			break;
		case 'k':
			calib = optarg;
			break;
		case 'c':
			dir = optarg;
			break;
		case CLI_OPT_SET:
		case CLI_OPT_INSTANCE:
		case CLI_OPT_NODES:
			if (!cli_set_option("predict", c, optarg, "cluster."))
				return EXIT_USAGE;
			break;
		case CLI_OPT_QUIET:
			cli_quiet = true;
			break;
		case 'h':
			predict_usage(stdout);
			return cli_finish(EXIT_OK);
		case ':':
			return cli_usage_error("predict", "option '%s' needs a value", argv[optind - 1]);
		default:
			return cli_usage_error("predict", "unknown option '%s'", argv[optind - 1]);
		}
	}
	if (optind >= argc)
		return cli_usage_error("predict", "missing SCENARIO file");
	path = argv[optind++];
	if (optind < argc)
		return cli_usage_error("predict", "unexpected argument '%s'", argv[optind]);
	if ((trace || dopt.fidelity != 0 || cli_des_budget_given(&dopt)) && !des)
		return cli_usage_error("predict", "%s needs --engine des",
				       trace ? "--trace" : dopt.fidelity != 0 ? "--fidelity"
				       : dopt.max_flows > 0 ? "--max-flows"
				       : dopt.max_memory_bytes > 0 ? "--max-memory" : "--max-events");
	if (dopt.max_events > 0 && !trace)
		return cli_usage_error("predict", "--max-events bounds the timeline of --trace");

	if ((code = cli_load_catalog(dir, &cat)) != EXIT_OK)
		return code;
	sc_error_clear(&err);
	if (cli_scenario_load(path, &cat, &sc, &err) != SC_OK) {
		catalog_free(&cat);
		return cli_fail(&err);
	}
	if (calib && calibration_select(&cat, &sc.cluster.gpu, calib, NULL, "--calibration", NULL,
					&sc.calibration, &err) != SC_OK) {
		catalog_free(&cat);
		return cli_fail(&err);
	}
	if (placement && placement_use_ec2_file(placement, &sc, &err) != SC_OK) {
		catalog_free(&cat);
		return cli_fail(&err);
	}
	if (sc.storage.enabled)
		n_tiers = compare_tiers(&cat, &sc, tiers);
	catalog_free(&cat);
	if (sim_step_predict(&sc, &r, &err) != SC_OK) {
		if (!err.file[0])
			snprintf(err.file, sizeof(err.file), "%s", path);
		return cli_fail(&err);
	}
	/* a placement: its cost against packed (analytic), said with the result */
	if (sc.cluster.placement &&
	    (pl_evaluate(&sc, NULL, "packed", false, NULL, &pe[0], &err) != SC_OK ||
	     pl_evaluate(&sc, sc.cluster.placement, "placed", false, NULL, &pe[1], &err) != SC_OK))
		return cli_fail(&err);
	if (sc.cluster.placement)
		pl_eval_cost(&pe[1], &pe[0]);
	if (des) {
		/* the discrete-event engine: the same result structure */
		dopt.trace = trace != NULL;
		enum sc_status st;

		{
			/* before a long run: its cost, when above the target */
			struct des_estimate e;

			if (des_estimate(&sc, &dopt, &e, &err) == SC_OK &&
			    des_estimate_check(&e, &dopt, &err) == SC_OK)
				cli_des_fidelity_note(NULL, &e, &dopt);
			sc_error_clear(&err);
		}
		cli_progress_begin("predict --engine des");
		st = des_predict(&sc, &dopt, &dr, &err);
		cli_progress_end();
		if (st != SC_OK) {
			if (!err.file[0])
				snprintf(err.file, sizeof(err.file), "%s", path);
			return cli_fail(&err);
		}
		r = dr.step;
		rpt_des_cost_line(stderr, &dr);
		if (trace) {
			struct cli_output o;
			int wc = cli_output_open(&o, trace);

			if (wc == EXIT_OK) {
				bool ok = des_trace_write(o.f, &sc, &dr);

				if (!ok)
					fprintf(stderr, "stepcast: error: %s: cannot write the trace\n", trace);
				wc = cli_output_close(&o, ok);
			}
			des_result_free(&dr);
			if (wc != EXIT_OK)
				return wc == EXIT_INTERNAL ? EXIT_IO : wc;
		}
		des_result_free(&dr);
	}
	if (sc.storage.enabled || sc.stragglers.enabled) {
		const struct storage_spec *tp[3];

		for (int i = 0; i < n_tiers; i++)
			tp[i] = &tiers[i];
		if (sim_goodput(&sc, &r, &g, &err) != SC_OK ||
		    (sc.storage.enabled &&
		     sim_goodput_compare(&sc, &r, tp, n_tiers, options, &n_opts, &err) != SC_OK)) {
			if (!err.file[0])
				snprintf(err.file, sizeof(err.file), "%s", path);
			return cli_fail(&err);
		}
		extended = true;
	}
	{
		/* a fitted profile knows the data behind it: say when this
		 * scenario's collectives lie outside it (stderr; stdout unchanged) */
		struct cal_range_warning w[SC_STEP_MAX_COLLECTIVES];
		int n = cal_range_check(&sc.calibration, &r, w, SC_STEP_MAX_COLLECTIVES);
		for (int i = 0; i < n && i < SC_STEP_MAX_COLLECTIVES; i++)
			fprintf(stderr, "stepcast: warning: %s\n", w[i].text);
	}
	switch (fmt) {
	case FMT_JSON: {
		cJSON *root = rpt_step_json_object(&sc, &r), *res = NULL;
		char *text = NULL;

		if (root && extended && (!(res = rpt_goodput_json(&sc, &g, options, n_opts)) ||
					 !cJSON_AddItemToObject(root, "resilience", res))) {
			cJSON_Delete(res);
			cJSON_Delete(root);
			root = NULL;
		}
		if (root && des && (!(res = rpt_des_json_object(&dr)) ||
				    !cJSON_AddItemToObject(root, "des", res))) {
			cJSON_Delete(res);
			cJSON_Delete(root);
			root = NULL;
		}
		if (root && sc.cluster.placement && (!(res = rpt_placement_json_one(&pe[1])) ||
						     !cJSON_AddItemToObject(root, "placement", res))) {
			cJSON_Delete(res);
			cJSON_Delete(root);
			root = NULL;
		}
		if (root && cli_overrides.n > 0 && (!(res = cfg_overrides_json(&cli_overrides)) ||
						    !cJSON_AddItemToObject(root, "overrides", res))) {
			cJSON_Delete(res);
			cJSON_Delete(root);
			root = NULL;
		}
		if (root)
			text = cJSON_Print(root);
		cJSON_Delete(root);
		if (!text) {
			fprintf(stderr, "stepcast: error: out of memory\n");
			return EXIT_INTERNAL;
		}
		printf("%s\n", text);
		free(text);
		break;
	}
	case FMT_CSV:
		rpt_step_csv(stdout, &sc, &r);
		break;
	case FMT_PROM: {
		char label[256];

		rpt_prom_step(stdout, rpt_prom_scenario_label(path, label, sizeof(label)), &sc, &r,
			      extended ? &g : NULL);
		break;
	}
	default:
		for (int i = 0; i < cli_overrides.n; i++)
			printf("%s%s", i ? ", " : "what-if     ", cli_overrides.item[i].text);
		if (cli_overrides.n > 0)
			printf("\n");
		rpt_step_text(stdout, &sc, &r);
		if (sc.cluster.placement)
			rpt_placement_line(stdout, &pe[1]);
		if (des)
			rpt_des_text(stdout, &dr);
		if (extended) {
			rpt_goodput_text(stdout, &sc, &g);
			if (n_opts > 0)
				rpt_goodput_compare_text(stdout, &sc, options, n_opts);
		}
		break;
	}
	if (r.oom) {
		/* said, not hidden: how far over, and which of explain's
		 * single-step neighbours fit (fastest first; else the closest) */
		static struct explain_result x;
		struct sc_error xerr;
		int shown = 0, closest = -1;

		fprintf(stderr, "stepcast: predict: %s does not fit in GPU memory: %.2f GiB per GPU "
			"(%s pipeline stage) of %.2f GiB usable, %.2f GiB over (step %.3f s); one change each:\n",
			path, r.mem_total_bytes / 1073741824.0, r.mem_worst_stage ? "last" : "first",
			r.mem_capacity_bytes / 1073741824.0,
			(r.mem_total_bytes - r.mem_capacity_bytes) / 1073741824.0, r.step_time_s);
		sc_error_clear(&xerr);
		if (explain_run(&sc, MODEL_DECISION_CONFIDENCE, &x, &xerr) == SC_OK) {
			for (int i = 0; i < x.n; i++) {
				const struct explain_option *o = &x.opt[i];

				if (!o->oom && shown < 6) {
					fprintf(stderr, "  %-24s %8.2f GiB  fits  step %.3f s  (%s)\n", o->change,
						o->mem_total_bytes / 1073741824.0, o->step_time_s, o->set);
					shown++;
				}
				if (o->oom && (closest < 0 || o->mem_total_bytes < x.opt[closest].mem_total_bytes))
					closest = i;
			}
			if (shown == 0 && closest >= 0)
				fprintf(stderr, "  no single change fits; closest: %s, %.2f GiB (%s)\n",
					x.opt[closest].change, x.opt[closest].mem_total_bytes / 1073741824.0,
					x.opt[closest].set);
		}
		return cli_finish(EXIT_OOM);
	}
	return cli_finish(EXIT_OK);
}
