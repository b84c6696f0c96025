/* test_des_agreement.c: on contention-free cases the discrete-event engine
 * reproduces the analytical engine's step time within 3 % (DESIGN.md, "The
 * step, as discrete events").  The cases span 8 to 4,096 GPUs and every
 * kind of traffic the DES simulates: TP (folded), DP and FSDP collectives on
 * NVLink and EFA, pipeline sends (1F1B, interleaved, GPipe), CP ring
 * exchange and MoE all-to-all across nodes.  "Contention-free" means that
 * no two flows the analytical model times separately are forced through
 * one link at once for long; what remains of the difference is the DES
 * seeing the pipeline's real schedule (unequal first and last stages,
 * transfer time on the fill and drain path).  Prints the table. */
#include "../../sim/config/scenario_load.h"
#include "../../sim/des/des.h"
#include "../unit/sc_test.h"

#include <stdlib.h>

static const char *const cases[] = {
	"scenarios/quickstart.json",             /*    8: tp 2, dp 4, NVLink only */
	"scenarios/llama3-8b-p5-1node.json",     /*    8: cp 2, dp 4, fp8 */
	"tests/des/data/agree-gpipe-32.json",    /*   32: tp 8, pp 4, GPipe */
	"tests/des/data/agree-fsdp-32.json",     /*   32: FSDP, hybrid shards of 8 */
	"tests/des/data/agree-cp-64.json",       /*   64: tp 8, pp 2, cp 2 across nodes */
	"tests/des/data/agree-moe-ep-128.json",  /*  128: MoE, ep 16 across nodes, pp 8 */
	"scenarios/llama3-70b-p5en-64.json",     /*  512: tp 8, pp 4, vpp 5, dp 16 */
	"tests/des/data/agree-405b-1024.json",   /* 1024: tp 8, pp 16, dp 8 */
	"tests/des/data/agree-70b-4096.json",    /* 4096: tp 8, pp 4, dp 128 */
};
#define N_CASES (int)(sizeof(cases) / sizeof(cases[0]))

int main(void)
{
	static struct catalog cat;
	static struct scenario sc[N_CASES];
	const struct scenario *ptr[N_CASES];
	static struct des_result res[N_CASES];
	enum sc_status st[N_CASES];
	struct sc_error errs[N_CASES], err;

	if (catalog_load(catalog_default_dir(), &cat, &err) != SC_OK) {
		fprintf(stderr, "catalog: %s\n", err.message);
		return 1;
	}
	for (int i = 0; i < N_CASES; i++) {
		if (scenario_load(cases[i], &cat, &sc[i], &err) != SC_OK) {
			fprintf(stderr, "%s: %s %s\n", cases[i], err.pointer, err.message);
			return 1;
		}
		ptr[i] = &sc[i];
	}
	catalog_free(&cat);
	des_predict_many(ptr, N_CASES, NULL, 0, res, st, errs);
	fprintf(stderr, "%-40s %6s  %-28s %10s %10s %8s\n", "case", "gpus", "layout (tp pp vpp dp cp ep)",
		"analytic s", "des s", "diff %");
	for (int i = 0; i < N_CASES; i++) {
		const struct layout *l = &sc[i].layout;
		char lay[64];

		CHECK(st[i] == SC_OK);
		if (st[i] != SC_OK) {
			fprintf(stderr, "%s: %s\n", cases[i], errs[i].message);
			continue;
		}
		snprintf(lay, sizeof(lay), "%d %d %d %d %d %d%s", l->tp, l->pp, l->vpp, l->dp, l->cp, l->ep,
			 l->fsdp ? " fsdp" : "");
		fprintf(stderr, "%-40s %6d  %-28s %10.4f %10.4f %+8.2f\n", cases[i], scenario_gpus(&sc[i]),
			lay, res[i].analytic.step_time_s, res[i].step.step_time_s,
			100.0 * (res[i].step.step_time_s / res[i].analytic.step_time_s - 1.0));
		CHECK_REL(res[i].step.step_time_s, res[i].analytic.step_time_s, 0.03);
		/* the breakdown still sums to the step */
		{
			double sum = 0;

			for (int k = 0; k < PART_COUNT; k++) {
				CHECK(res[i].step.part_s[k] >= -1e-9);
				sum += res[i].step.part_s[k];
			}
			CHECK_REL(sum, res[i].step.step_time_s, 1e-9);
		}
		des_result_free(&res[i]);
	}
	return sc_test_summary();
}
