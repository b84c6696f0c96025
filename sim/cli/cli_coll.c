/* cli_coll.c: `stepcast validate --collectives [FILE]` and `stepcast
 * collective OP --instance NAME --nodes N` (see cli_coll.h, README.md). */
#include "cli_coll.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "../../models/collective.h"
#include "../../models/network.h"
#include "../../reports/rpt_catalog.h"
#include "../../reports/rpt_coll_validate.h"
#include "../validate/coll_validate.h"
#include "cli_args.h"
#include "cli_fit.h"
#include "cli_output.h"

#define CV_MAX_FIT 16

/* MAPE of the counted points of the curves of `group` (NULL: all) on cal's
 * GPU family, grouped by node count into mape[nodes] (caller-sized). */
static double group_mape(struct cv_set *set, const struct calibration *cal, const char *group,
			 double min_bytes, int *count)
{
	double sum = 0;
	int n = 0;

	for (int i = 0; i < set->n_curves; i++) {
		const struct cv_curve *c = &set->curves[i];

		if (!c->expressible || !calibration_fits_gpu(cal, &c->cluster.gpu) ||
		    (group && strcmp(c->source_group, group) != 0))
			continue;
		for (int j = 0; j < c->n_points; j++) {
			const struct cv_point *p = &c->points[j];
			double y;

			if (!cv_point_selected(p, min_bytes))
				continue;
			y = cv_predict_point(c, cal, p, NULL, 0);
			if (!(y > 0) || !isfinite(y))
				continue;
			sum += fabs(y - p->measured) / p->measured;
			n++;
		}
	}
	*count = n;
	return n ? sum / n : 0;
}

static void print_group_nodes(struct cv_set *set, const struct calibration *in,
			      const struct calibration *out, const char *group, double min_bytes)
{
	int nodes_seen[64], n_nodes = 0;

	for (int i = 0; i < set->n_curves; i++) {
		const struct cv_curve *c = &set->curves[i];
		bool dup = false;

		if (!c->expressible || strcmp(c->source_group, group) != 0 ||
		    !calibration_fits_gpu(in, &c->cluster.gpu))
			continue;
		for (int j = 0; j < n_nodes; j++)
			dup |= nodes_seen[j] == c->nodes;
		if (!dup && n_nodes < 64)
			nodes_seen[n_nodes++] = c->nodes;
	}
	for (int k = 0; k < n_nodes; k++) {
		double s_in = 0, s_out = 0;
		int n = 0;

		for (int i = 0; i < set->n_curves; i++) {
			const struct cv_curve *c = &set->curves[i];

			if (!c->expressible || strcmp(c->source_group, group) != 0 ||
			    c->nodes != nodes_seen[k] || !calibration_fits_gpu(in, &c->cluster.gpu))
				continue;
			for (int j = 0; j < c->n_points; j++) {
				const struct cv_point *p = &c->points[j];
				double a, b;

				if (!cv_point_selected(p, min_bytes))
					continue;
				a = cv_predict_point(c, in, p, NULL, 0);
				b = cv_predict_point(c, out, p, NULL, 0);
				if (!(a > 0) || !(b > 0))
					continue;
				s_in += fabs(a - p->measured) / p->measured;
				s_out += fabs(b - p->measured) / p->measured;
				n++;
			}
		}
		if (n)
			fprintf(stderr, "    %5d nodes%-27s %5d %12.1f %14.1f\n", nodes_seen[k], "", n,
				100 * s_in / n, 100 * s_out / n);
	}
}

static int cross_validate(struct cv_set *set, const struct calibration *start, const int *params,
			  int n_params, double min_bytes)
{
	const char *groups[64];
	int n_groups = 0;
	static struct calibration all;
	struct sc_error err;
	int pts;

	for (int i = 0; i < set->n_curves; i++) {
		const struct cv_curve *c = &set->curves[i];
		bool seen = false;

		if (!c->expressible || !calibration_fits_gpu(start, &c->cluster.gpu))
			continue;
		for (int j = 0; j < n_groups; j++)
			seen |= strcmp(groups[j], c->source_group) == 0;
		if (!seen && n_groups < 64)
			groups[n_groups++] = c->source_group;
	}
	all = *start;
	sc_error_clear(&err);
	if (cv_fit(set, &all, params, n_params, min_bytes, NULL, &pts, &err) != SC_OK)
		return cli_fail(&err);
	fprintf(stderr, "cross-validation of %s (leave one source group out; points >= %.0f bytes)\n",
		start->name, min_bytes);
	fprintf(stderr, "  %-40s %5s %12s %14s\n", "left-out group / nodes", "points", "in-sample %",
		"out-of-sample %");
	for (int g = 0; g < n_groups; g++) {
		static struct calibration held;
		int count;
		double in, out;

		held = *start;
		in = group_mape(set, &all, groups[g], min_bytes, &count);
		if (count == 0)
			continue;
		sc_error_clear(&err);
		if (cv_fit(set, &held, params, n_params, min_bytes, groups[g], &pts, &err) != SC_OK) {
			fprintf(stderr, "  %-40s %5d %12.1f %14s  (%s)\n", groups[g], count, 100 * in, "-",
				err.message);
			continue;
		}
		out = group_mape(set, &held, groups[g], min_bytes, &count);
		fprintf(stderr, "  %-40s %5d %12.1f %14.1f\n", groups[g], count, 100 * in, 100 * out);
		print_group_nodes(set, &all, &held, groups[g], min_bytes);
	}
	return EXIT_OK;
}

static int run_fit(struct cv_set *set, struct calibration *cal, const int *params, int n,
		   double min_bytes, const char *output)
{
	struct sc_error err;
	int pts, count;
	double before, after;

	before = group_mape(set, cal, NULL, min_bytes, &count);
	sc_error_clear(&err);
	if (cv_fit(set, cal, params, n, min_bytes, NULL, &pts, &err) != SC_OK)
		return cli_fail(&err);
	after = group_mape(set, cal, NULL, min_bytes, &count);
	fprintf(stderr, "stepcast: validate: fitted %d parameters of \"%s\" on %d collective points "
		"(>= %.0f bytes): MAPE %.1f %% -> %.1f %%\n", n, cal->name, pts, min_bytes,
		100 * before, 100 * after);
	for (int i = 0; i < n; i++) {
		char *src = cal->source[params[i]];
		char prior[SC_CALIB_SOURCE_MAX];

		snprintf(prior, sizeof(prior), "%s", src);
		snprintf(src, SC_CALIB_SOURCE_MAX,
			 "fitted (stepcast validate --collectives --fit) to %d points >= %.0f B: MAPE "
			 "%.1f%% -> %.1f%%; prior: %s", pts, min_bytes, 100 * before, 100 * after,
			 strncmp(prior, "prior: ", 7) == 0 ? prior + 7 : prior);
		fprintf(stderr, "  %-28s %.6g\n", calib_params[params[i]].name,
			calib_get(cal, (enum calib_param)params[i]));
	}
	return cli_write_profile(cal, output);
}

int cli_validate_collectives(const struct cli_cv_opts *o)
{
	static struct calibration chosen;
	const struct calibration *cal = NULL;
	struct catalog cat;
	struct cv_set set;
	struct sc_error err;
	int code, params[CV_MAX_FIT], n_params = 0;

	if (o->fit && (code = cli_parse_fit_params(o->fit, CV_MAX_FIT, params, &n_params)) != EXIT_OK)
		return code;
	if ((code = cli_load_catalog(o->config_dir, &cat)) != EXIT_OK)
		return code;
	sc_error_clear(&err);
	if (o->calibration) {
		if (calibration_select(&cat, NULL, o->calibration, NULL, "--calibration", NULL, &chosen,
				       &err) != SC_OK) {
			catalog_free(&cat);
			return cli_fail(&err);
		}
		cal = &chosen;
	}
	memset(&set, 0, sizeof(set));
	for (int i = 0; o->path ? i < 1 : cv_default_path(i) != NULL; i++) {
		if (cv_load(o->path ? o->path : cv_default_path(i), &cat, &set, &err) != SC_OK) {
			cv_free(&set);
			catalog_free(&cat);
			return cli_fail(&err);
		}
	}
	if (!o->path)
		snprintf(set.path, sizeof(set.path), "%s + %s", cv_default_path(0), cv_default_path(1));
	cv_run(&set, &cat, cal);
	catalog_free(&cat);
	if (o->fit) {
		static struct calibration fitted;

		fitted = chosen;
		if (o->cross && (code = cross_validate(&set, &chosen, params, n_params, o->min_bytes)) != EXIT_OK) {
			cv_free(&set);
			return code;
		}
		if ((code = run_fit(&set, &fitted, params, n_params, o->min_bytes, o->output)) != EXIT_OK) {
			cv_free(&set);
			return code;
		}
		cv_run(&set, NULL, &fitted);
	}
	if (!rpt_coll_validate(stdout, &set, (enum rpt_validate_format)o->fmt, o->summary_only,
			       o->min_bytes)) {
		cv_free(&set);
		fprintf(stderr, "stepcast: error: out of memory\n");
		return EXIT_INTERNAL;
	}
	code = EXIT_OK;
	if (o->max_mape >= 0) {
		struct cv_summary_row row;

		if (rpt_cv_summary(&set, o->min_bytes, &row, 1) == 1 && 100 * row.mape > o->max_mape) {
			fprintf(stderr, "stepcast: validate: collective MAPE %.1f %% is above --max-mape %.1f %%\n",
				100 * row.mape, o->max_mape);
			code = EXIT_CHECK_FAILED;
		}
	}
	cv_free(&set);
	return code;
}

/* ---- stepcast collective ---------------------------------------------------- */

static const struct {
	const char *name;     /* nccl-tests' */
	enum coll_op op;
	const char *redop;
	int root;             /* -1: no root */
} coll_ops[] = {
	{ "all_reduce", COLL_ALL_REDUCE, "sum", -1 },
	{ "all_gather", COLL_ALL_GATHER, "none", -1 },
	{ "reduce_scatter", COLL_REDUCE_SCATTER, "sum", -1 },
	{ "alltoall", COLL_ALL_TO_ALL, "none", -1 },
	{ "sendrecv", COLL_SEND_RECV, "none", -1 },
	{ "broadcast", COLL_ALL_GATHER, "none", 0 },
};

/* -k's label is wider than the options' column 26: its help at 31, as
 * the hand-written help had it */
static const struct cli_opt collective_calibration_opt[] = {
	{ "calibration", 'k', "NAME|FILE", "profile (default: the GPU's)", NULL },
	CLI_OPT_END
};

enum { COLL_OPT_FABRIC = CLI_KEY_BASE, COLL_OPT_TUNER };

static const struct cli_opt collective_opts[] = {
	{ "instance", 'i', "NAME", "instance type (catalogue)", NULL },
	{ "nodes", 'n', "N", "instances (default 1)", NULL },
	{ "gpus-per-node", 'g', "K", "ranks per instance (default: all its GPUs)", NULL },
	{ "min-bytes", 'b', "B", "first size, bytes (default 8; nccl-tests -b)", NULL },
	{ "max-bytes", 'e', "B", "last size, bytes (default 8589934592; -e)", NULL },
	{ "step-factor", 'F', "F", "size multiplication factor (default 2; -f)", NULL },
	CLI_OPT_GROUP_AT(collective_calibration_opt, 31),
	{ "fabric", COLL_OPT_FABRIC, "NAME", "fabric (default: ultracluster)", NULL },
	{ "tuner", COLL_OPT_TUNER, "T", "aws-ofi-nccl (default: the plugin's regions where\n"
	  "the instance has them) or nccl (NCCL's own tuner, as\n"
	  "without NCCL_TUNER_PLUGIN)", NULL },
	{ "config-dir", 'c', "DIR", "catalogue directory", NULL },
	{ "format", 'f', "FMT", "text (default) or json", NULL },
	CLI_OPT_GROUP(cli_opts_help),
	CLI_OPT_END
};

static const struct cli_usage collective_usage = {
	"usage: stepcast collective OP --instance NAME --nodes N [--gpus-per-node K]\n"
	"                           [--min-bytes B] [--max-bytes B] [--step-factor F]\n"
	"                           [--calibration NAME|FILE] [--fabric NAME]\n"
	"                           [--tuner aws-ofi-nccl|nccl]\n"
	"                           [--config-dir DIR] [--format text|json]\n",
	"Predict an nccl-tests sweep of OP (all_reduce, all_gather, reduce_scatter,\n"
	"alltoall, sendrecv, broadcast) on N instances of NAME, in nccl-tests' columns\n"
	"(size, count, type, redop, root, time, algbw, busbw) with the algorithm and\n"
	"protocol the model chooses, and the EFA transport it uses.\n",
	collective_opts,
	NULL,
	0
};

static bool parse_pos(const char *s, double *v)
{
	char *end;

	*v = strtod(s, &end);
	return end != s && !*end && isfinite(*v) && *v > 0;
}

/* What `stepcast collective` was asked. */
struct coll_args {
	const char *inst_name, *calib, *dir, *fabric;
	double nodes, gpn, lo, hi, step;
	bool nccl_tuner; /* --tuner nccl: no aws-ofi-nccl regions */
	enum cli_format fmt;
	int opi; /* into coll_ops[] */
};

/* Parse argv into *o: CLI_GO to go on, else the exit code. */
static int collective_parse(int argc, char **argv, struct coll_args *o)
{
	struct cli_args a;
	const char *op;
	int c;

	*o = (struct coll_args){ .fabric = "ultracluster", .nodes = 1, .lo = 8, .hi = 8589934592.0,
				 .step = 2, .fmt = FMT_TEXT, .opi = -1 };
	cli_args_init(&a, &collective_usage, argc, argv);
	while ((c = cli_next_option(&a)) > 0) {
		const char *optarg = a.arg;

		switch (c) {
		case 'i': o->inst_name = optarg; break;
		case 'n':
			if (!parse_pos(optarg, &o->nodes) || o->nodes != floor(o->nodes) || o->nodes > 100000)
				return cli_usage_error("collective", "--nodes needs a whole number 1-100000, got '%s'", optarg);
			break;
		case 'g':
			if (!parse_pos(optarg, &o->gpn) || o->gpn != floor(o->gpn) || o->gpn > 4096)
				return cli_usage_error("collective", "--gpus-per-node needs a whole number >= 1, got '%s'", optarg);
			break;
		case 'b':
			if (!parse_pos(optarg, &o->lo) || o->lo > 1e15)
				return cli_usage_error("collective", "--min-bytes needs a size > 0, got '%s'", optarg);
			break;
		case 'e':
			if (!parse_pos(optarg, &o->hi) || o->hi > 1e15)
				return cli_usage_error("collective", "--max-bytes needs a size > 0, got '%s'", optarg);
			break;
		case 'F':
			if (!parse_pos(optarg, &o->step) || !(o->step > 1) || o->step > 1024)
				return cli_usage_error("collective", "--step-factor needs a factor > 1, got '%s'", optarg);
			break;
		case COLL_OPT_FABRIC: o->fabric = optarg; break;
		case COLL_OPT_TUNER:
			if (strcmp(optarg, "nccl") != 0 && strcmp(optarg, "aws-ofi-nccl") != 0)
				return cli_usage_error("collective", "--tuner needs aws-ofi-nccl or nccl, got '%s'", optarg);
			o->nccl_tuner = strcmp(optarg, "nccl") == 0;
			break;
		case 'f':
			if (!cli_parse_format("collective", optarg, 1u << FMT_TEXT | 1u << FMT_JSON, &o->fmt))
				return EXIT_USAGE;
			break;
		}
	}
	if (c == CLI_STOP)
		return a.code;
	o->calib = a.calibration;
	o->dir = a.config_dir;
	if (!cli_operand(&a, &op, "missing OP (all_reduce, all_gather, reduce_scatter, "
			 "alltoall, sendrecv, broadcast)"))
		return a.code;
	for (size_t i = 0; i < sizeof(coll_ops) / sizeof(coll_ops[0]); i++)
		if (strcmp(op, coll_ops[i].name) == 0)
			o->opi = (int)i;
	if (o->opi < 0)
		return cli_usage_error("collective", "unknown OP '%s' (all_reduce, all_gather, "
				       "reduce_scatter, alltoall, sendrecv, broadcast)", op);
	if (!cli_operands_end(&a))
		return a.code;
	if (!o->inst_name)
		return cli_usage_error("collective", "--instance NAME is required");
	if (o->lo > o->hi)
		return cli_usage_error("collective", "--min-bytes is above --max-bytes");
	return CLI_GO;
}

/* The cluster of o (K ranks per node when --gpus-per-node is under the
 * instance's GPUs) into *cl and its calibration into *cal: CLI_GO, else
 * the exit code. */
static int collective_cluster(const struct coll_args *o, struct cluster *cl, struct calibration *cal)
{
	struct catalog cat;
	struct sc_error err;
	const struct instance_spec *in;
	int c;

	if ((c = cli_load_catalog(o->dir, &cat)) != EXIT_OK)
		return c;
	sc_error_clear(&err);
	in = catalog_instance(&cat, o->inst_name);
	if (!in || !catalog_fabric(&cat, o->fabric) || !catalog_gpu(&cat, in->gpu)) {
		if (!in)
			catalog_unknown(&cat, "instance", o->inst_name, "--instance", NULL, &err);
		else if (!catalog_fabric(&cat, o->fabric))
			catalog_unknown(&cat, "fabric", o->fabric, "--fabric", NULL, &err);
		else
			sc_error_set(&err, SC_EINVAL, "--instance", NULL, "GPU \"%s\" not in the catalogue", in->gpu);
		catalog_free(&cat);
		return cli_fail(&err);
	}
	memset(cl, 0, sizeof(*cl));
	cl->instance = *in; /* copies: the catalogue is freed below */
	cl->gpu = *catalog_gpu(&cat, in->gpu);
	cl->fabric = *catalog_fabric(&cat, o->fabric);
	cl->nodes = (int)o->nodes;
	if (o->gpn > in->gpus_per_node) {
		int gpus = in->gpus_per_node;

		catalog_free(&cat);
		return cli_usage_error("collective", "--gpus-per-node %g is more than the %d GPUs of %s",
				       o->gpn, gpus, cl->instance.name);
	}
	if (calibration_select(&cat, &cl->gpu, o->calib, NULL, "--calibration", NULL, cal, &err) != SC_OK) {
		catalog_free(&cat);
		return cli_fail(&err);
	}
	catalog_free(&cat);
	return CLI_GO;
}

/* The sweep's header: the JSON document (its "rows" in *rows) or the text
 * lines printed; NULL for text. */
static cJSON *collective_header(const struct coll_args *o, const struct instance_spec *in, int ranks,
				const struct calibration *cal, const struct net_span *s, cJSON **rows)
{
	cJSON *root = NULL;

	if (o->fmt == FMT_JSON) {
		root = cJSON_CreateObject();
		cJSON_AddStringToObject(root, "op", coll_ops[o->opi].name);
		cJSON_AddStringToObject(root, "instance", in->name);
		cJSON_AddNumberToObject(root, "nodes", o->nodes);
		cJSON_AddNumberToObject(root, "ranks", ranks);
		cJSON_AddStringToObject(root, "calibration", cal->name);
		cJSON_AddStringToObject(root, "tier", net_tier_name(s));
		cJSON_AddStringToObject(root, "tuner", o->nccl_tuner ? "nccl" : "aws-ofi-nccl");
		cJSON_AddBoolToObject(root, "aws_efa_transport", s->aws_efa);
		cJSON_AddNumberToObject(root, "efa_generation", in->efa.generation);
		cJSON_AddNumberToObject(root, "efa_devices", in->efa_nics);
		cJSON_AddNumberToObject(root, "efa_device_Gbps", in->efa_nic_Gbps);
		cJSON_AddNumberToObject(root, "efa_per_gpu_GBps", s->efa_Bps / 1e9);
		*rows = cJSON_AddArrayToObject(root, "rows");
	} else {
		printf("# stepcast collective %s: %s x %d (%d ranks, %d per NVLink domain), profile %s\n",
		       coll_ops[o->opi].name, in->name, (int)o->nodes, ranks, s->ranks_per_domain, cal->name);
		if (in->efa.generation > 0)
			printf("# EFA v%d: %d devices x %g Gb/s = %.1f GB/s per GPU (%d rails per GPU x %.1f GB/s); "
			       "per-step latency %.1f us; NCCL net latency (aws-ofi-nccl platform) %.0f us\n",
			       in->efa.generation, in->efa_nics, in->efa_nic_Gbps, s->efa_Bps / 1e9,
			       in->efa_nics / in->gpus_per_node > 0 ? in->efa_nics / in->gpus_per_node : 1,
			       in->efa_nic_Gbps / 8, 1e6 * cal->awsefa_step_alpha_s,
			       1e6 * in->efa.nccl_net_latency_s);
		printf("# algorithm/protocol (tuner %s): * = chosen by the aws-ofi-nccl region tuner (TUNER_TYPE=REGION,\n"
		       "# more than 2 nodes, a region for the size and ranks); + = by NCCL's own tuner model (ring\n"
		       "# all-gather/reduce-scatter protocol on EFA); else the fastest of the model's candidates\n",
		       o->nccl_tuner ? "nccl" : "aws-ofi-nccl");
		printf("#\n#  %12s %12s %8s %6s %6s %10s %9s %9s  %s\n", "size", "count", "type", "redop",
		       "root", "time(us)", "algbw", "busbw", "algorithm");
		printf("#  %12s %12s %8s %6s %6s %10s %9s %9s\n", "(B)", "(elements)", "", "", "", "",
		       "(GB/s)", "(GB/s)");
	}
	return root;
}

int cmd_collective(int argc, char **argv)
{
	struct coll_args o;
	static struct calibration cal;
	struct cluster cl;
	const struct instance_spec *in;
	struct instance_spec inst;
	int c, ranks;
	struct net_span s;
	cJSON *root = NULL, *rows = NULL;

	if ((c = collective_parse(argc, argv, &o)) != CLI_GO)
		return c;
	if ((c = collective_cluster(&o, &cl, &cal)) != CLI_GO)
		return c;
	inst = cl.instance; /* the instance's own counts: cl's are K per node below */
	in = &inst;
	/* K ranks per node: ranks at a stride of the node's GPUs / K would
	 * leave GPUs idle; the group is K per node, one per NVLink port */
	{
		int k = o.gpn > 0 ? (int)o.gpn : in->gpus_per_node;

		ranks = (int)o.nodes * k;
		if (k < in->gpus_per_node) {
			cl.instance.gpus_per_node = k;
			cl.instance.nvlink_domain_gpus = in->nvlink_domain_gpus / in->gpus_per_node * k;
			cl.instance.efa_nics = in->efa_nics * k / in->gpus_per_node > 0 ?
					       in->efa_nics * k / in->gpus_per_node : 1;
		}
	}
	s = net_span_of(&cl, ranks, 1);
	if (o.nccl_tuner)
		s.efa_tuner = EFA_TUNER_NONE; /* NCCL_TUNER_PLUGIN unset: NCCL's own choice */
	root = collective_header(&o, in, ranks, &cal, &s, &rows);
	for (double S = o.lo; S <= o.hi * (1 + 1e-12); S *= o.step) {
		double bytes = floor(S / 4) * 4 > 0 ? floor(S / 4) * 4 : 4;
		struct coll_choice ch;
		/* broadcast: NCCL's pipelined ring broadcast sends the buffer once
		 * per rank, the wire volume of an all-gather of n/(n-1) x S on the
		 * same ring (busbw = algbw, nccl-tests) */
		double t = coll_ops[o.opi].root >= 0 && ranks > 1 ?
			   coll_time(&cal, &s, COLL_ALL_GATHER, bytes * ranks / (ranks - 1), &ch) :
			   coll_time(&cal, &s, coll_ops[o.opi].op, bytes, &ch);
		double alg = t > 0 ? bytes / t / 1e9 : 0;
		double bus = coll_ops[o.opi].root >= 0 ? alg : alg * coll_busbw_factor(coll_ops[o.opi].op, ranks);
		long long count = (long long)(bytes / 4);

		if (coll_ops[o.opi].op == COLL_ALL_GATHER || coll_ops[o.opi].op == COLL_REDUCE_SCATTER ||
		    coll_ops[o.opi].op == COLL_ALL_TO_ALL)
			count = (long long)(bytes / 4 / ranks);
		if (rows) {
			cJSON *r = cJSON_CreateObject();

			cJSON_AddItemToArray(rows, r);
			cJSON_AddNumberToObject(r, "bytes", bytes);
			cJSON_AddNumberToObject(r, "count", (double)count);
			cJSON_AddStringToObject(r, "type", "float");
			cJSON_AddStringToObject(r, "redop", coll_ops[o.opi].redop);
			cJSON_AddNumberToObject(r, "root", coll_ops[o.opi].root);
			cJSON_AddNumberToObject(r, "time_s", t);
			cJSON_AddNumberToObject(r, "algbw_GBps", alg);
			cJSON_AddNumberToObject(r, "busbw_GBps", bus);
			cJSON_AddStringToObject(r, "algorithm", ch.algorithm);
			cJSON_AddStringToObject(r, "selected_by", ch.selected_by ? ch.selected_by : "fastest");
			if (ch.region)
				cJSON_AddStringToObject(r, "region", ch.region);
		} else {
			printf("   %12.0f %12lld %8s %6s %6d %10.2f %9.2f %9.2f  %s%s\n", bytes, count, "float",
			       coll_ops[o.opi].redop, coll_ops[o.opi].root, t * 1e6, alg, bus, ch.algorithm,
			       !ch.selected_by ? "" : strncmp(ch.selected_by, "aws", 3) == 0 ? " *" :
			       strncmp(ch.selected_by, "nccl", 4) == 0 ? " +" : "");
		}
	}
	return cli_finish(root ? cli_write_json(NULL, root, NULL, NULL) : EXIT_OK);
}
