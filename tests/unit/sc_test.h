/* sc_test.h: a tiny assert header for unit tests.
 *
 * Each test file defines test functions, lists them in main() with RUN(), and
 * returns sc_test_summary().  Checks report file:line and keep going, so one
 * run shows every failure.  Numbers compare with a relative tolerance.
 */
#ifndef SC_TEST_H
#define SC_TEST_H

#include <math.h>
#include <stdio.h>
#include <string.h>

static int sc_test_failures;
static int sc_test_checks;

#define CHECK(cond) do { \
	sc_test_checks++; \
	if (!(cond)) { \
		sc_test_failures++; \
		fprintf(stderr, "%s:%d: check failed: %s\n", __FILE__, __LINE__, #cond); \
	} \
} while (0)

/* |got - want| <= rel * |want| (or <= rel when want is 0). */
#define CHECK_REL(got, want, rel) do { \
	double sc_g_ = (double)(got), sc_w_ = (double)(want); \
	double sc_tol_ = (rel) * (sc_w_ != 0 ? fabs(sc_w_) : 1.0); \
	sc_test_checks++; \
	if (!(fabs(sc_g_ - sc_w_) <= sc_tol_)) { \
		sc_test_failures++; \
		fprintf(stderr, "%s:%d: %s = %.10g, want %.10g (rel tol %g)\n", \
			__FILE__, __LINE__, #got, sc_g_, sc_w_, (double)(rel)); \
	} \
} while (0)

#define CHECK_STR(got, want) do { \
	const char *sc_g_ = (got), *sc_w_ = (want); \
	sc_test_checks++; \
	if (!sc_g_ || strcmp(sc_g_, sc_w_) != 0) { \
		sc_test_failures++; \
		fprintf(stderr, "%s:%d: %s = \"%s\", want \"%s\"\n", \
			__FILE__, __LINE__, #got, sc_g_ ? sc_g_ : "(null)", sc_w_); \
	} \
} while (0)

#define RUN(fn) do { \
	int sc_before_ = sc_test_failures; \
	fn(); \
	fprintf(stderr, "%s %s\n", sc_test_failures == sc_before_ ? "ok  " : "FAIL", #fn); \
} while (0)

static inline int sc_test_summary(void)
{
	fprintf(stderr, "%d checks, %d failed\n", sc_test_checks, sc_test_failures);
	return sc_test_failures ? 1 : 0;
}

#endif
