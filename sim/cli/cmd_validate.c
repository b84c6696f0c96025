/* cmd_validate.c: `stepcast validate [FILE]`: predict published training
 * runs and report the error per case and in summary. */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../reports/rpt_validate.h"
#include "../validate/validate.h"
#include "cli.h"

static void validate_usage(FILE *out)
{
	fprintf(out,
		"usage: stepcast validate [FILE] [--format text|json|csv|md] [--max-mape PCT]\n"
		"                         [--summary] [--calibration NAME] [--systems FILE]\n"
		"                         [--config-dir DIR]\n"
		"\n"
		"Predict every case of FILE (default: the public training runs shipped in\n"
		"tests/validation/data/training-cases.json) and compare with the measured step\n"
		"time. Prints each case's error, the cases that cannot be expressed with the\n"
		"reason, and MAPE, median, 90th percentile and worst error overall, per source\n"
		"group and per GPU type.\n"
		"\n"
		"options:\n"
		"  -f, --format FMT        text (default), json, csv or md\n"
		"  -m, --max-mape PCT      exit 1 when the overall MAPE is above PCT percent\n"
		"  -s, --summary           print only the summary (and unexpressed cases)\n"
		"  -k, --calibration NAME  use this profile for every case (default: each GPU's)\n"
		"  -y, --systems FILE      scale-out network per GPU type (default: systems.json\n"
		"                          next to the default cases file)\n"
		"  -c, --config-dir DIR    catalogue directory (default: $STEPCAST_CONFIG_DIR,\n"
		"                          else the configs/ of the source tree)\n"
		"  -h, --help              show this help\n");
}

int cmd_validate(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "format", required_argument, NULL, 'f' },
		{ "max-mape", required_argument, NULL, 'm' },
		{ "summary", no_argument, NULL, 's' },
		{ "calibration", required_argument, NULL, 'k' },
		{ "systems", required_argument, NULL, 'y' },
		{ "config-dir", required_argument, NULL, 'c' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 }
	};
	enum cli_format fmt = FMT_TEXT;
	const char *dir = NULL, *path, *calib = NULL, *systems = NULL;
	double max_mape = -1;
	bool summary_only = false;
	struct catalog cat;
	struct val_set set;
	struct val_stats all;
	struct sc_error err;
	const struct calibration *cal = NULL;
	int c, code;
	char *end;

	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":f:m:sk:y:c:h", opts, NULL)) != -1) {
		switch (c) {
		case 'f':
			if (!cli_parse_format("validate", optarg, 1u << FMT_TEXT | 1u << FMT_JSON |
					      1u << FMT_CSV | 1u << FMT_MD, &fmt))
				return EXIT_USAGE;
			break;
		case 'm':
			max_mape = strtod(optarg, &end);
			if (end == optarg || *end || !(max_mape >= 0))
				return cli_usage_error("validate", "--max-mape needs a percentage >= 0, got '%s'", optarg);
			break;
		case 's':
			summary_only = true;
			break;
		case 'k':
			calib = optarg;
			break;
		case 'y':
			systems = optarg;
			break;
		case 'c':
			dir = optarg;
			break;
		case 'h':
			validate_usage(stdout);
			return cli_finish(EXIT_OK);
		case ':':
			return cli_usage_error("validate", "option '%s' needs a value", argv[optind - 1]);
		default:
			return cli_usage_error("validate", "unknown option '%s'", argv[optind - 1]);
		}
	}
	path = optind < argc ? argv[optind++] : val_default_cases_path();
	if (optind < argc)
		return cli_usage_error("validate", "unexpected argument '%s'", argv[optind]);

	if ((code = cli_load_catalog(dir, &cat)) != EXIT_OK)
		return code;
	sc_error_clear(&err);
	if (calib && !(cal = catalog_calibration(&cat, calib))) {
		catalog_unknown(&cat, "calibration", calib, NULL, NULL, &err);
		catalog_free(&cat);
		return cli_fail(&err);
	}
	if (val_load(path, systems ? systems : val_default_systems_path(), &cat, &set, &err) != SC_OK ||
	    val_run(&set, &cat, cal, &err) != SC_OK) {
		catalog_free(&cat);
		return cli_fail(&err);
	}
	catalog_free(&cat);
	if (!rpt_validate(stdout, &set, (enum rpt_validate_format)fmt, summary_only)) {
		val_free(&set);
		fprintf(stderr, "stepcast: error: out of memory\n");
		return EXIT_INTERNAL;
	}
	val_stats(&set, NULL, NULL, &all);
	val_free(&set);
	code = EXIT_OK;
	if (max_mape >= 0 && 100 * all.mape > max_mape) {
		fprintf(stderr, "stepcast: validate: MAPE %.1f %% is above --max-mape %.1f %%\n",
			100 * all.mape, max_mape);
		code = EXIT_CHECK_FAILED;
	}
	return cli_finish(code);
}
