/* cmd_predict.c: `stepcast predict SCENARIO`: one training step of a
 * scenario with the analytical engine. */
#include <getopt.h>
#include <stdio.h>
#include <string.h>

#include "../../reports/rpt_step.h"
#include "../analytic/step.h"
#include "../config/scenario_load.h"
#include "cli.h"

static void predict_usage(FILE *out)
{
	fprintf(out,
		"usage: stepcast predict SCENARIO [--format text|json|csv] [--calibration NAME]\n"
		"                        [--config-dir DIR]\n"
		"\n"
		"Predict one training step of SCENARIO (a JSON file, see scenarios/): step time,\n"
		"throughput, MFU, a breakdown that sums to the step time, memory per GPU with an\n"
		"out-of-memory verdict, the bottleneck and the collectives with their algorithms.\n"
		"\n"
		"options:\n"
		"  -f, --format FMT        text (default), json or csv\n"
		"  -k, --calibration NAME  use this calibration profile instead of the scenario's\n"
		"  -c, --config-dir DIR    catalogue directory (default: $STEPCAST_CONFIG_DIR,\n"
		"                          else the configs/ of the source tree)\n"
		"  -h, --help              show this help\n");
}

int cmd_predict(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "format", required_argument, NULL, 'f' },
		{ "calibration", required_argument, NULL, 'k' },
		{ "config-dir", required_argument, NULL, 'c' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 }
	};
	enum cli_format fmt = FMT_TEXT;
	const char *dir = NULL, *path, *calib = NULL;
	struct catalog cat;
	static struct scenario sc;
	struct step_result r;
	struct sc_error err;
	int c, code;

	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":f:k:c:h", opts, NULL)) != -1) {
		switch (c) {
		case 'f':
			if (!cli_parse_format("predict", optarg,
					      1u << FMT_TEXT | 1u << FMT_JSON | 1u << FMT_CSV, &fmt))
				return EXIT_USAGE;
			break;
		case 'k':
			calib = optarg;
			break;
		case 'c':
			dir = optarg;
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

	if ((code = cli_load_catalog(dir, &cat)) != EXIT_OK)
		return code;
	sc_error_clear(&err);
	if (scenario_load(path, &cat, &sc, &err) != SC_OK) {
		catalog_free(&cat);
		return cli_fail(&err);
	}
	if (calib) {
		const struct calibration *cal = catalog_calibration(&cat, calib);
		if (!cal) {
			catalog_unknown(&cat, "calibration", calib, "--calibration", NULL, &err);
			catalog_free(&cat);
			return cli_fail(&err);
		}
		sc.calibration = *cal;
	}
	catalog_free(&cat);
	if (sim_step_predict(&sc, &r, &err) != SC_OK) {
		if (!err.file[0])
			snprintf(err.file, sizeof(err.file), "%s", path);
		return cli_fail(&err);
	}
	switch (fmt) {
	case FMT_JSON:
		if (!rpt_step_json(stdout, &sc, &r)) {
			fprintf(stderr, "stepcast: error: out of memory\n");
			return EXIT_INTERNAL;
		}
		break;
	case FMT_CSV:
		rpt_step_csv(stdout, &sc, &r);
		break;
	default:
		rpt_step_text(stdout, &sc, &r);
		break;
	}
	return cli_finish(EXIT_OK);
}
