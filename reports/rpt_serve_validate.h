/* rpt_serve_validate.h: render a serving validation run (struct sval_set
 * after sval_run) as text, JSON, CSV or Markdown onto a stream the caller
 * owns: every case with predicted versus measured throughput, TTFT and TPOT,
 * the cases that could not be expressed with the reason, and the summary of
 * each metric overall, per source group and per GPU.
 */
#ifndef SC_RPT_SERVE_VALIDATE_H
#define SC_RPT_SERVE_VALIDATE_H

#include <stdbool.h>
#include <stdio.h>

#include "../sim/validate/serve_validate.h"
#include "rpt_validate.h"

/* summary_only: leave out the per-case table.  Returns false on allocation
 * failure (JSON only). */
bool rpt_serve_validate(FILE *out, const struct sval_set *set, enum rpt_validate_format fmt,
			bool summary_only);

#endif
