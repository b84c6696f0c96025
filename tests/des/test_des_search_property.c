/* test_des_search_property.c: every layout a search recommends runs.
 *
 * For randomly generated scenarios (a fixed seed: deterministic) over the
 * catalogue's dense and MoE models and 8-GPU instances, 1 to 4 nodes, and
 * several batch and sequence sizes: the search's best layouts each pass the
 * scenario loader's rules (scenario_check), never interleave with
 * micro-batches per step that are not a multiple of pp, and run in the
 * discrete-event engine, agreeing with the analytical step within 10 %, or
 * the DES refuses them with a documented limit (SC_EUNSUPPORTED naming the
 * key).  Small clusters, so that the whole test takes seconds.
 */
#include "../../sim/config/scenario_load.h"
#include "../../sim/des/des.h"
#include "../../sim/search/search.h"
#include "../unit/sc_test.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define TOP 3

static struct catalog cat;

static unsigned next(unsigned *seed)
{
	*seed = *seed * 1103515245u + 12345u;
	return (*seed >> 16) & 0x7fff;
}

/* A random scenario on top of quickstart's (which supplies the storage
 * and straggler defaults): false when the draw makes no sense for the
 * catalogue (the caller draws again). */
static bool draw(unsigned *seed, struct scenario *sc)
{
	static const char *const models[] = { "llama3-8b", "llama2-7b", "mixtral-8x7b", "qwen3-30b-a3b",
					      "mpt-7b" };
	static const char *const instances[] = { "p5.48xlarge", "p5en.48xlarge", "p6-b200.48xlarge" };
	static const int nodes[] = { 1, 2, 4 };
	static const int batches[] = { 32, 64, 128 };
	static const int seqs[] = { 2048, 4096 };
	struct sc_error err;
	const struct model_arch *m;
	const struct instance_spec *in;
	const struct gpu_spec *g;
	const struct calibration *c;

	if (scenario_load("scenarios/quickstart.json", &cat, sc, &err) != SC_OK)
		return false;
	m = catalog_model(&cat, models[next(seed) % 5]);
	in = catalog_instance(&cat, instances[next(seed) % 3]);
	if (!m || !in)
		return false;
	g = catalog_gpu(&cat, in->gpu);
	c = g ? catalog_calibration(&cat, g->calibration) : NULL;
	if (!g || !c)
		return false;
	sc->model = *m;
	sc->cluster.instance = *in;
	sc->cluster.gpu = *g;
	sc->cluster.nodes = nodes[next(seed) % 3];
	sc->calibration = *c;
	sc->training.global_batch_seqs = batches[next(seed) % 3];
	sc->training.seq_len = seqs[next(seed) % 2];
	snprintf(sc->name, sizeof(sc->name), "%s on %d x %s", m->name, sc->cluster.nodes, in->name);
	return true;
}

static void test_recommended_layouts_run(void)
{
	static struct scenario sc, rows[TOP];
	const struct scenario *list[TOP];
	static struct des_result res[TOP];
	enum sc_status st[TOP];
	struct sc_error errs[TOP];
	unsigned seed = 20261201;
	int scenarios = 0, simulated = 0, refused = 0;
	double worst = 0;

	for (int tries = 0; tries < 60 && scenarios < 10; tries++) {
		struct search_opts o;
		struct search_result sr;
		struct sc_error err;
		struct des_options dopt;
		int n = 0;

		if (!draw(&seed, &sc))
			continue;
		search_opts_default(&o);
		o.top = TOP;
		o.space.max_micro_batch = 4;
		if (search_result_init(&sr, o.top, &err) != SC_OK)
			continue;
		if (search_run(&sc, &o, &sr, &err) != SC_OK || sr.n_rows == 0) {
			search_result_free(&sr);
			continue;   /* nothing fits: a valid answer, nothing to run */
		}
		scenarios++;
		for (int i = 0; i < sr.n_rows; i++) {
			const struct layout *l = &sr.rows[i].layout;

			search_row_scenario(&sc, &sr.rows[i], &rows[n]);
			CHECK(scenario_check(&rows[n], NULL, &err) == SC_OK);
			if (l->schedule == SCHED_INTERLEAVED_1F1B)
				CHECK(sr.rows[i].micro_batches % l->pp == 0);
			list[n] = &rows[n];
			n++;
		}
		memset(&dopt, 0, sizeof(dopt));
		des_predict_many(list, n, &dopt, 2, res, st, errs);
		for (int i = 0; i < n; i++) {
			if (st[i] == SC_EUNSUPPORTED) {
				/* a documented limit names the key at fault */
				CHECK(errs[i].pointer[0] == '/');
				refused++;
				continue;
			}
			CHECK(st[i] == SC_OK);
			if (st[i] != SC_OK) {
				fprintf(stderr, "  %s: %s %s\n", rows[i].name, errs[i].pointer, errs[i].message);
				continue;
			}
			{
				double d = fabs(res[i].step.step_time_s / sr.rows[i].step_time_s - 1);

				CHECK(d <= 0.10);
				if (d > worst)
					worst = d;
				if (d > 0.10)
					fprintf(stderr, "  %s tp %d pp %d vpp %d %s: analytic %.4g s, des %.4g s\n",
						rows[i].name, rows[i].layout.tp, rows[i].layout.pp,
						rows[i].layout.vpp, schedule_name(rows[i].layout.schedule),
						sr.rows[i].step_time_s, res[i].step.step_time_s);
			}
			simulated++;
			des_result_free(&res[i]);
		}
		search_result_free(&sr);
	}
	CHECK(scenarios >= 8);
	CHECK(simulated >= 20);
	fprintf(stderr, "  %d random scenarios, %d recommended layouts simulated (%d refused), worst |des/analytic - 1| %.2f %%\n",
		scenarios, simulated, refused, 100 * worst);
}

int main(void)
{
	struct sc_error err;

	if (catalog_load(catalog_default_dir(), &cat, &err) != SC_OK) {
		fprintf(stderr, "catalogue: %s\n", err.message);
		return 1;
	}
	RUN(test_recommended_layouts_run);
	catalog_free(&cat);
	return sc_test_summary();
}
