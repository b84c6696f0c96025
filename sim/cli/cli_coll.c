/* cli_coll.c: `stepcast validate --collectives [FILE]` and `stepcast
 * collective OP --instance NAME --nodes N` (see cli_coll.h, README.md). */
#include "cli_coll.h"

#include <getopt.h>
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

	if (o->fit && !o->calibration)
		return cli_usage_error("validate", "--fit needs --calibration NAME (the profile to fit)");
	if (o->fit && !o->output)
		return cli_usage_error("validate", "--fit needs --output FILE for the fitted profile");
	if (o->output && !o->fit)
		return cli_usage_error("validate", "--output is only used with --fit");
	if (o->cross && !o->fit)
		return cli_usage_error("validate", "--cross-validate needs --fit");
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

static void collective_usage(FILE *out)
{
	fprintf(out,
		"usage: stepcast collective OP --instance NAME --nodes N [--gpus-per-node K]\n"
		"                           [--min-bytes B] [--max-bytes B] [--step-factor F]\n"
		"                           [--calibration NAME|FILE] [--fabric NAME]\n"
		"                           [--config-dir DIR] [--format text|json]\n"
		"\n"
		"Predict an nccl-tests sweep of OP (all_reduce, all_gather, reduce_scatter,\n"
		"alltoall, sendrecv, broadcast) on N instances of NAME, in nccl-tests' columns\n"
		"(size, count, type, redop, root, time, algbw, busbw) with the algorithm and\n"
		"protocol the model chooses, and the EFA transport it uses.\n"
		"\n"
		"options:\n"
		"  -i, --instance NAME     instance type (catalogue)\n"
		"  -n, --nodes N           instances (default 1)\n"
		"  -g, --gpus-per-node K   ranks per instance (default: all its GPUs)\n"
		"  -b, --min-bytes B       first size, bytes (default 8; nccl-tests -b)\n"
		"  -e, --max-bytes B       last size, bytes (default 8589934592; -e)\n"
		"  -F, --step-factor F     size multiplication factor (default 2; -f)\n"
		"  -k, --calibration NAME|FILE  profile (default: the GPU's)\n"
		"      --fabric NAME       fabric (default: ultracluster)\n"
		"  -c, --config-dir DIR    catalogue directory\n"
		"  -f, --format FMT        text (default) or json\n"
		"  -h, --help              show this help\n");
}

static bool parse_pos(const char *s, double *v)
{
	char *end;

	*v = strtod(s, &end);
	return end != s && !*end && isfinite(*v) && *v > 0;
}

int cmd_collective(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "instance", required_argument, NULL, 'i' },
		{ "nodes", required_argument, NULL, 'n' },
		{ "gpus-per-node", required_argument, NULL, 'g' },
		{ "min-bytes", required_argument, NULL, 'b' },
		{ "max-bytes", required_argument, NULL, 'e' },
		{ "step-factor", required_argument, NULL, 'F' },
		{ "calibration", required_argument, NULL, 'k' },
		{ "fabric", required_argument, NULL, 'R' },
		{ "config-dir", required_argument, NULL, 'c' },
		{ "format", required_argument, NULL, 'f' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 }
	};
	const char *inst_name = NULL, *calib = NULL, *dir = NULL, *fabric = "ultracluster";
	double nodes = 1, gpn = 0, lo = 8, hi = 8589934592.0, step = 2;
	enum cli_format fmt = FMT_TEXT;
	static struct calibration cal;
	struct catalog cat;
	struct cluster cl;
	struct sc_error err;
	const struct instance_spec *in;
	struct instance_spec inst;
	int c, opi = -1, ranks;
	struct net_span s;
	cJSON *root = NULL, *rows = NULL;

	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":i:n:g:b:e:F:k:c:f:h", opts, NULL)) != -1) {
		switch (c) {
		case 'i': inst_name = optarg; break;
		case 'n':
			if (!parse_pos(optarg, &nodes) || nodes != floor(nodes) || nodes > 100000)
				return cli_usage_error("collective", "--nodes needs a whole number 1-100000, got '%s'", optarg);
			break;
		case 'g':
			if (!parse_pos(optarg, &gpn) || gpn != floor(gpn) || gpn > 4096)
				return cli_usage_error("collective", "--gpus-per-node needs a whole number >= 1, got '%s'", optarg);
			break;
		case 'b':
			if (!parse_pos(optarg, &lo) || lo > 1e15)
				return cli_usage_error("collective", "--min-bytes needs a size > 0, got '%s'", optarg);
			break;
		case 'e':
			if (!parse_pos(optarg, &hi) || hi > 1e15)
				return cli_usage_error("collective", "--max-bytes needs a size > 0, got '%s'", optarg);
			break;
		case 'F':
			if (!parse_pos(optarg, &step) || !(step > 1) || step > 1024)
				return cli_usage_error("collective", "--step-factor needs a factor > 1, got '%s'", optarg);
			break;
		case 'k': calib = optarg; break;
		case 'R': fabric = optarg; break;
		case 'c': dir = optarg; break;
		case 'f':
			if (!cli_parse_format("collective", optarg, 1u << FMT_TEXT | 1u << FMT_JSON, &fmt))
				return EXIT_USAGE;
			break;
		case 'h':
			collective_usage(stdout);
			return cli_finish(EXIT_OK);
		case ':':
			return cli_usage_error("collective", "option '%s' needs a value", argv[optind - 1]);
		default:
			return cli_usage_error("collective", "unknown option '%s'", argv[optind - 1]);
		}
	}
	if (optind >= argc)
		return cli_usage_error("collective", "missing OP (all_reduce, all_gather, reduce_scatter, "
				       "alltoall, sendrecv, broadcast)");
	for (size_t i = 0; i < sizeof(coll_ops) / sizeof(coll_ops[0]); i++)
		if (strcmp(argv[optind], coll_ops[i].name) == 0)
			opi = (int)i;
	if (opi < 0)
		return cli_usage_error("collective", "unknown OP '%s' (all_reduce, all_gather, "
				       "reduce_scatter, alltoall, sendrecv, broadcast)", argv[optind]);
	if (optind + 1 < argc)
		return cli_usage_error("collective", "unexpected argument '%s'", argv[optind + 1]);
	if (!inst_name)
		return cli_usage_error("collective", "--instance NAME is required");
	if (lo > hi)
		return cli_usage_error("collective", "--min-bytes is above --max-bytes");
	if ((c = cli_load_catalog(dir, &cat)) != EXIT_OK)
		return c;
	sc_error_clear(&err);
	in = catalog_instance(&cat, inst_name);
	if (!in || !catalog_fabric(&cat, fabric) || !catalog_gpu(&cat, in->gpu)) {
		if (!in)
			catalog_unknown(&cat, "instance", inst_name, "--instance", NULL, &err);
		else if (!catalog_fabric(&cat, fabric))
			catalog_unknown(&cat, "fabric", fabric, "--fabric", NULL, &err);
		else
			sc_error_set(&err, SC_EINVAL, "--instance", NULL, "GPU \"%s\" not in the catalogue", in->gpu);
		catalog_free(&cat);
		return cli_fail(&err);
	}
	/* the catalogue is freed below: keep the instance */
	inst = *in;
	in = &inst;
	memset(&cl, 0, sizeof(cl));
	cl.instance = *in;
	cl.gpu = *catalog_gpu(&cat, in->gpu);
	cl.fabric = *catalog_fabric(&cat, fabric);
	cl.nodes = (int)nodes;
	if (gpn > in->gpus_per_node) {
		catalog_free(&cat);
		return cli_usage_error("collective", "--gpus-per-node %g is more than the %d GPUs of %s",
				       gpn, in->gpus_per_node, in->name);
	}
	if (calibration_select(&cat, &cl.gpu, calib, NULL, "--calibration", NULL, &cal, &err) != SC_OK) {
		catalog_free(&cat);
		return cli_fail(&err);
	}
	catalog_free(&cat);
	/* K ranks per node: ranks at a stride of the node's GPUs / K would
	 * leave GPUs idle; the group is K per node, one per NVLink port */
	{
		int k = gpn > 0 ? (int)gpn : in->gpus_per_node;

		ranks = (int)nodes * k;
		if (k < in->gpus_per_node) {
			cl.instance.gpus_per_node = k;
			cl.instance.nvlink_domain_gpus = in->nvlink_domain_gpus / in->gpus_per_node * k;
			cl.instance.efa_nics = in->efa_nics * k / in->gpus_per_node > 0 ?
					       in->efa_nics * k / in->gpus_per_node : 1;
		}
	}
	s = net_span_of(&cl, ranks, 1);
	if (fmt == FMT_JSON) {
		root = cJSON_CreateObject();
		cJSON_AddStringToObject(root, "op", coll_ops[opi].name);
		cJSON_AddStringToObject(root, "instance", in->name);
		cJSON_AddNumberToObject(root, "nodes", nodes);
		cJSON_AddNumberToObject(root, "ranks", ranks);
		cJSON_AddStringToObject(root, "calibration", cal.name);
		cJSON_AddStringToObject(root, "tier", net_tier_name(&s));
		cJSON_AddBoolToObject(root, "aws_efa_transport", s.aws_efa);
		cJSON_AddNumberToObject(root, "efa_generation", in->efa.generation);
		cJSON_AddNumberToObject(root, "efa_devices", in->efa_nics);
		cJSON_AddNumberToObject(root, "efa_device_Gbps", in->efa_nic_Gbps);
		cJSON_AddNumberToObject(root, "efa_per_gpu_GBps", s.efa_Bps / 1e9);
		rows = cJSON_AddArrayToObject(root, "rows");
	} else {
		printf("# stepcast collective %s: %s x %d (%d ranks, %d per NVLink domain), profile %s\n",
		       coll_ops[opi].name, in->name, (int)nodes, ranks, s.ranks_per_domain, cal.name);
		if (in->efa.generation > 0)
			printf("# EFA v%d: %d devices x %g Gb/s = %.1f GB/s per GPU (%d rails per GPU x %.1f GB/s); "
			       "per-step latency %.1f us; NCCL net latency (aws-ofi-nccl platform) %.0f us\n",
			       in->efa.generation, in->efa_nics, in->efa_nic_Gbps, s.efa_Bps / 1e9,
			       in->efa_nics / in->gpus_per_node > 0 ? in->efa_nics / in->gpus_per_node : 1,
			       in->efa_nic_Gbps / 8, 1e6 * cal.awsefa_step_alpha_s,
			       1e6 * in->efa.nccl_net_latency_s);
		printf("# algorithm/protocol: * = chosen by the aws-ofi-nccl region tuner (TUNER_TYPE=REGION, more than\n"
		       "# 2 nodes, a region for the size and ranks); else the fastest of the model's candidates\n"
		       "# (NCCL's own tuner)\n");
		printf("#\n#  %12s %12s %8s %6s %6s %10s %9s %9s  %s\n", "size", "count", "type", "redop",
		       "root", "time(us)", "algbw", "busbw", "algorithm");
		printf("#  %12s %12s %8s %6s %6s %10s %9s %9s\n", "(B)", "(elements)", "", "", "", "",
		       "(GB/s)", "(GB/s)");
	}
	for (double S = lo; S <= hi * (1 + 1e-12); S *= step) {
		double bytes = floor(S / 4) * 4 > 0 ? floor(S / 4) * 4 : 4;
		struct coll_choice ch;
		/* broadcast: NCCL's pipelined ring broadcast sends the buffer once
		 * per rank, the wire volume of an all-gather of n/(n-1) x S on the
		 * same ring (busbw = algbw, nccl-tests) */
		double t = coll_ops[opi].root >= 0 && ranks > 1 ?
			   coll_time(&cal, &s, COLL_ALL_GATHER, bytes * ranks / (ranks - 1), &ch) :
			   coll_time(&cal, &s, coll_ops[opi].op, bytes, &ch);
		double alg = t > 0 ? bytes / t / 1e9 : 0;
		double bus = coll_ops[opi].root >= 0 ? alg : alg * coll_busbw_factor(coll_ops[opi].op, ranks);
		long long count = (long long)(bytes / 4);

		if (coll_ops[opi].op == COLL_ALL_GATHER || coll_ops[opi].op == COLL_REDUCE_SCATTER ||
		    coll_ops[opi].op == COLL_ALL_TO_ALL)
			count = (long long)(bytes / 4 / ranks);
		if (rows) {
			cJSON *r = cJSON_CreateObject();

			cJSON_AddItemToArray(rows, r);
			cJSON_AddNumberToObject(r, "bytes", bytes);
			cJSON_AddNumberToObject(r, "count", (double)count);
			cJSON_AddStringToObject(r, "type", "float");
			cJSON_AddStringToObject(r, "redop", coll_ops[opi].redop);
			cJSON_AddNumberToObject(r, "root", coll_ops[opi].root);
			cJSON_AddNumberToObject(r, "time_s", t);
			cJSON_AddNumberToObject(r, "algbw_GBps", alg);
			cJSON_AddNumberToObject(r, "busbw_GBps", bus);
			cJSON_AddStringToObject(r, "algorithm", ch.algorithm);
			cJSON_AddStringToObject(r, "selected_by", ch.selected_by ? ch.selected_by : "fastest");
			if (ch.region)
				cJSON_AddStringToObject(r, "region", ch.region);
		} else {
			printf("   %12.0f %12lld %8s %6s %6d %10.2f %9.2f %9.2f  %s%s\n", bytes, count, "float",
			       coll_ops[opi].redop, coll_ops[opi].root, t * 1e6, alg, bus, ch.algorithm,
			       ch.selected_by && strncmp(ch.selected_by, "aws", 3) == 0 ? " *" : "");
		}
	}
	return cli_finish(root ? cli_write_json(NULL, root, NULL, NULL) : EXIT_OK);
}
