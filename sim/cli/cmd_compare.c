/* cmd_compare.c: `stepcast compare SCENARIO --instances A,B,...`: the best
 * layout, time and cost of the scenario on each instance type, which one
 * wins on time and which on cost, and a report with charts. */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../plan/plan.h"
#include "cli.h"
#include "cli_args.h"
#include "cli_progress.h"
#include "cli_set.h"
#include "cli_search.h"
#include "../../models/limits.h"
#include "cli_serve.h"

static const struct cli_opt compare_opts[] = {
	{ "instances", 'I', "LIST", "instance types, e.g. p5.48xlarge,p5en.48xlarge (default: every\n"
				    "instance type in the catalogue)", NULL },
	{ "tokens", 't', "N", "token budget, e.g. 15T (default: the scenario's)", NULL },
	{ "nodes", 'N', "N", "compare at N nodes of each (default: the scenario's count;\n"
			     "whole UltraServers, rounded up with a note, for an instance\n"
			     "sold only so, e.g. 72 nodes of p6e-gb200.36xlarge for 64)", NULL },
	{ "deadline", 'd', "D", "compare each at its cheapest node count that meets D", NULL },
	{ "sweep", 'S', "LIST", "node counts for the charts (default: N/8, N/4, N/2, N, 2N, 4N)", NULL },
	{ "confidence", 'C', "P", "decide at percentile P (default 90): a winner that is not\n"
				  "faster (cheaper) with probability P/100 under the\n"
				  "calibrations' bands is tied with the runner-up, and\n"
				  "deadlines are met at P; 50 compares point predictions", NULL },
	{ "pricing", 'p', "P", "on-demand (default) or capacity-block: the cost the charts\n"
			       "and the deadline choice use (both are always reported); an\n"
			       "instance not sold so is planned under the option it has and\n"
			       "left out of that ranking, with a note", NULL },
	{ "format", 'f', "FMT", "text (default), json, csv, md or html", NULL },
	CLI_OPT_GROUP(cli_opts_output),
	{ "serving", 'V', NULL, "SCENARIO is a serving scenario (scenarios/serve-*.json):\n"
				"the cheapest replica layout and count of each instance\n"
				"type at its Poisson rate and p99 SLOs, and which wins\n"
				"(text, json, csv or md)", NULL },
	{ "config-dir", 'c', "DIR", "catalogue directory (default: $STEPCAST_CONFIG_DIR, else the\n"
				    "configs/ of the data directory)", NULL },
	CLI_OPT_GROUP_AT(cli_opts_set, 26),
	CLI_OPT_GROUP_AT(cli_opts_quiet, 26),
	CLI_OPT_GROUP(cli_opts_help),
	CLI_OPT_END
};

static const struct cli_usage compare_usage = {
	"usage: stepcast compare SCENARIO [--instances A,B,...] [--tokens N]\n"
	"                        [--deadline D | --nodes N] [--sweep LIST] [--pricing P]\n"
	"                        [--confidence P]\n"
	"                        [--format FMT] [--output FILE]\n",
	"Train SCENARIO's model on each instance type: the same model, training settings\n"
	"and token budget, the best layout of each (searched), its step time, throughput,\n"
	"time to train, cost on-demand and with capacity blocks, cost per million tokens\n"
	"and bottleneck; then which instance type wins on time and which on cost, and by\n"
	"how much.  Each instance type uses its GPU's default calibration profile (the\n"
	"scenario's when the GPU is the same) and BF16 where its GPU lacks the scenario's\n"
	"precision.  The node sweep gives the scaling and cost-versus-time charts of\n"
	"--format html (one self-contained file, inline SVG, no script).\n",
	compare_opts, NULL, 24
};

int cmd_compare(int argc, char **argv)
{
	struct cli_args a;
	enum cli_format fmt = FMT_TEXT;
	const char *dir, *path, *output = NULL, *list = NULL;
	char names_buf[COMPARE_MAX_INSTANCES * SC_NAME_MAX];
	const char *names[COMPARE_MAX_INSTANCES];
	int n_names = 0;
	struct plan_opts po;
	struct compare_result cr;
	struct rpt_plan_input in;
	struct catalog cat;
	static struct scenario sc;
	struct sc_error err;
	int c, r, code;
	bool serving = false, pricing_given = false;

	plan_opts_default(&po);
	cli_args_init(&a, &compare_usage, argc, argv);
	while ((c = cli_next_option(&a)) > 0) {
		const char *optarg = a.arg; /* getopt's name: the cases read as before */

		if ((r = cli_plan_option("compare", c, optarg, PLAN_MAX_SWEEP - 1, &po, &pricing_given)) != 0) {
			if (r < 0)
				return EXIT_USAGE;
			continue;
		}
		switch (c) {
		case 'I':
			list = optarg;
			break;
		case 'f':
			if (!cli_parse_format("compare", optarg,
					      1u << FMT_TEXT | 1u << FMT_JSON | 1u << FMT_CSV | 1u << FMT_MD |
					      1u << FMT_HTML, &fmt))
				return EXIT_USAGE;
			break;
		case 'O':
			output = optarg;
			break;
		case 'V':
			serving = true;
			break;
		}
	}
	if (c == CLI_STOP || !cli_operand(&a, &path, "missing SCENARIO file") || !cli_operands_end(&a))
		return a.code;
	dir = a.config_dir;
	if (serving) {
		if (fmt == FMT_HTML)
			return cli_usage_error("compare", "--serving writes text, json, csv or md");
		return cli_finish(cli_compare_serving(path, list, fmt, dir, output));
	}
	if (po.deadline_s > 0 && po.nodes > 0)
		return cli_usage_error("compare", "give --deadline or --nodes, not both");
	if (list) {
		size_t len = strlen(list);
		char *p;

		if (len >= sizeof(names_buf))
			return cli_usage_error("compare", "--instances: list too long");
		memcpy(names_buf, list, len + 1);
		for (p = strtok(names_buf, ","); p; p = strtok(NULL, ",")) {
			if (n_names >= COMPARE_MAX_INSTANCES)
				return cli_usage_error("compare", "--instances takes at most %d instance types",
						       COMPARE_MAX_INSTANCES);
			names[n_names++] = p;
		}
		if (n_names == 0)
			return cli_usage_error("compare", "--instances needs at least one instance type");
	}

	if ((code = cli_load_scenario("compare", dir, path, NULL, &sc, &cat)) != EXIT_OK)
		return code;
	if (!list) {
		for (int i = 0; i < cat.n_instances && n_names < COMPARE_MAX_INSTANCES; i++)
			names[n_names++] = cat.instances[i].name;
	}
	if (!cli_plan_tokens("compare", &po, &sc)) {
		catalog_free(&cat);
		return EXIT_USAGE;
	}
	for (int i = 0; i < n_names && po.nodes > 0; i++) {
		const struct instance_spec *inst = catalog_instance(&cat, names[i]);

		if (inst && !cli_check_cluster("compare", "--nodes", po.nodes, inst)) {
			catalog_free(&cat);
			return EXIT_USAGE;
		}
	}
	sc_error_clear(&err);
	cli_progress_begin("compare");
	code = compare_run(&sc, &cat, names, n_names, &po, &cr, &err) != SC_OK;
	cli_progress_end();
	if (code) {
		compare_result_free(&cr);
		catalog_free(&cat);
		return cli_fail(&err);
	}
	catalog_free(&cat);
	in.sc = &sc;
	in.opts = &po;
	in.res = &cr;
	in.compare = true;
	code = cli_write_plan(output, &in, fmt);
	compare_result_free(&cr);
	return code;
}
