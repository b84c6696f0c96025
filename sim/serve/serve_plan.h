/* serve_plan.h: the cheapest serving deployment that meets a target load.
 *
 * srv_plan() takes a serving scenario as the template (model, number
 * formats, engine, request mix) and, for every instance type asked for,
 * every replica layout that fits (tp over the NVLink domain's divisors of
 * the heads, experts split over tp or not, pipeline stages only when no
 * single-domain layout holds the weights), finds the fewest replicas whose
 * simulated p99 TTFT and p99 TPOT meet the SLOs at the target Poisson rate:
 * one saturated run of a single replica gives a lower bound on the count,
 * then runs at the target rate grow it until the SLOs hold and bisect back
 * to the smallest that does.  Each SLO is met with a margin (by default the
 * instance type's serving calibration's uncertainty: a plan at 49.3 ms of a
 * 50 ms objective does not meet it).  Cost is whole instances at the on-demand
 * price.  Structures are fixed-size and caller-owned (struct srv_plan is
 * large: allocate it statically or on the heap); nothing to free.
 */
#ifndef SC_SERVE_PLAN_H
#define SC_SERVE_PLAN_H

#include "../config/catalog_load.h"
#include "serve.h"

#define SRV_PLAN_MAX_ROWS 256
#define SRV_CURVE_MAX_POINTS 16

struct srv_plan_opts {
	double target_rps;
	double slo_ttft_p99_ms;        /* 0: none */
	double slo_tpot_p99_ms;        /* 0: none */
	const char *const *instances;  /* NULL-terminated names; NULL: the whole catalogue */
	int max_replicas;              /* search limit per layout (0: 1024) */
	/* the margin kept to each SLO, a fraction in [0, 1): a deployment
	 * meets an SLO when its simulated p99 is at most SLO x (1 - margin).
	 * Not given (zeroed options): each instance type's serving
	 * calibration's serve_uncertainty_rel (srv_plan_slo_margin) */
	bool slo_margin_given;
	double slo_margin;
};

/* The margin o keeps to the SLOs on an instance type whose serving
 * calibration is cal: o->slo_margin when given, else the profile's
 * serve_uncertainty_rel (the serving validation's out-of-sample MAPE over
 * throughput, TTFT and TPOT: a plan at the limit holds its SLO when the
 * simulation is as optimistic as it typically is), below 1. */
double srv_plan_slo_margin(const struct srv_plan_opts *o, const struct calibration *cal);

struct srv_plan_row {
	char instance[SC_NAME_MAX];
	char gpu[SC_NAME_MAX];
	struct srv_layout layout;
	bool feasible;
	char reason[SC_ERROR_MSG_MAX]; /* why not, when !feasible */
	int replicas, gpus, nodes;     /* the nodes' GPUs filled with replicas */
	int replicas_needed;           /* the fewest replicas that meet the SLOs */
	double slo_margin;             /* the margin it was planned with (srv_plan_slo_margin) */
	double usd_per_h;
	double usd_per_m_output_tokens;
	double usd_per_m_total_tokens;
	double ttft_p50_s, ttft_p99_s, tpot_p50_s, tpot_p99_s, e2e_p99_s;
	double output_tokens_per_s;
	double requests_per_s;
	double kv_util_mean;
	double replica_capacity_rps;   /* one replica, saturated */
	double decode_step_batch1_s;
	int simulations;
	int requests, warmup_requests; /* of the steady run that met the SLOs (raised from
					  the base's when its window was too short) */
	int sim_replicas;              /* replicas simulated: replicas, or a shard of them */
	bool best;                     /* the cheapest feasible row of its instance type */
	bool too_big;                  /* rejected because the weights do not fit */
};

struct srv_plan {
	double target_rps;
	double slo_ttft_p99_ms, slo_tpot_p99_ms; /* as asked, before the margin */
	bool slo_margin_given;         /* else each row's from its calibration */
	double slo_margin;
	int n_rows;
	struct srv_plan_row rows[SRV_PLAN_MAX_ROWS];
	int best;                      /* overall cheapest feasible row, -1 when none */
	int simulations;
};

struct srv_curve_point {
	double rate_rps;
	double output_tokens_per_s;
	double ttft_p99_s;
	double tpot_p99_s;
	bool slo_met;
};

struct srv_curve {
	char label[128];
	int n;
	struct srv_curve_point pt[SRV_CURVE_MAX_POINTS];
};

/* Plan base's workload at opts->target_rps (Poisson arrivals; the base's
 * requests, warm-up, lengths and seed).  Fails with SC_EINVAL on bad
 * options (no SLO, rate <= 0) or an unknown instance name
 * (SC_ENOTFOUND); layouts that do not fit are rows with a reason. */
enum sc_status srv_plan(const struct srv_scenario *base, const struct catalog *cat,
			const struct srv_plan_opts *opts, struct srv_plan *out,
			struct sc_error *err);

/* The scenario of a plan row: base on the row's instance, layout and
 * replica count, at rate_rps. */
enum sc_status srv_plan_scenario(const struct srv_scenario *base, const struct catalog *cat,
				 const struct srv_plan_row *row, double rate_rps,
				 struct srv_scenario *out, struct sc_error *err);

/* The check by simulation of a sustainable rate: sc at frac x
 * sustainable_rps Poisson arrivals (the scenario's lengths and seed), with
 * the requests raised until the run is steady (up to SC_MAX_REQUESTS);
 * *out is that run, its verdict against sustainable_rps. */
#define SRV_SUSTAINABLE_CHECK_FRAC 0.9
enum sc_status srv_check_rate(const struct srv_scenario *sc, double sustainable_rps, double frac,
			      struct srv_result *out, struct sc_error *err);

/* The largest Poisson rate at which sc's deployment meets sc's p99 TTFT
 * and TPOT objectives in a steady run: what MLPerf LoadGen's Server
 * scenario reports (the highest target QPS whose p99 first-token and
 * per-token latencies are within the benchmark's limits).  Bisection on
 * (0, sustainable rate] until the bracket is within SRV_MAX_RATE_REL_TOL
 * of its top, each rate checked by srv_check_rate; *rate 0 when not even
 * a trickle meets them.  *at is the run at *rate.  Needs an SLO. */
#define SRV_MAX_RATE_REL_TOL 0.02
enum sc_status srv_max_rate(const struct srv_scenario *sc, double *rate, struct srv_result *at,
			    struct sc_error *err);

/* A scenario whose layout is not stated (layout_gpus > 0): the best layout
 * of its GPUs, written into sc->replica and sc->replicas.  Candidates: tp
 * a power of two that divides the heads (the layout owner's rule) within
 * the NVLink domain, the stated pp (else 1) and ep (else 1, or tp for an
 * MoE model whose experts divide by it), replicas = gpus / (tp x pp).
 * Best: meets the scenario's SLOs (and, for an open loop, is stable),
 * then the highest sustainable rate (srv_capacity), then fewer GPUs per
 * replica.  why says what was chosen among how many.  SC_ERANGE when no
 * candidate holds the model. */
enum sc_status srv_pick_layout(struct srv_scenario *sc, char *why, size_t why_n,
			       struct sc_error *err);

/* Latency against throughput of sc at the n Poisson rates (requests/s),
 * labelled label.  n <= SRV_CURVE_MAX_POINTS. */
enum sc_status srv_curve(const struct srv_scenario *sc, const double *rates_rps, int n,
			 const char *label, struct srv_curve *out, struct sc_error *err);

#endif
