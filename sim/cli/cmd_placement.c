/* cmd_placement.c: `stepcast placement SCENARIO`: what where the nodes sit
 * costs a job (packed, random, spread, the scenario's own or a topology
 * file's placement; analytic and optionally the DES side by side), and
 * with --free, which of a cluster's free nodes a scheduler should give it.
 * The work is sim/placement/placement_eval.h's; this file parses options
 * and prints. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../reports/rpt_placement.h"
#include "../config/placement_load.h"
#include "cli.h"
#include "cli_args.h"
#include "cli_progress.h"
#include "cli_set.h"

enum {
	OPT_PLACEMENT = CLI_KEY_BASE, OPT_PLACEMENT_FORMAT, OPT_FREE_FORMAT, OPT_BLOCKS, OPT_SEED, OPT_ENGINE,
	OPT_FREE
};

static const struct cli_opt placement_opts[] = {
	{ "placement", OPT_PLACEMENT, "FILE", "also evaluate this topology file's placement (the\n"
					      "first nodes of the file, in its order)", NULL },
	{ "placement-format", OPT_PLACEMENT_FORMAT, "FMT", "\nformat of --placement and --free files:\n"
							   "ec2-instance-topology (default: the JSON of `aws ec2\n"
							   "describe-instance-topology`), slurm-topology (a\n"
							   "topology.conf, tree or block plugin) or k8s-nodes\n"
							   "(`kubectl get nodes -o json`)", NULL },
	{ "free-format", OPT_FREE_FORMAT, "FMT", "format of --free (default: --placement-format's)", NULL },
	{ "blocks", OPT_BLOCKS, "N", "leaves the random and spread placements use (default:\n"
				     "random twice the leaves the job needs, spread as many)", NULL },
	{ "seed", OPT_SEED, "S", "seed of the random placement (default 1)", NULL },
	{ "engine", OPT_ENGINE, "ENGINE", "analytic (default) or des (both engines side by side)", NULL },
	{ "free", OPT_FREE, "FILE", "the cluster's free nodes: recommend which to use", NULL },
	{ "format", 'f', "FMT", "text (default) or json", NULL },
	CLI_OPT_GROUP(cli_opts_config_dir),
	CLI_OPT_GROUP(cli_opts_set_cluster),
	CLI_OPT_GROUP(cli_opts_quiet),
	CLI_OPT_GROUP(cli_opts_help),
	CLI_OPT_END
};

static const struct cli_usage placement_usage = {
	"usage: stepcast placement SCENARIO [--placement FILE] [--placement-format FMT]\n"
	"                          [--blocks N] [--seed S] [--engine analytic|des]\n"
	"                          [--free FILE] [--free-format FMT] [--format text|json]\n",
	"What the placement of SCENARIO's nodes on the fabric costs one step: packed\n"
	"(consecutive nodes fill leaf switches, the engines' default), random (a seeded\n"
	"sample of a fragmented cluster's slots), spread (nodes dealt round-robin over\n"
	"the leaves: every rank-order neighbour on another leaf), the scenario's own\n"
	"cluster.placement and --placement FILE; per placement the step time, its cost\n"
	"against packed, the parts that pay it and what each group (dp, edp, pp, ep, cp,\n"
	"tp) crosses.  With --free, which of a cluster's free nodes to give the job:\n"
	"topology-aware, in the file's order and spread, with the node list to use.\n",
	placement_opts, NULL, 0
};

static int parse_fmt(const char *arg, enum placement_format *f)
{
	for (int i = 0; placement_format_names[i]; i++)
		if (strcmp(placement_format_names[i], arg) == 0) {
			*f = (enum placement_format)i;
			return 1;
		}
	return 0;
}

static int parse_int(const char *arg, long lo, long hi, long *v)
{
	char *end = NULL;

	*v = strtol(arg, &end, 10);
	return end && end != arg && !*end && *v >= lo && *v <= hi;
}

#define PL_MAX_EVALS 8

/* What the options ask for. */
struct placement_req {
	enum cli_format fmt;
	enum placement_format pfmt, ffmt;
	bool ffmt_given, des;
	const char *file, *free_file;
	long blocks, seed;
};

/* Reads the options into r, *last the final cli_next_option result;
 * false with *code set on a usage error. */
static bool placement_options(struct cli_args *args, struct placement_req *r, int *last, int *code)
{
	int c;

	while ((c = cli_next_option(args)) > 0) {
		const char *optarg = args->arg; /* getopt's name: the cases read as before */

		switch (c) {
		case OPT_PLACEMENT:
			r->file = optarg;
			break;
		case OPT_PLACEMENT_FORMAT:
			if (!parse_fmt(optarg, &r->pfmt)) {
				*code = cli_usage_error("placement", "unknown format '%s' (expected ec2-instance-topology, "
							"slurm-topology or k8s-nodes)", optarg);
				return false;
			}
			break;
		case OPT_FREE_FORMAT:
			if (!parse_fmt(optarg, &r->ffmt)) {
				*code = cli_usage_error("placement", "unknown format '%s' (expected ec2-instance-topology, "
							"slurm-topology or k8s-nodes)", optarg);
				return false;
			}
			r->ffmt_given = true;
			break;
		case OPT_BLOCKS:
			if (!parse_int(optarg, 1, 1 << 20, &r->blocks)) {
				*code = cli_usage_error("placement", "--blocks wants a number of leaves >= 1, not '%s'", optarg);
				return false;
			}
			break;
		case OPT_SEED:
			if (!parse_int(optarg, 0, 2147483647L, &r->seed)) {
				*code = cli_usage_error("placement", "--seed wants a whole number >= 0, not '%s'", optarg);
				return false;
			}
			break;
		case OPT_ENGINE:
			if (strcmp(optarg, "des") != 0 && strcmp(optarg, "analytic") != 0) {
				*code = cli_usage_error("placement", "unknown engine '%s' (expected analytic or des)", optarg);
				return false;
			}
			r->des = strcmp(optarg, "des") == 0;
			break;
		case OPT_FREE:
			r->free_file = optarg;
			break;
		case 'f':
			if (!cli_parse_format("placement", optarg, 1u << FMT_TEXT | 1u << FMT_JSON, &r->fmt)) {
				*code = EXIT_USAGE;
				return false;
			}
			break;
		}
	}
	*last = c;
	return true;
}

/* The generated placements (random, spread), then the scenario's and the
 * file's, each evaluated into ev[*n...] (ev[0] is packed). */
static enum sc_status evaluate_alternatives(const struct scenario *sc, const struct placement_req *r,
					    int npl, int need, struct pl_eval *ev, struct placement *pls, int *n,
					    struct sc_error *err)
{
	const struct { enum placement_gen g; const char *label; long blocks; } gens[] = {
		{ PLACEMENT_GEN_RANDOM, "random", r->blocks > 0 ? r->blocks : 2L * need },
		{ PLACEMENT_GEN_SPREAD, "spread", r->blocks > 0 ? r->blocks : need },
	};
	enum sc_status st = SC_OK;

	for (size_t i = 0; st == SC_OK && i < sizeof(gens) / sizeof(gens[0]); i++) {
		st = placement_generate(&pls[*n], gens[i].g, sc->cluster.nodes, (int)gens[i].blocks, npl,
					(uint64_t)r->seed, err);
		if (st == SC_OK)
			st = pl_evaluate(sc, &pls[*n], gens[i].label, r->des, NULL, &ev[*n], err);
		(*n)++;
	}
	if (st == SC_OK && sc->cluster.placement)
		st = pl_evaluate(sc, sc->cluster.placement, "scenario", r->des, NULL, &ev[(*n)++], err);
	if (st == SC_OK && r->file) {
		st = placement_load_file(r->pfmt, r->file, NULL, 0, sc->cluster.nodes, npl, &pls[*n], err);
		if (st == SC_OK)
			st = pl_evaluate(sc, &pls[*n], "file", r->des, NULL, &ev[*n], err);
		(*n)++;
	}
	return st;
}

/* Advice: the free nodes of r->free_file chosen three ways (aware,
 * in-order, spread), each evaluated into ev[*n...]. */
static enum sc_status evaluate_free_choices(const struct scenario *sc, const struct placement_req *r,
					    int npl, struct pl_eval *ev, struct placement *pls, int *n,
					    struct sc_error *err)
{
	static struct placement fr;
	enum sc_status st;

	st = placement_load_file(r->ffmt, r->free_file, NULL, 0, 0, npl, &fr, err);
	for (int k = 0; st == SC_OK && k < PL_CHOOSE_COUNT; k++) {
		st = pl_choose(&fr, sc->cluster.nodes, (enum pl_choice)k, &pls[*n], err);
		if (st != SC_OK && !err->file[0])
			snprintf(err->file, sizeof(err->file), "%s", r->free_file);
		if (st == SC_OK)
			st = pl_evaluate(sc, &pls[*n], k == PL_CHOOSE_AWARE ? "aware"
						: k == PL_CHOOSE_FILE_ORDER ? "in-order" : "spread",
					 r->des, NULL, &ev[*n], err);
		(*n)++;
	}
	placement_free(&fr);
	return st;
}

/* The JSON report, with the recommended nodes when advising. */
static int print_placement_json(const struct scenario *sc, const struct pl_eval *ev, int n,
				const struct placement *pls, bool advice)
{
	cJSON *root = rpt_placement_json(sc, ev, n);
	char *text = NULL;

	if (root && advice) {
		/* the recommendation: the aware choice's nodes in rank order */
		cJSON *a = cJSON_CreateArray();

		for (int i = 0; a && pls[1].name && i < pls[1].nodes; i++)
			cJSON_AddItemToArray(a, cJSON_CreateString(pls[1].name[i]));
		if (!a || !cJSON_AddItemToObject(root, "recommended_nodes", a)) {
			cJSON_Delete(a);
			cJSON_Delete(root);
			root = NULL;
		}
	}
	text = root ? cJSON_Print(root) : NULL;
	cJSON_Delete(root);
	if (!text) {
		fprintf(stderr, "stepcast: error: out of memory\n");
		return EXIT_INTERNAL;
	}
	printf("%s\n", text);
	free(text);
	return EXIT_OK;
}

/* The text report, with the recommended nodes and what the other choices
 * cost when advising. */
static int print_placement_text(const struct scenario *sc, const struct pl_eval *ev, int n,
				const struct placement *pls, bool advice)
{
	rpt_placement_text(stdout, sc, ev, n);
	if (advice && pls[1].name) {
		printf("\nrecommended (topology-aware, rank order):");
		for (int i = 0; i < pls[1].nodes; i++)
			printf("%s%s", i ? "," : " ", pls[1].name[i]);
		printf("\nin file order it would cost %+.2f %%, spread %+.2f %% more than packed\n",
		       100.0 * ev[2].cost_rel, 100.0 * ev[3].cost_rel);
	}
	return EXIT_OK;
}

int cmd_placement(int argc, char **argv)
{
	struct cli_args args;
	static struct scenario sc;
	static struct pl_eval ev[PL_MAX_EVALS];
	static struct placement pls[PL_MAX_EVALS];
	struct placement_req r = { .fmt = FMT_TEXT, .pfmt = PLACEMENT_FMT_EC2, .ffmt = PLACEMENT_FMT_EC2,
				   .seed = 1 };
	const char *path;
	struct sc_error err;
	int c, code = EXIT_OK, n = 0, npl, need;
	enum sc_status st = SC_OK;

	cli_args_init(&args, &placement_usage, argc, argv);
	if (!placement_options(&args, &r, &c, &code))
		return code;
	if (c == CLI_STOP || !cli_operand(&args, &args.scenario_path, "missing SCENARIO file") ||
	    !cli_operands_end(&args) || !cli_setup(&args, &sc))
		return args.code;
	cli_args_free(&args);
	path = args.scenario_path;
	if (!r.ffmt_given)
		r.ffmt = r.pfmt;
	sc_error_clear(&err);
	npl = sc.cluster.fabric.nodes_per_leaf > 0 ? sc.cluster.fabric.nodes_per_leaf : sc.cluster.nodes;
	need = (sc.cluster.nodes + npl - 1) / npl;

	cli_progress_begin("placement");
	st = pl_evaluate(&sc, NULL, "packed", r.des, NULL, &ev[n++], &err);
	if (st == SC_OK && !r.free_file)
		st = evaluate_alternatives(&sc, &r, npl, need, ev, pls, &n, &err);
	else if (st == SC_OK)
		st = evaluate_free_choices(&sc, &r, npl, ev, pls, &n, &err);
	cli_progress_end();
	if (st != SC_OK) {
		for (int i = 0; i < n; i++)
			placement_free(&pls[i]);
		if (!err.file[0])
			snprintf(err.file, sizeof(err.file), "%s", path);
		return cli_fail(&err);
	}
	for (int i = 1; i < n; i++)
		pl_eval_cost(&ev[i], &ev[0]);
	if (r.fmt == FMT_JSON)
		code = print_placement_json(&sc, ev, n, pls, r.free_file != NULL);
	else
		code = print_placement_text(&sc, ev, n, pls, r.free_file != NULL);
	for (int i = 0; i < n; i++)
		placement_free(&pls[i]);
	return cli_finish(code);
}
