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

static enum step_part part_of_group(const char *what)
{
	if (strcmp(what, "tp") == 0 || strcmp(what, "etp") == 0)
		return PART_TP_COMM;
	if (strcmp(what, "cp") == 0)
		return PART_CP_COMM;
	if (strcmp(what, "ep") == 0)
		return PART_EP_COMM;
	if (strcmp(what, "pp") == 0)
		return PART_PP_COMM;
	return PART_DP_COMM;
}

struct match {
	const struct run_coll *m;
	const struct step_collective *p; /* NULL: no prediction for it */
	double measured_GBps, predicted_GBps, rel, impact_s;
};

int cmd_check(int argc, char **argv)
{
	struct cli_args a;
	enum cli_format fmt = FMT_TEXT;
	const char *run_path, *nccl[MAX_NCCL_FILES];
	int n_nccl = 0, skip = 1, c, n, worst = -1;
	static struct scenario sc;
	struct step_result r;
	struct run_log log;
	struct sc_error err;
	struct match mt[RUN_LOG_MAX_COLLS];
	double *v, med, p10, p90, dev;
	struct model_quantiles q;
	bool inside;

	cli_args_init(&a, &check_usage, argc, argv);
	while ((c = cli_next_option(&a)) > 0) {
		switch (c) {
		case 's':
			a.scenario_path = a.arg;
			break;
		case 'N' | CLI_KEY_BASE:
			if (n_nccl >= MAX_NCCL_FILES)
				return cli_usage_error("check", "at most %d --nccl files", MAX_NCCL_FILES);
			nccl[n_nccl++] = a.arg;
			break;
		case 'S' | CLI_KEY_BASE:
			if (!cli_parse_int("check", "--skip", a.arg, 0, RUN_LOG_MAX_ITERS, &skip))
				return EXIT_USAGE;
			break;
		case 'f':
			if (!cli_parse_format("check", a.arg, 1u << FMT_TEXT | 1u << FMT_JSON, &fmt))
				return EXIT_USAGE;
			break;
		}
	}
	if (c == CLI_STOP || !cli_operand(&a, &run_path, "missing RUN (a Megatron-LM training log)") ||
	    !cli_operands_end(&a))
		return a.code;
	if (!a.scenario_path)
		return cli_usage_error("check", "missing --scenario S (the run's scenario)");
	if (!cli_setup(&a, &sc))
		return a.code;
	cli_args_free(&a);
	sc_error_clear(&err);
	if (sim_step_predict(&sc, &r, &err) != SC_OK)
		return cli_fail_in(&err, a.scenario_path);
	memset(&log, 0, sizeof(log));
	if (run_log_read_megatron(run_path, &log, &err) != SC_OK) {
		run_log_free(&log);
		return cli_fail(&err);
	}
	for (int i = 0; i < n_nccl; i++)
		if (run_log_read_nccl_prom(nccl[i], &log, &err) != SC_OK) {
			run_log_free(&log);
			return cli_fail(&err);
		}
	n = log.n_iters - skip;
	if (n < 1) {
		sc_error_set(&err, SC_EINVAL, run_path, NULL, "%d iteration lines, all skipped (--skip %d)",
			     log.n_iters, skip);
		run_log_free(&log);
		return cli_fail(&err);
	}
	if (!(v = malloc((size_t)n * sizeof(*v)))) {
		run_log_free(&log);
		fprintf(stderr, "stepcast: error: out of memory\n");
		return EXIT_INTERNAL;
	}
	for (int i = 0; i < n; i++)
		v[i] = log.iters[skip + i].step_s;
	qsort(v, (size_t)n, sizeof(*v), cmp_double);
	med = quantile(v, n, 0.5);
	p10 = quantile(v, n, 0.1);
	p90 = quantile(v, n, 0.9);
	free(v);
	{
		/* the band predict prints: its regime's (step.h sim_step_band) */
		struct model_band b = sim_step_band(&sc, &r, NULL);

		q = model_band_quantiles(&b, r.step_time_s);
	}
	dev = med / q.p50 - 1;
	inside = med >= q.p10 && med <= q.p90;

	/* each measured collective against the prediction of its NCCL
	 * operation and rank count; what a shortfall costs the step: the
	 * exposed time of its part, in the share this collective has of the
	 * part's work, scaled by predicted / measured bandwidth */
	for (int i = 0; i < log.n_colls; i++) {
		struct match *x = &mt[i];

		memset(x, 0, sizeof(*x));
		x->m = &log.colls[i];
		x->measured_GBps = x->m->busbw_sum_GBps / x->m->n;
		for (int k = 0; k < r.n_collectives && !x->p; k++) {
			const struct step_collective *pc = &r.collectives[k];
			bool op_ok = x->m->p2p ? pc->op == COLL_SEND_RECV
					       : strcmp(rpt_prom_nccl_collective(pc->op), x->m->collective) == 0;

			if (op_ok && pc->ranks == x->m->nranks)
				x->p = pc;
		}
		if (!x->p)
			continue;
		x->predicted_GBps = rpt_coll_busbw_GBps(x->p);
		x->rel = x->predicted_GBps > 0 ? x->measured_GBps / x->predicted_GBps - 1 : 0;
		{
			enum step_part part = part_of_group(x->p->what);
			double sum = 0;

			for (int k = 0; k < r.n_collectives; k++)
				if (part_of_group(r.collectives[k].what) == part)
					sum += r.collectives[k].total_time_s;
			if (sum > 0 && x->measured_GBps > 0)
				x->impact_s = r.part_s[part] * (x->p->total_time_s / sum) *
					      (x->predicted_GBps / x->measured_GBps - 1);
		}
		if (worst < 0 || fabs(x->rel) > fabs(mt[worst].rel))
			worst = i;
	}

	if (fmt == FMT_JSON) {
		cJSON *root = cJSON_CreateObject(), *cs;
		char *text;

		if (!root) {
			run_log_free(&log);
			return EXIT_INTERNAL;
		}
		cJSON_AddStringToObject(root, "run", run_path);
		cJSON_AddStringToObject(root, "scenario", a.scenario_path);
		cJSON_AddNumberToObject(root, "iterations", n);
		cJSON_AddNumberToObject(root, "measured_step_p10_s", p10);
		cJSON_AddNumberToObject(root, "measured_step_p50_s", med);
		cJSON_AddNumberToObject(root, "measured_step_p90_s", p90);
		cJSON_AddNumberToObject(root, "predicted_step_p10_s", q.p10);
		cJSON_AddNumberToObject(root, "predicted_step_p50_s", q.p50);
		cJSON_AddNumberToObject(root, "predicted_step_p90_s", q.p90);
		cJSON_AddNumberToObject(root, "deviation_rel", dev);
		cJSON_AddBoolToObject(root, "inside_band", inside);
		cs = cJSON_AddArrayToObject(root, "collectives");
		for (int i = 0; cs && i < log.n_colls; i++) {
			cJSON *o = cJSON_CreateObject();

			if (!o || !cJSON_AddItemToArray(cs, o)) {
				cJSON_Delete(o);
				break;
			}
			cJSON_AddStringToObject(o, "collective", mt[i].m->collective);
			cJSON_AddNumberToObject(o, "nranks", mt[i].m->nranks);
			cJSON_AddNumberToObject(o, "samples", mt[i].m->n);
			cJSON_AddNumberToObject(o, "measured_busbw_GBps", mt[i].measured_GBps);
			if (mt[i].p) {
				cJSON_AddStringToObject(o, "group", mt[i].p->what);
				cJSON_AddNumberToObject(o, "predicted_busbw_GBps", mt[i].predicted_GBps);
				cJSON_AddNumberToObject(o, "deviation_rel", mt[i].rel);
				cJSON_AddNumberToObject(o, "step_impact_s", mt[i].impact_s);
			}
			cJSON_AddBoolToObject(o, "deviates_most", i == worst);
		}
		text = cJSON_Print(root);
		cJSON_Delete(root);
		if (!text) {
			run_log_free(&log);
			return EXIT_INTERNAL;
		}
		printf("%s\n", text);
		free(text);
	} else {
		printf("run         %s: %d iterations (%ld..%ld), skipped %d\n", run_path, n, log.iters[skip].iteration,
		       log.iters[log.n_iters - 1].iteration, skip);
		printf("measured    median %.4g s, P10 %.4g s, P90 %.4g s\n", med, p10, p90);
		printf("predicted   %.4g s, band P10 %.4g s, P50 %.4g s, P90 %.4g s (%s)\n", r.step_time_s, q.p10, q.p50, q.p90,
		       a.scenario_path);
		printf("step time   measured %+.1f %% against the band's P50, %s the band\n", 100 * dev,
		       inside ? "inside" : med > q.p90 ? "above" : "below");
		if (log.n_colls > 0) {
			printf("\ncollectives (NCCL Inspector)   measured GB/s  predicted GB/s     dev   group  step impact\n");
			for (int i = 0; i < log.n_colls; i++) {
				char name[48];

				snprintf(name, sizeof(name), "%s x%d", mt[i].m->collective, mt[i].m->nranks);
				if (mt[i].p)
					printf("  %-28s %14.4g %15.4g %+6.1f %%  %-5s  %+.4g s%s\n", name, mt[i].measured_GBps,
					       mt[i].predicted_GBps, 100 * mt[i].rel, mt[i].p->what, mt[i].impact_s,
					       i == worst ? "  <- deviates most" : "");
				else
					printf("  %-28s %14.4g %15s  (no predicted collective of this kind and size)\n", name,
					       mt[i].measured_GBps, "-");
			}
		}
		if (worst >= 0)
			printf("\nverdict     %s over %d ranks (%s) deviates most: %.1f %% %s its predicted bus "
			       "bandwidth, about %+.3g s of the step (%+.1f %%) of the measured %+.3g s\n",
			       mt[worst].m->collective, mt[worst].m->nranks, mt[worst].p->what, 100 * fabs(mt[worst].rel),
			       mt[worst].rel < 0 ? "below" : "above", mt[worst].impact_s,
			       100 * mt[worst].impact_s / r.step_time_s, med - r.step_time_s);
	}
	run_log_free(&log);
	return cli_finish(inside ? EXIT_OK : EXIT_CHECK_FAILED);
}
