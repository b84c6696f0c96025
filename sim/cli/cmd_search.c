/* cmd_search.c: `stepcast search SCENARIO`: enumerate every valid layout of
 * the scenario's model on its cluster, prune by memory, rank, print the best;
 * shard the enumeration over processes (--shard K/N, or a Slurm job array).
 */
#include <errno.h>
#include <limits.h>
#include <stddef.h>
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
#include "../../models/units.h"

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

/* What the command line asks of a search. */
struct search_request {
	enum cli_format fmt;
	const char *fmt_arg; /* --format as given; NULL: not given */
	const char *output;  /* NULL: stdout */
	bool shard_given, pricing_given, verbose;
	int gpus, nodes, rerank;
	struct search_opts so;
	struct des_options dopt;
	char part_name[64]; /* a shard's default output file */
};

/* The --max-* bounds of the layout space: each an int from 1 to max into
 * its member of struct search_space. */
static const struct space_bound {
	int opt;
	const char *name;
	int max;
	size_t member;
} space_bounds[] = {
	{ OPT_MAX_TP, "--max-tp", 1 << 20, offsetof(struct search_space, max_tp) },
	{ OPT_MAX_CP, "--max-cp", 1 << 20, offsetof(struct search_space, max_cp) },
	{ OPT_MAX_PP, "--max-pp", 1 << 20, offsetof(struct search_space, max_pp) },
	{ OPT_MAX_VPP, "--max-vpp", 1 << 20, offsetof(struct search_space, max_vpp) },
	{ OPT_MAX_EP, "--max-ep", 1 << 20, offsetof(struct search_space, max_ep) },
	{ OPT_MAX_MB, "--max-micro-batch", SC_MAX_BATCH_SEQS, offsetof(struct search_space, max_micro_batch) },
};

/* The options that bound the layout space (--max-*, --recompute, --zero,
 * --schedules) into sp: 1 parsed, -1 a bad value, 0 not one of them. */
static int space_option(int c, const char *arg, struct search_space *sp)
{
	bool ok;

	for (size_t i = 0; i < sizeof(space_bounds) / sizeof(space_bounds[0]); i++) {
		const struct space_bound *b = &space_bounds[i];

		if (b->opt == c)
			return cli_parse_int("search", b->name, arg, 1, b->max, (int *)((char *)sp + b->member)) ? 1 : -1;
	}
	switch (c) {
	case OPT_RECOMPUTE:
		ok = cli_parse_recompute_list("search", arg, &sp->recompute_mask);
		break;
	case OPT_ZERO:
		ok = cli_parse_zero_list("search", arg, &sp->zero_mask);
		break;
	case OPT_SCHEDULES:
		ok = cli_parse_schedule_list("search", arg, &sp->schedule_mask);
		break;
	default:
		return 0;
	}
	return ok ? 1 : -1;
}

/* --min-headroom GiB into bytes. */
static bool parse_headroom(const char *arg, double *bytes)
{
	char *end;
	double gib = strtod(arg, &end);

	if (end == arg || *end || !(gib >= 0 && gib <= 4096)) {
		cli_usage_error("search", "--min-headroom needs GiB from 0 to 4096, got '%s'", arg);
		return false;
	}
	*bytes = gib * SC_GiB_BYTES;
	return true;
}

/* One option that is neither a space bound nor a DES budget; false on a
 * bad value (a usage error printed). */
static bool search_option(int c, const char *arg, struct search_request *rq)
{
	struct search_opts *so = &rq->so;

	switch (c) {
	case 'o':
		if (!search_objective_parse(arg, &so->objective)) {
			cli_usage_error("search", "unknown objective '%s' (expected tokens_per_s, "
					"usd_per_token or time_to_train)", arg);
			return false;
		}
		return true;
	case 'n':
		return cli_parse_int("search", "--top", arg, 1, 100000, &so->top);
	case 'f':
		rq->fmt_arg = arg;
		return cli_parse_format("search", arg,
					1u << FMT_TEXT | 1u << FMT_JSON | 1u << FMT_JSONL | 1u << FMT_CSV |
					1u << FMT_MD, &rq->fmt);
	case 'g':
		return cli_parse_int("search", "--gpus", arg, 1, SC_MAX_GPUS, &rq->gpus);
	case 'N':
		return cli_parse_int("search", "--nodes", arg, 1, SC_MAX_NODES, &rq->nodes);
	case 't':
		return cli_parse_tokens("search", arg, &so->tokens);
	case 'p':
		rq->pricing_given = true;
		return cli_parse_pricing("search", arg, &so->pricing);
	case 's':
		rq->shard_given = true;
		return cli_parse_shard("search", arg, &so->shard, &so->shards);
	case 'O':
		rq->output = arg;
		return true;
	case OPT_HEADROOM:
		return parse_headroom(arg, &so->min_headroom_bytes);
	case 'C':
		return cli_parse_confidence("search", arg, &so->confidence);
	case OPT_RERANK:
		return cli_parse_int("search", "--rerank", arg, 1, 1000, &rq->rerank);
	case 'v':
		rq->verbose = true;
		return true;
	}
	return true;
}

/* The rules between options: one of --gpus and --nodes; the Slurm shard
 * when --shard is not given; --rerank and its budgets; a shard writes
 * JSONL, by default to search.part-K-of-N.jsonl. */
static int search_check(struct search_request *rq)
{
	struct search_opts *so = &rq->so;
	int code;

	if (rq->gpus && rq->nodes)
		return cli_usage_error("search", "give --gpus or --nodes, not both");
	if (!rq->shard_given && (code = cli_slurm_shard("search", &so->shard, &so->shards)) != EXIT_OK)
		return code;
	if (cli_des_budget_given(&rq->dopt) && rq->rerank == 0)
		return cli_usage_error("search", "--max-flows and --max-memory bound --rerank's simulations");
	if (rq->rerank > 0 && so->shards > 1)
		return cli_usage_error("search", "--rerank re-times a whole search's best layouts, not a shard's");
	if (so->shards > 1) {
		if (rq->fmt_arg && rq->fmt != FMT_JSONL)
			return cli_usage_error("search", "a shard writes JSONL for 'stepcast merge' "
					       "(got --format %s)", rq->fmt_arg);
		rq->fmt = FMT_JSONL;
		if (!rq->output) {
			snprintf(rq->part_name, sizeof(rq->part_name), "search.part-%d-of-%d.jsonl", so->shard,
				 so->shards);
			rq->output = rq->part_name;
		}
	}
	return EXIT_OK;
}

/* Parse the command line into a and rq; false when the command stops
 * here (help, a usage error) with its exit code in *code. */
static bool search_parse(int argc, char **argv, struct cli_args *a, struct search_request *rq, int *code)
{
	int c, r;
	bool ok;

	memset(rq, 0, sizeof(*rq));
	rq->fmt = FMT_TEXT;
	search_opts_default(&rq->so);
	cli_args_init(a, &search_usage, argc, argv);
	*code = EXIT_USAGE;
	while ((c = cli_next_option(a)) > 0) {
		if (cli_des_budget_option("search", c, a->arg, &rq->dopt, &ok))
			r = ok ? 1 : -1;
		else if ((r = space_option(c, a->arg, &rq->so.space)) == 0)
			r = search_option(c, a->arg, rq) ? 1 : -1;
		if (r < 0)
			return false;
	}
	if (c == CLI_STOP || !cli_operand(a, &a->scenario_path, "missing SCENARIO file") ||
	    !cli_operands_end(a)) {
		*code = a->code;
		return false;
	}
	*code = search_check(rq);
	return *code == EXIT_OK;
}

/* --gpus and --nodes resize the scenario's cluster (on --placement's
 * first nodes when given); the pricing and the token budget default to
 * the instance's and the scenario's. */
static int search_cluster(struct search_request *rq, const char *placement, struct scenario *sc)
{
	const struct instance_spec *inst = &sc->cluster.instance;
	struct sc_error err;

	if (rq->gpus) {
		if (rq->gpus % inst->gpus_per_node != 0)
			return cli_usage_error("search", "--gpus %d is not a multiple of the %d GPUs of a %s",
					       rq->gpus, inst->gpus_per_node, inst->name);
		sc->cluster.nodes = rq->gpus / inst->gpus_per_node;
	}
	if (rq->nodes) {
		if (!cli_check_cluster("search", "--nodes", rq->nodes, inst))
			return EXIT_USAGE;
		sc->cluster.nodes = rq->nodes;
	}
	sc_error_clear(&err);
	if (placement && (rq->gpus || rq->nodes) && placement_use_ec2_file(placement, sc, &err) != SC_OK)
		return cli_fail(&err);
	if (!rq->pricing_given)
		rq->so.pricing = purchase_default_pricing(inst);
	if (!(rq->so.tokens > 0))
		rq->so.tokens = sc->training.tokens_to_train;
	return EXIT_OK;
}

/* Run the search, with the progress line; --verbose says its speed. */
static int search_layouts(const char *path, struct search_request *rq, const struct scenario *sc,
			  struct search_result *res)
{
	struct sc_error err;
	enum sc_status st;
	double t0, dt;

	sc_error_clear(&err);
	if (search_result_init(res, rq->so.top, &err) != SC_OK)
		return cli_fail(&err);
	t0 = now_s();
	cli_progress_begin("search");
	rq->so.progress = cli_progress_hook();
	st = search_run(sc, &rq->so, res, &err);
	cli_progress_end();
	if (st != SC_OK)
		return cli_fail_in(&err, path);
	if (rq->verbose) {
		dt = now_s() - t0;
		fprintf(stderr, "stepcast: search: %lld layouts (%lld predicted, %lld shapes prepared) "
			"in %.3f s: %.3g layouts/s, %.3g predictions/s\n",
			res->stats.layouts, res->stats.predicted, res->stats.shapes, dt,
			dt > 0 ? res->stats.layouts / dt : 0, dt > 0 ? res->stats.predicted / dt : 0);
	}
	return EXIT_OK;
}

/* Re-rank (--rerank), mark the ties of the rows kept, write. */
static int search_report(struct search_request *rq, const struct scenario *sc, struct search_result *res)
{
	struct search_meta meta;
	struct sc_error err;
	int code;

	if (rq->rerank > 0 && (code = rerank_des(sc, &rq->so, &rq->dopt, res, rq->rerank)) != EXIT_OK)
		return code;
	/* the tie marks: only for the rows kept, after (re-)ranking */
	sc_error_clear(&err);
	if (search_band_rows(sc, res, &err) != SC_OK)
		return cli_fail(&err);
	search_meta_of(sc, &rq->so, &meta);
	search_mark_ties(res, meta.objective, meta.confidence);
	code = cli_write_search(rq->output, &meta, res, rq->fmt);
	if (code == EXIT_OK && rq->output && rq->so.shards > 1)
		fprintf(stderr, "stepcast: search: shard %d of %d written to %s\n", rq->so.shard,
			rq->so.shards, rq->output);
	return code;
}

int cmd_search(int argc, char **argv)
{
	struct cli_args a;
	struct search_request rq;
	struct search_result res;
	static struct scenario sc;
	int code;

	if (!search_parse(argc, argv, &a, &rq, &code))
		return code;
	if (!cli_setup(&a, &sc))
		return a.code;
	cli_args_free(&a);
	if ((code = search_cluster(&rq, a.placement, &sc)) != EXIT_OK)
		return code;
	if ((code = search_layouts(a.scenario_path, &rq, &sc, &res)) == EXIT_OK)
		code = search_report(&rq, &sc, &res);
	search_result_free(&res);
	return code;
}
