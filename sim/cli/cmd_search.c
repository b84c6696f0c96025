/* cmd_search.c: `stepcast search SCENARIO`: enumerate every valid layout of
 * the scenario's model on its cluster, prune by memory, rank, print the best;
 * shard the enumeration over processes (--shard K/N, or a Slurm job array).
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "../../reports/rpt_search.h"
#include "../config/placement_load.h"
#include "../config/scenario_load.h"
#include "../des/des.h"
#include "../search/part.h"
#include "../search/rerank.h"
#include "../search/search.h"
#include "cli.h"
#include "cli_args.h"
#include "cli_progress.h"
#include "cli_set.h"
#include "cli_des.h"
#include "cli_search.h"
#include "../../models/limits.h"

enum {
	OPT_MAX_TP = CLI_KEY_BASE, OPT_MAX_CP, OPT_MAX_PP, OPT_MAX_VPP, OPT_MAX_EP, OPT_MAX_MB,
	OPT_RECOMPUTE, OPT_ZERO, OPT_SCHEDULES, OPT_RERANK, OPT_HEADROOM
};

static const struct cli_opt rerank_budget_opts[] = {
	{ "max-flows", CLI_DES_MAX_FLOWS, "N", "--rerank: refuse a layout's simulation estimated to\n"
					       "need more than N flows (it keeps its analytical time;\n"
					       "default 10000000)", NULL },
	{ "max-memory", CLI_DES_MAX_MEMORY, "SIZE", "--rerank: the same for memory, e.g. 16GiB (default 4GiB)", NULL },
	CLI_OPT_END
};

static const struct cli_opt search_opts[] = {
	{ "objective", 'o', "OBJ", "tokens_per_s (default), usd_per_token or time_to_train", NULL },
	{ "top", 'n', "K", "print the best K layouts (default 10)", NULL },
	{ "format", 'f', "FMT", "text (default), json, jsonl, csv or md", NULL },
	{ "gpus", 'g', "N", "search on N GPUs instead of the scenario's cluster", NULL },
	{ "nodes", 'N', "N", "search on N instances instead of the scenario's count", NULL },
	{ "tokens", 't', "N", "token budget for time and cost to train (e.g. 15T;\n"
			      "default: the scenario's training.tokens_to_train)", NULL },
	{ "pricing", 'p', "P", "on-demand or capacity-block (default: on-demand where the\n"
			       "instance is sold so, else capacity-block)", NULL },
	{ "shard", 's', "K/N", "take every N-th layout from the K-th (0 <= K < N) and\n"
			       "write the part as JSONL; without it a Slurm job array's\n"
			       "SLURM_ARRAY_TASK_ID, SLURM_ARRAY_TASK_MIN,\n"
			       "SLURM_ARRAY_TASK_STEP and SLURM_ARRAY_TASK_COUNT choose\n"
			       "the shard (--shard 0/1 turns that off)", NULL },
	{ "output", 'O', "FILE", "write to FILE (a temporary file renamed when complete);\n"
				 "a shard's default is search.part-K-of-N.jsonl", NULL },
	{ "max-tp", OPT_MAX_TP, "N", "largest TP (default: the NVLink domain)", NULL },
	{ "max-cp", OPT_MAX_CP, "N", "largest CP (default 16)", NULL },
	{ "max-pp", OPT_MAX_PP, "N", "largest PP (default: the layers)", NULL },
	{ "max-vpp", OPT_MAX_VPP, "N", "largest VPP (default: no limit)", NULL },
	{ "max-ep", OPT_MAX_EP, "N", "largest EP (default: the experts)", NULL },
	{ "max-micro-batch", OPT_MAX_MB, "N", "largest micro-batch in sequences (default: no limit)", NULL },
	{ "recompute", OPT_RECOMPUTE, "LIST", "recompute modes to try, e.g. none,selective (default all:\n"
					      "none,selective,full)", NULL },
	{ "zero", OPT_ZERO, "LIST", "ZeRO stages to try, 3 = FSDP (default 0,1,2,3)", NULL },
	{ "schedules", OPT_SCHEDULES, "LIST", "pipeline schedules to try (default 1f1b,interleaved-1f1b,\n"
					      "zb-h1,zb-v,dualpipe; also gpipe): what your framework runs", NULL },
	{ "min-headroom", OPT_HEADROOM, "GiB", "free memory a layout must leave per GPU (default 3.3 % of\n"
					       "the usable HBM: the memory model's largest low error)", NULL },
	{ "confidence", 'C', "P", "mark the rows the decision rule cannot tell from rank 1\n"
				  "at percentile P (default 90): a tie inside the step\n"
				  "bands; the order stays by point prediction", NULL },
	{ "rerank", OPT_RERANK, "K", "re-time the best K layouts with the discrete-event engine\n"
				     "(as 'predict --engine des': sees contention) and re-rank\n"
				     "them among themselves; not with --shard", NULL },
	CLI_OPT_GROUP(rerank_budget_opts),
	{ "verbose", 'v', NULL, "print the layouts searched per second on stderr", NULL },
	CLI_OPT_GROUP(cli_opts_calibration),
	CLI_OPT_GROUP(cli_opts_config_dir),
	CLI_OPT_GROUP(cli_opts_set_instance),
	CLI_OPT_GROUP(cli_opts_placement),
	CLI_OPT_GROUP(cli_opts_quiet),
	CLI_OPT_GROUP(cli_opts_help),
	CLI_OPT_END
};

static const struct cli_usage search_usage = {
	"usage: stepcast search SCENARIO [--objective OBJ] [--top K] [--format FMT]\n"
	"                       [--gpus N | --nodes N] [--tokens N] [--pricing P]\n"
	"                       [--shard K/N] [--output FILE] [--confidence P]\n"
	"                       [--placement FILE] [space options]\n",
	"Enumerate every valid parallel layout of SCENARIO's model on its cluster: TP inside\n"
	"the NVLink domain, CP, PP with VPP where the layers divide, DP, EP and expert TP for\n"
	"MoE, micro-batch sizes that divide the global batch, recompute modes and ZeRO\n"
	"stages / FSDP.  Layouts that do not fit in GPU memory are pruned; the rest are\n"
	"predicted and ranked.  The scenario's layout is ignored except its overlap flags\n"
	"and MoE dispatcher; its micro-batch size and recompute mode are searched.\n",
	search_opts,
	"\n"
	"Merge the parts of a sharded search with 'stepcast merge PARTS...': the result is\n"
	"byte for byte the unsharded search's.  Every layout shown is predicted exactly as\n"
	"'stepcast predict' would predict it with that layout (with --rerank, the best K as\n"
	"'stepcast predict --engine des' would).  Rows that the one decision rule\n"
	"(compare, plan, explain, diff) cannot tell from rank 1 at --confidence are\n"
	"marked as a tie with it; the order stays by the point prediction.  With\n"
	"--placement every layout is ranked on those nodes (the groups each one crosses\n"
	"on them: see 'stepcast placement').\n"
};

static double now_s(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec + t.tv_nsec * 1e-9;
}

/* --rerank K: the library re-times and re-ranks (sim/search/rerank.h);
 * what happened to each layout is said on stderr. */
static int rerank_des(const struct scenario *sc, const struct search_opts *so,
		      const struct des_options *dopt, struct search_result *res, int k)
{
	struct search_rerank_note *notes = calloc((size_t)k + 1, sizeof(*notes));
	struct sc_error err;
	int n = 0;

	sc_error_clear(&err);
	if (!notes || search_rerank_des(sc, so, dopt, res, k, notes, &n, &err) != SC_OK) {
		free(notes);
		fprintf(stderr, "stepcast: error: out of memory\n");
		return EXIT_INTERNAL;
	}
	for (int i = 0; i < n; i++) {
		const struct search_rerank_note *note = &notes[i];
		char what[48];

		if (!note->retimed) {
			fprintf(stderr, "stepcast: search: --rerank: layout %lld keeps its analytical time: %s\n",
				note->index, note->why);
			continue;
		}
		fprintf(stderr, "stepcast: search: --rerank: layout %lld: %.4g s analytical, %.4g s des\n",
			note->index, note->analytic_step_s, note->des_step_s);
		snprintf(what, sizeof(what), "layout %lld", note->index);
		cli_des_fidelity_note(what, &note->estimate, dopt);
	}
	free(notes);
	return EXIT_OK;
}

int cmd_search(int argc, char **argv)
{
	struct cli_args a;
	enum cli_format fmt = FMT_TEXT;
	const char *fmt_arg = NULL;
	bool fmt_given = false, shard_given = false, verbose = false;
	const char *output = NULL;
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
	memset(&dopt, 0, sizeof(dopt));
	cli_args_init(&a, &search_usage, argc, argv);
	while ((c = cli_next_option(&a)) > 0) {
		const char *optarg = a.arg; /* getopt's name: the cases read as before */
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
		case 'C':
			if (!cli_parse_confidence("search", optarg, &so.confidence))
				return EXIT_USAGE;
			break;
		case OPT_RERANK:
			if (!cli_parse_int("search", "--rerank", optarg, 1, 1000, &rerank))
				return EXIT_USAGE;
			break;
		case 'v':
			verbose = true;
			break;
		}
	}
	if (c == CLI_STOP || !cli_operand(&a, &a.scenario_path, "missing SCENARIO file") ||
	    !cli_operands_end(&a))
		return a.code;
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

	if (!cli_setup(&a, &sc))
		return a.code;
	cli_args_free(&a);
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
	/* --placement on the count searched: the file's first nodes */
	sc_error_clear(&err);
	if (a.placement && (gpus || nodes) && placement_use_ec2_file(a.placement, &sc, &err) != SC_OK)
		return cli_fail(&err);
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
		return cli_fail_in(&err, a.scenario_path);
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
	/* the tie marks: only for the rows kept, after (re-)ranking */
	if (search_band_rows(&sc, &res, &err) != SC_OK) {
		search_result_free(&res);
		return cli_fail(&err);
	}
	search_meta_of(&sc, &so, &meta);
	search_mark_ties(&res, meta.objective, meta.confidence);
	code = cli_write_search(output, &meta, &res, fmt);
	search_result_free(&res);
	if (code == EXIT_OK && output && so.shards > 1)
		fprintf(stderr, "stepcast: search: shard %d of %d written to %s\n", so.shard, so.shards,
			output);
	return code;
}
