/* rpt_diff.h: two step predictions side by side (`stepcast diff A B`).
 *
 * Each side is a prediction in the JSON form of `predict --format json`
 * (rpt_step_json_object), whether it was read from a file or predicted from
 * a scenario just now, so that a diff of two files and of two scenarios is
 * one computation.  Rows: the headline numbers, the layout's sizes, every part
 * of the breakdown, memory by category, each collective (by its group and
 * its order in the group: dp, dp#2) and cost, with B - A and (B - A) / A; the
 * strings that differ (instance, bottleneck, schedule, algorithms); and the
 * part of the breakdown that moved most in seconds.
 */
#ifndef SC_RPT_DIFF_H
#define SC_RPT_DIFF_H

#include <stdbool.h>
#include <stdio.h>

#include <cjson/cJSON.h>

#include "../models/uncertainty.h"

#define RPT_DIFF_MAX_ROWS 160
#define RPT_DIFF_MAX_CHANGES 48

struct rpt_diff_row {
	char section[16];   /* "step", "layout", "breakdown", "memory", "collectives", "cost" */
	char metric[64];
	bool has_a, has_b;
	double a, b;
};

struct rpt_diff_change {
	char key[64];
	char a[96], b[96];
};

struct rpt_diff {
	char label_a[512], label_b[512];
	int n_rows;
	struct rpt_diff_row rows[RPT_DIFF_MAX_ROWS];
	int n_changes;
	struct rpt_diff_change changes[RPT_DIFF_MAX_CHANGES];
	int moved_most;      /* index into rows of the breakdown part with the largest |B - A|; -1 */
	int step_row;        /* index of step_time_s; -1 */
	/* B's step time against A's by the one decision rule (models/uncertainty
	 * model_band_order, independent errors) over the bands each side
	 * carries (step_time_p50_s and step_time_log_sigma, else P10/P90):
	 * LESS is surely faster, TIE inside the band.  has_verdict false when a
	 * side has no step time. */
	bool has_verdict;
	bool banded;         /* both sides carry a band (else the point predictions decide) */
	enum model_order order;
	double prob_b_faster;
	double confidence;
};

/* Compare a and b (prediction objects) and decide between their step
 * times at confidence (in (0, 1), else MODEL_DECISION_CONFIDENCE); labels
 * say where each came from. */
void rpt_diff_build(const cJSON *a, const cJSON *b, const char *label_a, const char *label_b,
		    double confidence, struct rpt_diff *out);

void rpt_diff_text(FILE *out, const struct rpt_diff *d);
void rpt_diff_md(FILE *out, const struct rpt_diff *d);
/* NULL when out of memory. */
cJSON *rpt_diff_json(const struct rpt_diff *d);

#endif
