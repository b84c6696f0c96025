/* fuzz_ingest_common.h: what the calibrate/ingest fuzz targets share.
 *
 * After a successful parse, the measurements must survive their JSON form:
 * written by cal_measurements_to_json(), printed, parsed and read back by
 * the strict reader (cal_ingest_bench), they must give the same number of
 * curves, points and other measurements.  A parser that accepts what the
 * writer cannot express (a NaN, a negative time) is caught here.  Aborts on
 * a disagreement; everything is freed per input.
 */
#ifndef SC_FUZZ_INGEST_COMMON_H
#define SC_FUZZ_INGEST_COMMON_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "calibrate/cal_measure.h"
#include "calibrate/ingest/ingest.h"

static void fuzz_check_round_trip(const struct cal_measurements *m, const char *who)
{
	struct cal_measurements back;
	struct sc_error err;
	cJSON *j = cal_measurements_to_json(m);
	char *text;
	int points = 0, back_points = 0;

	if (!j)
		return; /* out of memory: not a finding */
	text = cJSON_PrintUnformatted(j);
	cJSON_Delete(j);
	if (!text)
		return;
	cal_measurements_init(&back);
	sc_error_clear(&err);
	if (cal_ingest_bench("round-trip", text, strlen(text), &back, &err) != SC_OK) {
		fprintf(stderr, "%s: written measurements do not read back: %s: %s\n%s\n", who,
			err.pointer, err.message, text);
		abort();
	}
	for (int i = 0; i < m->n_curves; i++)
		points += m->curves[i].n_points;
	for (int i = 0; i < back.n_curves; i++)
		back_points += back.curves[i].n_points;
	if (back.n_curves != m->n_curves || back_points != points || back.n_gemm != m->n_gemm ||
	    back.n_hbm != m->n_hbm || back.n_storage != m->n_storage) {
		fprintf(stderr, "%s: measurements changed in a round trip\n%s\n", who, text);
		abort();
	}
	cal_measurements_free(&back);
	cJSON_free(text);
}

/* One parser under test: TEXT of LEN bytes, with the target's options. */
typedef enum sc_status (*fuzz_parse_fn)(const char *text, size_t len, const void *opts,
					struct cal_measurements *m, struct sc_error *err);

/* The body of every ingest target: parse, then the round trip on success or
 * an abort on an error that says nothing. */
static int fuzz_ingest_run(const uint8_t *data, size_t size, fuzz_parse_fn parse, const void *opts,
			   const char *who)
{
	struct cal_measurements m;
	struct sc_error err;

	cal_measurements_init(&m);
	sc_error_clear(&err);
	if (parse((const char *)data, size, opts, &m, &err) == SC_OK)
		fuzz_check_round_trip(&m, who);
	else if (!err.message[0])
		abort(); /* an error must say what is wrong */
	cal_measurements_free(&m);
	return 0;
}

#endif
