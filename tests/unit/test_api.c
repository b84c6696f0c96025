/* test_api.c: the public API (include/stepcast/stepcast.h) over the
 * library's own loaders and engine: the same numbers as sim_step_predict,
 * errors as values naming file and JSON pointer, NULL handles accepted by
 * the frees, the data directory found from the executable's location (this
 * test lives in BUILD/tests/: BUILD/share/stepcast), and no abort() from
 * GSL even when the caller never calls sc_library_init(). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <gsl/gsl_errno.h>
#include <gsl/gsl_sf_log.h>

#include "../../include/stepcast/stepcast.h"
#include "../../sim/analytic/step.h"
#include "../../sim/config/scenario_load.h"
#include "sc_test.h"

#define QUICKSTART "scenarios/quickstart.json"

/* First: a GSL error after only a handle call (no sc_library_init) comes
 * back as a status instead of GSL's default abort(). */
static void test_gsl_handler_off_without_init(void)
{
	struct sc_catalogue *cat = NULL;
	struct sc_error err;
	gsl_sf_result r;

	CHECK(sc_catalogue_load(NULL, &cat, &err) == SC_OK);
	/* ln(-1): GSL_ERROR(GSL_EDOM), which aborts under GSL's default handler */
	CHECK(gsl_sf_log_e(-1.0, &r) == GSL_EDOM);
	sc_catalogue_free(cat);
	CHECK(sc_library_init() == SC_OK);
	CHECK(sc_library_init() == SC_OK); /* idempotent */
}

static void test_data_dir(void)
{
	const char *d = sc_data_dir();
	size_t n = d ? strlen(d) : 0;

	CHECK(d != NULL);
	CHECK(n > 15 && strcmp(d + n - 15, "/share/stepcast") == 0);
	CHECK_STR(sc_version(), STEPCAST_VERSION);
}

static void test_predict_matches_engine(void)
{
	struct sc_catalogue *cat = NULL;
	struct sc_scenario *sc = NULL;
	struct sc_prediction *p = NULL;
	struct sc_error err;
	struct catalog c;
	struct scenario s;
	struct step_result r;

	CHECK(sc_catalogue_load(NULL, &cat, &err) == SC_OK);
	CHECK(sc_scenario_load(cat, QUICKSTART, &sc, &err) == SC_OK);
	sc_catalogue_free(cat); /* the scenario keeps what it needs */
	CHECK(sc_predict(sc, &p, &err) == SC_OK);
	/* the owner's numbers, the long way */
	CHECK(catalog_load(catalog_default_dir(), &c, &err) == SC_OK);
	CHECK(scenario_load(QUICKSTART, &c, &s, &err) == SC_OK);
	catalog_free(&c);
	CHECK(sim_step_predict(&s, &r, &err) == SC_OK);
	CHECK(sc_prediction_step_time_s(p) == r.step_time_s);
	CHECK(sc_prediction_tokens_per_s(p) == r.tokens_per_s);
	CHECK(sc_prediction_mfu(p) == r.mfu);
	CHECK(sc_prediction_memory_bytes(p) == r.mem_total_bytes);
	CHECK(sc_prediction_memory_capacity_bytes(p) == r.mem_capacity_bytes);
	CHECK(sc_prediction_oom(p) == (r.oom ? 1 : 0));
	CHECK_STR(sc_prediction_bottleneck(p), bottleneck_name(r.bottleneck));
	CHECK(sc_prediction_step_time_s(p) > 0 && sc_prediction_mfu(p) > 0 && sc_prediction_mfu(p) < 1);
	sc_prediction_free(p);
	sc_scenario_free(sc);
}

static void test_errors_are_values(void)
{
	struct sc_catalogue *cat = NULL;
	struct sc_scenario *sc = (struct sc_scenario *)&sc; /* must be reset to NULL */
	struct sc_prediction *p = NULL;
	struct sc_error err;
	char path[] = "/tmp/stepcast-test-api-XXXXXX";
	FILE *f;
	int fd;

	CHECK(sc_catalogue_load("/nonexistent-stepcast-dir", &cat, &err) == SC_EIO);
	CHECK(cat == NULL);
	CHECK(strstr(err.file, "/nonexistent-stepcast-dir") != NULL);
	CHECK(sc_catalogue_load(NULL, &cat, &err) == SC_OK);
	CHECK(sc_scenario_load(cat, "/nonexistent/scenario.json", &sc, &err) == SC_EIO);
	CHECK(sc == NULL);
	CHECK_STR(err.file, "/nonexistent/scenario.json");
	/* a wrong type deep in a scenario: file and JSON pointer */
	fd = mkstemp(path);
	CHECK(fd >= 0);
	f = fdopen(fd, "w");
	fputs("{\"name\": \"x\", \"model\": \"llama3-8b\",\n"
	      " \"cluster\": {\"instance\": \"p5.48xlarge\", \"nodes\": \"one\"}}\n", f);
	fclose(f);
	CHECK(sc_scenario_load(cat, path, &sc, &err) == SC_EINVAL);
	CHECK_STR(err.file, path);
	CHECK_STR(err.pointer, "/cluster/nodes");
	CHECK(err.message[0] != '\0');
	remove(path);
	CHECK(sc_scenario_load(NULL, QUICKSTART, &sc, &err) == SC_EINVAL);
	CHECK(sc_predict(NULL, &p, &err) == SC_EINVAL);
	CHECK(p == NULL);
	CHECK(sc_prediction_step_time_s(NULL) == 0.0);
	CHECK_STR(sc_prediction_bottleneck(NULL), "unknown");
	sc_catalogue_free(cat);
	sc_catalogue_free(NULL);
	sc_scenario_free(NULL);
	sc_prediction_free(NULL);
}

int main(void)
{
	RUN(test_gsl_handler_off_without_init);
	RUN(test_data_dir);
	RUN(test_predict_matches_engine);
	RUN(test_errors_are_values);
	return sc_test_summary();
}
