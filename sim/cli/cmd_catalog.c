/* cmd_catalog.c: `stepcast catalog [KIND] [--format text|json]`. */
#include <stdio.h>
#include <string.h>

#include "../../reports/rpt_catalog.h"
#include "cli.h"
#include "cli_args.h"

static const struct cli_opt catalog_opts[] = {
	{ "format", 'f', "FMT", "text (default) or json", NULL },
	CLI_OPT_GROUP(cli_opts_config_dir),
	CLI_OPT_GROUP(cli_opts_help),
	CLI_OPT_END
};

static const struct cli_usage catalog_usage = {
	"usage: stepcast catalog [KIND] [--format text|json] [--config-dir DIR]\n",
	"List the catalogue. KIND is one of: gpus, instances, fabrics, storage,\n"
	"models, calibrations, failures (default: all of them).\n",
	catalog_opts, NULL, 24
};

int cmd_catalog(int argc, char **argv)
{
	struct cli_args a;
	enum cli_format fmt = FMT_TEXT;
	const char *kind;
	int c;

	cli_args_init(&a, &catalog_usage, argc, argv);
	while ((c = cli_next_option(&a)) > 0)
		if (c == 'f' && !cli_parse_format("catalog", a.arg, 1u << FMT_TEXT | 1u << FMT_JSON, &fmt))
			return EXIT_USAGE;
	if (c == CLI_STOP || !cli_operand(&a, &kind, NULL) || !cli_operands_end(&a))
		return a.code;
	if (kind && !rpt_catalog_kind_valid(kind))
		return cli_usage_error("catalog", "unknown kind '%s' (expected gpus, instances, "
				       "fabrics, storage, models, calibrations or failures)", kind);
	if (!cli_setup(&a, NULL))
		return a.code;
	if (fmt == FMT_JSON) {
		if (!rpt_catalog_json(stdout, &a.cat, kind)) {
			cli_args_free(&a);
			fprintf(stderr, "stepcast: error: out of memory\n");
			return EXIT_INTERNAL;
		}
	} else {
		for (int i = 0; rpt_catalog_kinds[i]; i++) {
			if (kind && strcmp(kind, rpt_catalog_kinds[i]) != 0)
				continue;
			if (!kind)
				printf("%s%s:\n", i ? "\n" : "", rpt_catalog_kinds[i]);
			rpt_catalog_text(stdout, &a.cat, rpt_catalog_kinds[i]);
		}
	}
	cli_args_free(&a);
	return cli_finish(EXIT_OK);
}
