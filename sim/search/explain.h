/* explain.h: why a step takes what it takes and what to change
 * (`stepcast explain`).
 *
 * Why: the bottleneck (step.h's choice), the share of the step its part(s)
 * take, and the work that loads it: for a network tier the collectives on
 * it by time per step; for the tensor cores MFU, HFU and what recompute
 * adds.  What to change: every single-step neighbour of the scenario's
 * settings that the layout rules accept (TP, PP, VPP, CP, EP halved or
 * doubled with DP following the GPUs; each other ZeRO stage, recompute
 * mode, pipeline schedule; the micro-batch halved or doubled; TP/EP
 * overlap, sequence parallelism and the MoE dispatcher toggled), each
 * predicted by the engine the search ranks with and ranked by its step
 * time.  Each option carries the `--set` overrides that reproduce it, so
 * `stepcast diff SCENARIO --set ...` shows it in full.
 */
#ifndef SC_EXPLAIN_H
#define SC_EXPLAIN_H

#include "../../models/scenario.h"
#include "../../models/status.h"
#include "../analytic/step.h"

#define EXPLAIN_MAX_OPTIONS 48

struct explain_option {
	char change[96];          /* "tp 4 (dp 32)", "tp_comm_overlap on" */
	char set[256];            /* "--set layout.tp=4 --set layout.dp=32" */
	double step_time_s;
	double rel;               /* (step - base) / base */
	double mem_total_bytes;
	bool oom;
	enum bottleneck bottleneck;
};

struct explain_result {
	struct step_result base;
	double busy_fraction;     /* of the step, on the bottleneck's resource */
	double exposed_fraction;  /* of the step, in the bottleneck's exposed parts */
	int n;                    /* options, fastest first; those that do not fit last */
	struct explain_option opt[EXPLAIN_MAX_OPTIONS];
	int tried;                /* neighbours generated */
	int invalid;              /* of which the layout rules refused */
};

/* Predict sc and its neighbours.  Errors: those of sim_step_predict on sc
 * itself (a neighbour that fails is counted in invalid). */
enum sc_status explain_run(const struct scenario *sc, struct explain_result *out,
			   struct sc_error *err);

#endif
