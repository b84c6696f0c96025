/* test_plan.c: capacity plans (sim/plan): budget and duration parsing, the
 * time-to-train arithmetic, the node-count choice under a deadline, the
 * Pareto frontier, and compare's decision. */
#include "sc_catalog.h"
#include "sc_test.h"

#include <stdlib.h>
#include <string.h>

#include "sim/config/catalog_load.h"
#include "sim/config/scenario_load.h"
#include "reports/rpt_plan.h"
#include "sim/plan/plan.h"

static void test_parse(void)
{
	struct sc_error err;
	double v;

	CHECK(plan_parse_tokens("15T", &v, &err) == SC_OK);
	CHECK_REL(v, 15e12, 1e-15);
	CHECK(plan_parse_tokens("300B", &v, &err) == SC_OK);
	CHECK_REL(v, 3e11, 1e-15);
	CHECK(plan_parse_tokens("1.5e13", &v, &err) == SC_OK);
	CHECK_REL(v, 1.5e13, 1e-15);
	CHECK(plan_parse_tokens("2k", &v, &err) == SC_OK);
	CHECK_REL(v, 2e3, 1e-15);
	CHECK(plan_parse_tokens("15X", &v, &err) == SC_EINVAL);
	CHECK(strstr(err.message, "\"15X\"") != NULL);
	CHECK(plan_parse_tokens("-1T", &v, &err) == SC_EINVAL);
	CHECK(plan_parse_tokens("T", &v, &err) == SC_EINVAL);
	CHECK(plan_parse_tokens("1e400", &v, &err) == SC_EINVAL);
	CHECK(plan_parse_tokens("15TT", &v, &err) == SC_EINVAL);
	CHECK(plan_parse_duration("90d", &v, &err) == SC_OK);
	CHECK_REL(v, 90 * 86400.0, 1e-15);
	CHECK(plan_parse_duration("36h", &v, &err) == SC_OK);
	CHECK_REL(v, 36 * 3600.0, 1e-15);
	CHECK(plan_parse_duration("2w", &v, &err) == SC_OK);
	CHECK_REL(v, 14 * 86400.0, 1e-15);
	CHECK(plan_parse_duration("10", &v, &err) == SC_OK);
	CHECK_REL(v, 10 * 86400.0, 1e-15);
	CHECK(plan_parse_duration("0d", &v, &err) == SC_EINVAL);
	CHECK(plan_parse_duration("3y", &v, &err) == SC_EINVAL);
	{
		enum plan_pricing p;

		CHECK(plan_pricing_parse("capacity-block", &p) && p == PRICING_CAPACITY_BLOCK);
		CHECK(!plan_pricing_parse("spot", &p));
	}
}

static void test_time_to_train(void)
{
	struct scenario *sc = calloc(1, sizeof(*sc));
	struct step_result r;
	struct plan_train t;

	if (!sc) {
		CHECK(false);
		return;
	}
	sc->cluster.nodes = 4;
	sc->cluster.instance.gpus_per_node = 8;
	sc->training.global_batch_seqs = 100;
	sc->training.seq_len = 1000;
	memset(&r, 0, sizeof(r));
	r.tokens_per_s = 2e5;
	plan_time_to_train(sc, &r, 1e12, 400.0, &t);
	CHECK_REL(t.time_s, 5e6, 1e-15);          /* 1e12 / 2e5 */
	CHECK_REL(t.goodput, 1.0, 1e-15);
	CHECK_REL(t.steps, 1e7, 1e-15);           /* 1e12 / 1e5 tokens per step */
	CHECK_REL(t.gpu_hours, 5e6 * 32 / 3600.0, 1e-15);
	CHECK_REL(t.usd_total, 400.0 * 5e6 / 3600.0, 1e-15);
	CHECK_REL(t.usd_per_mtoken, t.usd_total / 1e6, 1e-15);
	/* no throughput: nothing */
	r.tokens_per_s = 0;
	plan_time_to_train(sc, &r, 1e12, 400.0, &t);
	CHECK(t.time_s == 0 && t.usd_total == 0);
	free(sc);
}

#define cat (*sc_test_catalog()) /* loaded in main() */

/* A plan test's start: the scenario at path (a failed check when it does
 * not load) and the default plan options for a run of `tokens`. */
static bool plan_setup(const char *path, struct scenario *sc, struct plan_opts *o, double tokens)
{
	bool ok = sc_test_load(path, sc);

	CHECK(ok);
	plan_opts_default(o);
	o->tokens = tokens;
	return ok;
}

static void test_plan_choice(void)
{
	static struct scenario sc;
	struct plan_opts o;
	struct plan_result res;
	struct sc_error err;
	const struct plan_point *c;

	if (!plan_setup("scenarios/llama3-70b-p5en-64.json", &sc, &o, 15e12))
		return;
	o.deadline_s = 120 * 86400.0;
	o.max_nodes = 1024;
	CHECK(plan_run(&sc, &o, &res, &err) == SC_OK);
	c = plan_chosen(&res);
	CHECK(c != NULL);
	CHECK(res.choice == PLAN_CHOSEN_DEADLINE);
	if (c) {
		CHECK(c->meets_deadline);
		CHECK(c->train[PRICING_ON_DEMAND].time_s <= o.deadline_s);
		/* nothing meets it cheaper than the point-cheapest; the choice is
		 * the fewest nodes among those tied with it */
		CHECK(res.point_cheapest >= 0 && res.n_tied >= 1);
		for (int k = 0; k < res.n_tied; k++)
			CHECK(res.points[res.tied[k]].nodes >= c->nodes);
		for (int i = 0; i < res.n_points; i++) {
			const struct plan_point *p = &res.points[i];

			if (p->feasible && p->meets_deadline)
				CHECK(p->train[PRICING_ON_DEMAND].usd_total >=
				      res.points[res.point_cheapest].train[PRICING_ON_DEMAND].usd_total);
			if (p->feasible) {
				/* at P90 by default, and P10 < P50 < P90 */
				CHECK(p->meets_deadline == (p->time_conf_s <= o.deadline_s));
				CHECK_REL(p->time_conf_s, p->time_q_s.p90, 1e-12);
				/* P50 is the point prediction when the band is
				 * unbiased; a regime band (uncertainty-bands.json)
				 * may centre elsewhere */
				if (p->band.log_bias == 0)
					CHECK_REL(p->time_q_s.p50, p->train[0].time_s, 1e-12);
				else
					CHECK((p->time_q_s.p50 > p->train[0].time_s) == (p->band.log_bias > 0));
				CHECK(p->time_q_s.p10 < p->time_q_s.p50 && p->time_q_s.p50 < p->time_q_s.p90);
			}
		}
		/* the cost is the price of the nodes over the time */
		CHECK_REL(c->train[PRICING_ON_DEMAND].usd_total,
			  sc.cluster.instance.price.on_demand_usd_per_h * c->nodes *
			  c->train[PRICING_ON_DEMAND].time_s / 3600.0, 1e-12);
		CHECK_REL(c->train[PRICING_CAPACITY_BLOCK].usd_total,
			  sc.cluster.instance.price.capacity_block_usd_per_h * c->nodes *
			  c->train[PRICING_CAPACITY_BLOCK].time_s / 3600.0, 1e-12);
	}
	/* at P50 the same deadline takes fewer nodes: the point prediction of
	 * a smaller cluster meets it, its P90 does not */
	{
		struct plan_result r50;
		struct plan_opts o50 = o;
		const struct plan_point *c50;

		o50.confidence = 0.5;
		CHECK(plan_run(&sc, &o50, &r50, &err) == SC_OK);
		c50 = plan_chosen(&r50);
		CHECK(c50 != NULL && r50.choice == PLAN_CHOSEN_DEADLINE);
		if (c50 && c) {
			CHECK(c50->nodes < c->nodes);
			CHECK(c50->time_conf_s <= o.deadline_s);
			CHECK(c50->time_q_s.p90 > o.deadline_s);
			/* at confidence 0.5 the plan reads the band's P50 */
			CHECK_REL(c50->time_conf_s, c50->time_q_s.p50, 1e-12);
		}
		plan_result_free(&r50);
	}
	/* ladder: ascending, starting at 1 */
	CHECK(res.n_points > 5 && res.points[0].nodes == 1);
	for (int i = 1; i < res.n_points; i++)
		CHECK(res.points[i].nodes > res.points[i - 1].nodes);
	plan_result_free(&res);

	/* an impossible deadline: the fastest, flagged */
	o.deadline_s = 3600;
	CHECK(plan_run(&sc, &o, &res, &err) == SC_OK);
	CHECK(res.choice == PLAN_MISSED_DEADLINE);
	c = plan_chosen(&res);
	CHECK(c != NULL);
	for (int i = 0; c && i < res.n_points; i++)
		if (res.points[i].feasible)
			CHECK(res.points[i].train[0].time_s >= c->train[0].time_s);
	plan_result_free(&res);

	/* a fixed node count */
	o.deadline_s = 0;
	o.nodes = 48;
	o.max_nodes = 0;
	CHECK(plan_run(&sc, &o, &res, &err) == SC_OK);
	CHECK(res.choice == PLAN_CHOSEN_NODES && res.n_points == 1);
	CHECK(plan_chosen(&res) && plan_chosen(&res)->nodes == 48);
	plan_result_free(&res);

	/* no budget */
	o.tokens = 0;
	CHECK(plan_run(&sc, &o, &res, &err) == SC_EINVAL);
	plan_result_free(&res);
}

/* The cheapest by the one decision rule, on hand-made points: a count
 * inside the point-cheapest one's band is a tie, and the tie-break (fewer
 * nodes, then faster) picks; at P50 the point prediction decides. */
static void test_plan_cheapest_ties(void)
{
	static struct plan_point pts[4];
	struct plan_result res;
	struct model_band band = model_band_from_mape(0.15);
	static const int nodes[4] = { 8, 16, 32, 64 };
	static const double usd[4] = { 100, 95, 99, 300 };

	memset(&res, 0, sizeof(res));
	memset(pts, 0, sizeof(pts));
	for (int i = 0; i < 4; i++) {
		pts[i].nodes = nodes[i];
		pts[i].feasible = true;
		pts[i].meets_deadline = true;
		pts[i].band = band;
		pts[i].train[PRICING_ON_DEMAND].usd_total = usd[i];
		pts[i].train[PRICING_ON_DEMAND].time_s = 1000.0 / nodes[i];
	}
	res.points = pts;
	res.n_points = 4;
	CHECK(plan_pick_cheapest(&res, true, PRICING_ON_DEMAND, 0.9) == 0);
	CHECK(res.point_cheapest == 1);                    /* $95 at 16 nodes */
	CHECK(res.n_tied == 3);                            /* 8, 16, 32: a 5 % gap is inside the band */
	CHECK(res.tied[0] == 0 && res.tied[1] == 1 && res.tied[2] == 2);
	CHECK(res.points[res.chosen].nodes == 8);          /* tie-break: fewer nodes */
	CHECK(plan_pick_cheapest(&res, true, PRICING_ON_DEMAND, 0.5) == 1);
	CHECK(res.n_tied == 1);
	/* the deadline first: 8 nodes missing it leaves 16 and 32 tied */
	pts[0].meets_deadline = false;
	CHECK(plan_pick_cheapest(&res, true, PRICING_ON_DEMAND, 0.9) == 1);
	CHECK(res.n_tied == 2);
	/* no band: strict */
	for (int i = 0; i < 4; i++)
		pts[i].band = model_band_from_mape(0);
	pts[0].meets_deadline = true;
	CHECK(plan_pick_cheapest(&res, true, PRICING_ON_DEMAND, 0.9) == 1 && res.n_tied == 1);
	for (int i = 0; i < 4; i++)
		pts[i].feasible = false;
	CHECK(plan_pick_cheapest(&res, true, PRICING_ON_DEMAND, 0.9) == -1);
}

/* The frontier of hand-made points: (time, cost) */
static void test_pareto(void)
{
	static const double pts[2][4][2] = {
		{ { 10, 100 }, { 5, 150 }, { 2.5, 300 }, { 20, 120 } },   /* last: dominated by (10, 100) */
		{ { 8, 90 }, { 4, 200 }, { 5, 140 }, { 1, 1000 } },       /* (4,200) dominated by (2.5,300)? no */
	};
	struct compare_entry e[2];
	struct plan_point p[2][4];
	struct compare_result r;
	struct compare_ref f[16];
	int n;

	memset(e, 0, sizeof(e));
	memset(p, 0, sizeof(p));
	for (int i = 0; i < 2; i++) {
		for (int k = 0; k < 4; k++) {
			p[i][k].feasible = true;
			p[i][k].train[0].time_s = pts[i][k][0];
			p[i][k].train[0].usd_total = pts[i][k][1];
			p[i][k].train[0].usd_per_h = 1;
		}
		e[i].plan.points = p[i];
		e[i].plan.n_points = 4;
		e[i].plan.chosen = 0;
	}
	memset(&r, 0, sizeof(r));
	r.entries = e;
	r.n = 2;
	n = compare_pareto(&r, PRICING_ON_DEMAND, f, 16);
	/* non-dominated: (1,1000) (2.5,300) (5,140) (8,90); dominated: (5,150)
	 * by (5,140), (4,200)? by nothing faster-and-cheaper: 2.5 is faster but
	 * 300 > 200, so (4,200) stays; (10,100) by (8,90); (20,120) */
	CHECK(n == 5);
	if (n == 5) {
		CHECK(f[0].entry == 1 && f[0].point == 3);
		CHECK(f[1].entry == 0 && f[1].point == 2);
		CHECK(f[2].entry == 1 && f[2].point == 1);
		CHECK(f[3].entry == 1 && f[3].point == 2);
		CHECK(f[4].entry == 1 && f[4].point == 0);
	}
	/* times ascending, costs descending along the frontier */
	for (int k = 1; k < n; k++) {
		const struct plan_point *a = &e[f[k - 1].entry].plan.points[f[k - 1].point];
		const struct plan_point *b = &e[f[k].entry].plan.points[f[k].point];

		CHECK(b->train[0].time_s >= a->train[0].time_s);
		CHECK(b->train[0].usd_total < a->train[0].usd_total);
	}
}

/* compare's decision inside the model's band: llama3-70b at 64 nodes,
 * where p5's on-demand cost is 0.8 % below p6-b200's (a tie at P90, a win
 * at P50) and p5e and p5en are one prediction at two prices. */
static void test_compare_ties(void)
{
	static struct scenario sc;
	static const char *const names[] = { "p5.48xlarge", "p6-b200.48xlarge", "p5e.48xlarge",
					     "p5en.48xlarge" };
	struct plan_opts o;
	struct compare_result r;
	struct sc_error err;
	const int od = PRICING_ON_DEMAND;

	if (!plan_setup("scenarios/llama3-70b-p5en-64.json", &sc, &o, 15e12))
		return;
	o.n_sweep = 1;
	o.sweep[0] = 64;
	CHECK(compare_run(&sc, &cat, names, 4, &o, &r, &err) == SC_OK);
	CHECK_REL(r.confidence, 0.9, 0);
	CHECK(r.cheapest[od] == 0);
	/* tied with p6-b200 on cost */
	{
		bool b200 = false;

		for (int i = 0; i < r.n_cheapest_tied[od]; i++)
			b200 |= r.cheapest_tied[od][i] == 1;
		CHECK(b200);
	}
	/* the tie rule is the band's: tied iff not surely less at P90 */
	for (int p = 0; p < PRICING_COUNT; p++) {
		int w = r.cheapest[p];
		const struct plan_point *pw;

		if (w < 0)
			continue;
		pw = plan_chosen(&r.entries[w].plan);
		for (int i = 0; i < r.n; i++) {
			const struct plan_point *pi = plan_chosen(&r.entries[i].plan);
			bool tied = false, sure;

			if (i == w || !(pi->train[p].usd_per_h > 0))
				continue;
			for (int k = 0; k < r.n_cheapest_tied[p]; k++)
				tied |= r.cheapest_tied[p][k] == i;
			sure = model_band_prob_less(&pw->band, pw->train[p].usd_total, &pi->band,
						    pi->train[p].usd_total,
						    compare_error_correlation(&r, w, i)) >= 0.9;
			CHECK(tied == !sure);
		}
	}
	/* p5e and p5en: the same step on the same GPU, so only the price
	 * differs and their correlation is 1 */
	CHECK(compare_error_correlation(&r, 2, 3) == 1.0);
	CHECK(compare_error_correlation(&r, 0, 2) == 0.0);
	CHECK_REL(plan_chosen(&r.entries[2].plan)->train[0].time_s,
		  plan_chosen(&r.entries[3].plan)->train[0].time_s, 1e-12);
	/* the report says so */
	{
		struct rpt_plan_input in = { &sc, &o, &r, true };
		char *buf = NULL;
		size_t len = 0;
		FILE *m = open_memstream(&buf, &len);

		CHECK(m != NULL);
		if (m) {
			CHECK(rpt_plan(m, &in, RPT_PLAN_TEXT));
			fclose(m);
			CHECK(strstr(buf, "tied within the model's +/-22 % band at P90 with") != NULL);
			free(buf);
		}
		buf = NULL;
		m = open_memstream(&buf, &len);
		if (m) {
			CHECK(rpt_plan(m, &in, RPT_PLAN_JSON));
			fclose(m);
			CHECK(strstr(buf, "\"tied_with\"") != NULL);
			free(buf);
		}
	}
	compare_result_free(&r);
	/* at P50 the point predictions decide: no ties */
	o.confidence = 0.5;
	CHECK(compare_run(&sc, &cat, names, 4, &o, &r, &err) == SC_OK);
	CHECK(r.cheapest[od] == 0 && r.n_cheapest_tied[od] == 0 && r.n_fastest_tied == 0);
	compare_result_free(&r);
}

static void test_compare(void)
{
	static struct scenario sc;
	static const char *const names[] = { "p5.48xlarge", "p4d.24xlarge", "p6-b200.48xlarge" };
	struct plan_opts o;
	struct compare_result r;
	struct sc_error err;

	if (!plan_setup("scenarios/llama3-70b-p5en-64.json", &sc, &o, 15e12))
		return;
	sc.training.precision = PREC_FP8;
	o.n_sweep = 2;
	o.sweep[0] = 32;
	o.sweep[1] = 128;
	CHECK(compare_run(&sc, &cat, names, 3, &o, &r, &err) == SC_OK);
	CHECK(r.n == 3);
	/* A100 has no FP8: BF16, said so; its own calibration */
	CHECK(r.entries[1].precision == PREC_BF16);
	CHECK(strstr(r.entries[1].note, "fp8") != NULL);
	CHECK(strcmp(r.entries[1].calibration, "ampere-default") == 0);
	CHECK(r.entries[0].precision == PREC_FP8);
	/* every entry at the scenario's 64 nodes plus the sweep */
	for (int i = 0; i < 3; i++) {
		CHECK(r.entries[i].plan.n_points == 3);
		CHECK(plan_chosen(&r.entries[i].plan) && plan_chosen(&r.entries[i].plan)->nodes == 64);
	}
	/* the decision is the arg-min */
	CHECK(r.fastest >= 0 && r.fastest_runner_up >= 0 && r.fastest != r.fastest_runner_up);
	for (int i = 0; i < 3; i++) {
		const struct plan_point *p = plan_chosen(&r.entries[i].plan);

		CHECK(p->train[0].time_s >= plan_chosen(&r.entries[r.fastest].plan)->train[0].time_s);
		CHECK(p->train[PRICING_ON_DEMAND].usd_total >=
		      plan_chosen(&r.entries[r.cheapest[PRICING_ON_DEMAND]].plan)->train[PRICING_ON_DEMAND].usd_total);
	}
	/* p4d has no capacity-block price: never the cheapest under it */
	CHECK(r.cheapest[PRICING_CAPACITY_BLOCK] != 1 && r.cheapest_runner_up[PRICING_CAPACITY_BLOCK] != 1);
	/* every renderer runs on it (under the sanitizers too) */
	{
		struct rpt_plan_input in = { &sc, &o, &r, true };
		char *buf = NULL;
		size_t len = 0;

		for (int f = RPT_PLAN_TEXT; f <= RPT_PLAN_HTML; f++) {
			FILE *m = open_memstream(&buf, &len);

			CHECK(m != NULL);
			if (!m)
				continue;
			CHECK(rpt_plan(m, &in, (enum rpt_plan_format)f));
			fclose(m);
			CHECK(len > 1000);
			CHECK(strstr(buf, "p6-b200.48xlarge") != NULL);
			CHECK(strstr(buf, r.entries[0].instance.price.date) != NULL);
			if (f == RPT_PLAN_HTML) {
				CHECK(strstr(buf, "<svg id=\"chart-breakdown\"") != NULL);
				CHECK(strstr(buf, "<svg id=\"chart-cost-time\"") != NULL);
				CHECK(strstr(buf, "<svg id=\"chart-scaling\"") != NULL);
				CHECK(strstr(buf, "<path class=\"pareto\"") != NULL);
				CHECK(strstr(buf, "<script") == NULL);
			}
			free(buf);
			buf = NULL;
		}
		in.compare = false;
		for (int f = RPT_PLAN_TEXT; f <= RPT_PLAN_HTML; f++) {
			FILE *m = open_memstream(&buf, &len);

			if (!m)
				continue;
			CHECK(rpt_plan(m, &in, (enum rpt_plan_format)f));
			fclose(m);
			CHECK(len > 500);
			free(buf);
			buf = NULL;
		}
	}
	compare_result_free(&r);
	{
		static const char *const bad[] = { "p5.48xlarg" };

		CHECK(compare_run(&sc, &cat, bad, 1, &o, &r, &err) == SC_ENOTFOUND);
		CHECK(strstr(err.message, "did you mean \"p5.48xlarge\"") != NULL);
		compare_result_free(&r);
	}
}

/* models/purchase over the whole catalogue: every instance can be bought some
 * way; an UltraServer-only kind is never offered on demand, is bought in the
 * UltraServer spanning its NVLink domain, and N nodes pay whole ones. */
static void test_purchase(void)
{
	const struct instance_spec *gb = catalog_instance(&cat, "p6e-gb200.36xlarge");
	const struct instance_spec *p5 = catalog_instance(&cat, "p5.48xlarge");
	const struct ultraserver_spec *u;
	struct sc_error err;

	for (int i = 0; i < cat.n_instances; i++) {
		const struct instance_spec *in = &cat.instances[i];

		CHECK(purchase_offered(in, PRICING_ON_DEMAND) || purchase_offered(in, PRICING_CAPACITY_BLOCK));
		CHECK(purchase_offered(in, purchase_default_pricing(in)));
		if (in->price.sold_as == SOLD_AS_ULTRASERVER) {
			CHECK(!purchase_offered(in, PRICING_ON_DEMAND));
			CHECK(purchase_unit(in) != NULL);
			CHECK(purchase_unit(in)->instances * in->gpus_per_node == in->nvlink_domain_gpus);
		} else {
			CHECK(purchase_unit(in) == NULL && purchase_unit_nodes(in) == 1);
		}
	}
	CHECK(gb != NULL && p5 != NULL);
	if (!gb || !p5)
		return;
	u = purchase_unit(gb);
	CHECK(u != NULL && strcmp(u->name, "u-p6e-gb200x72") == 0 && u->instances == 18);
	CHECK(purchase_default_pricing(gb) == PRICING_CAPACITY_BLOCK);
	CHECK(purchase_cluster_usd_per_h(gb, 18, PRICING_ON_DEMAND) == 0);
	CHECK_REL(purchase_cluster_usd_per_h(gb, 18, PRICING_CAPACITY_BLOCK), 761.904, 1e-12);
	/* 2 nodes still pay one whole UltraServer; 19 pay two */
	CHECK_REL(purchase_cluster_usd_per_h(gb, 2, PRICING_CAPACITY_BLOCK), 761.904, 1e-12);
	CHECK_REL(purchase_cluster_usd_per_h(gb, 19, PRICING_CAPACITY_BLOCK), 2 * 761.904, 1e-12);
	CHECK_REL(purchase_instance_usd_per_h(gb, PRICING_CAPACITY_BLOCK), 761.904 / 18, 1e-12);
	CHECK(purchase_round_nodes(gb, 16) == 18 && purchase_round_nodes(gb, 36) == 36 &&
	      purchase_round_nodes(gb, 37) == 54);
	/* a 36-GPU NVLink domain buys the x36 UltraServer */
	{
		struct instance_spec half = *gb;

		half.nvlink_domain_gpus = 36;
		CHECK(purchase_unit(&half) && strcmp(purchase_unit(&half)->name, "u-p6e-gb200x36") == 0);
		CHECK_REL(purchase_cluster_usd_per_h(&half, 27, PRICING_CAPACITY_BLOCK), 3 * 380.952, 1e-12);
	}
	/* per-instance kinds: nodes x price */
	CHECK_REL(purchase_cluster_usd_per_h(p5, 3, PRICING_ON_DEMAND), 3 * p5->price.on_demand_usd_per_h, 1e-12);
	CHECK(purchase_round_nodes(p5, 3) == 3 && purchase_default_pricing(p5) == PRICING_ON_DEMAND);
	/* asking for what does not exist names the options */
	sc_error_clear(&err);
	CHECK(plan_check_pricing(gb, PRICING_ON_DEMAND, &err) == SC_EINVAL);
	CHECK(strstr(err.message, "not sold on demand") != NULL);
	CHECK(strstr(err.message, "u-p6e-gb200x72 of 18 instances") != NULL);
	CHECK(plan_check_pricing(gb, PRICING_CAPACITY_BLOCK, &err) == SC_OK);
}

/* A plan on an UltraServer-only kind visits only whole UltraServers and pays
 * for them; a partial UltraServer or on-demand pricing is refused. */
static void test_plan_ultraserver(void)
{
	static struct scenario sc;
	struct plan_opts o;
	struct plan_result res;
	struct sc_error err;

	if (!plan_setup("scenarios/llama3-405b-p6e-gb200-144.json", &sc, &o, 2e12))
		return;
	o.pricing = PRICING_CAPACITY_BLOCK;
	o.deadline_s = 60 * 86400.0;
	o.max_nodes = 600;
	CHECK(plan_run(&sc, &o, &res, &err) == SC_OK);
	CHECK(res.n_points == 10);   /* 1, 2, 3, 4, 6, 8, 12, 16, 24, 32 UltraServers */
	for (int i = 0; i < res.n_points; i++) {
		const struct plan_point *p = &res.points[i];

		CHECK(p->nodes % 18 == 0 && p->nodes <= 600);
		CHECK(p->train[PRICING_ON_DEMAND].usd_per_h == 0);
		if (p->feasible)
			CHECK_REL(p->train[PRICING_CAPACITY_BLOCK].usd_per_h, p->nodes / 18 * 761.904, 1e-12);
	}
	CHECK(res.points[0].nodes == 18 && res.points[res.n_points - 1].nodes == 576);
	CHECK(plan_chosen(&res) && res.choice == PLAN_CHOSEN_DEADLINE);
	plan_result_free(&res);

	o.pricing = PRICING_ON_DEMAND;
	CHECK(plan_run(&sc, &o, &res, &err) == SC_EINVAL);
	CHECK(strcmp(err.pointer, "/cluster/instance/price") == 0);
	plan_result_free(&res);

	o.pricing = PRICING_CAPACITY_BLOCK;
	o.deadline_s = 0;
	o.max_nodes = 0;
	o.nodes = 16;
	CHECK(plan_run(&sc, &o, &res, &err) == SC_EINVAL);
	CHECK(strstr(err.message, "use 18") != NULL);
	plan_result_free(&res);
	o.nodes = 0;
	o.n_sweep = 2;
	o.sweep[0] = 36;
	o.sweep[1] = 40;
	CHECK(plan_run(&sc, &o, &res, &err) == SC_EINVAL);
	CHECK(strstr(err.message, "40 nodes") != NULL);
	plan_result_free(&res);
}

/* compare: an UltraServer-only entry is rounded up to whole UltraServers and
 * planned under capacity blocks when on-demand is compared, left out of the
 * on-demand decision, each said in its note. */
static void test_compare_ultraserver(void)
{
	static struct scenario sc;
	static const char *const names[] = { "p6-b200.48xlarge", "p6e-gb200.36xlarge" };
	struct plan_opts o;
	struct compare_result r;
	struct sc_error err;
	const struct plan_point *g;

	if (!plan_setup("scenarios/llama3-405b-p6e-gb200-144.json", &sc, &o, 2e12))
		return;
	o.nodes = 128;
	o.n_sweep = 2;
	o.sweep[0] = 64;
	o.sweep[1] = 256;
	CHECK(compare_run(&sc, &cat, names, 2, &o, &r, &err) == SC_OK);
	g = plan_chosen(&r.entries[1].plan);
	CHECK(g != NULL && g->nodes == 144);
	CHECK(plan_chosen(&r.entries[0].plan) && plan_chosen(&r.entries[0].plan)->nodes == 128);
	for (int i = 0; i < r.entries[1].plan.n_points; i++)
		CHECK(r.entries[1].plan.points[i].nodes % 18 == 0);
	/* the user's sweep rounded up: 64 -> 72 (4 UltraServers), 256 -> 270 (15), said so */
	CHECK(r.entries[1].plan.n_points == 3 && r.entries[1].plan.points[0].nodes == 72 &&
	      r.entries[1].plan.points[2].nodes == 270);
	CHECK(strstr(r.entries[1].note, "--sweep counts rounded up to whole u-p6e-gb200x72") != NULL);
	CHECK(strstr(r.entries[1].note, "not sold on demand") != NULL);
	CHECK(strstr(r.entries[1].note, "144 nodes: whole u-p6e-gb200x72") != NULL);
	CHECK(r.entries[0].note[0] == '\0');
	CHECK(r.cheapest[PRICING_ON_DEMAND] == 0 && r.cheapest_runner_up[PRICING_ON_DEMAND] == -1);
	CHECK(r.cheapest[PRICING_CAPACITY_BLOCK] >= 0);
	if (g)
		CHECK_REL(g->train[PRICING_CAPACITY_BLOCK].usd_per_h, 8 * 761.904, 1e-12);
	{
		struct rpt_plan_input in = { &sc, &o, &r, true };
		char *buf = NULL;
		size_t len = 0;
		FILE *m = open_memstream(&buf, &len);

		CHECK(m != NULL);
		if (m) {
			CHECK(rpt_plan(m, &in, RPT_PLAN_TEXT));
			fclose(m);
			CHECK(strstr(buf, "$761.90/h") != NULL && strstr(buf, "u-p6e-gb200x72 (read 2026-06-19)") != NULL);
			free(buf);
		}
		in.compare = false;
		in.res = &(struct compare_result){ .entries = &r.entries[1], .n = 1, .fastest = -1 };
		buf = NULL;
		m = open_memstream(&buf, &len);
		if (m) {
			CHECK(rpt_plan(m, &in, RPT_PLAN_TEXT));
			fclose(m);
			CHECK(strstr(buf, "8 x u-p6e-gb200x72 (18 x p6e-gb200.36xlarge), $6095.23/h") != NULL);
			CHECK(strstr(buf, "on-demand: not offered") != NULL);
			free(buf);
		}
	}
	compare_result_free(&r);

	/* the default scaling points (N/8 .. 4N) go to the UltraServer ladder:
	 * 256 -> 288 (16 UltraServers, not 15), 512 -> 576 */
	o.n_sweep = 0;
	CHECK(compare_run(&sc, &cat, names, 2, &o, &r, &err) == SC_OK);
	CHECK(r.entries[1].plan.n_points == 6);
	if (r.entries[1].plan.n_points == 6) {
		static const int want[] = { 18, 36, 72, 144, 288, 576 };

		for (int i = 0; i < 6; i++)
			CHECK(r.entries[1].plan.points[i].nodes == want[i]);
	}
	CHECK(strstr(r.entries[1].note, "--sweep") == NULL);
	compare_result_free(&r);
}

int main(void)
{
	bool have = sc_test_catalog() != NULL;

	RUN(test_parse);
	RUN(test_time_to_train);
	RUN(test_pareto);
	RUN(test_plan_cheapest_ties);
	CHECK(have);
	if (have) {
		RUN(test_plan_choice);
		RUN(test_compare);
		RUN(test_compare_ties);
		RUN(test_purchase);
		RUN(test_plan_ultraserver);
		RUN(test_compare_ultraserver);
		sc_test_catalog_free();
	}
	return sc_test_summary();
}
