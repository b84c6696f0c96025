/* cmd_plan.c: `stepcast plan SCENARIO`: the node count, layout, wall-clock
 * time and cost to train a token budget on one instance type, by a
 * deadline or on a given number of nodes. */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../config/placement_load.h"
#include "../plan/plan.h"
#include "../../reports/rpt_prom.h"
#include "cli.h"
#include "cli_args.h"
#include "cli_progress.h"
#include "cli_output.h"
#include "cli_set.h"
#include "cli_search.h"
#include "../../models/limits.h"

static const struct cli_opt plan_opts[] = {
	{ "tokens", 't', "N", "token budget, e.g. 15T or 1.5e13 (default: the scenario's\n"
			      "training.tokens_to_train)", NULL },
	{ "deadline", 'd', "D", "wall-clock limit, e.g. 90d, 36h, 2w (a bare number is days)", NULL },
	{ "nodes", 'N', "N", "plan on N instances", NULL },
	{ "instance", 'i', "NAME", "plan on this instance type instead of the scenario's", NULL },
	{ "pricing", 'p', "P", "on-demand or capacity-block: the cost the deadline plan\n"
			       "minimises (default: on-demand where the instance is sold so,\n"
			       "else capacity-block; one it is not sold under: exit 3)", NULL },
	{ "max-nodes", 'M', "N", "top of the node sweep (default 4096): 1, 2, 3, 4, 6, 8, 12, ...", NULL },
	{ "sweep", 'S', "LIST", "the node counts to try instead, e.g. 64,128,256", NULL },
	{ "confidence", 'C', "P", "meet the deadline at percentile P of the time to train\n"
				  "(default 90: P90, from the calibration's band; 50: the\n"
				  "median, the point prediction)", NULL },
	{ "format", 'f', "FMT", "text (default), json, csv, md, html or prom (Prometheus\n"
				"text exposition of the chosen plan)", NULL },
	CLI_OPT_GROUP(cli_opts_output),
	{ "calibration", 'k', "NAME|FILE", "use this calibration profile instead of the scenario's: a\n"
					   "catalogue NAME, or a profile FILE (a value with '/' or\n"
					   "ending in .json); it must be for the GPU family of the\n"
					   "scenario's instance (of --instance, when given)", NULL },
	{ "config-dir", 'c', "DIR", "catalogue directory (default: $STEPCAST_CONFIG_DIR, else the\n"
				    "configs/ of the data directory)", NULL },
	CLI_OPT_GROUP_AT(cli_opts_set, 26),
	CLI_OPT_GROUP_AT(cli_opts_placement, 26),
	CLI_OPT_GROUP_AT(cli_opts_quiet, 26),
	CLI_OPT_GROUP(cli_opts_help),
	CLI_OPT_END
};

static const struct cli_usage plan_usage = {
	"usage: stepcast plan SCENARIO [--tokens N] [--deadline D | --nodes N]\n"
	"                     [--instance NAME] [--pricing P] [--max-nodes N] [--sweep LIST]\n"
	"                     [--confidence P] [--format FMT] [--output FILE]\n"
	"                     [--placement FILE]\n",
	"Plan training SCENARIO's model on a budget of tokens: at each node count of a\n"
	"sweep, search the layouts and keep the one that trains the budget soonest; then\n"
	"choose the node count: the one given with --nodes, or the cheapest that meets\n"
	"--deadline at P90 (the fastest when none does).  Reports the layout, wall-clock time,\n"
	"total cost on-demand and with capacity blocks, cost per million tokens and\n"
	"GPU-hours, and the whole sweep.  Without --deadline and --nodes the plan is at\n"
	"the scenario's node count.  Counts whose cost is inside the cheapest one's\n"
	"band (at the confidence) are a tie with it, broken by fewer nodes, then faster.\n",
	plan_opts,
	"\n"
	"Exit 1 when no node count meets the deadline or no layout fits (the report says\n"
	"so).  The time to train counts data stalls, checkpoints, failures and restarts\n"
	"(goodput) when the scenario has a \"storage\" object, else every step (goodput 100 %).\n"
	"An instance sold only as whole UltraServers (p6e-gb200.36xlarge: u-p6e-gb200x72,\n"
	"18 instances) is planned and priced in whole UltraServers: the sweep visits only\n"
	"their multiples, and --nodes or --sweep must be multiples (else exit 3).\n"
	"With --placement each node count N is planned on the file's first N instances\n"
	"(in its order, as a scheduler hands them out); counts beyond the file are not.\n",
	23
};

int cmd_plan(int argc, char **argv)
{
	struct cli_args a;
	enum cli_format fmt = FMT_TEXT;
	const char *output = NULL, *instance = NULL;
	struct plan_opts po;
	struct compare_result cr;
	struct compare_entry entry;
	struct rpt_plan_input in;
	struct catalog cat;
	static struct scenario sc, target;
	struct sc_error err;
	int c, code;
	bool pricing_given = false;

	plan_opts_default(&po);
	cli_args_init(&a, &plan_usage, argc, argv);
	while ((c = cli_next_option(&a)) > 0) {
		const char *optarg = a.arg; /* getopt's name: the cases read as before */

		switch (c) {
		case 't':
			if (!cli_parse_tokens("plan", optarg, &po.tokens))
				return EXIT_USAGE;
			break;
		case 'd':
			if (!cli_parse_duration("plan", "--deadline", optarg, &po.deadline_s))
				return EXIT_USAGE;
			break;
		case 'N':
			if (!cli_parse_int("plan", "--nodes", optarg, 1, SC_MAX_NODES, &po.nodes))
				return EXIT_USAGE;
			break;
		case 'i':
			instance = optarg;
			break;
		case 'p':
			if (!plan_pricing_parse(optarg, &po.pricing))
				return cli_usage_error("plan", "unknown pricing '%s' (expected on-demand or "
						       "capacity-block)", optarg);
			pricing_given = true;
			break;
		case 'M':
			if (!cli_parse_int("plan", "--max-nodes", optarg, 1, SC_MAX_NODES, &po.max_nodes))
				return EXIT_USAGE;
			break;
		case 'S':
			if (!cli_parse_int_list("plan", "--sweep", optarg, po.sweep, PLAN_MAX_SWEEP, &po.n_sweep))
				return EXIT_USAGE;
			break;
		case 'f':
			if (!cli_parse_format("plan", optarg,
					      1u << FMT_TEXT | 1u << FMT_JSON | 1u << FMT_CSV | 1u << FMT_MD |
					      1u << FMT_HTML | 1u << FMT_PROM, &fmt))
				return EXIT_USAGE;
			break;
		case 'O':
			output = optarg;
			break;
		case 'C':
			if (!cli_parse_confidence("plan", optarg, &po.confidence))
				return EXIT_USAGE;
			break;
		}
	}
	if (c == CLI_STOP || !cli_operand(&a, &a.scenario_path, "missing SCENARIO file") ||
	    !cli_operands_end(&a))
		return a.code;
	if (po.deadline_s > 0 && po.nodes > 0)
		return cli_usage_error("plan", "give --deadline or --nodes, not both");
	if ((po.max_nodes > 0 || po.n_sweep > 0) && po.deadline_s <= 0 && po.nodes <= 0)
		return cli_usage_error("plan", "--max-nodes and --sweep need --deadline (else the plan "
				       "is at one node count)");
	if (po.max_nodes > 0 && po.n_sweep > 0)
		return cli_usage_error("plan", "give --max-nodes or --sweep, not both");

	/* with --instance, --calibration is for the instance's GPU (below) */
	if ((code = cli_load_scenario("plan", a.config_dir, a.scenario_path, instance ? NULL : a.calibration,
				      &sc, &cat)) != EXIT_OK)
		return code;
	memset(&entry, 0, sizeof(entry));
	sc_error_clear(&err);
	if (instance) {
		const struct instance_spec *inst = catalog_instance(&cat, instance);

		if (!inst) {
			catalog_unknown(&cat, "instance", instance, "--instance", NULL, &err);
			catalog_free(&cat);
			return cli_fail(&err);
		}
		if (compare_retarget(&sc, &cat, inst, &target, &entry, &err) != SC_OK) {
			catalog_free(&cat);
			return cli_fail(&err);
		}
		if (a.calibration) {
			/* an explicit profile must be for the instance's GPU family */
			if (calibration_select(&cat, &target.cluster.gpu, a.calibration, NULL, "--calibration",
					       NULL, &target.calibration, &err) != SC_OK) {
				catalog_free(&cat);
				return cli_fail(&err);
			}
			compare_entry_describe(&entry, &target);
		}
	} else {
		target = sc;
		compare_entry_describe(&entry, &target);
	}
	catalog_free(&cat);
	if (!(po.tokens > 0))
		po.tokens = sc.training.tokens_to_train;
	if (!(po.tokens > 0))
		return cli_usage_error("plan", "no token budget: give --tokens or training.tokens_to_train "
				       "in the scenario");
	if (po.deadline_s <= 0 && po.nodes <= 0)
		po.nodes = target.cluster.nodes;
	if (a.placement) {
		struct placement pool;
		int npl = target.cluster.fabric.nodes_per_leaf > 0 ? target.cluster.fabric.nodes_per_leaf : 0;

		if (placement_load_file(PLACEMENT_FMT_EC2, a.placement, NULL, 0, 0, npl, &pool, &err) != SC_OK)
			return cli_fail(&err);
		if (po.nodes > pool.nodes) {
			sc_error_set(&err, SC_EINVAL, a.placement, "/Instances",
				     "the placement holds %d instances; a plan at %d nodes needs as many", pool.nodes,
				     po.nodes);
			placement_free(&pool);
			return cli_fail(&err);
		}
		if (!(po.pool = placement_keep(&pool))) {
			sc_error_set(&err, SC_ENOMEM, a.placement, NULL, "out of memory");
			return cli_fail(&err);
		}
	}
	if (!pricing_given)
		po.pricing = purchase_default_pricing(&target.cluster.instance);
	if (po.nodes > 0 && !cli_check_cluster("plan", "--nodes", po.nodes, &target.cluster.instance))
		return EXIT_USAGE;
	for (int i = 0; i < po.n_sweep; i++)
		if (!cli_check_cluster("plan", "--sweep", po.sweep[i], &target.cluster.instance))
			return EXIT_USAGE;

	cli_progress_begin("plan");
	code = plan_run(&target, &po, &entry.plan, &err) != SC_OK;
	cli_progress_end();
	if (code) {
		plan_result_free(&entry.plan);
		if (!err.file[0])
			snprintf(err.file, sizeof(err.file), "%s", a.scenario_path);
		return cli_fail(&err);
	}
	memset(&cr, 0, sizeof(cr));
	cr.entries = &entry;
	cr.n = 1;
	cr.fastest = cr.fastest_runner_up = -1;
	cr.confidence = plan_confidence(&po);
	for (int p = 0; p < PRICING_COUNT; p++)
		cr.cheapest[p] = cr.cheapest_runner_up[p] = -1;
	in.sc = &target;
	in.opts = &po;
	in.res = &cr;
	in.compare = false;
	if (fmt == FMT_PROM) {
		struct cli_output o;
		char label[256];

		if ((code = cli_output_open(&o, output)) == EXIT_OK) {
			rpt_prom_plan(o.f, rpt_prom_scenario_label(a.scenario_path, label, sizeof(label)), &target, &po,
				      &entry);
			code = cli_output_close(&o, true);
		}
	} else {
		code = cli_write_plan(output, &in, fmt);
	}
	if (code == EXIT_OK && (entry.plan.choice == PLAN_MISSED_DEADLINE ||
				entry.plan.choice == PLAN_INFEASIBLE)) {
		if (entry.plan.choice == PLAN_INFEASIBLE)
			fprintf(stderr, "stepcast: plan: no layout fits in memory\n");
		else
			fprintf(stderr, "stepcast: plan: no node count meets the deadline at P%.3g\n",
				100 * plan_confidence(&po));
		code = EXIT_CHECK_FAILED;
	}
	plan_result_free(&entry.plan);
	return code;
}
