/* rpt_placement.h: placements side by side (sim/placement/placement_eval.h):
 * step time per placement, analytic and DES, the cost against packed and
 * which groups pay it, and what each group crosses; text or JSON.  Output
 * goes to a stream the caller owns; JSON objects are the caller's to free.
 */
#ifndef SC_RPT_PLACEMENT_H
#define SC_RPT_PLACEMENT_H

#include <stdio.h>

#include <cjson/cJSON.h>

#include "../sim/placement/placement_eval.h"

/* The table of n evaluations (e[0] the packed base) of sc. */
void rpt_placement_text(FILE *out, const struct scenario *sc, const struct pl_eval *e, int n);

/* {"scenario", "nodes", "fabric", "placements": [{"label", "source",
 * "step_time_s", "cost_s", "cost_rel", "pays", "des_step_time_s",
 * "des_cost_s", "groups": [{"group", "ranks", "stride", "inter",
 * "spine_levels", "ring_leave", "a2a_leave", "oversubscription"}]}]};
 * NULL on allocation failure. */
cJSON *rpt_placement_json(const struct scenario *sc, const struct pl_eval *e, int n);

/* One line for predict: "placement   SOURCE: +X s (+Y %) against packed; pays: ..." */
void rpt_placement_line(FILE *out, const struct pl_eval *e);

/* {"source", "packed_step_time_s", "cost_s", "cost_rel", "pays", "groups"} for predict --format json. */
cJSON *rpt_placement_json_one(const struct pl_eval *e);

#endif
