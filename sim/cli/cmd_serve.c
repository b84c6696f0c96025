/* cmd_serve.c: `stepcast serve SCENARIO`: simulate serving a model on
 * replicas (TTFT, TPOT, throughput, KV cache, cost), or, with
 * --target-rate, plan the cheapest replica layout and count per instance
 * type that meets p99 TTFT and TPOT objectives. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../reports/rpt_prom.h"
#include "../../reports/rpt_serve.h"
#include "../../models/limits.h"
#include "../serve/serve_config.h"
#include "../serve/serve_plan.h"
#include "../serve/serve_sim.h"
#include "cli.h"
#include "cli_args.h"
#include "cli_progress.h"
#include "cli_set.h"
#include "cli_output.h"

#define MAX_INSTANCES 32

static const struct cli_opt serve_instance_opts[] = {
	CLI_OPT_GROUP(cli_opts_set),
	{ "instance", CLI_OPT_INSTANCE, "NAME", "the same as --set instance=NAME", NULL },
	CLI_OPT_END
};

static const struct cli_opt serve_opts[] = {
	{ "format", 'f', "FMT", "text (default), json, csv or prom (Prometheus text\n"
				"exposition; not with --target-rate)", NULL },
	CLI_OPT_GROUP(cli_opts_calibration),
	CLI_OPT_GROUP(cli_opts_config_dir),
	{ "seed", 's', "N", "random seed of the workload (default: the scenario's)", NULL },
	{ "requests", 'n', "N", "requests to simulate (default: the scenario's)", NULL },
	{ "svg", 'g', "FILE", "write p99 TTFT and TPOT against throughput (SVG): the\n"
			      "scenario at 25-150 % of its rate, or with a plan the\n"
			      "best layout of each instance type at 25-150 % of R", NULL },
	{ "target-rate", 'r', "R", "plan for R requests/s (Poisson arrivals)", NULL },
	{ "slo-ttft-p99", 't', "MS", "p99 time-to-first-token objective (default: the\n"
				     "scenario's slo)", NULL },
	{ "slo-tpot-p99", 'p', "MS", "p99 time-per-output-token objective (default: the\n"
				     "scenario's slo)", NULL },
	{ "instances", 'i', "LIST", "instance types to plan on, comma-separated (default:\n"
				    "every instance type of the catalogue)", NULL },
	{ "slo-margin", 'm', "PCT", "with --target-rate: plan each p99 to at most\n"
				    "(100 - PCT) % of its objective, so that a deployment\n"
				    "at 49.3 ms of a 50 ms SLO does not meet it (default:\n"
				    "each instance type's serving calibration uncertainty,\n"
				    "serve_uncertainty_rel, e.g. 30 on Hopper; 0: none)", NULL },
	CLI_OPT_GROUP_AT(serve_instance_opts, 26),
	CLI_OPT_GROUP_AT(cli_opts_quiet, 26),
	CLI_OPT_GROUP(cli_opts_help),
	CLI_OPT_END
};

static const struct cli_usage serve_usage = {
	"usage: stepcast serve SCENARIO [--format text|json|csv|prom] [--calibration NAME]\n"
	"                      [--config-dir DIR] [--seed N] [--requests N] [--svg FILE]\n"
	"                      [--target-rate R [--slo-ttft-p99 MS] [--slo-tpot-p99 MS]\n"
	"                       [--instances A,B,...] [--slo-margin PCT]]\n",
	"Simulate serving SCENARIO (a serving scenario, see scenarios/serve-*.json):\n"
	"requests arrive, replicas batch them iteration by iteration (continuous batching,\n"
	"chunked prefill, paged KV cache, preemption), and the report gives TTFT, TPOT and\n"
	"end-to-end latency distributions, throughput, KV-cache use and cost.\n"
	"\n"
	"With --target-rate, plan instead: for every instance type (or those of\n"
	"--instances) and every replica layout that fits, the fewest replicas whose p99\n"
	"TTFT and p99 TPOT meet the objectives at R requests/s, with $/hour and $ per\n"
	"million output tokens; the cheapest is the answer.\n",
	serve_opts,
	"\n"
	"Exit status 1 when the scenario's SLOs are not met, or no layout meets them;\n"
	"6 when requests arrive faster than the deployment's sustainable rate (unstable:\n"
	"the queue grows without bound; the sustainable rate is reported, checked by a\n"
	"simulation at 90 % of it) or the run is too short to reach steady state.\n",
	27
};

static bool parse_pos(const char *cmd, const char *opt, const char *arg, double *out)
{
	char *end;
	double v = strtod(arg, &end);

	if (end == arg || *end || !(v > 0) || v > 1e12) {
		cli_usage_error(cmd, "%s needs a positive number, got '%s'", opt, arg);
		return false;
	}
	*out = v;
	return true;
}

static int write_svg(const char *path, const char *title, const struct srv_curve *c, int n,
		     double ttft_ms, double tpot_ms)
{
	struct cli_output o;
	int code;

	if ((code = cli_output_open(&o, path)) != EXIT_OK)
		return code;
	rpt_serve_svg(o.f, title, c, n, ttft_ms, tpot_ms);
	return cli_output_close(&o, true);
}

static const double sweep[] = { 0.25, 0.5, 0.75, 0.9, 1.0, 1.1, 1.25, 1.5 };
#define N_SWEEP ((int)(sizeof(sweep) / sizeof(sweep[0])))

static int run_plan(struct srv_scenario *sc, const struct catalog *cat, double rate,
		    double ttft_ms, double tpot_ms, double margin, char *instances, enum cli_format fmt,
		    const char *svg)
{
	const char *names[MAX_INSTANCES + 1];
	struct srv_plan_opts opts;
	struct srv_plan *plan = malloc(sizeof(*plan));
	struct sc_error err;
	enum sc_status st;
	int n = 0, code = EXIT_OK;

	if (!plan) {
		fprintf(stderr, "stepcast: error: out of memory\n");
		return EXIT_INTERNAL;
	}
	memset(&opts, 0, sizeof(opts));
	opts.target_rps = rate;
	opts.slo_ttft_p99_ms = ttft_ms;
	opts.slo_tpot_p99_ms = tpot_ms;
	opts.slo_margin_given = margin >= 0;   /* else each instance type's calibration's */
	opts.slo_margin = margin;
	if (instances) {
		char *save = NULL;
		for (char *t = strtok_r(instances, ",", &save); t && n < MAX_INSTANCES;
		     t = strtok_r(NULL, ",", &save))
			names[n++] = t;
		names[n] = NULL;
		opts.instances = names;
	}
	cli_progress_begin("serve");
	st = srv_plan(sc, cat, &opts, plan, &err);
	cli_progress_end();
	if (st != SC_OK) {
		free(plan);
		return cli_fail(&err);
	}
	switch (fmt) {
	case FMT_JSON:
		if (!rpt_plan_json(stdout, sc, plan))
			code = EXIT_INTERNAL;
		break;
	case FMT_CSV:
		rpt_plan_csv(stdout, sc, plan);
		break;
	default:
		rpt_plan_text(stdout, sc, plan);
		break;
	}
	if (code == EXIT_OK && svg) {
		static struct srv_curve curves[SRV_PLAN_MAX_ROWS];
		static struct srv_scenario s;
		double rates[N_SWEEP];
		char title[256];
		int nc = 0;

		for (int k = 0; k < N_SWEEP; k++)
			rates[k] = sweep[k] * rate;
		for (int i = 0; i < plan->n_rows; i++) {
			const struct srv_plan_row *r = &plan->rows[i];
			char label[128];

			if (!r->best)
				continue;
			snprintf(label, sizeof(label), "%s: %d x (tp %d pp %d ep %d)", r->instance,
				 r->replicas, r->layout.tp, r->layout.pp, r->layout.ep);
			if (srv_plan_scenario(sc, cat, r, rate, &s, &err) != SC_OK ||
			    srv_curve(&s, rates, N_SWEEP, label, &curves[nc], &err) != SC_OK) {
				free(plan);
				return cli_fail(&err);
			}
			nc++;
		}
		snprintf(title, sizeof(title), "%s: p99 latency against throughput, best layout per instance type",
			 sc->arch.m.name);
		code = write_svg(svg, title, curves, nc, ttft_ms, tpot_ms);
	}
	if (code == EXIT_OK && plan->best < 0) {
		/* say what the largest search would sustain at all */
		double most = 0;
		int at = -1, max_n = opts.max_replicas > 0 ? opts.max_replicas : 1024;

		for (int i = 0; i < plan->n_rows; i++)
			if (plan->rows[i].replica_capacity_rps * max_n > most) {
				most = plan->rows[i].replica_capacity_rps * max_n;
				at = i;
			}
		if (at >= 0 && most < rate)
			fprintf(stderr, "stepcast: serve: unstable: %.4g requests/s is above the sustainable rate of any deployment searched (at most %.4g requests/s: %d replicas of tp %d pp %d on %s)\n",
				rate, most, max_n, plan->rows[at].layout.tp, plan->rows[at].layout.pp,
				plan->rows[at].instance);
		else
			fprintf(stderr, "stepcast: serve: no layout meets the objectives at %.4g requests/s\n", rate);
		code = EXIT_CHECK_FAILED;
	}
	free(plan);
	return code;
}

static int run_once(struct srv_scenario *sc, enum cli_format fmt, const char *svg)
{
	struct srv_result r;
	struct sc_error err;
	int code = EXIT_OK;

	enum sc_status st;

	cli_progress_begin("serve");
	st = srv_simulate_checked(sc, &r, &err);
	cli_progress_end();
	if (st != SC_OK) {
		if (!err.file[0])
			snprintf(err.file, sizeof(err.file), "%s", sc->file);
		return cli_fail(&err);
	}
	if (sc->workload.mlperf == SRV_MLPERF_SERVER && r.slo_given) {
		/* MLPerf Server: the result is the largest rate meeting the limits */
		static struct srv_result at;
		double best = 0;

		if (srv_max_rate(sc, &best, &at, &err) != SC_OK)
			return cli_fail(&err);
		r.max_rate_done = true;
		r.max_rate_rps = best;
		r.max_rate_output_tokens_per_s = at.output_tokens_per_s;
		r.max_rate_ttft_p99_s = at.ttft_s.p99;
		r.max_rate_tpot_p99_s = at.tpot_s.p99;
	}
	switch (fmt) {
	case FMT_JSON:
		if (!rpt_serve_json(stdout, sc, &r)) {
			fprintf(stderr, "stepcast: error: out of memory\n");
			return EXIT_INTERNAL;
		}
		break;
	case FMT_CSV:
		rpt_serve_csv(stdout, sc, &r);
		break;
	case FMT_PROM: {
		char label[256];

		rpt_prom_serve(stdout, rpt_prom_scenario_label(sc->file, label, sizeof(label)), sc, &r);
		break;
	}
	default:
		rpt_serve_text(stdout, sc, &r);
		break;
	}
	if (svg) {
		static struct srv_curve curve;
		double base = sc->workload.arrival == SRV_ARRIVAL_POISSON ? sc->workload.rate_rps
									  : r.requests_per_s;
		double rates[N_SWEEP];
		char label[160], title[256];

		for (int k = 0; k < N_SWEEP; k++)
			rates[k] = sweep[k] * base;
		snprintf(label, sizeof(label), "%s: %d x (tp %d pp %d ep %d)", sc->instance.name,
			 sc->replicas, sc->replica.tp, sc->replica.pp, sc->replica.ep);
		if (srv_curve(sc, rates, N_SWEEP, label, &curve, &err) != SC_OK)
			return cli_fail(&err);
		snprintf(title, sizeof(title), "%s: p99 latency against throughput", sc->arch.m.name);
		if ((code = write_svg(svg, title, &curve, 1, sc->slo.ttft_p99_ms,
				      sc->slo.tpot_p99_ms)) != EXIT_OK)
			return code;
	}
	if (!r.stable) {
		static struct srv_result chk;

		fprintf(stderr, "stepcast: serve: unstable: requests arrive at %.4g/s, above the sustainable rate of %.4g/s of %d replicas; the queue grows without bound\n",
			r.offered_rps, r.sustainable_rps, sc->replicas);
		/* the sustainable rate checked by simulation */
		if (srv_check_rate(sc, r.sustainable_rps, SRV_SUSTAINABLE_CHECK_FRAC, &chk, &err) == SC_OK)
			fprintf(stderr, "stepcast: serve: at %.4g requests/s (%.0f %% of it, %d requests) the simulation is %s: p99 TTFT %.1f ms, p99 TPOT %.1f ms\n",
				SRV_SUSTAINABLE_CHECK_FRAC * r.sustainable_rps, 100 * SRV_SUSTAINABLE_CHECK_FRAC,
				chk.requests, chk.steady ? "steady" : !chk.stable ? "unstable" : "not steady",
				chk.ttft_s.p99 * 1e3, chk.tpot_s.p99 * 1e3);
		return EXIT_UNSTABLE;
	}
	if (!r.steady) {
		fprintf(stderr, "stepcast: serve: not steady: the %.3g s measurement window spans fewer than %.0f mean request lifetimes (%.3g s); run with --requests %d or more\n",
			r.duration_s, SRV_STEADY_LIFETIMES, r.e2e_s.mean, r.steady_requests);
		return EXIT_UNSTABLE;
	}
	if (r.slo_given && !r.slo_met)
		code = EXIT_CHECK_FAILED;
	return code;
}

int cmd_serve(int argc, char **argv)
{
	struct cli_args a;
	enum cli_format fmt = FMT_TEXT;
	const char *dir, *path, *calib, *svg = NULL;
	char *instances = NULL;
	double rate = 0, ttft_ms = 0, tpot_ms = 0, v, margin = -1;
	long seed = -1, requests = -1;
	struct catalog cat;
	static struct srv_scenario sc;
	struct sc_error err;
	int c, code;
	char *end;

	cli_args_init(&a, &serve_usage, argc, argv);
	a.set_prefix = ""; /* --instance: a serving scenario's "instance" */
	while ((c = cli_next_option(&a)) > 0) {
		const char *optarg = a.arg; /* getopt's name: the cases read as before */

		switch (c) {
		case 'f':
			if (!cli_parse_format("serve", optarg,
					      1u << FMT_TEXT | 1u << FMT_JSON | 1u << FMT_CSV | 1u << FMT_PROM,
					      &fmt))
				return EXIT_USAGE;
			break;
		case 's':
			seed = strtol(optarg, &end, 10);
			if (end == optarg || *end || seed < 0 || seed > 2147483647L)
				return cli_usage_error("serve", "--seed needs an integer from 0 to 2147483647, got '%s'", optarg);
			break;
		case 'n':
			requests = strtol(optarg, &end, 10);
			if (end == optarg || *end || requests < 1 || requests > SC_MAX_REQUESTS)
				return cli_usage_error("serve", "--requests needs an integer from 1 to %d, got '%s'",
						       SC_MAX_REQUESTS, optarg);
			break;
		case 'g':
			svg = optarg;
			break;
		case 'r':
			if (!parse_pos("serve", "--target-rate", optarg, &rate))
				return EXIT_USAGE;
			break;
		case 't':
			if (!parse_pos("serve", "--slo-ttft-p99", optarg, &v))
				return EXIT_USAGE;
			ttft_ms = v;
			break;
		case 'p':
			if (!parse_pos("serve", "--slo-tpot-p99", optarg, &v))
				return EXIT_USAGE;
			tpot_ms = v;
			break;
		case 'i':
			instances = (char *)optarg; /* argv: run_plan splits it in place */
			break;
		case 'm':
			margin = strtod(optarg, &end);
			if (end == optarg || *end || !(margin >= 0 && margin < 100))
				return cli_usage_error("serve", "--slo-margin needs a percentage from 0 to below 100, got '%s'", optarg);
			margin /= 100;
			break;
		}
	}
	if (c == CLI_STOP || !cli_operand(&a, &path, "missing SCENARIO file") || !cli_operands_end(&a))
		return a.code;
	dir = a.config_dir;
	calib = a.calibration;
	if (instances && !(rate > 0))
		return cli_usage_error("serve", "--instances is only used with --target-rate");
	if (margin >= 0 && !(rate > 0))
		return cli_usage_error("serve", "--slo-margin is only used with --target-rate");
	if (fmt == FMT_PROM && rate > 0)
		return cli_usage_error("serve", "--format prom is for one simulation, not with --target-rate");

	if ((code = cli_srv_load(dir, path, &cat, &sc)) != EXIT_OK)
		return code;
	sc_error_clear(&err);
	if (calib && calibration_select(&cat, &sc.gpu, calib, NULL, "--calibration", NULL, &sc.calibration,
					&err) != SC_OK) {
		code = cli_fail(&err);
		catalog_free(&cat);
		return code;
	}
	if (seed >= 0)
		sc.workload.seed = (int)seed;
	if (requests > 0) {
		sc.workload.requests = (int)requests;
		if (sc.workload.warmup_requests >= sc.workload.requests)
			sc.workload.warmup_requests = sc.workload.requests / 10;
	}
	if (ttft_ms > 0)
		sc.slo.ttft_p99_ms = ttft_ms;
	if (tpot_ms > 0)
		sc.slo.tpot_p99_ms = tpot_ms;
	if (rate <= 0 && sc.layout_gpus > 0) {
		/* the layout is not stated: the best of the scenario's GPUs */
		char why[512];

		if (srv_pick_layout(&sc, why, sizeof(why), &err) != SC_OK) {
			catalog_free(&cat);
			return cli_fail(&err);
		}
		sc.layout_gpus = 0;   /* the report says how (layout_note) */
	}
	if (rate > 0) {
		if (!(sc.slo.ttft_p99_ms > 0) && !(sc.slo.tpot_p99_ms > 0)) {
			catalog_free(&cat);
			return cli_usage_error("serve", "--target-rate needs --slo-ttft-p99 or --slo-tpot-p99 (or an slo in the scenario)");
		}
		code = run_plan(&sc, &cat, rate, sc.slo.ttft_p99_ms, sc.slo.tpot_p99_ms, margin, instances,
				fmt, svg);
	} else {
		code = run_once(&sc, fmt, svg);
	}
	catalog_free(&cat);
	return cli_finish(code);
}
