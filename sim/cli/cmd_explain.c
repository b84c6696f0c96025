/* cmd_explain.c: `stepcast explain SCENARIO`: the bottleneck's why and the
 * neighbouring settings ranked by predicted step time (sim/search/explain.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../reports/rpt_explain.h"
#include "../search/explain.h"
#include "cli.h"
#include "cli_args.h"
#include "cli_search.h"

static const struct cli_opt explain_opts[] = {
	{ "top", 'n', "N", "show the N fastest options that fit (default 8)", NULL },
	{ "confidence", 'C', "P", "decide at percentile P (default 90): an option not\n"
				  "faster (slower) with probability P/100 under the step\n"
				  "bands is a tie; 50 compares point predictions", NULL },
	{ "format", 'f', "FMT", "text (default) or json", NULL },
	{ "calibration", 'k', "NAME|FILE", "use this profile instead of the scenario's", NULL },
	CLI_OPT_GROUP(cli_opts_config_dir),
	CLI_OPT_GROUP(cli_opts_set_cluster),
	CLI_OPT_GROUP(cli_opts_help),
	CLI_OPT_END
};

static const struct cli_usage explain_usage = {
	"usage: stepcast explain SCENARIO [--top N] [--confidence P] [--format text|json]\n"
	"                        [--calibration NAME|FILE] [--config-dir DIR]\n"
	"                        [--set PATH=VALUE]... [--instance NAME] [--nodes N]\n",
	"Why the step takes what it takes: the bottleneck, the share of the step its\n"
	"resource is busy and on the critical path, MFU and HFU, the parts of the step\n"
	"and the collectives that load the network.  What to change: every neighbouring\n"
	"setting the layout rules accept (TP, PP, VPP, CP, EP halved or doubled with DP\n"
	"following; each other ZeRO stage, recompute mode and pipeline schedule; the\n"
	"micro-batch halved or doubled; TP/EP overlap, sequence parallelism, the MoE\n"
	"dispatcher toggled) re-predicted and ranked by step time, each with the --set\n"
	"overrides that reproduce it (stepcast diff SCENARIO --set ... shows it whole).\n"
	"Each option is faster, slower or a tie: a difference inside the step band (the\n"
	"regime band predict shows) at the confidence is a tie, not a ranking.\n",
	explain_opts, NULL
};

int cmd_explain(int argc, char **argv)
{
	struct cli_args a;
	static struct scenario sc;
	static struct explain_result x;
	struct sc_error err;
	enum cli_format fmt = FMT_TEXT;
	int c, top = 8;
	double confidence = MODEL_DECISION_CONFIDENCE;

	cli_args_init(&a, &explain_usage, argc, argv);
	while ((c = cli_next_option(&a)) > 0) {
		switch (c) {
		case 'n':
			if (!cli_parse_int("explain", "--top", a.arg, 1, EXPLAIN_MAX_OPTIONS, &top))
				return EXIT_USAGE;
			break;
		case 'C':
			if (!cli_parse_confidence("explain", a.arg, &confidence))
				return EXIT_USAGE;
			break;
		case 'f':
			if (!cli_parse_format("explain", a.arg, 1u << FMT_TEXT | 1u << FMT_JSON, &fmt))
				return EXIT_USAGE;
			break;
		}
	}
	if (c == CLI_STOP || !cli_operand(&a, &a.scenario_path, "missing SCENARIO file") ||
	    !cli_operands_end(&a) || !cli_setup(&a, &sc))
		return a.code;
	cli_args_free(&a);
	sc_error_clear(&err);
	if (explain_run(&sc, confidence, &x, &err) != SC_OK)
		return cli_fail_in(&err, a.scenario_path);
	if (fmt == FMT_JSON)
		return cli_finish(cli_print_json(rpt_explain_json(&sc, &x, top)));
	rpt_explain_text(stdout, &sc, &x, top);
	return cli_finish(EXIT_OK);
}
