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

/* What the command line asks of a plan. */
struct plan_request {
	enum cli_format fmt;
	const char *output;   /* NULL: stdout */
	const char *instance; /* --instance: plan on this type; NULL: the scenario's */
	struct plan_opts po;
	bool pricing_given;
};

/* Parse the options and SCENARIO into a and rq; false when the command
 * stops here (help, a usage error) with its exit code in *code. */
static bool plan_parse(int argc, char **argv, struct cli_args *a, struct plan_request *rq, int *code)
{
	int c, r;

	memset(rq, 0, sizeof(*rq));
	rq->fmt = FMT_TEXT;
	plan_opts_default(&rq->po);
	cli_args_init(a, &plan_usage, argc, argv);
	*code = EXIT_USAGE;
	while ((c = cli_next_option(a)) > 0) {
		if ((r = cli_plan_option("plan", c, a->arg, PLAN_MAX_SWEEP, &rq->po, &rq->pricing_given)) != 0) {
			if (r < 0)
				return false;
			continue;
		}
		switch (c) {
		case 'i':
			rq->instance = a->arg;
			break;
		case 'M':
			if (!cli_parse_int("plan", "--max-nodes", a->arg, 1, SC_MAX_NODES, &rq->po.max_nodes))
				return false;
			break;
		case 'f':
			if (!cli_parse_format("plan", a->arg,
					      1u << FMT_TEXT | 1u << FMT_JSON | 1u << FMT_CSV | 1u << FMT_MD |
					      1u << FMT_HTML | 1u << FMT_PROM, &rq->fmt))
				return false;
			break;
		case 'O':
			rq->output = a->arg;
			break;
		}
	}
	if (c == CLI_STOP || !cli_operand(a, &a->scenario_path, "missing SCENARIO file") ||
	    !cli_operands_end(a)) {
		*code = a->code;
		return false;
	}
	if (rq->po.deadline_s > 0 && rq->po.nodes > 0)
		*code = cli_usage_error("plan", "give --deadline or --nodes, not both");
	else if ((rq->po.max_nodes > 0 || rq->po.n_sweep > 0) && rq->po.deadline_s <= 0 && rq->po.nodes <= 0)
		*code = cli_usage_error("plan", "--max-nodes and --sweep need --deadline (else the plan "
					"is at one node count)");
	else if (rq->po.max_nodes > 0 && rq->po.n_sweep > 0)
		*code = cli_usage_error("plan", "give --max-nodes or --sweep, not both");
	else
		*code = EXIT_OK;
	return *code == EXIT_OK;
}

/* The scenario as planned: the scenario itself, or retargeted at
 * --instance (and its GPU's --calibration); entry describes it. */
static int plan_target(const struct cli_args *a, const struct plan_request *rq, struct scenario *sc,
		       struct scenario *target, struct compare_entry *entry)
{
	const struct instance_spec *inst;
	struct catalog cat;
	struct sc_error err;
	int code;

	/* with --instance, --calibration is for the instance's GPU (below) */
	if ((code = cli_load_scenario("plan", a->config_dir, a->scenario_path,
				      rq->instance ? NULL : a->calibration, sc, &cat)) != EXIT_OK)
		return code;
	memset(entry, 0, sizeof(*entry));
	sc_error_clear(&err);
	if (!rq->instance) {
		*target = *sc;
		compare_entry_describe(entry, target);
	} else if (!(inst = catalog_instance(&cat, rq->instance))) {
		catalog_unknown(&cat, "instance", rq->instance, "--instance", NULL, &err);
	} else if (compare_retarget(sc, &cat, inst, target, entry, &err) == SC_OK && a->calibration) {
		/* an explicit profile must be for the instance's GPU family */
		if (calibration_select(&cat, &target->cluster.gpu, a->calibration, NULL, "--calibration", NULL,
				       &target->calibration, &err) == SC_OK)
			compare_entry_describe(entry, target);
	}
	catalog_free(&cat);
	return err.message[0] ? cli_fail(&err) : EXIT_OK;
}

/* --placement: the instances a plan may use, the file's first N at each
 * node count; a plan at more nodes than the file holds is refused. */
static int plan_pool(struct plan_request *rq, const char *placement, const struct scenario *target)
{
	struct placement pool;
	struct sc_error err;
	int npl = target->cluster.fabric.nodes_per_leaf > 0 ? target->cluster.fabric.nodes_per_leaf : 0;

	sc_error_clear(&err);
	if (placement_load_file(PLACEMENT_FMT_EC2, placement, NULL, 0, 0, npl, &pool, &err) != SC_OK)
		return cli_fail(&err);
	if (rq->po.nodes > pool.nodes) {
		sc_error_set(&err, SC_EINVAL, placement, "/Instances",
			     "the placement holds %d instances; a plan at %d nodes needs as many", pool.nodes,
			     rq->po.nodes);
		placement_free(&pool);
		return cli_fail(&err);
	}
	if (!(rq->po.pool = placement_keep(&pool))) {
		sc_error_set(&err, SC_ENOMEM, placement, NULL, "out of memory");
		return cli_fail(&err);
	}
	return EXIT_OK;
}

/* What the options leave to the scenario: the token budget, the node
 * count, the pricing; and the node counts checked against the cluster. */
static int plan_defaults(struct plan_request *rq, const char *placement, const struct scenario *sc,
			 const struct scenario *target)
{
	const struct instance_spec *inst = &target->cluster.instance;
	int code;

	if (!cli_plan_tokens("plan", &rq->po, sc))
		return EXIT_USAGE;
	if (rq->po.deadline_s <= 0 && rq->po.nodes <= 0)
		rq->po.nodes = target->cluster.nodes;
	if (placement && (code = plan_pool(rq, placement, target)) != EXIT_OK)
		return code;
	if (!rq->pricing_given)
		rq->po.pricing = purchase_default_pricing(inst);
	if (rq->po.nodes > 0 && !cli_check_cluster("plan", "--nodes", rq->po.nodes, inst))
		return EXIT_USAGE;
	for (int i = 0; i < rq->po.n_sweep; i++)
		if (!cli_check_cluster("plan", "--sweep", rq->po.sweep[i], inst))
			return EXIT_USAGE;
	return EXIT_OK;
}

/* Write the plan in the requested format; exit 1 when it missed the
 * deadline or nothing fits. */
static int plan_render(const struct cli_args *a, const struct plan_request *rq, const struct scenario *target,
		       struct compare_entry *entry)
{
	struct compare_result cr;
	struct rpt_plan_input in;
	int code;

	memset(&cr, 0, sizeof(cr));
	cr.entries = entry;
	cr.n = 1;
	cr.fastest = cr.fastest_runner_up = -1;
	cr.confidence = plan_confidence(&rq->po);
	for (int p = 0; p < PRICING_COUNT; p++)
		cr.cheapest[p] = cr.cheapest_runner_up[p] = -1;
	in.sc = target;
	in.opts = &rq->po;
	in.res = &cr;
	in.compare = false;
	if (rq->fmt == FMT_PROM) {
		struct cli_output o;
		char label[256];

		if ((code = cli_output_open(&o, rq->output)) == EXIT_OK) {
			rpt_prom_plan(o.f, rpt_prom_scenario_label(a->scenario_path, label, sizeof(label)), target,
				      &rq->po, entry);
			code = cli_output_close(&o, true);
		}
	} else {
		code = cli_write_plan(rq->output, &in, rq->fmt);
	}
	if (code != EXIT_OK)
		return code;
	if (entry->plan.choice == PLAN_INFEASIBLE) {
		fprintf(stderr, "stepcast: plan: no layout fits in memory\n");
		return EXIT_CHECK_FAILED;
	}
	if (entry->plan.choice == PLAN_MISSED_DEADLINE) {
		fprintf(stderr, "stepcast: plan: no node count meets the deadline at P%.3g\n",
			100 * plan_confidence(&rq->po));
		return EXIT_CHECK_FAILED;
	}
	return EXIT_OK;
}

int cmd_plan(int argc, char **argv)
{
	struct cli_args a;
	struct plan_request rq;
	struct compare_entry entry;
	static struct scenario sc, target;
	struct sc_error err;
	int code;

	if (!plan_parse(argc, argv, &a, &rq, &code) ||
	    (code = plan_target(&a, &rq, &sc, &target, &entry)) != EXIT_OK ||
	    (code = plan_defaults(&rq, a.placement, &sc, &target)) != EXIT_OK)
		return code;
	sc_error_clear(&err);
	cli_progress_begin("plan");
	code = plan_run(&target, &rq.po, &entry.plan, &err) != SC_OK;
	cli_progress_end();
	if (code) {
		plan_result_free(&entry.plan);
		if (!err.file[0])
			snprintf(err.file, sizeof(err.file), "%s", a.scenario_path);
		return cli_fail(&err);
	}
	code = plan_render(&a, &rq, &target, &entry);
	plan_result_free(&entry.plan);
	return code;
}
