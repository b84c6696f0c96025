/* rpt_coll_validate.h: render a collective validation (struct cv_set after
 * cv_run) as text, JSON, CSV or Markdown: every curve's APE, every point
 * (not with summary_only), the curves not expressed with the reason, and
 * the summary overall, per source group, per system, per collective, per
 * node count and per collective x node count.  Statistics pool the counted
 * points (cv_point_counts with min_bytes) of the curves in each row.
 */
#ifndef SC_RPT_COLL_VALIDATE_H
#define SC_RPT_COLL_VALIDATE_H

#include <stdbool.h>
#include <stdio.h>

#include "../sim/validate/coll_validate.h"
#include "rpt_validate.h"

struct cv_summary_row {
	char by[16];
	char name[160];
	int cases;        /* curves */
	int expressed;    /* curves expressed with at least one counted point */
	int points;
	double mape, median_ape, worst_ape, bias;
};

/* The summary rows (at most max); returns their number. */
int rpt_cv_summary(const struct cv_set *set, double min_bytes, struct cv_summary_row *rows,
		   int max);

bool rpt_coll_validate(FILE *out, const struct cv_set *set, enum rpt_validate_format fmt,
		       bool summary_only, double min_bytes);

#endif
