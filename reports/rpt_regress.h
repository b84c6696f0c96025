/* rpt_regress.h: render a `stepcast regress` comparison: a text table of
 * what moved and by how much, and JUnit XML for CI systems (one testcase per
 * scenario x profile, a <failure> for each that moved).  Streams are the
 * caller's; nothing to free.
 */
#ifndef SC_RPT_REGRESS_H
#define SC_RPT_REGRESS_H

#include <stdio.h>

#include "../calibrate/cal_regress.h"

/* Summary line and, when something moved, a table: case, metric, baseline,
 * now, change %. */
void rpt_regress_text(FILE *out, const struct reg_report *rep);

/* A JUnit XML document (testsuites > testsuite > testcase, with failure
 * elements; the schema of tests/regress/junit.xsd).  timestamp is ISO
 * 8601 UTC. */
void rpt_regress_junit(FILE *out, const struct reg_report *rep, const char *timestamp);

#endif
