/* fuzz_serve.c: libFuzzer target for the serving scenario reader and the
 * serving simulation.
 *
 * Each input goes through cfg_parse_buffer() and srv_scenario_read()
 * against the source tree's catalogue and engines (loaded once).  A scenario
 * that reads is simulated when it is small enough to finish quickly (at most
 * 200 requests, means of at most 20,000 tokens, a token budget of at least
 * 256; traces are not read from disk here): the event loop must neither
 * crash nor leak, and must complete every request it does not reject.
 * Run: build-fuzz/tests/fuzz_serve -max_total_time=60 tests/fuzz/corpus-fuzz_serve
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sim/serve/serve_config.h"
#include "sim/serve/serve_sim.h"

static struct catalog cat;
static struct srv_engines engines;

static void load_once(void)
{
	static int state; /* 0: not tried, 1: loaded */
	struct sc_error err;

	if (state)
		return;
	sc_error_clear(&err);
	if (catalog_load(catalog_default_dir(), &cat, &err) != SC_OK ||
	    srv_engines_load(catalog_default_dir(), &engines, &err) != SC_OK) {
		/* without them every scenario fails early: stop loudly */
		fprintf(stderr, "fuzz_serve: cannot load the catalogue: %s: %s: %s\n", err.file,
			err.pointer, err.message);
		abort();
	}
	state = 1;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct srv_scenario sc;
	struct srv_result r;
	struct sc_error err;
	cJSON *root;

	load_once();
	sc_error_clear(&err);
	root = cfg_parse_buffer("fuzz", (const char *)data, size, &err);
	if (!root)
		return 0;
	if (srv_scenario_read("fuzz", root, &cat, &engines, &sc, &err) == SC_OK &&
	    sc.workload.arrival != SRV_ARRIVAL_TRACE && sc.engine.max_num_batched_tokens >= 256 &&
	    sc.workload.input_tokens.mean <= 20000 && sc.workload.output_tokens.mean <= 20000 &&
	    srv_scenario_gpus(&sc) <= 4096) {
		if (sc.workload.requests > 200)
			sc.workload.requests = 200;
		if (sc.workload.warmup_requests >= sc.workload.requests)
			sc.workload.warmup_requests = 0;
		if (srv_simulate(&sc, &r, &err) == SC_OK && r.completed != r.requests) {
			fprintf(stderr, "fuzz_serve: %d of %d requests completed\n", r.completed,
				r.requests);
			abort();
		}
	}
	cJSON_Delete(root);
	return 0;
}
