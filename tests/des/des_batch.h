/* des_batch.h: the DES tests that predict a table of scenarios at once
 * (agreement, schedules): the scenarios, their DES results, statuses and
 * errors side by side, one des_predict_many over them, and the check every
 * such table makes of a row (the simulated step within tol of the
 * analytical one, its breakdown non-negative and summing to it). */
#ifndef SC_TEST_DES_BATCH_H
#define SC_TEST_DES_BATCH_H

#include "../../sim/des/des.h"
#include "../unit/sc_test.h"

#define DES_BATCH_MAX 32

struct des_batch {
	int n;
	struct scenario sc[DES_BATCH_MAX];
	struct des_result res[DES_BATCH_MAX];
	enum sc_status st[DES_BATCH_MAX];
	struct sc_error errs[DES_BATCH_MAX];
};

/* Simulate b->sc[0..n) (des_predict_many, default options and jobs). */
static inline void des_batch_run(struct des_batch *b)
{
	const struct scenario *ptr[DES_BATCH_MAX];

	for (int i = 0; i < b->n; i++)
		ptr[i] = &b->sc[i];
	des_predict_many(ptr, b->n, NULL, 0, b->res, b->st, b->errs);
}

/* Row i simulated (said on stderr, with its label, when not); then the
 * checks.  Returns whether it was simulated. */
static inline bool des_batch_check(const struct des_batch *b, int i, const char *label, double tol)
{
	const struct des_result *r = &b->res[i];
	double sum = 0;

	CHECK(b->st[i] == SC_OK);
	if (b->st[i] != SC_OK) {
		fprintf(stderr, "%s: %s\n", label, b->errs[i].message);
		return false;
	}
	CHECK_REL(r->step.step_time_s, r->analytic.step_time_s, tol);
	for (int k = 0; k < PART_COUNT; k++) {
		CHECK(r->step.part_s[k] >= -1e-9);
		sum += r->step.part_s[k];
	}
	CHECK_REL(sum, r->step.step_time_s, 1e-9);
	return true;
}

#endif
