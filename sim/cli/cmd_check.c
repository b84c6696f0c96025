/* cmd_check.c: `stepcast check RUN --scenario S`: a real run's step time
 * (Megatron-LM iteration lines) and collective bus bandwidth (NCCL
 * Inspector's Prometheus dump) held against the prediction; names the
 * collective that deviates and what it costs the step. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "../../calibrate/ingest/run_log.h"
#include "../../models/uncertainty.h"
#include "../../reports/rpt_prom.h"
#include "../../reports/rpt_step.h"
#include "../analytic/step.h"
#include "../config/cfg_json.h"
#include "cli.h"
#include "cli_args.h"
#include "cli_search.h"

#define MAX_NCCL_FILES 16

static const struct cli_opt check_opts[] = {
	{ "scenario", 's', "S", "the run's scenario (required)", NULL },
	{ "nccl", 'N' | CLI_KEY_BASE, "FILE", "an NCCL Inspector Prometheus dump (repeatable)", NULL },
	{ "skip", 'S' | CLI_KEY_BASE, "N", "iteration lines to skip at the start (warm-up;\n"
					   "default 1)", NULL },
	{ "format", 'f', "FMT", "text (default) or json", NULL },
	{ "calibration", 'k', "NAME|FILE", "predict with this profile instead of the scenario's", NULL },
	CLI_OPT_GROUP(cli_opts_config_dir),
	CLI_OPT_GROUP(cli_opts_set_cluster),
	CLI_OPT_GROUP(cli_opts_help),
	CLI_OPT_END
};

static const struct cli_usage check_usage = {
	"usage: stepcast check RUN --scenario S [--nccl FILE]... [--skip N]\n"
	"                      [--format text|json] [--calibration NAME|FILE]\n"
	"                      [--config-dir DIR] [--set PATH=VALUE]...\n",
	"Hold a real run against the prediction of its scenario: RUN is a Megatron-LM\n"
	"(or NeMo) training log with its iteration lines (\"elapsed time per iteration\n"
	"(ms)\"); each --nccl FILE an NCCL Inspector Prometheus dump\n"
	"(nccl_bus_bandwidth_gbs, nccl_p2p_bus_bandwidth_gbs).  Prints the measured\n"
	"step time (median, P10, P90 over the iterations) against the predicted band,\n"
	"each measured collective's bus bandwidth against the prediction for the same\n"
	"NCCL operation and rank count, and the collective that deviates most with\n"
	"what it costs the step (its exposed time scaled by predicted over measured\n"
	"bandwidth).  Exit 1 when the measured median is outside the predicted P10-P90.\n",
	check_opts, NULL
};

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

/* Quantile q of sorted v[0..n) (linear between order statistics). */
static double quantile(const double *v, int n, double q)
{
	double pos = q * (n - 1);
	int i = (int)pos;

	return i + 1 < n ? v[i] + (pos - i) * (v[i + 1] - v[i]) : v[n - 1];
}

struct match {
	const struct run_coll *m;
	const struct step_collective *p; /* NULL: no prediction for it */
	double measured_GBps, predicted_GBps, rel, impact_s;
};

/* What the command line asks of a check. */
struct check_request {
	enum cli_format fmt;
	const char *run_path, *nccl[MAX_NCCL_FILES];
	int n_nccl, skip;
};

/* The run held against the prediction. */
struct check_result {
	struct step_result r;
	struct run_log log;
	int n;                   /* iterations after --skip */
	double med, p10, p90;    /* measured step time */
	struct model_quantiles q; /* predicted band */
	double dev;              /* measured median / predicted P50 - 1 */
	bool inside;             /* measured median inside P10-P90 */
	struct match mt[RUN_LOG_MAX_COLLS];
	int worst;               /* the collective that deviates most; -1: none */
};

/* Parse the command line into a and rq; false when the command stops here
 * with its exit code in *code. */
static bool check_parse(int argc, char **argv, struct cli_args *a, struct check_request *rq, int *code)
{
	int c;

	memset(rq, 0, sizeof(*rq));
	rq->fmt = FMT_TEXT;
	rq->skip = 1;
	cli_args_init(a, &check_usage, argc, argv);
	*code = EXIT_USAGE;
	while ((c = cli_next_option(a)) > 0) {
		switch (c) {
		case 's':
			a->scenario_path = a->arg;
			break;
		case 'N' | CLI_KEY_BASE:
			if (rq->n_nccl >= MAX_NCCL_FILES) {
				*code = cli_usage_error("check", "at most %d --nccl files", MAX_NCCL_FILES);
				return false;
			}
			rq->nccl[rq->n_nccl++] = a->arg;
			break;
		case 'S' | CLI_KEY_BASE:
			if (!cli_parse_int("check", "--skip", a->arg, 0, RUN_LOG_MAX_ITERS, &rq->skip))
				return false;
			break;
		case 'f':
			if (!cli_parse_format("check", a->arg, 1u << FMT_TEXT | 1u << FMT_JSON, &rq->fmt))
				return false;
			break;
		}
	}
	if (c == CLI_STOP || !cli_operand(a, &rq->run_path, "missing RUN (a Megatron-LM training log)") ||
	    !cli_operands_end(a)) {
		*code = a->code;
		return false;
	}
	if (!a->scenario_path) {
		*code = cli_usage_error("check", "missing --scenario S (the run's scenario)");
		return false;
	}
	return true;
}

/* The training log and the NCCL Inspector dumps into log. */
static int check_read_run(const struct check_request *rq, struct run_log *log)
{
	struct sc_error err;

	sc_error_clear(&err);
	if (run_log_read_megatron(rq->run_path, log, &err) != SC_OK)
		return cli_fail(&err);
	for (int i = 0; i < rq->n_nccl; i++)
		if (run_log_read_nccl_prom(rq->nccl[i], log, &err) != SC_OK)
			return cli_fail(&err);
	return EXIT_OK;
}

/* The measured step time's median, P10 and P90 over the iterations kept,
 * against the band predict prints (its regime's, step.h sim_step_band). */
static int check_step_time(const struct check_request *rq, const struct scenario *sc, struct check_result *x)
{
	struct model_band b;
	struct sc_error err;
	double *v;

	x->n = x->log.n_iters - rq->skip;
	if (x->n < 1) {
		sc_error_set(&err, SC_EINVAL, rq->run_path, NULL, "%d iteration lines, all skipped (--skip %d)",
			     x->log.n_iters, rq->skip);
		return cli_fail(&err);
	}
	if (!(v = malloc((size_t)x->n * sizeof(*v)))) {
		fprintf(stderr, "stepcast: error: out of memory\n");
		return EXIT_INTERNAL;
	}
	for (int i = 0; i < x->n; i++)
		v[i] = x->log.iters[rq->skip + i].step_s;
	qsort(v, (size_t)x->n, sizeof(*v), cmp_double);
	x->med = quantile(v, x->n, 0.5);
	x->p10 = quantile(v, x->n, 0.1);
	x->p90 = quantile(v, x->n, 0.9);
	free(v);
	b = sim_step_band(sc, &x->r, NULL);
	x->q = model_band_quantiles(&b, x->r.step_time_s);
	x->dev = x->med / x->q.p50 - 1;
	x->inside = x->med >= x->q.p10 && x->med <= x->q.p90;
	return EXIT_OK;
}

/* Each measured collective against the prediction of its NCCL operation
 * and rank count; what a shortfall costs the step: the exposed time of its
 * part, in the share this collective has of the part's work, scaled by
 * predicted / measured bandwidth. */
static void check_collectives(struct check_result *x)
{
	const struct step_result *r = &x->r;

	x->worst = -1;
	for (int i = 0; i < x->log.n_colls; i++) {
		struct match *m = &x->mt[i];
		enum step_part part;
		double sum = 0;

		memset(m, 0, sizeof(*m));
		m->m = &x->log.colls[i];
		m->measured_GBps = m->m->busbw_sum_GBps / m->m->n;
		for (int k = 0; k < r->n_collectives && !m->p; k++) {
			const struct step_collective *pc = &r->collectives[k];
			bool op_ok = m->m->p2p ? pc->op == COLL_SEND_RECV
					       : strcmp(rpt_prom_nccl_collective(pc->op), m->m->collective) == 0;

			if (op_ok && pc->ranks == m->m->nranks)
				m->p = pc;
		}
		if (!m->p)
			continue;
		m->predicted_GBps = rpt_coll_busbw_GBps(m->p);
		m->rel = m->predicted_GBps > 0 ? m->measured_GBps / m->predicted_GBps - 1 : 0;
		part = step_part_of_collective(m->p->what);
		for (int k = 0; k < r->n_collectives; k++)
			if (step_part_of_collective(r->collectives[k].what) == part)
				sum += r->collectives[k].total_time_s;
		if (sum > 0 && m->measured_GBps > 0)
			m->impact_s = r->part_s[part] * (m->p->total_time_s / sum) *
				      (m->predicted_GBps / m->measured_GBps - 1);
		if (x->worst < 0 || fabs(m->rel) > fabs(x->mt[x->worst].rel))
			x->worst = i;
	}
}

static int check_render_json(const struct check_request *rq, const char *scenario_path,
			     const struct check_result *x)
{
	cJSON *root = cJSON_CreateObject(), *cs;
	char *text;

	if (!root)
		return EXIT_INTERNAL;
	cJSON_AddStringToObject(root, "run", rq->run_path);
	cJSON_AddStringToObject(root, "scenario", scenario_path);
	cJSON_AddNumberToObject(root, "iterations", x->n);
	cJSON_AddNumberToObject(root, "measured_step_p10_s", x->p10);
	cJSON_AddNumberToObject(root, "measured_step_p50_s", x->med);
	cJSON_AddNumberToObject(root, "measured_step_p90_s", x->p90);
	cJSON_AddNumberToObject(root, "predicted_step_p10_s", x->q.p10);
	cJSON_AddNumberToObject(root, "predicted_step_p50_s", x->q.p50);
	cJSON_AddNumberToObject(root, "predicted_step_p90_s", x->q.p90);
	cJSON_AddNumberToObject(root, "deviation_rel", x->dev);
	cJSON_AddBoolToObject(root, "inside_band", x->inside);
	cs = cJSON_AddArrayToObject(root, "collectives");
	for (int i = 0; cs && i < x->log.n_colls; i++) {
		const struct match *m = &x->mt[i];
		cJSON *o = cfg_json_push(cs, cJSON_CreateObject());

		if (!o)
			break;
		cJSON_AddStringToObject(o, "collective", m->m->collective);
		cJSON_AddNumberToObject(o, "nranks", m->m->nranks);
		cJSON_AddNumberToObject(o, "samples", m->m->n);
		cJSON_AddNumberToObject(o, "measured_busbw_GBps", m->measured_GBps);
		if (m->p) {
			cJSON_AddStringToObject(o, "group", m->p->what);
			cJSON_AddNumberToObject(o, "predicted_busbw_GBps", m->predicted_GBps);
			cJSON_AddNumberToObject(o, "deviation_rel", m->rel);
			cJSON_AddNumberToObject(o, "step_impact_s", m->impact_s);
		}
		cJSON_AddBoolToObject(o, "deviates_most", i == x->worst);
	}
	text = cJSON_Print(root);
	cJSON_Delete(root);
	if (!text)
		return EXIT_INTERNAL;
	printf("%s\n", text);
	free(text);
	return EXIT_OK;
}

static void check_render_text(const struct check_request *rq, const char *scenario_path,
			      const struct check_result *x)
{
	const struct run_log *log = &x->log;
	const struct match *w = x->worst >= 0 ? &x->mt[x->worst] : NULL;

	printf("run         %s: %d iterations (%ld..%ld), skipped %d\n", rq->run_path, x->n,
	       log->iters[rq->skip].iteration, log->iters[log->n_iters - 1].iteration, rq->skip);
	printf("measured    median %.4g s, P10 %.4g s, P90 %.4g s\n", x->med, x->p10, x->p90);
	printf("predicted   %.4g s, band P10 %.4g s, P50 %.4g s, P90 %.4g s (%s)\n", x->r.step_time_s, x->q.p10,
	       x->q.p50, x->q.p90, scenario_path);
	printf("step time   measured %+.1f %% against the band's P50, %s the band\n", 100 * x->dev,
	       x->inside ? "inside" : x->med > x->q.p90 ? "above" : "below");
	if (log->n_colls > 0)
		printf("\ncollectives (NCCL Inspector)   measured GB/s  predicted GB/s     dev   group  step impact\n");
	for (int i = 0; i < log->n_colls; i++) {
		const struct match *m = &x->mt[i];
		char name[48];

		snprintf(name, sizeof(name), "%s x%d", m->m->collective, m->m->nranks);
		if (m->p)
			printf("  %-28s %14.4g %15.4g %+6.1f %%  %-5s  %+.4g s%s\n", name, m->measured_GBps,
			       m->predicted_GBps, 100 * m->rel, m->p->what, m->impact_s,
			       i == x->worst ? "  <- deviates most" : "");
		else
			printf("  %-28s %14.4g %15s  (no predicted collective of this kind and size)\n", name,
			       m->measured_GBps, "-");
	}
	if (w)
		printf("\nverdict     %s over %d ranks (%s) deviates most: %.1f %% %s its predicted bus "
		       "bandwidth, about %+.3g s of the step (%+.1f %%) of the measured %+.3g s\n",
		       w->m->collective, w->m->nranks, w->p->what, 100 * fabs(w->rel), w->rel < 0 ? "below" : "above",
		       w->impact_s, 100 * w->impact_s / x->r.step_time_s, x->med - x->r.step_time_s);
}

int cmd_check(int argc, char **argv)
{
	struct cli_args a;
	struct check_request rq;
	static struct scenario sc;
	static struct check_result x;
	struct sc_error err;
	int code;

	if (!check_parse(argc, argv, &a, &rq, &code))
		return code;
	if (!cli_setup(&a, &sc))
		return a.code;
	cli_args_free(&a);
	sc_error_clear(&err);
	if (sim_step_predict(&sc, &x.r, &err) != SC_OK)
		return cli_fail_in(&err, a.scenario_path);
	memset(&x.log, 0, sizeof(x.log));
	if ((code = check_read_run(&rq, &x.log)) == EXIT_OK &&
	    (code = check_step_time(&rq, &sc, &x)) == EXIT_OK) {
		check_collectives(&x);
		if (rq.fmt == FMT_JSON)
			code = check_render_json(&rq, a.scenario_path, &x);
		else
			check_render_text(&rq, a.scenario_path, &x);
		if (code == EXIT_OK)
			code = cli_finish(x.inside ? EXIT_OK : EXIT_CHECK_FAILED);
	}
	run_log_free(&x.log);
	return code;
}
