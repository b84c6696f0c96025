/* cmd_search.c: `stepcast search SCENARIO`: enumerate every valid layout of
 * the scenario's model on its cluster, prune by memory, rank, print the best;
 * shard the enumeration over processes (--shard K/N, or a Slurm job array).
 */
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "../../reports/rpt_search.h"
#include "../config/scenario_load.h"
#include "../des/des.h"
#include "../search/part.h"
#include "../search/search.h"
#include "cli.h"
#include "cli_progress.h"
#include "cli_set.h"
#include "cli_des.h"
#include "cli_search.h"
#include "../../models/limits.h"

static void search_usage(FILE *out)
{
	fprintf(out,
		"usage: stepcast search SCENARIO [--objective OBJ] [--top K] [--format FMT]\n"
		"                       [--gpus N | --nodes N] [--tokens N] [--pricing P]\n"
		"                       [--shard K/N] [--output FILE] [space options]\n"
		"\n"
		"Enumerate every valid parallel layout of SCENARIO's model on its cluster: TP inside\n"
		"the NVLink domain, CP, PP with VPP where the layers divide, DP, EP and expert TP for\n"
		"MoE, micro-batch sizes that divide the global batch, recompute modes and ZeRO\n"
		"stages / FSDP.  Layouts that do not fit in GPU memory are pruned; the rest are\n"
		"predicted and ranked.  The scenario's layout is ignored except its overlap flags\n"
		"and MoE dispatcher; its micro-batch size and recompute mode are searched.\n"
		"\n"
		"options:\n"
		"  -o, --objective OBJ     tokens_per_s (default), usd_per_token or time_to_train\n"
		"  -n, --top K             print the best K layouts (default 10)\n"
		"  -f, --format FMT        text (default), json, jsonl, csv or md\n"
		"  -g, --gpus N            search on N GPUs instead of the scenario's cluster\n"
		"  -N, --nodes N           search on N instances instead of the scenario's count\n"
		"  -t, --tokens N          token budget for time and cost to train (e.g. 15T;\n"
		"                          default: the scenario's training.tokens_to_train)\n"
		"  -p, --pricing P         on-demand or capacity-block (default: on-demand where the\n"
		"                          instance is sold so, else capacity-block)\n"
		"  -s, --shard K/N         take every N-th layout from the K-th (0 <= K < N) and\n"
		"                          write the part as JSONL; without it a Slurm job array's\n"
		"                          SLURM_ARRAY_TASK_ID, SLURM_ARRAY_TASK_MIN,\n"
		"                          SLURM_ARRAY_TASK_STEP and SLURM_ARRAY_TASK_COUNT choose\n"
		"                          the shard (--shard 0/1 turns that off)\n"
		"  -O, --output FILE       write to FILE (a temporary file renamed when complete);\n"
		"                          a shard's default is search.part-K-of-N.jsonl\n"
		"      --max-tp N          largest TP (default: the NVLink domain)\n"
		"      --max-cp N          largest CP (default 16)\n"
		"      --max-pp N          largest PP (default: the layers)\n"
		"      --max-vpp N         largest VPP (default: no limit)\n"
		"      --max-ep N          largest EP (default: the experts)\n"
		"      --max-micro-batch N largest micro-batch in sequences (default: no limit)\n"
		"      --recompute LIST    recompute modes to try, e.g. none,selective (default all:\n"
		"                          none,selective,full)\n"
		"      --zero LIST         ZeRO stages to try, 3 = FSDP (default 0,1,2,3)\n"
		"      --schedules LIST    pipeline schedules to try (default 1f1b,interleaved-1f1b,\n"
		"                          zb-h1,zb-v,dualpipe; also gpipe): what your framework runs\n"
		"      --min-headroom GiB  free memory a layout must leave per GPU (default 3.3 %% of\n"
		"                          the usable HBM: the memory model's largest low error)\n"
		"      --rerank K          re-time the best K layouts with the discrete-event engine\n"
		"                          (as 'predict --engine des': sees contention) and re-rank\n"
		"                          them among themselves; not with --shard\n"
		"      --max-flows N       --rerank: refuse a layout's simulation estimated to\n"
		"                          need more than N flows (it keeps its analytical time;\n"
		"                          default 10000000)\n"
		"      --max-memory SIZE   --rerank: the same for memory, e.g. 16GiB (default 4GiB)\n"
		"  -v, --verbose           print the layouts searched per second on stderr\n"
		"  -k, --calibration NAME|FILE\n"
		"                          use this profile instead of the scenario's: a\n"
		"                          catalogue NAME, or a profile FILE (a value with '/'\n"
		"                          or ending in .json); it must be for the GPU's family\n"
		"  -c, --config-dir DIR    catalogue directory (default: $STEPCAST_CONFIG_DIR,\n"
		"                          else the configs/ of the data directory)\n"
		);
	cli_set_usage(out, "cluster.instance", false);
	cli_progress_usage(out);
	fprintf(out,
		"  -h, --help              show this help\n"
		"\n"
		"Merge the parts of a sharded search with 'stepcast merge PARTS...': the result is\n"
		"byte for byte the unsharded search's.  Every layout shown is predicted exactly as\n"
		"'stepcast predict' would predict it with that layout (with --rerank, the best K as\n"
		"'stepcast predict --engine des' would).\n");
}

static double now_s(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec + t.tv_nsec * 1e-9;
}

enum {
	OPT_MAX_TP = 1000, OPT_MAX_CP, OPT_MAX_PP, OPT_MAX_VPP, OPT_MAX_EP, OPT_MAX_MB,
	OPT_RECOMPUTE, OPT_ZERO, OPT_SCHEDULES, OPT_RERANK, OPT_HEADROOM
};

/* --rerank K: re-time the best k rows of res with the discrete-event engine
 * (one simulation per layout, in parallel children) and re-rank them among
 * themselves; rows below keep their analytical times and order.  A layout
 * the DES does not cover keeps its analytical time (said on stderr).
 * Returns an exit code. */
static int rerank_des(const struct scenario *sc, const struct search_opts *so,
		      const struct des_options *dopt, struct search_result *res, int k)
{
	int n = k < res->n_rows ? k : res->n_rows, kept = res->n_rows;
	struct scenario *scs = calloc((size_t)n + 1, sizeof(*scs));
	const struct scenario **ptr = calloc((size_t)n + 1, sizeof(*ptr));
	struct des_result *dr = calloc((size_t)n + 1, sizeof(*dr));
	enum sc_status *st = calloc((size_t)n + 1, sizeof(*st));
	struct sc_error *errs = calloc((size_t)n + 1, sizeof(*errs));
	double usd_per_h = plan_cluster_usd_per_h(&sc->cluster.instance, sc->cluster.nodes, so->pricing);

	if (!scs || !ptr || !dr || !st || !errs) {
		free(scs);
		free(ptr);
		free(dr);
		free(st);
		free(errs);
		fprintf(stderr, "stepcast: error: out of memory\n");
		return EXIT_INTERNAL;
	}
	for (int i = 0; i < n; i++) {
		search_row_scenario(sc, &res->rows[i], &scs[i]);
		ptr[i] = &scs[i];
	}
	des_predict_many(ptr, n, dopt, 0, dr, st, errs);
	for (int i = 0; i < n; i++) {
		struct search_row *row = &res->rows[i];
		const struct step_result *r = &dr[i].step;
		struct plan_train tr;
		double usd_mtok;

		if (st[i] != SC_OK) {
			fprintf(stderr, "stepcast: search: --rerank: layout %lld keeps its analytical time: %s\n",
				row->index, errs[i].message);
			continue;
		}
		fprintf(stderr, "stepcast: search: --rerank: layout %lld: %.4g s analytical, %.4g s des\n",
			row->index, row->step_time_s, r->step_time_s);
		{
			char what[48];

			snprintf(what, sizeof(what), "layout %lld", row->index);
			cli_des_fidelity_note(what, &dr[i].stats.estimate, dopt);
		}
		usd_mtok = usd_per_h / 3600.0 / r->tokens_per_s * 1e6;
		memset(&tr, 0, sizeof(tr));
		if (so->tokens > 0)
			plan_time_to_train(&scs[i], r, so->tokens, usd_per_h, &tr);
		row->step_time_s = r->step_time_s;
		row->tokens_per_s = r->tokens_per_s;
		row->mfu = r->mfu;
		memcpy(row->part_s, r->part_s, sizeof(row->part_s));
		row->bottleneck = r->bottleneck;
		row->bubble_fraction = r->bubble_fraction;
		row->train = tr;
		row->usd_per_mtoken = usd_mtok;
		row->score = search_score(so->objective, r->tokens_per_s,
					  so->tokens > 0 ? tr.usd_per_mtoken : usd_mtok, tr.time_s);
		des_result_free(&dr[i]);
	}
	res->n_rows = n;
	search_sort(res);
	res->n_rows = kept;
	free(scs);
	free(ptr);
	free(dr);
	free(st);
	free(errs);
	return EXIT_OK;
}

int cmd_search(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "objective", required_argument, NULL, 'o' },
		{ "top", required_argument, NULL, 'n' },
		{ "format", required_argument, NULL, 'f' },
		{ "gpus", required_argument, NULL, 'g' },
		{ "nodes", required_argument, NULL, 'N' },
		{ "tokens", required_argument, NULL, 't' },
		{ "pricing", required_argument, NULL, 'p' },
		{ "shard", required_argument, NULL, 's' },
		{ "output", required_argument, NULL, 'O' },
		{ "max-tp", required_argument, NULL, OPT_MAX_TP },
		{ "max-cp", required_argument, NULL, OPT_MAX_CP },
		{ "max-pp", required_argument, NULL, OPT_MAX_PP },
		{ "max-vpp", required_argument, NULL, OPT_MAX_VPP },
		{ "max-ep", required_argument, NULL, OPT_MAX_EP },
		{ "max-micro-batch", required_argument, NULL, OPT_MAX_MB },
		{ "recompute", required_argument, NULL, OPT_RECOMPUTE },
		{ "zero", required_argument, NULL, OPT_ZERO },
		{ "schedules", required_argument, NULL, OPT_SCHEDULES },
		{ "rerank", required_argument, NULL, OPT_RERANK },
		{ "min-headroom", required_argument, NULL, OPT_HEADROOM },
		CLI_DES_BUDGET_OPTIONS,
		{ "verbose", no_argument, NULL, 'v' },
		{ "calibration", required_argument, NULL, 'k' },
		{ "config-dir", required_argument, NULL, 'c' },
		{ "set", required_argument, NULL, CLI_OPT_SET },
		{ "instance", required_argument, NULL, CLI_OPT_INSTANCE },
		{ "quiet", no_argument, NULL, CLI_OPT_QUIET },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 }
	};
	enum cli_format fmt = FMT_TEXT;
	const char *fmt_arg = NULL;
	bool fmt_given = false, shard_given = false, verbose = false;
	const char *dir = NULL, *path, *calib = NULL, *output = NULL;
	int gpus = 0, nodes = 0, rerank = 0, c, code;
	bool pricing_given = false;
	struct search_opts so;
	struct des_options dopt;
	struct search_meta meta;
	struct search_result res;
	static struct scenario sc;
	struct sc_error err;
	char part_name[64];
	double t0;
	enum sc_status st_progress;

	search_opts_default(&so);
	optind = 1;
	opterr = 0;
	memset(&dopt, 0, sizeof(dopt));
	while ((c = getopt_long(argc, argv, ":o:n:f:g:N:t:p:s:O:vk:c:h", opts, NULL)) != -1) {
		bool ok;

		if (cli_des_budget_option("search", c, optarg, &dopt, &ok)) {
			if (!ok)
				return EXIT_USAGE;
			continue;
		}
		switch (c) {
		case 'o':
			if (!search_objective_parse(optarg, &so.objective))
				return cli_usage_error("search", "unknown objective '%s' (expected tokens_per_s, "
						       "usd_per_token or time_to_train)", optarg);
			break;
		case 'n':
			if (!cli_parse_int("search", "--top", optarg, 1, 100000, &so.top))
				return EXIT_USAGE;
			break;
		case 'f':
			if (!cli_parse_format("search", optarg,
					      1u << FMT_TEXT | 1u << FMT_JSON | 1u << FMT_JSONL |
					      1u << FMT_CSV | 1u << FMT_MD, &fmt))
				return EXIT_USAGE;
			fmt_given = true;
			fmt_arg = optarg;
			break;
		case 'g':
			if (!cli_parse_int("search", "--gpus", optarg, 1, SC_MAX_GPUS, &gpus))
				return EXIT_USAGE;
			break;
		case 'N':
			if (!cli_parse_int("search", "--nodes", optarg, 1, SC_MAX_NODES, &nodes))
				return EXIT_USAGE;
			break;
		case 't':
			if (!cli_parse_tokens("search", optarg, &so.tokens))
				return EXIT_USAGE;
			break;
		case 'p':
			if (!plan_pricing_parse(optarg, &so.pricing))
				return cli_usage_error("search", "unknown pricing '%s' (expected on-demand or "
						       "capacity-block)", optarg);
			pricing_given = true;
			break;
		case 's':
			if (!cli_parse_shard("search", optarg, &so.shard, &so.shards))
				return EXIT_USAGE;
			shard_given = true;
			break;
		case 'O':
			output = optarg;
			break;
		case OPT_MAX_TP:
			if (!cli_parse_int("search", "--max-tp", optarg, 1, 1 << 20, &so.space.max_tp))
				return EXIT_USAGE;
			break;
		case OPT_MAX_CP:
			if (!cli_parse_int("search", "--max-cp", optarg, 1, 1 << 20, &so.space.max_cp))
				return EXIT_USAGE;
			break;
		case OPT_MAX_PP:
			if (!cli_parse_int("search", "--max-pp", optarg, 1, 1 << 20, &so.space.max_pp))
				return EXIT_USAGE;
			break;
		case OPT_MAX_VPP:
			if (!cli_parse_int("search", "--max-vpp", optarg, 1, 1 << 20, &so.space.max_vpp))
				return EXIT_USAGE;
			break;
		case OPT_MAX_EP:
			if (!cli_parse_int("search", "--max-ep", optarg, 1, 1 << 20, &so.space.max_ep))
				return EXIT_USAGE;
			break;
		case OPT_MAX_MB:
			if (!cli_parse_int("search", "--max-micro-batch", optarg, 1, SC_MAX_BATCH_SEQS,
					   &so.space.max_micro_batch))
				return EXIT_USAGE;
			break;
		case OPT_RECOMPUTE:
			if (!cli_parse_recompute_list("search", optarg, &so.space.recompute_mask))
				return EXIT_USAGE;
			break;
		case OPT_ZERO:
			if (!cli_parse_zero_list("search", optarg, &so.space.zero_mask))
				return EXIT_USAGE;
			break;
		case OPT_SCHEDULES:
			if (!cli_parse_schedule_list("search", optarg, &so.space.schedule_mask))
				return EXIT_USAGE;
			break;
		case OPT_HEADROOM: {
			char *end;
			double gib = strtod(optarg, &end);

			if (end == optarg || *end || !(gib >= 0 && gib <= 4096))
				return cli_usage_error("search", "--min-headroom needs GiB from 0 to 4096, got '%s'",
						       optarg);
			so.min_headroom_bytes = gib * 1073741824.0;
			break;
		}
		case OPT_RERANK:
			if (!cli_parse_int("search", "--rerank", optarg, 1, 1000, &rerank))
				return EXIT_USAGE;
			break;
		case 'v':
			verbose = true;
			break;
		case 'k':
			calib = optarg;
			break;
		case 'c':
			dir = optarg;
			break;
		case CLI_OPT_SET:
		case CLI_OPT_INSTANCE:
			if (!cli_set_option("search", c, optarg, "cluster."))
				return EXIT_USAGE;
			break;
		case CLI_OPT_QUIET:
			cli_quiet = true;
			break;
		case 'h':
			search_usage(stdout);
			return cli_finish(EXIT_OK);
		case ':':
			return cli_usage_error("search", "option '%s' needs a value", argv[optind - 1]);
		default:
			return cli_usage_error("search", "unknown option '%s'", argv[optind - 1]);
		}
	}
	if (optind >= argc)
		return cli_usage_error("search", "missing SCENARIO file");
	path = argv[optind++];
	if (optind < argc)
		return cli_usage_error("search", "unexpected argument '%s'", argv[optind]);
	if (gpus && nodes)
		return cli_usage_error("search", "give --gpus or --nodes, not both");
	if (!shard_given && (code = cli_slurm_shard("search", &so.shard, &so.shards)) != EXIT_OK)
		return code;
	if (cli_des_budget_given(&dopt) && rerank == 0)
		return cli_usage_error("search", "--max-flows and --max-memory bound --rerank's simulations");
	if (rerank > 0 && so.shards > 1)
		return cli_usage_error("search", "--rerank re-times a whole search's best layouts, not a shard's");
	if (so.shards > 1) {
		if (fmt_given && fmt != FMT_JSONL)
			return cli_usage_error("search", "a shard writes JSONL for 'stepcast merge' "
					       "(got --format %s)", fmt_arg);
		fmt = FMT_JSONL;
		if (!output) {
			snprintf(part_name, sizeof(part_name), "search.part-%d-of-%d.jsonl",
				 so.shard, so.shards);
			output = part_name;
		}
	}

	if ((code = cli_load_scenario("search", dir, path, calib, &sc, NULL)) != EXIT_OK)
		return code;
	if (gpus) {
		if (gpus % sc.cluster.instance.gpus_per_node != 0)
			return cli_usage_error("search", "--gpus %d is not a multiple of the %d GPUs of a %s",
					       gpus, sc.cluster.instance.gpus_per_node,
					       sc.cluster.instance.name);
		sc.cluster.nodes = gpus / sc.cluster.instance.gpus_per_node;
	}
	if (nodes) {
		if (!cli_check_cluster("search", "--nodes", nodes, &sc.cluster.instance))
			return EXIT_USAGE;
		sc.cluster.nodes = nodes;
	}
	if (!pricing_given)
		so.pricing = purchase_default_pricing(&sc.cluster.instance);
	if (!(so.tokens > 0))
		so.tokens = sc.training.tokens_to_train;

	sc_error_clear(&err);
	if (search_result_init(&res, so.top, &err) != SC_OK)
		return cli_fail(&err);
	t0 = now_s();
	cli_progress_begin("search");
	so.progress = cli_progress_hook();
	st_progress = search_run(&sc, &so, &res, &err);
	cli_progress_end();
	if (st_progress != SC_OK) {
		search_result_free(&res);
		if (!err.file[0])
			snprintf(err.file, sizeof(err.file), "%s", path);
		return cli_fail(&err);
	}
	if (verbose) {
		double dt = now_s() - t0;

		fprintf(stderr, "stepcast: search: %lld layouts (%lld predicted, %lld shapes prepared) "
			"in %.3f s: %.3g layouts/s, %.3g predictions/s\n",
			res.stats.layouts, res.stats.predicted, res.stats.shapes, dt,
			dt > 0 ? res.stats.layouts / dt : 0, dt > 0 ? res.stats.predicted / dt : 0);
	}
	if (rerank > 0 && (code = rerank_des(&sc, &so, &dopt, &res, rerank)) != EXIT_OK) {
		search_result_free(&res);
		return code;
	}
	search_meta_of(&sc, &so, &meta);
	code = cli_write_search(output, &meta, &res, fmt);
	search_result_free(&res);
	if (code == EXIT_OK && output && so.shards > 1)
		fprintf(stderr, "stepcast: search: shard %d of %d written to %s\n", so.shard, so.shards,
			output);
	return code;
}
