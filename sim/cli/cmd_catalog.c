/* cmd_catalog.c: `stepcast catalog [KIND] [--format text|json]`. */
#include <getopt.h>
#include <stdio.h>
#include <string.h>

#include "../../reports/rpt_catalog.h"
#include "cli.h"

static void catalog_usage(FILE *out)
{
	fprintf(out,
		"usage: stepcast catalog [KIND] [--format text|json] [--config-dir DIR]\n"
		"\n"
		"List the catalogue. KIND is one of: gpus, instances, fabrics, storage,\n"
		"models, calibrations, failures (default: all of them).\n"
		"\n"
		"options:\n"
		"  -f, --format FMT      text (default) or json\n"
		"  -c, --config-dir DIR  catalogue directory (default: $STEPCAST_CONFIG_DIR,\n"
		"                        else the configs/ of the data directory)\n"
		"  -h, --help            show this help\n");
}

int cmd_catalog(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "format", required_argument, NULL, 'f' },
		{ "config-dir", required_argument, NULL, 'c' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 }
	};
	enum cli_format fmt = FMT_TEXT;
	const char *dir = NULL, *kind = NULL;
	struct catalog cat;
	int c, code;

	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":f:c:h", opts, NULL)) != -1) {
		switch (c) {
		case 'f':
			if (!cli_parse_format("catalog", optarg, 1u << FMT_TEXT | 1u << FMT_JSON, &fmt))
				return EXIT_USAGE;
			break;
		case 'c':
			dir = optarg;
			break;
		case 'h':
			catalog_usage(stdout);
			return cli_finish(EXIT_OK);
		case ':':
			return cli_usage_error("catalog", "option '%s' needs a value", argv[optind - 1]);
		default:
			return cli_usage_error("catalog", "unknown option '%s'", argv[optind - 1]);
		}
	}
	if (optind < argc)
		kind = argv[optind++];
	if (optind < argc)
		return cli_usage_error("catalog", "unexpected argument '%s'", argv[optind]);
	if (kind && !rpt_catalog_kind_valid(kind))
		return cli_usage_error("catalog", "unknown kind '%s' (expected gpus, instances, "
				       "fabrics, storage, models, calibrations or failures)", kind);
	if ((code = cli_load_catalog(dir, &cat)) != EXIT_OK)
		return code;
	if (fmt == FMT_JSON) {
		if (!rpt_catalog_json(stdout, &cat, kind)) {
			catalog_free(&cat);
			fprintf(stderr, "stepcast: error: out of memory\n");
			return EXIT_INTERNAL;
		}
	} else {
		for (int i = 0; rpt_catalog_kinds[i]; i++) {
			if (kind && strcmp(kind, rpt_catalog_kinds[i]) != 0)
				continue;
			if (!kind)
				printf("%s%s:\n", i ? "\n" : "", rpt_catalog_kinds[i]);
			rpt_catalog_text(stdout, &cat, rpt_catalog_kinds[i]);
		}
	}
	catalog_free(&cat);
	return cli_finish(EXIT_OK);
}
