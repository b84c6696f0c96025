/* cmd_merge.c: `stepcast merge PARTS...`: join the JSONL parts of a sharded
 * search into exactly the result of the unsharded search. */
#include <stdio.h>

#include "../search/part.h"
#include "cli.h"
#include "cli_args.h"
#include "cli_search.h"

static const struct cli_opt merge_opts[] = {
	{ "format", 'f', "FMT", "text (default), json, jsonl, csv or md", NULL },
	CLI_OPT_GROUP(cli_opts_output),
	CLI_OPT_GROUP(cli_opts_help),
	CLI_OPT_END
};

static const struct cli_usage merge_usage = {
	"usage: stepcast merge PARTS... [--format FMT] [--output FILE]\n",
	"Join the JSONL parts that 'stepcast search --shard K/N' (or a Slurm job array)\n"
	"wrote: all N shards of one search, each once.  The rows are re-ranked and the\n"
	"counts summed, so the result is byte for byte what the unsharded search prints\n"
	"in the same format.\n",
	merge_opts, NULL, 21
};

int cmd_merge(int argc, char **argv)
{
	struct cli_args a;
	enum cli_format fmt = FMT_TEXT;
	const char *output = NULL;
	struct search_meta meta;
	struct search_result res;
	struct sc_error err;
	char **parts;
	int c, n, code;

	cli_args_init(&a, &merge_usage, argc, argv);
	while ((c = cli_next_option(&a)) > 0) {
		if (c == 'O')
			output = a.arg;
		else if (c == 'f' && !cli_parse_format("merge", a.arg,
						       1u << FMT_TEXT | 1u << FMT_JSON | 1u << FMT_JSONL |
						       1u << FMT_CSV | 1u << FMT_MD, &fmt))
			return EXIT_USAGE;
	}
	if (c == CLI_STOP)
		return a.code;
	parts = cli_operands_rest(&a, &n);
	if (n == 0)
		return cli_usage_error("merge", "missing PARTS (the JSONL files of a sharded search)");
	sc_error_clear(&err);
	if (search_merge((const char *const *)parts, n, &meta, &res, &err) != SC_OK) {
		search_result_free(&res);
		return cli_fail(&err);
	}
	code = cli_write_search(output, &meta, &res, fmt);
	search_result_free(&res);
	return code;
}
