/* fuzz_config.c: libFuzzer target for the strict config reader.
 *
 * Each input goes through cfg_parse_buffer() and, when it parses, through the
 * strict readers that take untrusted files: a scenario (resolved against the
 * source tree's catalogue, loaded once), a model object and a calibration
 * profile.  A model that reads must survive a round trip through
 * cfg_to_json() and cJSON's printer unchanged, so writer and reader agree.  Everything is
 * freed per input; ASan and UBSan (from the build flags) catch the rest.
 * Run: build-fuzz/tests/fuzz_config -max_total_time=60 tests/fuzz/corpus
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sim/analytic/step.h"
#include "sim/config/catalog_load.h"
#include "sim/config/cfg_json.h"
#include "sim/config/scenario_load.h"

static const struct catalog *fuzz_catalog(void)
{
	static struct catalog cat;
	static int state; /* 0: not tried, 1: loaded, -1: failed */

	if (state == 0) {
		struct sc_error err;
		sc_error_clear(&err);
		state = catalog_load(catalog_default_dir(), &cat, &err) == SC_OK ? 1 : -1;
		if (state < 0) {
			/* A broken catalogue would make every scenario fail early and
			 * hide the scenario reader from the fuzzer: stop loudly. */
			fprintf(stderr, "fuzz_config: cannot load the catalogue: %s: %s: %s\n",
				err.file, err.pointer, err.message);
			abort();
		}
	}
	return &cat;
}

static void check_model_round_trip(const struct model_arch *m)
{
	struct sc_error err;
	struct cfg_reader rd = { "round-trip", &err, NULL };
	static struct model_arch back;
	cJSON *obj = cfg_to_json(cfg_model_fields, m), *again;
	char *text;

	if (!obj)
		return; /* out of memory: not a finding */
	text = cJSON_PrintUnformatted(obj);
	cJSON_Delete(obj);
	if (!text)
		return;
	sc_error_clear(&err);
	again = cfg_parse_buffer("round-trip", text, strlen(text), &err);
	if (!again) {
		fprintf(stderr, "fuzz_config: a written model does not parse: %s\n%s\n",
			err.message, text);
		abort();
	}
	if (cfg_read_model(&rd, again, &back, "") != SC_OK) {
		fprintf(stderr, "fuzz_config: a written model does not read back: %s: %s\n%s\n",
			err.pointer, err.message, text);
		abort();
	}
	if (memcmp(m, &back, sizeof(back)) != 0) {
		fprintf(stderr, "fuzz_config: a model changed in a round trip:\n%s\n", text);
		abort();
	}
	cJSON_Delete(again);
	cJSON_free(text);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	/* The structs are large (fixed string buffers): keep them off the stack. */
	static struct scenario sc;
	static struct model_arch m;
	static struct calibration cal;
	const struct catalog *cat = fuzz_catalog();
	struct sc_error err;
	struct cfg_reader rd = { "fuzz.json", &err, (void *)cat };
	cJSON *root;

	sc_error_clear(&err);
	root = cfg_parse_buffer("fuzz.json", (const char *)data, size, &err);
	if (!root)
		return 0;

	sc_error_clear(&err);
	if (scenario_read("fuzz.json", root, cat, &sc, &err) == SC_OK) {
		/* a scenario the loader accepts predicts without a crash (a count
		 * near a limit once wrapped an int divisor to 0: SIGFPE), and a
		 * prediction that succeeds is finite */
		static struct step_result r;

		sc_error_clear(&err);
		if (sim_step_predict(&sc, &r, &err) == SC_OK &&
		    (!isfinite(r.step_time_s) || !isfinite(r.tokens_per_s) || !isfinite(r.mfu) ||
		     !(r.step_time_s > 0))) {
			fprintf(stderr, "fuzz_config: a prediction is not finite and positive: step %g s, "
				"%g tok/s, MFU %g\n", r.step_time_s, r.tokens_per_s, r.mfu);
			abort();
		}
	}

	sc_error_clear(&err);
	if (cfg_read_model(&rd, root, &m, "") == SC_OK)
		check_model_round_trip(&m);

	sc_error_clear(&err);
	(void)cfg_read_calibration(&rd, root, &cal, "");

	cJSON_Delete(root);
	return 0;
}
