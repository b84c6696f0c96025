/* cmd_merge.c: `stepcast merge PARTS...`: join the JSONL parts of a sharded
 * search into exactly the result of the unsharded search. */
#include <getopt.h>
#include <stdio.h>

#include "../search/part.h"
#include "cli.h"
#include "cli_search.h"

static void merge_usage(FILE *out)
{
	fprintf(out,
		"usage: stepcast merge PARTS... [--format FMT] [--output FILE]\n"
		"\n"
		"Join the JSONL parts that 'stepcast search --shard K/N' (or a Slurm job array)\n"
		"wrote: all N shards of one search, each once.  The rows are re-ranked and the\n"
		"counts summed, so the result is byte for byte what the unsharded search prints\n"
		"in the same format.\n"
		"\n"
		"options:\n"
		"  -f, --format FMT   text (default), json, jsonl, csv or md\n"
		"  -O, --output FILE  write to FILE (a temporary file renamed when complete)\n"
		"  -h, --help         show this help\n");
}

int cmd_merge(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "format", required_argument, NULL, 'f' },
		{ "output", required_argument, NULL, 'O' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 }
	};
	enum cli_format fmt = FMT_TEXT;
	const char *output = NULL;
	struct search_meta meta;
	struct search_result res;
	struct sc_error err;
	int c, code;

	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":f:O:h", opts, NULL)) != -1) {
		switch (c) {
		case 'f':
			if (!cli_parse_format("merge", optarg,
					      1u << FMT_TEXT | 1u << FMT_JSON | 1u << FMT_JSONL |
					      1u << FMT_CSV | 1u << FMT_MD, &fmt))
				return EXIT_USAGE;
			break;
		case 'O':
			output = optarg;
			break;
		case 'h':
			merge_usage(stdout);
			return cli_finish(EXIT_OK);
		case ':':
			return cli_usage_error("merge", "option '%s' needs a value", argv[optind - 1]);
		default:
			return cli_usage_error("merge", "unknown option '%s'", argv[optind - 1]);
		}
	}
	if (optind >= argc)
		return cli_usage_error("merge", "missing PARTS (the JSONL files of a sharded search)");
	sc_error_clear(&err);
	if (search_merge((const char *const *)argv + optind, argc - optind, &meta, &res, &err) != SC_OK) {
		search_result_free(&res);
		return cli_fail(&err);
	}
	code = cli_write_search(output, &meta, &res, fmt);
	search_result_free(&res);
	return code;
}
