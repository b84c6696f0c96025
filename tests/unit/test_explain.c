/* test_explain.c: `stepcast explain` (sim/search/explain): the bottleneck's
 * shares of the step never exceed it and agree with the breakdown; every
 * option is ordered against the current layout by the one decision rule
 * (models/uncertainty model_band_order), ties inside the band; DualPipe is
 * tried from an interleaved layout; the layout fix-ups are models/layout's. */
#include "sc_catalog.h"
#include "sc_test.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "models/layout.h"
#include "sim/config/catalog_load.h"
#include "sim/config/scenario_load.h"
#include "sim/search/explain.h"

static void add_coll(struct step_result *r, const char *what, const char *tier, double total_s)
{
	struct step_collective *c = &r->collectives[r->n_collectives++];

	memset(c, 0, sizeof(*c));
	c->what = what;
	c->tier = tier;
	c->total_time_s = total_s;
}

/* A step of step_s made of compute, TP and DP parts, bound by bottleneck,
 * no collectives yet (add_coll adds them). */
static void step_of_parts(struct step_result *r, double step_s, double compute_s, double tp_s,
			  double dp_s, enum bottleneck bottleneck)
{
	memset(r, 0, sizeof(*r));
	r->step_time_s = step_s;
	r->part_s[PART_COMPUTE] = compute_s;
	r->part_s[PART_TP_COMM] = tp_s;
	r->part_s[PART_DP_COMM] = dp_s;
	r->bottleneck = bottleneck;
}

/* The share's work_s, exposed_s and hidden_s (explain.h), to 1e-12. */
static void check_split(const struct explain_share *s, double work_s, double exposed_s, double hidden_s)
{
	CHECK_REL(s->work_s, work_s, 1e-12);
	CHECK_REL(s->exposed_s, exposed_s, 1e-12);
	CHECK_REL(s->hidden_s, hidden_s, 1e-12);
}

/* Collectives that together take longer than the step (TP and DP on
 * separate streams): busy is still at most the step, and exposed is the
 * breakdown's. */
static void test_share_bounded(void)
{
	static struct step_result r;
	struct explain_share s;

	step_of_parts(&r, 1.0, 0.6, 0.3, 0.1, BOTTLENECK_NVLINK);
	add_coll(&r, "tp", "nvlink", 0.9);
	add_coll(&r, "dp", "nvlink", 0.5);
	s = explain_share_of(&r);
	check_split(&s, 1.4, 0.4, 0.6);
	CHECK_REL(s.busy_s, 1.0, 1e-12);
	CHECK_REL(s.concurrent_s, 0.4, 1e-12);

	/* an EFA bottleneck: only its tier's share of each exposed part
	 * (dp half on each tier by work) */
	step_of_parts(&r, 2.0, 1.5, 0.1, 0.4, BOTTLENECK_EFA);
	add_coll(&r, "tp", "nvlink", 0.3);
	add_coll(&r, "dp", "efa", 0.5);
	add_coll(&r, "dp", "nvlink", 0.5);
	s = explain_share_of(&r);
	check_split(&s, 0.5, 0.2, 0.3);
	CHECK(s.concurrent_s == 0);
}

/* Real scenarios: the shares are fractions of the step, exposed <= busy,
 * and the exposed time is no more than the breakdown's parts; the options
 * follow model_band_order at the result's confidence. */
static void test_scenarios(void)
{
	static const char *const paths[] = {
		"scenarios/llama3-70b-p5en-64.json", "scenarios/deepseek-v3-p6-b200-512.json",
		"scenarios/mixtral-8x22b-p6-b200.json", "scenarios/qwen3-235b-p5en-32.json",
		"scenarios/llama3-8b-p5-1node.json", "tests/des/data/oversub-moe-1024.json",
	};
	static struct scenario sc;
	static struct explain_result x;

	for (size_t k = 0; k < sizeof(paths) / sizeof(paths[0]); k++) {
		struct sc_error err;
		double st, comm = 0, parts = 0;
		int ties = 0;

		if (!sc_test_load(paths[k], &sc)) {
			CHECK(false);
			continue;
		}
		CHECK(explain_run(&sc, MODEL_DECISION_CONFIDENCE, &x, &err) == SC_OK);
		st = x.base.step_time_s;
		for (int p = 0; p < PART_COUNT; p++)
			parts += x.base.part_s[p];
		for (int p = PART_TP_COMM; p <= PART_DP_COMM; p++)
			comm += x.base.part_s[p];
		CHECK_REL(parts, st, 1e-9);
		CHECK(x.busy_fraction <= 1.0 + 1e-12);
		CHECK(x.exposed_fraction >= 0 && x.exposed_fraction <= x.busy_fraction + 1e-12);
		CHECK_REL(x.share.busy_s, x.share.exposed_s + x.share.hidden_s, 1e-12);
		CHECK(x.share.exposed_s + x.share.hidden_s <= st * (1 + 1e-12));
		if (x.base.bottleneck == BOTTLENECK_NVLINK || x.base.bottleneck == BOTTLENECK_EFA)
			CHECK(x.share.exposed_s <= comm * (1 + 1e-12));
		CHECK(x.confidence == MODEL_DECISION_CONFIDENCE);
		CHECK(x.n > 0);
		for (int i = 0; i < x.n; i++) {
			const struct explain_option *o = &x.opt[i];
			double p = model_band_prob_less(&o->band, o->step_time_s, &x.band, st, 0);

			CHECK(o->order == model_band_order(&o->band, o->step_time_s, &x.band, st, 0,
							   x.confidence));
			CHECK_REL(o->prob_faster, p, 1e-12);
			if (o->order == MODEL_ORDER_TIE) {
				ties++;
				CHECK(p < x.confidence && p > 1 - x.confidence);
			}
			if (o->order == MODEL_ORDER_LESS)
				CHECK(o->step_time_s < st);
			/* fits first; then faster, tied, slower */
			if (i > 0 && x.opt[i - 1].oom == o->oom)
				CHECK(x.opt[i - 1].order <= o->order);
			if (i > 0)
				CHECK(x.opt[i - 1].oom <= o->oom);
		}
		/* a difference of under 1 % is always inside these bands */
		for (int i = 0; i < x.n; i++)
			if (fabs(x.opt[i].rel) < 0.01)
				CHECK(x.opt[i].order == MODEL_ORDER_TIE);
		(void)ties;
		/* at P50 only the point predictions decide: no tie unless equal
		 * (in log, as model_band_order compares them: two step times one
		 * ulp apart can share a logarithm) */
		CHECK(explain_run(&sc, 0.5, &x, &err) == SC_OK);
		for (int i = 0; i < x.n; i++)
			if (log(x.opt[i].step_time_s) != log(st) && x.opt[i].band.log_bias == x.band.log_bias)
				CHECK(x.opt[i].order != MODEL_ORDER_TIE);
	}
}

/* From an interleaved layout (vpp > 1) every other schedule is tried with
 * the vpp its rule needs: DualPipe and 1F1B with vpp 1, ZB-V with 2. */
static void test_dualpipe_from_interleaved(void)
{
	static struct scenario sc;
	static struct explain_result x;
	struct sc_error err;
	bool dualpipe = false, onef1b = false;

	CHECK(sc_test_load("scenarios/llama3-70b-p5en-64.json", &sc));
	CHECK(sc.layout.vpp > 1 && sc.layout.schedule == SCHED_INTERLEAVED_1F1B);
	CHECK(explain_run(&sc, MODEL_DECISION_CONFIDENCE, &x, &err) == SC_OK);
	for (int i = 0; i < x.n; i++) {
		if (strstr(x.opt[i].set, "layout.schedule=dualpipe")) {
			dualpipe = true;
			CHECK(strstr(x.opt[i].set, "layout.vpp=1") != NULL);
		}
		if (strstr(x.opt[i].set, "layout.schedule=1f1b"))
			onef1b = strstr(x.opt[i].set, "layout.vpp=1") != NULL;
	}
	CHECK(dualpipe);
	CHECK(onef1b);
}

/* The fix-ups (models/layout) */
static void test_fixups(void)
{
	struct layout l;

	memset(&l, 0, sizeof(l));
	l.tp = 1;
	l.pp = 4;
	l.vpp = 3;
	l.schedule = SCHED_INTERLEAVED_1F1B;
	layout_set_tp(&l, 4);
	CHECK(l.tp == 4 && l.sequence_parallel);        /* TP appears: SP on */
	l.sequence_parallel = false;
	layout_set_tp(&l, 8);
	CHECK(!l.sequence_parallel);                    /* the user's off is kept */
	layout_set_tp(&l, 1);
	CHECK(!l.sequence_parallel);                    /* needs tp > 1 */
	layout_set_schedule(&l, SCHED_DUALPIPE);
	CHECK(l.schedule == SCHED_DUALPIPE && l.vpp == 1);
	layout_set_schedule(&l, SCHED_ZB_V);
	CHECK(l.vpp == 2);
	layout_set_schedule(&l, SCHED_INTERLEAVED_1F1B);
	CHECK(l.vpp == 2);                              /* accepted as is */
	layout_set_pipeline(&l, 4, 1);
	CHECK(l.vpp == 1 && l.schedule == SCHED_1F1B);  /* interleaving needs vpp > 1 */
	layout_set_pipeline(&l, 4, 4);
	CHECK(l.vpp == 4 && l.schedule == SCHED_INTERLEAVED_1F1B);
	layout_set_pipeline(&l, 1, 4);
	CHECK(l.pp == 1 && l.vpp == 1 && l.schedule == SCHED_1F1B);
	l.pp = 4;
	l.schedule = SCHED_DUALPIPE;
	layout_set_pipeline(&l, 3, 1);                  /* odd pp: no DualPipe */
	CHECK(l.schedule == SCHED_1F1B);
}

int main(void)
{
	RUN(test_share_bounded);
	RUN(test_scenarios);
	RUN(test_dualpipe_from_interleaved);
	RUN(test_fixups);
	sc_test_catalog_free();
	return sc_test_summary();
}
