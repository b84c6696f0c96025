/* cmd_explain.c: `stepcast explain SCENARIO`: the bottleneck's why and the
 * neighbouring settings ranked by predicted step time (sim/search/explain.h). */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../reports/rpt_explain.h"
#include "../search/explain.h"
#include "cli.h"
#include "cli_search.h"
#include "cli_set.h"

static void explain_usage(FILE *out)
{
	fprintf(out,
		"usage: stepcast explain SCENARIO [--top N] [--confidence P] [--format text|json]\n"
		"                        [--calibration NAME|FILE] [--config-dir DIR]\n"
		"                        [--set PATH=VALUE]... [--instance NAME] [--nodes N]\n"
		"\n"
		"Why the step takes what it takes: the bottleneck, the share of the step its\n"
		"resource is busy and on the critical path, MFU and HFU, the parts of the step\n"
		"and the collectives that load the network.  What to change: every neighbouring\n"
		"setting the layout rules accept (TP, PP, VPP, CP, EP halved or doubled with DP\n"
		"following; each other ZeRO stage, recompute mode and pipeline schedule; the\n"
		"micro-batch halved or doubled; TP/EP overlap, sequence parallelism, the MoE\n"
		"dispatcher toggled) re-predicted and ranked by step time, each with the --set\n"
		"overrides that reproduce it (stepcast diff SCENARIO --set ... shows it whole).\n"
		"Each option is faster, slower or a tie: a difference inside the step band (the\n"
		"regime band predict shows) at the confidence is a tie, not a ranking.\n"
		"\n"
		"options:\n"
		"  -n, --top N             show the N fastest options that fit (default 8)\n"
		"  -C, --confidence P      decide at percentile P (default 90): an option not\n"
		"                          faster (slower) with probability P/100 under the step\n"
		"                          bands is a tie; 50 compares point predictions\n"
		"  -f, --format FMT        text (default) or json\n"
		"  -k, --calibration NAME|FILE\n"
		"                          use this profile instead of the scenario's\n"
		"  -c, --config-dir DIR    catalogue directory (default: $STEPCAST_CONFIG_DIR,\n"
		"                          else the configs/ of the source tree)\n"
		);
	cli_set_usage(out, "cluster.instance", true);
	fprintf(out,
		"  -h, --help              show this help\n");
}

int cmd_explain(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "top", required_argument, NULL, 'n' },
		{ "confidence", required_argument, NULL, 'C' },
		{ "format", required_argument, NULL, 'f' },
		{ "calibration", required_argument, NULL, 'k' },
		{ "config-dir", required_argument, NULL, 'c' },
		{ "set", required_argument, NULL, CLI_OPT_SET },
		{ "instance", required_argument, NULL, CLI_OPT_INSTANCE },
		{ "nodes", required_argument, NULL, CLI_OPT_NODES },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 }
	};
	enum cli_format fmt = FMT_TEXT;
	const char *dir = NULL, *calib = NULL, *path;
	static struct scenario sc;
	static struct explain_result x;
	struct sc_error err;
	int c, code, top = 8;
	double confidence = MODEL_DECISION_CONFIDENCE;

	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":n:C:f:k:c:h", opts, NULL)) != -1) {
		switch (c) {
		case 'n':
			if (!cli_parse_int("explain", "--top", optarg, 1, EXPLAIN_MAX_OPTIONS, &top))
				return EXIT_USAGE;
			break;
		case 'C':
			if (!cli_parse_confidence("explain", optarg, &confidence))
				return EXIT_USAGE;
			break;
		case 'f':
			if (!cli_parse_format("explain", optarg, 1u << FMT_TEXT | 1u << FMT_JSON, &fmt))
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
			if (!cli_set_option("explain", c, optarg, "cluster."))
				return EXIT_USAGE;
			break;
		case 'h':
			explain_usage(stdout);
			return cli_finish(EXIT_OK);
		case ':':
			return cli_usage_error("explain", "option '%s' needs a value", argv[optind - 1]);
		default:
			return cli_usage_error("explain", "unknown option '%s'", argv[optind - 1]);
		}
	}
	if (optind >= argc)
		return cli_usage_error("explain", "missing SCENARIO file");
	path = argv[optind++];
	if (optind < argc)
		return cli_usage_error("explain", "unexpected argument '%s'", argv[optind]);
	if ((code = cli_load_scenario("explain", dir, path, calib, &sc, NULL)) != EXIT_OK)
		return code;
	sc_error_clear(&err);
	if (explain_run(&sc, confidence, &x, &err) != SC_OK) {
		if (!err.file[0])
			snprintf(err.file, sizeof(err.file), "%s", path);
		return cli_fail(&err);
	}
	if (fmt == FMT_JSON) {
		cJSON *j = rpt_explain_json(&sc, &x, top);
		char *text = j ? cJSON_Print(j) : NULL;

		cJSON_Delete(j);
		if (!text) {
			fprintf(stderr, "stepcast: error: out of memory\n");
			return EXIT_INTERNAL;
		}
		printf("%s\n", text);
		free(text);
	} else {
		rpt_explain_text(stdout, &sc, &x, top);
	}
	return cli_finish(EXIT_OK);
}
