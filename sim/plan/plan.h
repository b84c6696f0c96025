/* plan.h: capacity plans.  plan_run() answers "how many nodes, which
 * layout, how long and how much to train this token budget (by this
 * deadline)" for one instance type; compare_run() answers it for several
 * instance types and says which wins on time and which on cost.
 *
 * Both search the layouts (sim/search) at each node count of a sweep and
 * turn the best layout's throughput into time and money with
 * plan_time_to_train() (cost.h), the one hook the goodput model extends.
 *
 * Ownership: plan_result and compare_result own their arrays; the caller
 * releases them with plan_result_free / compare_result_free (also after an
 * error).  Nothing here prints.
 */
#ifndef SC_PLAN_H
#define SC_PLAN_H

#include <stdbool.h>

#include "../../models/uncertainty.h"
#include "../config/catalog_load.h"
#include "../search/search.h"
#include "cost.h"

#define PLAN_MAX_SWEEP 64

struct plan_opts {
	double tokens;             /* the budget, > 0 */
	double deadline_s;         /* 0: none */
	int nodes;                 /* fixed node count; 0: sweep and choose */
	int max_nodes;             /* top of the sweep; 0: PLAN_DEFAULT_MAX_NODES */
	enum plan_pricing pricing; /* what "cost" means when choosing; one the instance
				      is sold under (purchase_default_pricing) */
	struct search_space space; /* layouts searched at each node count */
	int sweep[PLAN_MAX_SWEEP]; /* node counts to evaluate; n_sweep 0: the ladder */
	int n_sweep;
	const struct placement *pool; /* --placement: the cluster's instances in the order
				      the scheduler hands them out; at each count N the
				      job takes the first N (counts beyond it are not
				      planned: infeasible); NULL: packed */
	double confidence;         /* the quantile of the time to train that must meet the
				      deadline, and the confidence of compare's decisions,
				      in (0, 1); 0: PLAN_DEFAULT_CONFIDENCE.  0.5: the median
				      (the point prediction, unbiased band) */
};

#define PLAN_DEFAULT_MAX_NODES 4096
#define PLAN_DEFAULT_CONFIDENCE MODEL_DECISION_CONFIDENCE

/* o's confidence, PLAN_DEFAULT_CONFIDENCE when unset. */
double plan_confidence(const struct plan_opts *o);

/* One node count of the sweep. */
struct plan_point {
	int nodes;
	int gpus;
	bool feasible;               /* some layout fits */
	struct search_row best;      /* the fastest layout (objective time_to_train) */
	struct plan_train train[PRICING_COUNT]; /* time and cost per pricing model
						  (usd fields 0 when not offered), at the
						  point prediction of the step time */
	struct model_band band;      /* of the best layout's step time (sim_step_band: its regime's) */
	int regime;                  /* enum model_regime of band; REGIME_COUNT: the calibration's */
	struct model_quantiles time_q_s; /* time to train at the step time's P10, P50, P90 */
	double time_conf_s;          /* time to train at the plan's confidence */
	bool meets_deadline;         /* time_conf_s <= the deadline */
	long long layouts;           /* layouts searched at this count */
};

enum plan_choice {
	PLAN_CHOSEN_NODES,       /* the node count asked for */
	PLAN_CHOSEN_DEADLINE,    /* the cheapest that meets the deadline */
	PLAN_MISSED_DEADLINE,    /* none meets it: the fastest */
	PLAN_INFEASIBLE          /* no layout fits at any node count */
};

#define PLAN_TIE_BREAK "fewer nodes, then faster"

struct plan_result {
	struct plan_point *points;   /* ascending node counts */
	int n_points;
	int chosen;                  /* index into points; -1 when infeasible */
	enum plan_choice choice;
	/* PLAN_CHOSEN_DEADLINE: the point-cheapest count and the counts whose
	 * cost is inside its band (model_band_order at the plan's confidence,
	 * independent errors: not surely dearer), itself included; chosen is
	 * the one of them PLAN_TIE_BREAK picks.  n_tied 1: no tie. */
	int point_cheapest;
	int n_tied;
	int tied[PLAN_MAX_SWEEP + 1];  /* indices into points, ascending */
};

/* Defaults: no deadline, no fixed nodes, on-demand, default space, the
 * ladder 1, 2, 3, 4, 6, 8, 12, ... up to PLAN_DEFAULT_MAX_NODES. */
void plan_opts_default(struct plan_opts *o);

/* Plan sc's model and training on sc's instance type.  With o->nodes the
 * sweep is that count alone; else o->sweep or the ladder.  Chooses the
 * node count: the one asked for, or the cheapest under o->pricing that
 * meets o->deadline_s, or the fastest when none does.  Cheapest is decided
 * by the one rule (model_band_order at o's confidence): counts whose cost is
 * inside the point-cheapest one's band are tied with it, and among them
 * PLAN_TIE_BREAK picks (res->tied).
 * An UltraServer-only instance (models/purchase.h) is planned in whole
 * UltraServers: the ladder counts UltraServers, and o->nodes / o->sweep must
 * be multiples of its size.  Errors: SC_EINVAL (no budget, a bad sweep, a
 * pricing the instance is not sold under, a count that is not whole
 * UltraServers), SC_EUNSUPPORTED (the GPU lacks the precision), SC_ENOMEM. */
enum sc_status plan_run(const struct scenario *sc, const struct plan_opts *o,
			struct plan_result *res, struct sc_error *err);
void plan_result_free(struct plan_result *res);

/* plan_run's cheapest choice over res->points (feasible, and meeting the
 * deadline when need_deadline): the point-cheapest under pricing, the counts
 * tied with it at confidence (res->tied), and PLAN_TIE_BREAK's pick among
 * them into res->chosen.  Returns it, or -1 when no point qualifies. */
int plan_pick_cheapest(struct plan_result *res, bool need_deadline, enum plan_pricing pricing,
		       double confidence);

/* ---- compare ------------------------------------------------------------------- */

#define COMPARE_MAX_INSTANCES 16
#define COMPARE_NOTE_MAX 256

struct compare_entry {
	struct instance_spec instance;
	char gpu[SC_NAME_MAX];
	char calibration[SC_NAME_MAX];
	enum sc_precision precision;  /* the scenario's, or bf16 when the GPU lacks it */
	double uncertainty_rel;       /* the calibration's +- on step times */
	char note[COMPARE_NOTE_MAX];  /* why something differs from the scenario; "" */
	struct plan_result plan;      /* at the compared node count, plus the sweep */
};

struct compare_result {
	struct compare_entry *entries;
	int n;
	/* the decision, over entries with a chosen point (-1: none) */
	int fastest, fastest_runner_up;             /* by time to train */
	int cheapest[PRICING_COUNT];                /* by cost to train under each pricing
						       (with a deadline: among those that
						       meet it, when any does) */
	int cheapest_runner_up[PRICING_COUNT];
	/* entries the winner is not surely ahead of at the options' confidence
	 * (model_band_surely_less over the bands of the chosen points): a tie */
	int fastest_tied[COMPARE_MAX_INSTANCES];
	int n_fastest_tied;
	int cheapest_tied[PRICING_COUNT][COMPARE_MAX_INSTANCES];
	int n_cheapest_tied[PRICING_COUNT];
	double confidence;                          /* the decisions' confidence */
};

/* Compare sc on each of the n instance types names (catalogue names): the
 * same model, training and budget; the GPU's default calibration profile
 * when sc's is for another GPU family; BF16 where the GPU lacks sc's
 * precision (said in the entry's note).  o as for plan_run: every entry is
 * planned at o->nodes (default sc's node count) or, with a deadline, at its
 * own cheapest count that meets it; o->sweep (default nodes/8 .. 4 nodes,
 * or with a deadline plan_run's ladder) gives the scaling and
 * cost-versus-time points.  An entry not sold under o->pricing is planned
 * under the option it has and left out of that pricing's ranking; an
 * UltraServer-only entry's counts are rounded up to whole UltraServers
 * (both said in the entry's note).  Errors: SC_ENOTFOUND (an
 * unknown instance, with a did-you-mean), SC_EINVAL, SC_ENOMEM. */
enum sc_status compare_run(const struct scenario *sc, const struct catalog *cat,
			   const char *const *names, int n, const struct plan_opts *o,
			   struct compare_result *res, struct sc_error *err);
void compare_result_free(struct compare_result *res);

/* sc moved onto instance type inst (same node count): its GPU, the GPU's
 * default calibration profile when sc's is for another GPU, and BF16 when
 * the GPU lacks sc's precision (said in e->note).  Describes the result in e
 * (compare_entry_describe).  SC_ENOTFOUND when the catalogue lacks the GPU
 * or its profile. */
enum sc_status compare_retarget(const struct scenario *sc, const struct catalog *cat,
				const struct instance_spec *inst, struct scenario *out,
				struct compare_entry *e, struct sc_error *err);

/* Describe sc's own cluster in e (instance, GPU, calibration, precision,
 * uncertainty; empty note), e.g. to report a plan like a comparison of one.
 * e->plan is left alone. */
void compare_entry_describe(struct compare_entry *e, const struct scenario *sc);

/* The correlation of the step-time errors of entries a and b's chosen
 * points, for model_band_prob_less: 1 when they are one prediction (the
 * same GPU, calibration, precision, node count and step time: two instance
 * types that differ only in price or in a network the step does not feel),
 * else 0 (independent, the cautious choice). */
double compare_error_correlation(const struct compare_result *res, int a, int b);

/* A point of one entry of a comparison. */
struct compare_ref {
	int entry, point;
};

/* The feasible (entry, point) pairs on the cost-versus-time Pareto frontier
 * under pricing p: no other point is both at least as fast and at least as
 * cheap, and strictly better in one.  By increasing time; at most max;
 * returns how many.  Points without a price under p are left out. */
int compare_pareto(const struct compare_result *res, enum plan_pricing p,
		   struct compare_ref *out, int max);

/* The point a plan chose, or NULL. */
const struct plan_point *plan_chosen(const struct plan_result *res);

#endif
