/* rpt_step.h: render one step prediction (struct step_result) of a scenario
 * as text, JSON or CSV onto a stream the caller owns.
 */
#ifndef SC_RPT_STEP_H
#define SC_RPT_STEP_H

#include <stdbool.h>
#include <stdio.h>

#include <cjson/cJSON.h>

#include "../sim/analytic/step.h"

void rpt_step_text(FILE *out, const struct scenario *sc, const struct step_result *r);
/* Returns false on allocation failure. */
bool rpt_step_json(FILE *out, const struct scenario *sc, const struct step_result *r);
/* The object rpt_step_json prints, for callers that add to it; the caller
 * frees it with cJSON_Delete().  NULL on allocation failure. */
cJSON *rpt_step_json_object(const struct scenario *sc, const struct step_result *r);
/* nccl-tests bus bandwidth of one call of c, GB/s (0 when its time is 0). */
double rpt_coll_busbw_GBps(const struct step_collective *c);
void rpt_step_csv(FILE *out, const struct scenario *sc, const struct step_result *r);

#endif
