/* rerank.h: `search --rerank K`: re-time the best K layouts of a search
 * with the discrete-event engine (sim/des: sees contention between flows)
 * and re-rank them among themselves.
 *
 * One simulation per layout, in parallel (des_predict_many); each row gets
 * the DES step time, throughput, MFU, breakdown, bottleneck and its time
 * and cost to train (plan_time_to_train, as the search priced it), and the
 * search's score again.  Rows below K keep their analytical times and
 * order.  A layout the DES does not cover keeps its analytical time; its
 * note says why.  Nothing is printed: the notes are the caller's. */
#ifndef SC_SEARCH_RERANK_H
#define SC_SEARCH_RERANK_H

#include "../des/des.h"
#include "search.h"

/* What happened to one re-timed row (in the order of the rows before the
 * re-rank). */
struct search_rerank_note {
	long long index;           /* the layout's index in the enumeration */
	bool retimed;              /* false: kept its analytical time (why) */
	double analytic_step_s, des_step_s;
	struct des_estimate estimate; /* the simulation's cost estimate */
	char why[SC_ERROR_MSG_MAX];
};

/* Re-time and re-rank the best k rows of res (k > res->n_rows: all).
 * notes (caller-sized, k entries) and *n_notes get one note per row.
 * SC_ENOMEM when the simulations' storage cannot be had. */
enum sc_status search_rerank_des(const struct scenario *sc, const struct search_opts *so,
				 const struct des_options *dopt, struct search_result *res, int k,
				 struct search_rerank_note *notes, int *n_notes, struct sc_error *err);

#endif
