/* val_summary.h: the one summary of a training validation run, used by
 * every renderer (reports/rpt_validate.c: text, md, json) and by the gate
 * of `stepcast validate --max-mape/--max-oos-mape` (.ci/run): the rows
 * all, per source group, per GPU and (with out-of-sample errors) per GPU
 * family, each with its in-sample and out-of-sample statistics. */
#ifndef SC_VAL_SUMMARY_H
#define SC_VAL_SUMMARY_H

#include <stdbool.h>

#include "validate.h"

struct val_summary_row {
	const char *kind;   /* "all", "group", "gpu", "family" */
	const char *name;
	int total;
	struct val_stats st;
	struct val_stats oos; /* out of sample (cases with has_oos); count 0: not computed */
};

/* The summary rows of set into rows[0..max) (rows[0] is "all"); their
 * count.  The names point into set. */
int val_summary_rows(const struct val_set *set, struct val_summary_row *rows, int max);

/* names[0..n) with v appended unless it is there already (and n < max):
 * the new count.  The distinct values of a case field in first-seen order,
 * which every validation summary (training, serving, memory) groups by. */
int val_distinct_add(const char **names, int n, int max, const char *v);

/* Statistics of the out-of-sample errors (has_oos) of the expressible
 * cases that filter selects (NULL: all); count 0 when there are none. */
void val_stats_oos(const struct val_set *set, bool (*f)(const struct val_case *, const void *),
		   const void *arg, struct val_stats *out);

/* True when any case has an out-of-sample prediction. */
bool val_any_oos(const struct val_set *set);

#endif
