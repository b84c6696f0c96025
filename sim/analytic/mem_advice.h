/* mem_advice.h: what would make a layout that does not fit fit.
 *
 * Each option changes one setting a Megatron-Core / torchtitan user would
 * reach for (full recompute, FSDP, a smaller micro-batch, twice the TP or
 * PP with half the DP, BF16 optimizer moments), re-predicts the scenario
 * with it (the layout rules of models/layout decide what is valid) and
 * reports the memory and step time it gives.  Pure over its inputs; the
 * caller prints.
 */
#ifndef SC_MEM_ADVICE_H
#define SC_MEM_ADVICE_H

#include "step.h"

#define MEM_ADVICE_MAX 8

struct mem_fit_option {
	char change[96];        /* e.g. "recompute full", "tp 8 dp 16" */
	double need_bytes;      /* the verdict's memory with it */
	double step_time_s;
	bool fits;
};

/* Options for sc (whose prediction is r), best first: those that fit by
 * step time, then the rest by memory.  Returns how many (<= max). */
int sim_mem_fit_advice(const struct scenario *sc, const struct step_result *r,
		       struct mem_fit_option *out, int max);

#endif
