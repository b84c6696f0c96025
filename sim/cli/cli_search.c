/* cli_search.c: helpers of the capacity-planning commands (see cli_search.h). */
#include "cli_search.h"

#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../../sim/plan/cost.h"
#include "../config/scenario_load.h"
#include "cli_set.h"
#include "../../models/limits.h"

bool cli_parse_int(const char *cmd, const char *opt, const char *arg, int min, int max, int *out)
{
	char *end;
	long v;

	errno = 0;
	v = strtol(arg, &end, 10);
	if (end == arg || *end != '\0' || errno == ERANGE || v < min || v > max) {
		cli_usage_error(cmd, "%s needs an integer from %d to %d (got '%s')", opt, min, max, arg);
		return false;
	}
	*out = (int)v;
	return true;
}

bool cli_check_cluster(const char *cmd, const char *opt, int nodes, const struct instance_spec *inst)
{
	long long gpus = (long long)nodes * inst->gpus_per_node;

	if (gpus <= SC_MAX_GPUS)
		return true;
	cli_usage_error(cmd, "%s %d gives %lld GPUs of %s; a cluster has at most %d", opt, nodes, gpus,
			inst->name, SC_MAX_GPUS);
	return false;
}

bool cli_parse_confidence(const char *cmd, const char *arg, double *out)
{
	const char *num = arg[0] == 'P' || arg[0] == 'p' ? arg + 1 : arg;
	char *end;
	double v;

	errno = 0;
	v = strtod(num, &end);
	if (end == num || *end != '\0' || errno == ERANGE || !(v > 0 && v < 100)) {
		cli_usage_error(cmd, "--confidence needs a percentile between 0 and 100, e.g. 90 (got '%s')",
				arg);
		return false;
	}
	*out = v / 100.0;
	return true;
}

bool cli_parse_pricing(const char *cmd, const char *arg, enum plan_pricing *out)
{
	if (plan_pricing_parse(arg, out))
		return true;
	cli_usage_error(cmd, "unknown pricing '%s' (expected on-demand or capacity-block)", arg);
	return false;
}

int cli_plan_option(const char *cmd, int c, const char *arg, int max_sweep, struct plan_opts *po,
		    bool *pricing_given)
{
	bool ok;

	switch (c) {
	case 't':
		ok = cli_parse_tokens(cmd, arg, &po->tokens);
		break;
	case 'd':
		ok = cli_parse_duration(cmd, "--deadline", arg, &po->deadline_s);
		break;
	case 'N':
		ok = cli_parse_int(cmd, "--nodes", arg, 1, SC_MAX_NODES, &po->nodes);
		break;
	case 'S':
		ok = cli_parse_int_list(cmd, "--sweep", arg, po->sweep, max_sweep, &po->n_sweep);
		break;
	case 'p':
		ok = cli_parse_pricing(cmd, arg, &po->pricing);
		*pricing_given = true;
		break;
	case 'C':
		ok = cli_parse_confidence(cmd, arg, &po->confidence);
		break;
	default:
		return 0;
	}
	return ok ? 1 : -1;
}

bool cli_plan_tokens(const char *cmd, struct plan_opts *po, const struct scenario *sc)
{
	if (!(po->tokens > 0))
		po->tokens = sc->training.tokens_to_train;
	if (po->tokens > 0)
		return true;
	cli_usage_error(cmd, "no token budget: give --tokens or training.tokens_to_train in the scenario");
	return false;
}

bool cli_parse_tokens(const char *cmd, const char *arg, double *out)
{
	struct sc_error err;

	if (plan_parse_tokens(arg, out, &err) != SC_OK) {
		cli_usage_error(cmd, "%s", err.message);
		return false;
	}
	return true;
}

bool cli_parse_duration(const char *cmd, const char *opt, const char *arg, double *out_s)
{
	struct sc_error err;

	if (plan_parse_duration(arg, out_s, &err) != SC_OK) {
		cli_usage_error(cmd, "%s: %s", opt, err.message);
		return false;
	}
	return true;
}

bool cli_parse_shard(const char *cmd, const char *arg, int *k, int *n)
{
	char *end, *slash;
	long a, b;

	errno = 0;
	a = strtol(arg, &slash, 10);
	if (slash == arg || *slash != '/' || errno == ERANGE)
		goto bad;
	b = strtol(slash + 1, &end, 10);
	if (end == slash + 1 || *end != '\0' || errno == ERANGE)
		goto bad;
	if (b < 1 || b > INT_MAX || a < 0 || a >= b)
		goto bad;
	*k = (int)a;
	*n = (int)b;
	return true;
bad:
	cli_usage_error(cmd, "--shard needs K/N with 0 <= K < N (got '%s')", arg);
	return false;
}

/* A Slurm variable as a non-negative integer; *present false when unset. */
static bool slurm_int(const char *name, long *v, bool *present)
{
	const char *s = getenv(name);
	char *end;

	*present = s && s[0];
	if (!*present)
		return true;
	errno = 0;
	*v = strtol(s, &end, 10);
	return end != s && *end == '\0' && errno != ERANGE && *v >= 0 && *v <= INT_MAX;
}

int cli_slurm_shard(const char *cmd, int *k, int *n)
{
	static const char *const names[] = { "SLURM_ARRAY_TASK_ID", "SLURM_ARRAY_TASK_MIN",
					      "SLURM_ARRAY_TASK_STEP", "SLURM_ARRAY_TASK_COUNT" };
	long v[4] = { 0, 0, 1, 0 };
	bool have[4];

	for (int i = 0; i < 4; i++) {
		long x;

		if (!slurm_int(names[i], &x, &have[i])) {
			fprintf(stderr, "stepcast: %s: error: %s='%s' is not a non-negative integer\n", cmd,
				names[i], getenv(names[i]));
			return EXIT_USAGE;
		}
		if (have[i])
			v[i] = x;
	}
	if (!have[0] || !have[3])
		return EXIT_OK;
	if (v[2] < 1 || v[0] < v[1] || (v[0] - v[1]) % v[2] != 0 || v[3] < 1 ||
	    (v[0] - v[1]) / v[2] >= v[3]) {
		fprintf(stderr, "stepcast: %s: error: Slurm array task %ld (min %ld, step %ld, count %ld) "
			"is not one of the array's tasks\n", cmd, v[0], v[1], v[2], v[3]);
		return EXIT_USAGE;
	}
	*k = (int)((v[0] - v[1]) / v[2]);
	*n = (int)v[3];
	return EXIT_OK;
}

bool cli_parse_int_list(const char *cmd, const char *opt, const char *arg, int *out, int max,
			int *n)
{
	const char *p = arg;

	*n = 0;
	while (*p) {
		char *end;
		long v;

		errno = 0;
		v = strtol(p, &end, 10);
		if (end == p || (*end != ',' && *end != '\0') || errno == ERANGE || v < 1 || v > SC_MAX_NODES ||
		    *n >= max) {
			cli_usage_error(cmd, "%s takes up to %d integers from 1 to %d separated by commas (got '%s')",
					opt, max, SC_MAX_NODES, arg);
			return false;
		}
		out[(*n)++] = (int)v;
		p = *end == ',' ? end + 1 : end;
	}
	if (*n == 0) {
		cli_usage_error(cmd, "%s needs at least one value", opt);
		return false;
	}
	return true;
}

/* A comma-separated list of names (of the NULL-terminated table names)
 * into a bit mask of their indexes; a name not in it, or an empty list, is
 * a usage error of option, which lists the names the table has (one a
 * `what`). */
static bool parse_name_list(const char *cmd, const char *arg, const char *const *names,
			    const char *option, const char *what, unsigned *mask)
{
	const char *p = arg;
	char prose[256];

	*mask = 0;
	while (*p) {
		size_t len = strcspn(p, ",");
		bool ok = false;

		for (int i = 0; names[i]; i++) {
			if (strlen(names[i]) == len && strncmp(p, names[i], len) == 0) {
				*mask |= 1u << i;
				ok = true;
			}
		}
		if (!ok) {
			cli_usage_error(cmd, "%s takes a list of %s (got '%s')", option,
					sc_enum_prose(names, "and", prose, sizeof(prose)), arg);
			return false;
		}
		p += len;
		if (*p == ',')
			p++;
	}
	if (!*mask) {
		cli_usage_error(cmd, "%s needs at least one %s", option, what);
		return false;
	}
	return true;
}

bool cli_parse_recompute_list(const char *cmd, const char *arg, unsigned *mask)
{
	return parse_name_list(cmd, arg, sc_recompute_names, "--recompute", "mode", mask);
}

bool cli_parse_zero_list(const char *cmd, const char *arg, unsigned *mask)
{
	const char *p = arg;

	*mask = 0;
	while (*p) {
		if (p[0] < '0' || p[0] > '3' || (p[1] != ',' && p[1] != '\0')) {
			cli_usage_error(cmd, "--zero takes a list of stages 0 to 3 (got '%s')", arg);
			return false;
		}
		*mask |= 1u << (p[0] - '0');
		p += p[1] == ',' ? 2 : 1;
	}
	if (!*mask) {
		cli_usage_error(cmd, "--zero needs at least one stage");
		return false;
	}
	return true;
}

int cli_load_scenario(const char *cmd, const char *dir, const char *path, const char *calib,
		      struct scenario *sc, struct catalog *keep)
{
	struct catalog cat;
	struct sc_error err;
	int code;

	(void)cmd;
	if ((code = cli_load_catalog(dir, &cat)) != EXIT_OK)
		return code;
	sc_error_clear(&err);
	if (cli_scenario_load(path, &cat, sc, &err) != SC_OK) {
		catalog_free(&cat);
		return cli_fail(&err);
	}
	if (calib && calibration_select(&cat, &sc->cluster.gpu, calib, NULL, "--calibration", NULL,
					&sc->calibration, &err) != SC_OK) {
		catalog_free(&cat);
		return cli_fail(&err);
	}
	if (keep)
		*keep = cat;
	else
		catalog_free(&cat);
	return EXIT_OK;
}

struct search_report {
	const struct search_meta *meta;
	const struct search_result *res;
	enum rpt_search_format fmt;
};

static bool render_search(FILE *f, const void *ctx)
{
	const struct search_report *r = ctx;

	return rpt_search(f, r->meta, r->res, r->fmt);
}

int cli_write_search(const char *path, const struct search_meta *meta,
		     const struct search_result *res, enum cli_format fmt)
{
	/* the formats search writes; every other one is text */
	static const enum rpt_search_format of[FMT_COUNT] = {
		[FMT_JSON] = RPT_SEARCH_JSON, [FMT_JSONL] = RPT_SEARCH_JSONL, [FMT_CSV] = RPT_SEARCH_CSV,
		[FMT_MD] = RPT_SEARCH_MD,
	};
	struct search_report r = { meta, res, of[fmt] };

	return cli_write_rendered(path, render_search, &r);
}

struct plan_report {
	const struct rpt_plan_input *in;
	enum rpt_plan_format fmt;
};

static bool render_plan(FILE *f, const void *ctx)
{
	const struct plan_report *r = ctx;

	return rpt_plan(f, r->in, r->fmt);
}

int cli_write_plan(const char *path, const struct rpt_plan_input *in, enum cli_format fmt)
{
	/* the formats a plan writes; every other one is text */
	static const enum rpt_plan_format of[FMT_COUNT] = {
		[FMT_JSON] = RPT_PLAN_JSON, [FMT_CSV] = RPT_PLAN_CSV, [FMT_MD] = RPT_PLAN_MD, [FMT_HTML] = RPT_PLAN_HTML,
	};
	struct plan_report r = { in, of[fmt] };

	return cli_write_rendered(path, render_plan, &r);
}

bool cli_parse_schedule_list(const char *cmd, const char *arg, unsigned *mask)
{
	return parse_name_list(cmd, arg, sc_schedule_names, "--schedules", "schedule", mask);
}
