/* test_des_engine.c: the discrete-event engine end to end (des_predict):
 * deterministic, coarsening that leaves a contention-free step unchanged,
 * a breakdown that sums to the step, links never busier than full, a
 * Chrome/Perfetto trace that parses and nests, a time limit that stops a
 * run, and per-scenario errors from des_predict_many. */
#include "../../sim/config/scenario_load.h"
#include "../../sim/des/des.h"
#include "../unit/sc_catalog.h"
#include "../unit/sc_test.h"

#include <cjson/cJSON.h>
#include <stdlib.h>
#include <string.h>

static void test_deterministic_and_sums(void)
{
	static struct scenario sc;
	static struct des_result a, b;
	struct sc_error err;
	double sum = 0;

	CHECK(sc_test_load("scenarios/llama3-70b-p5en-64.json", &sc));
	CHECK(des_predict(&sc, NULL, &a, &err) == SC_OK);
	CHECK(des_predict(&sc, NULL, &b, &err) == SC_OK);
	CHECK(a.step.step_time_s == b.step.step_time_s);
	CHECK(a.stats.messages == b.stats.messages);
	for (int i = 0; i < PART_COUNT; i++)
		sum += a.step.part_s[i];
	CHECK_REL(sum, a.step.step_time_s, 1e-9);
	CHECK(a.stats.fold == 8 && a.stats.simulated_gpus == 64 && a.stats.gpus == 512);
	CHECK(a.stats.messages > 0 && a.stats.actors >= 64);
	CHECK(a.n_links > 0);
	for (int i = 0; i < a.n_links; i++) {
		CHECK(a.links[i].utilisation > 0 && a.links[i].utilisation <= 1 + 1e-9);
		if (i > 0)
			CHECK(a.links[i].utilisation <= a.links[i - 1].utilisation);
	}
	/* the analytical result rides along, memory is the analytical one */
	CHECK(a.analytic.step_time_s > 0);
	CHECK(a.step.mem_total_bytes == a.analytic.mem_total_bytes);
	CHECK_REL(a.step.tokens_per_s * a.step.step_time_s, a.analytic.tokens_per_s * a.analytic.step_time_s,
		  1e-9);
	des_result_free(&a);
	des_result_free(&b);
}

static void test_coarsening_invariant(void)
{
	static struct scenario sc;
	static struct des_result exact, coarse;
	struct des_options o;
	struct sc_error err;

	/* data parallel only (2 nodes, hierarchical NVLink + EFA
	 * collectives, one after another: nothing contends) */
	CHECK(sc_test_load("scenarios/quickstart.json", &sc));
	sc.cluster.nodes = 2;
	sc.layout.tp = 1;
	sc.layout.sequence_parallel = false;
	sc.layout.dp = 16;
	sc.training.global_batch_seqs = 64;
	memset(&o, 0, sizeof(o));
	o.fidelity = -1;
	CHECK(des_predict(&sc, &o, &exact, &err) == SC_OK);
	o.fidelity = 1000;
	CHECK(des_predict(&sc, &o, &coarse, &err) == SC_OK);
	CHECK(coarse.stats.messages < exact.stats.messages / 4);
	CHECK_REL(coarse.step.step_time_s, exact.step.step_time_s, 1e-6);
	CHECK_REL(exact.step.step_time_s, exact.analytic.step_time_s, 1e-6);
	fprintf(stderr, "  dp 16 over 2 nodes: exact %lld flows %.9f s, coarse %lld flows %.9f s, analytic %.9f s\n",
		exact.stats.messages, exact.step.step_time_s, coarse.stats.messages, coarse.step.step_time_s,
		exact.analytic.step_time_s);
	des_result_free(&exact);
	des_result_free(&coarse);
}

static void test_trace(void)
{
	static struct scenario sc;
	static struct des_result r;
	struct des_options o;
	struct sc_error err;
	char *buf = NULL;
	size_t len = 0;
	FILE *f;
	cJSON *root, *ev, *e;
	int procs = 0, slices = 0, bad = 0;

	CHECK(sc_test_load("tests/des/data/agree-cp-64.json", &sc));
	memset(&o, 0, sizeof(o));
	o.trace = true;
	CHECK(des_predict(&sc, &o, &r, &err) == SC_OK);
	CHECK(r.n_events > 0 && r.events);
	f = open_memstream(&buf, &len);
	CHECK(des_trace_write(f, &sc, &r));
	fclose(f);
	root = cJSON_Parse(buf);
	CHECK(root != NULL);
	ev = cJSON_GetObjectItemCaseSensitive(root, "traceEvents");
	CHECK(cJSON_IsArray(ev));
	cJSON_ArrayForEach(e, ev)
	{
		const char *ph = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(e, "ph"));
		const char *name = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(e, "name"));

		if (ph && strcmp(ph, "M") == 0 && name && strcmp(name, "process_name") == 0)
			procs++;
		if (ph && strcmp(ph, "X") == 0) {
			double ts = cJSON_GetObjectItemCaseSensitive(e, "ts")->valuedouble;
			double dur = cJSON_GetObjectItemCaseSensitive(e, "dur")->valuedouble;

			slices++;
			bad += !(dur >= 0 && ts >= 0 && (ts + dur) * 1e-6 <= r.step.step_time_s * (1 + 1e-9) + 1e-9);
		}
	}
	CHECK(procs == r.stats.simulated_gpus);
	CHECK(slices == r.n_events);
	CHECK(bad == 0);
	cJSON_Delete(root);
	free(buf);
	des_result_free(&r);
}

static void test_time_limit_and_errors(void)
{
	static struct scenario good, big, unsupported;
	const struct scenario *list[3] = { &good, &big, &unsupported };
	static struct des_result res[3];
	enum sc_status st[3];
	struct sc_error errs[3];
	struct des_options o;

	CHECK(sc_test_load("scenarios/quickstart.json", &good));
	CHECK(sc_test_load("scenarios/llama3-405b-p5-2048.json", &big));
	CHECK(sc_test_load("scenarios/llama3-70b-p5en-64.json", &unsupported));
	unsupported.training.global_batch_seqs = 16 * 6;
	memset(&o, 0, sizeof(o));
	/* wide enough for the quickstart's DES under ASan on a loaded machine
	 * (0.2 s was not), far below the 405B run's minutes */
	o.time_limit_s = 3.0;
	CHECK(des_predict_many(list, 3, &o, 2, res, st, errs) != SC_OK);
	CHECK(st[0] == SC_OK);
	CHECK(st[1] == SC_EINTERNAL);
	CHECK(strstr(errs[1].message, "time limit") != NULL);
	/* interleaving with 6 micro-batches on pp 4: refused by the layout
	 * owner, before any simulation */
	CHECK(st[2] == SC_EINVAL);
	des_result_free(&res[0]);
}

int main(void)
{
	if (!sc_test_catalog())
		return 1;
	RUN(test_deterministic_and_sums);
	RUN(test_coarsening_invariant);
	RUN(test_trace);
	RUN(test_time_limit_and_errors);
	sc_test_catalog_free();
	return sc_test_summary();
}
