/* fuzz_serve.c: libFuzzer target for the serving scenario reader and the
 * serving simulation.
 *
 * Each input goes through cfg_parse_buffer() and srv_scenario_read()
 * against the source tree's catalogue and engines (loaded once).  A scenario
 * that reads is simulated when it is small enough to finish quickly (means
 * of at most 20,000 tokens, a token budget of at least 256, at most 512
 * GPUs; traces are not read from disk here): the event loop must neither
 * crash nor leak, and must complete every request it does not reject.
 *
 * Per-input cost: the event loop's work is its iterations, about the
 * requests' tokens over the batch, each costing a roofline evaluation of
 * the model (srv_iteration_time) that the fuzzer's instrumentation makes
 * ~30x slower.  With 200 requests of the shipped chat workload (1,800
 * tokens each) one input took 250 ms and the target ran ~440 inputs/s;
 * the requests are now cut to FUZZ_SERVE_TOKENS tokens in all (at least 4
 * requests, at most 200), outputs clipped to FUZZ_SERVE_OUTPUT tokens and
 * draft tokens to 8: every code path (batching,
 * chunked prefill, preemption under a small KV cache, speculative steps,
 * disaggregated transfers) is reached the same way, in a few ms.
 * Run: build-fuzz/tests/fuzz_serve -max_total_time=60 tests/fuzz/corpus-fuzz_serve
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sim/serve/serve_config.h"
#include "sim/serve/serve_sim.h"

/* Tokens (input + output means) of all simulated requests of one input. */
#define FUZZ_SERVE_TOKENS 20000.0

/* Decode iterations follow the longest output: outputs clipped to this many
 * tokens (their distribution kept). */
#define FUZZ_SERVE_OUTPUT 256

static struct catalog cat;

static void clip_length(struct srv_length *l, int max)
{
	if (l->mean > max)
		l->mean = max;
	if (l->sd > max)
		l->sd = max;
	if (l->max <= 0 || l->max > max)
		l->max = max;
	if (l->min > l->max)
		l->min = l->max;
}
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
	    srv_scenario_gpus(&sc) <= 512) {
		double per = sc.workload.input_tokens.mean + sc.workload.output_tokens.mean;
		int cap = per > 0 ? (int)(FUZZ_SERVE_TOKENS / per) : 200;

		cap = cap < 4 ? 4 : cap > 200 ? 200 : cap;
		if (sc.workload.requests > cap)
			sc.workload.requests = cap;
		if (sc.speculative.draft_tokens > 8)
			sc.speculative.draft_tokens = 8;
		clip_length(&sc.workload.output_tokens, FUZZ_SERVE_OUTPUT);
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
