/* cost.h: what a layout's step time means in wall-clock time and dollars:
 * the price of a cluster under a pricing model, and the time to train a
 * token budget.
 *
 * plan_time_to_train() is THE place where a step time becomes a time to
 * train: every caller (search --objective time_to_train, plan, compare and
 * their reports) goes through it.  For a scenario with a "storage" or
 * "stragglers" object it applies the goodput model (sim/analytic/goodput.h:
 * data stalls, checkpoints, failures, restarts, stragglers); otherwise every
 * step is productive.
 * Pure functions over caller-owned structs; nothing allocates, nothing to
 * free.
 */
#ifndef SC_PLAN_COST_H
#define SC_PLAN_COST_H

#include <stdbool.h>

#include "../../models/purchase.h"
#include "../../models/scenario.h"
#include "../../models/status.h"
#include "../analytic/step.h"

/* enum plan_pricing and the purchase rules (UltraServer units, which prices
 * exist) are models/purchase.h's. */

/* "on-demand", "capacity-block" (static strings); the table, NULL-terminated. */
extern const char *const plan_pricing_names[];
const char *plan_pricing_name(enum plan_pricing p);

/* Parse a pricing name; false when unknown. */
bool plan_pricing_parse(const char *s, enum plan_pricing *out);

/* Price of one instance per hour under pricing p; 0 when the instance is not
 * sold so (purchase_instance_usd_per_h: an UltraServer's price shared by its
 * instances). */
double plan_instance_usd_per_h(const struct instance_spec *inst, enum plan_pricing p);

/* Price per hour of a cluster of nodes instances under p, in whole purchase
 * units (purchase_cluster_usd_per_h); 0 when not offered. */
double plan_cluster_usd_per_h(const struct instance_spec *inst, int nodes, enum plan_pricing p);

/* SC_EINVAL, naming the instance and the options it has, unless inst is sold
 * under p (pointer /cluster/instance/price). */
enum sc_status plan_check_pricing(const struct instance_spec *inst, enum plan_pricing p,
				  struct sc_error *err);

/* Time and money to train a token budget with one layout. */
struct plan_train {
	double tokens;           /* the budget */
	double time_s;           /* wall-clock time to train it */
	double productive_s;     /* of which steps that count (tokens / tokens_per_s) */
	double goodput;          /* productive_s / time_s (1 without a storage object) */
	double steps;            /* optimizer steps: tokens / tokens per step */
	double gpu_hours;        /* time_s * GPUs / 3600 */
	double usd_per_h;        /* the cluster's price per hour; 0 = no price */
	double usd_total;        /* usd_per_h * time_s / 3600 */
	double usd_per_mtoken;   /* usd_total / tokens * 1e6 */
};

/* THE time-to-train hook (see the header comment).  sc is the scenario of
 * the layout, r its predicted step (tokens_per_s > 0), tokens the budget
 * (> 0), usd_per_h the cluster's price per hour (0: no price; the dollar
 * fields are then 0).  Fills *out. */
void plan_time_to_train(const struct scenario *sc, const struct step_result *r,
			double tokens, double usd_per_h, struct plan_train *out);

/* Parse a token count: a positive number with an optional suffix K, M, B
 * (or G), T (10^3 .. 10^12), e.g. "15T", "1.5e13", "300B".  Fills err
 * (pointer empty) on failure. */
enum sc_status plan_parse_tokens(const char *s, double *out, struct sc_error *err);

/* Parse a duration: a positive number with a unit s, m (minutes), h, d or w,
 * e.g. "90d", "36h"; a bare number is days.  Seconds in *out. */
enum sc_status plan_parse_duration(const char *s, double *out_s, struct sc_error *err);

#endif
