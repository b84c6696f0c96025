/* examples/predict.c: the smallest program over libstepcast's public API:
 * load the installed catalogue and a scenario, predict one training step,
 * print three numbers.
 *
 *   cc predict.c $(pkg-config --cflags --libs stepcast) -o predict
 *   ./predict /usr/share/stepcast/scenarios/quickstart.json
 *
 * or with CMake: examples/CMakeLists.txt (find_package(stepcast)).
 * Prints "step_time_s=... tokens_per_s=... mfu=..." and exits 0; on an
 * error prints "FILE: /json/pointer: message" and exits 1.
 */
#include <stdio.h>

#include <stepcast/stepcast.h>

static int fail(const struct sc_error *err)
{
	fprintf(stderr, "predict: %s%s%s%s%s\n", err->file, err->file[0] ? ": " : "",
		err->pointer, err->pointer[0] ? ": " : "",
		err->message[0] ? err->message : sc_status_str(err->status));
	return 1;
}

int main(int argc, char **argv)
{
	struct sc_catalogue *cat = NULL;
	struct sc_scenario *sc = NULL;
	struct sc_prediction *p = NULL;
	struct sc_error err;
	int code = 0;

	if (argc != 2) {
		fprintf(stderr, "usage: predict SCENARIO.json\n");
		return 2;
	}
	sc_library_init();
	if (sc_catalogue_load(NULL, &cat, &err) != SC_OK)
		return fail(&err);
	if (sc_scenario_load(cat, argv[1], &sc, &err) != SC_OK || sc_predict(sc, &p, &err) != SC_OK)
		code = fail(&err);
	else
		printf("step_time_s=%.6g tokens_per_s=%.6g mfu=%.4f\n", sc_prediction_step_time_s(p),
		       sc_prediction_tokens_per_s(p), sc_prediction_mfu(p));
	sc_prediction_free(p);
	sc_scenario_free(sc);
	sc_catalogue_free(cat);
	return code;
}
