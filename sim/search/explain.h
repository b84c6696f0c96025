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
	struct model_band band;   /* of its step time (sim_step_band) */
	/* against the current layout at the result's confidence
	 * (model_band_order, independent errors): LESS is surely faster,
	 * TIE is inside the band (no faster and no slower that the model can
	 * tell), GREATER surely slower */
	enum model_order order;
	double prob_faster;       /* P(its step < the current one's) */
};

/* Where the step's time goes on the bottleneck's resource, in seconds of
 * one step.  exposed_s + hidden_s <= the step: the resource is busy
 * busy_s = exposed_s + hidden_s of it.  For a network tier, work_s is the
 * collectives' time on that tier before overlap (struct step_collective
 * total_time_s); exposed_s is the communication parts of the breakdown
 * (step_result.part_s) those collectives leave on the critical path,
 * each part shared among tiers by their work in its group; hidden_s the
 * rest of work_s, up to the time the step has left (collectives that
 * overlap one another, e.g. TP and DP on separate streams, cannot make the
 * link busier than the step); concurrent_s = work_s - busy_s.  For
 * compute, the bubble and overheads work = busy = exposed (their parts). */
struct explain_share {
	double work_s, exposed_s, hidden_s, busy_s, concurrent_s;
};

struct explain_result {
	struct step_result base;
	struct explain_share share;
	double busy_fraction;     /* share.busy_s / step, <= 1 */
	double exposed_fraction;  /* share.exposed_s / step, <= busy_fraction */
	struct model_band band;   /* the current layout's step band (sim_step_band) */
	int regime;               /* enum model_regime of band; REGIME_COUNT: the profile's */
	double confidence;        /* of the options' order */
	int n;                    /* options, fastest first; those that do not fit last */
	struct explain_option opt[EXPLAIN_MAX_OPTIONS];
	int tried;                /* neighbours generated */
	int invalid;              /* of which the layout rules refused */
};

/* Predict sc and its neighbours, each ordered against sc at confidence
 * (in (0, 1), else MODEL_DECISION_CONFIDENCE; <= 0.5 compares the point
 * predictions).  Errors: those of sim_step_predict on sc itself (a
 * neighbour that fails is counted in invalid). */
enum sc_status explain_run(const struct scenario *sc, double confidence, struct explain_result *out,
			   struct sc_error *err);

/* The share of the step r's bottleneck's resource takes (see struct
 * explain_share). */
struct explain_share explain_share_of(const struct step_result *r);

#endif
