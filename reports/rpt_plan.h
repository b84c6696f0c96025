/* rpt_plan.h: render capacity plans and instance-type comparisons as text,
 * JSON, CSV, Markdown or one self-contained HTML file with inline SVG charts
 * (no script, no network): the step-time breakdown as stacked bars per
 * instance type, cost versus time to train with the Pareto frontier marked,
 * and the scaling curve (tokens/s versus nodes).  A plan is reported as a
 * comparison of one instance type.  Every price is printed with the date it
 * was read, its region and its source.  Output goes to a stream the caller
 * owns; nothing is allocated that outlives a call.
 */
#ifndef SC_RPT_PLAN_H
#define SC_RPT_PLAN_H

#include <stdbool.h>
#include <stdio.h>

#include "../sim/plan/plan.h"

enum rpt_plan_format { RPT_PLAN_TEXT, RPT_PLAN_JSON, RPT_PLAN_CSV, RPT_PLAN_MD, RPT_PLAN_HTML };

struct rpt_plan_input {
	const struct scenario *sc;        /* the scenario as given */
	const struct plan_opts *opts;     /* budget, deadline, pricing, nodes */
	const struct compare_result *res; /* one entry for a plan */
	bool compare;                     /* a comparison (else a plan) */
};

/* Returns false on allocation failure (JSON). */
bool rpt_plan(FILE *out, const struct rpt_plan_input *in, enum rpt_plan_format fmt);

/* The HTML report alone (rpt_plan with RPT_PLAN_HTML). */
void rpt_plan_html(FILE *out, const struct rpt_plan_input *in);

/* "tp8 cp1 pp4 vpp5 dp16 ep1 mb1 selective zero1" into buf. */
const char *rpt_layout_str(const struct search_row *row, char *buf, size_t n);

#endif
