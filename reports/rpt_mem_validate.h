/* rpt_mem_validate.h: render a memory validation run (struct mem_val_set
 * after memval_run) as text, JSON, CSV or Markdown: every case with the
 * statistic it states, predicted versus measured, the verdict, the cases
 * not expressed with the reason, and the summary overall, per source group,
 * per framework and per statistic.
 */
#ifndef SC_RPT_MEM_VALIDATE_H
#define SC_RPT_MEM_VALIDATE_H

#include <stdbool.h>
#include <stdio.h>

#include "../sim/validate/mem_validate.h"
#include "rpt_validate.h"

struct memval_summary {
	int cases, expressed, fits;
	double mape, median_ape, worst_ape;
};

/* Over all cases (by NULL) or those whose by ("source_group", "framework",
 * "statistic") is name. */
void rpt_memval_summary(const struct mem_val_set *set, const char *by, const char *name,
			struct memval_summary *out);

bool rpt_mem_validate(FILE *out, const struct mem_val_set *set, enum rpt_validate_format fmt,
		      bool summary_only);

#endif
