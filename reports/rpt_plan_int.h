/* rpt_plan_int.h: wording shared by the plan/compare renderers (rpt_plan.c
 * and rpt_html.c); not part of the reports' interface. */
#ifndef SC_RPT_PLAN_INT_H
#define SC_RPT_PLAN_INT_H

#include <stdbool.h>
#include <stddef.h>

#include "rpt_plan.h"

#define RPT_DECISION_MAX (2 + PRICING_COUNT)
#define RPT_LINE_MAX 1024

/* What a plan's choice means, e.g. "the cheapest node count that meets the
 * deadline" (static string). */
const char *rpt_plan_choice_text(enum plan_choice c);

/* On what basis the instance types are compared, into buf. */
void rpt_plan_basis(const struct rpt_plan_input *in, char *buf, size_t n);

/* The decision: which instance type wins on time and which on cost under
 * each pricing model, and by how much; one sentence per line; returns how
 * many lines. */
int rpt_plan_decision(const struct rpt_plan_input *in, char lines[][RPT_LINE_MAX]);

/* A confidence as a percentile label, e.g. "P90", into buf. */
const char *rpt_confidence(double c, char *buf, size_t n);

/* "P10 190.3 days, P50 271.5 days, P90 383.4 days": p's time to train at
 * the step time's quantiles, into buf. */
const char *rpt_plan_time_band(const struct plan_point *p, char *buf, size_t n);

/* The tie of plan e's cheapest choice, e.g. "a tie at P90 of the cost band:
 * 288, 432, 576 nodes (point-cheapest 288); tie-break: fewer nodes, then
 * faster", into buf; false (buf empty) when there is none. */
bool rpt_plan_tie_text(const struct rpt_plan_input *in, const struct compare_entry *e, char *buf,
		       size_t n);

/* Whether p meets the deadline at the plan's confidence, e.g. "meets the
 * 60.0 days deadline at P90 (P50 41.2 days, P90 58.1 days)", into buf;
 * false (buf empty) without a deadline. */
bool rpt_plan_deadline_text(const struct rpt_plan_input *in, const struct plan_point *p, char *buf,
			    size_t n);

/* Is point `point` of entry `entry` among the nf frontier points f? */
bool rpt_plan_on_pareto(const struct compare_ref *f, int nf, int entry, int point);

#endif
