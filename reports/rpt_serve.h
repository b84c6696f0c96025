/* rpt_serve.h: render serving results onto a stream the caller owns: one
 * simulated deployment (struct srv_result) as text, JSON or CSV; a capacity
 * plan (struct srv_plan) as text, JSON or CSV; and latency-versus-throughput
 * curves (struct srv_curve) as a self-contained SVG chart.
 */
#ifndef SC_RPT_SERVE_H
#define SC_RPT_SERVE_H

#include <stdbool.h>
#include <stdio.h>

#include "../sim/serve/serve.h"
#include "../sim/serve/serve_plan.h"

void rpt_serve_text(FILE *out, const struct srv_scenario *sc, const struct srv_result *r);
/* Returns false on allocation failure. */
bool rpt_serve_json(FILE *out, const struct srv_scenario *sc, const struct srv_result *r);
void rpt_serve_csv(FILE *out, const struct srv_scenario *sc, const struct srv_result *r);

void rpt_plan_text(FILE *out, const struct srv_scenario *sc, const struct srv_plan *p);
bool rpt_plan_json(FILE *out, const struct srv_scenario *sc, const struct srv_plan *p);
void rpt_plan_csv(FILE *out, const struct srv_scenario *sc, const struct srv_plan *p);

/* The plan as a comparison of instance types: each type's cheapest
 * layout, then which wins on cost per million output tokens and by how
 * much over the runner-up (text, or Markdown when md). */
void rpt_plan_compare(FILE *out, const struct srv_scenario *sc, const struct srv_plan *p, bool md);

/* An SVG with two panels, p99 TTFT and p99 TPOT against output tokens/s,
 * one line per curve, and the SLOs (ms, 0 = none) as dashed lines. */
void rpt_serve_svg(FILE *out, const char *title, const struct srv_curve *curves, int n,
		   double slo_ttft_ms, double slo_tpot_ms);

#endif
