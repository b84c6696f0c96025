/* bench_search.c: layouts searched per second on one core.
 *
 *   build/tests/bench/bench_search [SECONDS] [SCENARIO...]
 *
 * Runs `stepcast search`'s engine (search_run, top 10, default space) over
 * and over on each scenario for about SECONDS (default 2) of one thread's
 * CPU time and prints, per scenario:
 *   layouts/s      valid layouts (by divisibility) each checked for memory
 *                  and, when it fits, predicted in full: the "evaluations"
 *                  of the issue;
 *   predictions/s  the layouts that fit, each a full step prediction
 *                  identical to `stepcast predict` of that layout;
 *   predict_us     one cold sim_step_predict() call, for reference.
 * Defaults: Llama-3-405B on 2,048 p5.48xlarge (16,384 H100) and
 * DeepSeek-V3 on 512 p6-b200.48xlarge (4,096 B200).  Run from the source
 * tree's root (make bench does).  Not pass/fail: a benchmark.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "sim/config/catalog_load.h"
#include "sim/config/scenario_load.h"
#include "sim/search/search.h"

static double cpu_s(void)
{
	struct timespec t;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
	return t.tv_sec + t.tv_nsec * 1e-9;
}

static int bench(const struct catalog *cat, const char *path, double seconds)
{
	static struct scenario sc;
	struct search_opts o;
	struct search_result res;
	struct step_result r;
	struct sc_error err;
	long long layouts = 0, predicted = 0, shapes = 0;
	int runs = 0;
	double t0, dt, pt0, pdt;
	int n_pred = 0;

	if (scenario_load(path, cat, &sc, &err) != SC_OK) {
		fprintf(stderr, "bench_search: %s: %s: %s\n", err.file, err.pointer, err.message);
		return 1;
	}
	search_opts_default(&o);
	if (search_result_init(&res, o.top, &err) != SC_OK)
		return 1;
	t0 = cpu_s();
	do {
		res.n_rows = 0;
		memset(&res.stats, 0, sizeof(res.stats));
		if (search_run(&sc, &o, &res, &err) != SC_OK) {
			fprintf(stderr, "bench_search: %s: %s\n", path, err.message);
			search_result_free(&res);
			return 1;
		}
		layouts += res.stats.layouts;
		predicted += res.stats.predicted;
		shapes += res.stats.shapes;
		runs++;
		dt = cpu_s() - t0;
	} while (dt < seconds || runs < 3);
	pt0 = cpu_s();
	do {
		sim_step_predict(&sc, &r, &err);
		n_pred++;
		pdt = cpu_s() - pt0;
	} while (pdt < 0.2);
	printf("%s\n", sc.name);
	printf("  %d x %s = %d GPUs, model %s\n", sc.cluster.nodes, sc.cluster.instance.name,
	       scenario_gpus(&sc), sc.model.name);
	printf("  per search: %lld layouts, %lld out of memory, %lld predicted, %lld shapes prepared\n",
	       res.stats.layouts, res.stats.oom, res.stats.predicted, res.stats.shapes);
	printf("  %d searches in %.3f s CPU: %.3f ms per search\n", runs, dt, 1e3 * dt / runs);
	printf("  layouts/s     %.0f  (%.0f ns per layout)\n", layouts / dt, 1e9 * dt / layouts);
	printf("  predictions/s %.0f\n", predicted / dt);
	printf("  predict_us    %.3f  (one full sim_step_predict with its collectives list)\n",
	       1e6 * pdt / n_pred);
	if (res.n_rows > 0)
		printf("  best          tp %d cp %d pp %d vpp %d dp %d ep %d: %.4g tokens/s\n",
		       res.rows[0].layout.tp, res.rows[0].layout.cp, res.rows[0].layout.pp,
		       res.rows[0].layout.vpp, res.rows[0].layout.dp, res.rows[0].layout.ep,
		       res.rows[0].tokens_per_s);
	(void)shapes;
	search_result_free(&res);
	return 0;
}

int main(int argc, char **argv)
{
	static const char *const defaults[] = { "scenarios/llama3-405b-p5-2048.json",
						"scenarios/deepseek-v3-p6-b200-512.json" };
	struct catalog cat;
	struct sc_error err;
	double seconds = 2.0;
	int first = 1, rc = 0;

	if (argc > 1) {
		char *end;
		double s = strtod(argv[1], &end);

		if (end != argv[1] && *end == '\0' && s > 0) {
			seconds = s;
			first = 2;
		}
	}
	if (catalog_load(catalog_default_dir(), &cat, &err) != SC_OK) {
		fprintf(stderr, "bench_search: %s: %s\n", err.file, err.message);
		return 1;
	}
	printf("bench_search: stepcast search on one core (thread CPU time), about %.1f s per scenario\n",
	       seconds);
	if (first < argc) {
		for (int i = first; i < argc; i++)
			rc |= bench(&cat, argv[i], seconds);
	} else {
		for (size_t i = 0; i < sizeof(defaults) / sizeof(defaults[0]); i++)
			rc |= bench(&cat, defaults[i], seconds);
	}
	catalog_free(&cat);
	return rc;
}
