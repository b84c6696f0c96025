/* rpt_goodput.h: render a run's calendar (struct goodput_result: data
 * stalls, checkpoints, failures, goodput, time to train, advice) and the
 * checkpoint comparison (struct goodput_option rows: checkpoint to NVMe, to
 * FSx, to S3, checkpointless, each with its recommended interval) as text or
 * as a JSON object, onto a stream or object the caller owns.
 */
#ifndef SC_RPT_GOODPUT_H
#define SC_RPT_GOODPUT_H

#include <stdio.h>

#include <cjson/cJSON.h>

#include "../sim/analytic/goodput.h"

/* The "storage and resilience" and "calendar" sections and the advice. */
void rpt_goodput_text(FILE *out, const struct scenario *sc, const struct goodput_result *g);

/* The checkpoint comparison table (n rows). */
void rpt_goodput_compare_text(FILE *out, const struct scenario *sc,
			      const struct goodput_option *rows, int n);

/* {"goodput": ..., "calendar": {...}, "checkpoint": {...}, ...,
 * "options": [...]} as a new object the caller frees with cJSON_Delete();
 * rows may be NULL (n 0).  NULL on allocation failure. */
cJSON *rpt_goodput_json(const struct scenario *sc, const struct goodput_result *g,
			const struct goodput_option *rows, int n);

#endif
