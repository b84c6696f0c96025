/* rpt_des.h: what the discrete-event engine adds to a step prediction
 * (sim/des/des.h): the analytical comparison, the simulation's size and
 * coarsening, and the busiest links, as text or as a JSON object.  Output
 * goes to a stream the caller owns; the JSON object is the caller's to free
 * (cJSON_Delete) or to attach to another object.
 */
#ifndef SC_RPT_DES_H
#define SC_RPT_DES_H

#include <stdio.h>

#include <cjson/cJSON.h>

#include "../sim/des/des.h"

/* The DES section after rpt_step_text() of r->step.  Deterministic: no
 * wall times (rpt_des_cost_line has them). */
void rpt_des_text(FILE *out, const struct des_result *r);

/* One line on the simulation's cost: GPUs simulated, flows, wall time and
 * peak memory of the child process (for stderr). */
void rpt_des_cost_line(FILE *out, const struct des_result *r);

/* {"engine": "des", "analytic_step_time_s", "simulated_gpus", ...,
 * "busiest_links": [...]}: deterministic, like rpt_des_text (no wall
 * times); NULL on allocation failure. */
cJSON *rpt_des_json_object(const struct des_result *r);

#endif
