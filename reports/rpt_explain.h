/* rpt_explain.h: `stepcast explain` as text and JSON (sim/search/explain.h). */
#ifndef SC_RPT_EXPLAIN_H
#define SC_RPT_EXPLAIN_H

#include <stdio.h>

#include <cjson/cJSON.h>

#include "../sim/search/explain.h"

/* top: at most this many options that fit (and all that do not, counted). */
void rpt_explain_text(FILE *out, const struct scenario *sc, const struct explain_result *x, int top);
cJSON *rpt_explain_json(const struct scenario *sc, const struct explain_result *x, int top);

#endif
