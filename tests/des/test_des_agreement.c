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
#include "../unit/sc_catalog.h"
#include "des_batch.h"

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
	static struct des_batch b;

	_Static_assert(N_CASES <= DES_BATCH_MAX, "more cases than a batch holds");
	for (int i = 0; i < N_CASES; i++)
		if (!sc_test_load(cases[i], &b.sc[i]))
			return 1;
	b.n = N_CASES;
	sc_test_catalog_free();
	des_batch_run(&b);
	fprintf(stderr, "%-40s %6s  %-28s %10s %10s %8s\n", "case", "gpus", "layout (tp pp vpp dp cp ep)",
		"analytic s", "des s", "diff %");
	for (int i = 0; i < N_CASES; i++) {
		const struct layout *l = &b.sc[i].layout;
		struct des_result *r = &b.res[i];
		char lay[64];

		if (!des_batch_check(&b, i, cases[i], 0.03))
			continue;
		snprintf(lay, sizeof(lay), "%d %d %d %d %d %d%s", l->tp, l->pp, l->vpp, l->dp, l->cp, l->ep,
			 l->fsdp ? " fsdp" : "");
		fprintf(stderr, "%-40s %6d  %-28s %10.4f %10.4f %+8.2f\n", cases[i], scenario_gpus(&b.sc[i]),
			lay, r->analytic.step_time_s, r->step.step_time_s,
			100.0 * (r->step.step_time_s / r->analytic.step_time_s - 1.0));
		des_result_free(r);
	}
	return sc_test_summary();
}
