/* test_des_estimate.c: the cost of a simulation known before it runs
 * (des_estimate, struct des_estimate) against what the simulation then
 * does: on small runs of every schedule, DP/FSDP, CP and EP flows, folded
 * and not, coarsened and exact, the estimated flows and timeline slices
 * bound the simulated ones (flows and actors are exact), the memory model
 * bounds the child's peak RSS; and past each budget des_predict refuses
 * before any child starts, naming the option that raises it. */
#include "../../sim/config/scenario_load.h"
#include "../../sim/des/des.h"
#include "../unit/sc_catalog.h"
#include "../unit/sc_test.h"

#include <stdlib.h>
#include <string.h>

#if defined(__SANITIZE_ADDRESS__)
#define UNDER_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define UNDER_ASAN 1
#endif
#endif

/* Estimate, simulate with the timeline on, compare. */
static void check_bound(const char *path, double fidelity, bool no_fold)
{
	static struct scenario sc;
	static struct des_result r;
	struct des_options o;
	struct des_estimate e;
	struct sc_error err;

	memset(&o, 0, sizeof(o));
	o.fidelity = fidelity;
	o.no_fold = no_fold;
	o.trace = true;
	if (!sc_test_load(path, &sc)) {
		CHECK(0);
		return;
	}
	CHECK(des_estimate(&sc, &o, &e, &err) == SC_OK);
	if (des_predict(&sc, &o, &r, &err) != SC_OK) {
		fprintf(stderr, "%s: %s\n", path, err.message);
		CHECK(0);
		return;
	}
	fprintf(stderr, "  %-40s fidelity %-8g flows %lld of %lld, slices %lld of %lld, actors %d of %d, "
		"peak %.1f of %.1f MiB\n", path, fidelity, r.stats.messages, e.flows, r.n_events, e.events,
		r.stats.actors, e.actors, r.stats.child_maxrss_bytes / 1048576.0, e.memory_bytes / 1048576.0);
	CHECK(e.flows >= r.stats.messages);
	CHECK(e.flows == r.stats.messages); /* the count mirrors the engine's */
	CHECK(e.flows_exact >= e.flows);
	CHECK(e.flows_fixed <= e.flows);
	CHECK(e.events >= r.n_events);
	CHECK(e.actors == r.stats.actors);
	CHECK(e.simulated_gpus == r.stats.simulated_gpus);
	CHECK(r.stats.estimate.flows == e.flows); /* the result carries it */
#ifndef UNDER_ASAN
	/* ASan's shadow memory is not the engine's */
	CHECK(e.memory_bytes >= r.stats.child_maxrss_bytes);
#endif
	des_result_free(&r);
}

static void test_estimate_bounds(void)
{
	static const char *const paths[] = {
		"scenarios/quickstart.json",              /* tp 2 dp 4, folded */
		"scenarios/llama3-8b-p5-1node.json",      /* CP inside a node */
		"tests/des/data/agree-gpipe-32.json",
		"tests/des/data/agree-zbh1-32.json",      /* W blocks */
		"tests/des/data/agree-dualpipe-32.json",  /* fused F&B pairs */
		"tests/des/data/agree-fsdp-32.json",      /* FSDP jobs per block */
		"tests/des/data/agree-cp-64.json",        /* CP flows across nodes */
		"tests/des/data/agree-moe-ep-128.json",   /* EP all-to-all flows */
	};

	for (size_t i = 0; i < sizeof(paths) / sizeof(paths[0]); i++)
		check_bound(paths[i], 0, false);
	/* coarsened hard (macro-steps and merged buckets), exact, not folded */
	check_bound("tests/des/data/agree-cp-64.json", 2000, false);
	check_bound("tests/des/data/agree-moe-ep-128.json", 5000, false);
	check_bound("scenarios/quickstart.json", -1, false);
	check_bound("scenarios/quickstart.json", 0, true);
}

static void test_budgets_refuse(void)
{
	static struct scenario sc;
	static struct des_result r;
	struct des_options o;
	struct des_estimate e;
	struct sc_error err;

	CHECK(sc_test_load("tests/des/data/agree-cp-64.json", &sc));
	memset(&o, 0, sizeof(o));
	CHECK(des_estimate(&sc, &o, &e, &err) == SC_OK);
	CHECK(des_estimate_check(&e, NULL, &err) == SC_OK);
	/* flows: at the estimate it runs, one below it is refused */
	o.max_flows = (double)e.flows;
	CHECK(des_estimate_check(&e, &o, &err) == SC_OK);
	o.max_flows = (double)e.flows - 1;
	CHECK(des_predict(&sc, &o, &r, &err) == SC_EUNSUPPORTED);
	CHECK(strstr(err.message, "--max-flows") != NULL);
	CHECK(r.stats.wall_s == 0); /* no child started */
	/* memory */
	memset(&o, 0, sizeof(o));
	o.max_memory_bytes = e.memory_bytes / 2;
	CHECK(des_predict(&sc, &o, &r, &err) == SC_EUNSUPPORTED);
	CHECK(strstr(err.message, "--max-memory") != NULL);
	/* timeline slices: only with a timeline */
	memset(&o, 0, sizeof(o));
	o.max_events = 10;
	CHECK(des_estimate_check(&e, &o, &err) == SC_OK);
	o.trace = true;
	CHECK(des_estimate(&sc, &o, &e, &err) == SC_OK);
	CHECK(des_predict(&sc, &o, &r, &err) == SC_EUNSUPPORTED);
	CHECK(strstr(err.message, "--max-events") != NULL);
	/* the largest cluster the schema allows is refused by the default
	 * memory budget in milliseconds, not attempted (131,072 simulated
	 * GPUs: about 200 GiB) */
	CHECK(sc_test_load("scenarios/quickstart.json", &sc));
	sc.cluster.nodes = 131072;
	sc.layout.tp = 8;
	sc.layout.dp = 131072;
	sc.training.global_batch_seqs = 4194304;
	CHECK(des_estimate(&sc, NULL, &e, &err) == SC_OK);
	CHECK(e.simulated_gpus == 131072);
	CHECK(e.memory_bytes > DES_DEFAULT_MAX_MEMORY_BYTES);
	CHECK(des_predict(&sc, NULL, &r, &err) == SC_EUNSUPPORTED);
	CHECK(strstr(err.message, "--max-memory") != NULL);
}

int main(void)
{
	if (!sc_test_catalog())
		return 1;
	RUN(test_estimate_bounds);
	RUN(test_budgets_refuse);
	sc_test_catalog_free();
	return sc_test_summary();
}
