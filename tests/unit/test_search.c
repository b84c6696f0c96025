/* test_search.c: the layout search (sim/search): the two-phase engine equals
 * sim_step_predict; the enumeration against an independent brute force;
 * shards merge into the unsharded result; the JSONL form reads back bit for
 * bit; merge refuses parts that do not belong together; the tie marks
 * follow the one decision rule (model_band_order) over each row's band. */
#include "../../models/schedule.h"
#include "sc_catalog.h"
#include "sc_test.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "reports/rpt_search.h"
#include "sim/config/catalog_load.h"
#include "sim/config/scenario_load.h"
#include "sim/search/part.h"
#include "sim/search/search.h"

static bool same_result(const struct step_result *a, const struct step_result *b, bool colls)
{
	bool same = a->step_time_s == b->step_time_s && a->tokens_per_s == b->tokens_per_s &&
		    a->mfu == b->mfu && a->hfu == b->hfu && a->mem_total_bytes == b->mem_total_bytes &&
		    a->oom == b->oom && a->bottleneck == b->bottleneck &&
		    a->micro_batches == b->micro_batches && a->bubble_fraction == b->bubble_fraction;

	for (int i = 0; i < PART_COUNT; i++)
		same = same && a->part_s[i] == b->part_s[i];
	for (int i = 0; i < MEM_COUNT; i++)
		same = same && a->mem_bytes[i] == b->mem_bytes[i];
	if (colls) {
		same = same && a->n_collectives == b->n_collectives;
		for (int i = 0; same && i < a->n_collectives; i++)
			same = a->collectives[i].time_s == b->collectives[i].time_s &&
			       a->collectives[i].total_time_s == b->collectives[i].total_time_s &&
			       strcmp(a->collectives[i].algorithm, b->collectives[i].algorithm) == 0;
	}
	return same;
}

/* prepare + finish gives exactly what predict gives, for every shipped
 * scenario and for the best layouts a search finds for it */
static void test_two_phase(void)
{
	static const char *const files[] = {
		"scenarios/quickstart.json", "scenarios/llama3-70b-p5en-64.json",
		"scenarios/llama3-405b-p5-2048.json", "scenarios/mixtral-8x22b-p6-b200.json",
		"scenarios/deepseek-v3-p6-b300.json", "scenarios/llama3-8b-p5-1node.json"
	};
	static struct scenario sc, row_sc;
	static struct step_prep prep;
	struct step_result a, b;
	struct sc_error err;

	for (size_t f = 0; f < sizeof(files) / sizeof(files[0]); f++) {
		struct search_opts o;
		struct search_result res;

		if (!sc_test_load(files[f], &sc)) {
			CHECK(false);
			continue;
		}
		CHECK(sim_step_predict(&sc, &a, &err) == SC_OK);
		CHECK(sim_step_prepare(&sc, &prep, &err) == SC_OK);
		CHECK(sim_step_finish(&sc, &prep, STEP_COLLECTIVES | STEP_EXACT_PIPELINE, &b, &err) == SC_OK);
		CHECK(same_result(&a, &b, true));
		CHECK(sim_step_finish(&sc, &prep, STEP_EXACT_PIPELINE, &b, NULL) == SC_OK);
		CHECK(same_result(&a, &b, false));
		CHECK(b.n_collectives == 0);
		/* another shape is refused */
		row_sc = sc;
		row_sc.training.micro_batch_seqs *= 2;
		if (row_sc.training.global_batch_seqs %
		    (row_sc.training.micro_batch_seqs * row_sc.layout.dp) == 0)
			CHECK(sim_step_finish(&row_sc, &prep, 0, &b, &err) == SC_EINVAL);

		search_opts_default(&o);
		o.top = 20;
		CHECK(search_result_init(&res, o.top, &err) == SC_OK);
		CHECK(search_run(&sc, &o, &res, &err) == SC_OK);
		CHECK(res.n_rows > 0);
		CHECK(res.stats.layouts == res.stats.oom + res.stats.predicted + res.stats.rejected);
		CHECK(res.stats.rejected == 0);
		for (int i = 0; i < res.n_rows; i++) {
			const struct search_row *r = &res.rows[i];

			search_row_scenario(&sc, r, &row_sc);
			CHECK(sim_step_predict(&row_sc, &a, &err) == SC_OK);
			CHECK(a.step_time_s == r->step_time_s);
			CHECK(a.tokens_per_s == r->tokens_per_s);
			CHECK(a.mem_total_bytes == r->mem_total_bytes);
			CHECK(!a.oom);
			if (i > 0)
				CHECK(r->tokens_per_s <= res.rows[i - 1].tokens_per_s);
		}
		search_result_free(&res);
	}
}

/* The search screens pipelined layouts with the schedule's closed form and
 * times exactly only those that could enter its ranking: sound when the
 * exact step is never shorter than the closed form by more than the
 * schedule's slack (sched_closed_form_slack).  Over every pipelined layout
 * (every schedule the layout owner accepts, every vpp, micro-batch size
 * 1-4) of two spaces: Llama-3-70B on 64 H200 nodes and Mixtral-8x22B on 32
 * B200 nodes (uneven MoE splits). */
static void test_screening_bound(void)
{
	static const char *const files[] = { "scenarios/llama3-70b-p5en-64.json",
					     "scenarios/mixtral-8x22b-p6-b200.json",
					     "scenarios/llama3-8b-32gpu-fsx.json" };
	static struct scenario sc, t;
	static struct step_prep prep;
	double worst = 1;
	long n = 0;

	for (size_t fi = 0; fi < sizeof(files) / sizeof(files[0]); fi++) {
		int gpus;

		if (!sc_test_load(files[fi], &sc)) {
			CHECK(false);
			continue;
		}
		gpus = scenario_gpus(&sc);
		for (int tp = 1; tp <= 8; tp *= 2)
		for (int mb = 1; mb <= 4; mb *= 2)
		for (int pp = 2; pp <= sc.model.layers && pp <= 32; pp++)
		for (int v = 1; pp * v <= sc.model.layers + 2 && v <= 8; v++)
		for (int sch = 0; sch <= SCHED_DUALPIPE; sch++) {
			struct step_result a, b;

			if (gpus % (tp * pp) != 0)
				continue;
			t = sc;
			t.layout.tp = tp;
			t.layout.pp = pp;
			t.layout.vpp = v;
			t.layout.cp = 1;
			t.layout.dp = gpus / (tp * pp);
			t.layout.sequence_parallel = tp > 1;
			t.layout.schedule = (enum sc_schedule)sch;
			t.layout.layer_split = SPLIT_AUTO;
			t.layout.fsdp = false;
			t.layout.zero_stage = 1;
			if (model_is_moe(&sc.model))
				t.layout.etp = 1;
			t.training.micro_batch_seqs = mb;
			if (sim_step_prepare(&t, &prep, NULL) != SC_OK)
				continue;
			CHECK(sim_step_finish(&t, &prep, 0, &a, NULL) == SC_OK);
			CHECK(sim_step_finish(&t, &prep, STEP_EXACT_PIPELINE, &b, NULL) == SC_OK);
			CHECK(b.step_time_s >= (1.0 - sched_closed_form_slack(t.layout.schedule)) * a.step_time_s);
			if (b.step_time_s / a.step_time_s < worst)
				worst = b.step_time_s / a.step_time_s;
			n++;
		}
	}
	CHECK(n > 1000);
	fprintf(stderr, "  screening: %ld pipelined layouts, exact / closed form >= %.4f\n", n, worst);
}

/* An independent brute force over the same rules, written as the README
 * states them, on one 8-GPU node: every combination, validity by predict
 * itself.  The search must count the same layouts, prune the same ones
 * for memory and find the same best throughput. */
static void test_brute_force(void)
{
	static struct scenario sc, t;
	struct step_result r;
	struct sc_error err;
	struct search_opts o;
	struct search_result res;
	long long valid = 0, fit = 0;
	double best = 0;

	if (!sc_test_load("scenarios/quickstart.json", &sc)) {
		CHECK(false);
		return;
	}
	t = sc;
	for (int tp = 1; tp <= 8; tp++)
	for (int cp = 1; cp <= 16; cp++)
	for (int pp = 1; pp <= 8; pp++)
	for (int v = 1; v <= sc.model.layers; v++)
	for (int mb = 1; mb <= sc.training.global_batch_seqs; mb++)
	for (int rc = 0; rc < 3; rc++)
	for (int sch = 0; sch <= SCHED_DUALPIPE; sch++)
	for (int z = 0; z < 4; z++) {
		int gpus = scenario_gpus(&sc);

		if (gpus % (tp * cp * pp) != 0 || 8 % tp != 0)
			continue;
		/* every vpp: the layout owner (through sim_step_predict)
		 * decides what is valid, and the search must find exactly that */
		if (v > 1 && pp < 2)
			continue;
		if (sc.training.global_batch_seqs % mb != 0)
			continue;
		t.layout.tp = tp;
		t.layout.cp = cp;
		t.layout.pp = pp;
		t.layout.vpp = v;
		t.layout.dp = gpus / (tp * cp * pp);
		t.layout.ep = 1;
		t.layout.etp = 0;
		t.layout.zero_stage = z;
		t.layout.fsdp = z == 3;
		t.layout.fsdp_group = 0;
		t.layout.sequence_parallel = tp > 1;
		/* every schedule but GPipe (the search's default), one
		 * schedule without a pipeline */
		if (sch == SCHED_GPIPE || (pp == 1 && sch != SCHED_1F1B))
			continue;
		t.layout.schedule = (enum sc_schedule)sch;
		t.training.micro_batch_seqs = mb;
		t.training.recompute = (enum sc_recompute)rc;
		if (sim_step_predict(&t, &r, &err) != SC_OK)
			continue;
		valid++;
		/* the search's default headroom */
		if (r.oom || r.mem_capacity_bytes - r.mem_total_bytes <
				     SEARCH_DEFAULT_HEADROOM * r.mem_capacity_bytes)
			continue;
		fit++;
		if (r.tokens_per_s > best)
			best = r.tokens_per_s;
	}
	search_opts_default(&o);
	o.top = 3;
	CHECK(search_result_init(&res, o.top, &err) == SC_OK);
	CHECK(search_run(&sc, &o, &res, &err) == SC_OK);
	CHECK(res.stats.layouts == valid);
	CHECK(res.stats.predicted == fit);
	CHECK(res.stats.oom == valid - fit);
	CHECK(res.n_rows == 3);
	CHECK(res.rows[0].tokens_per_s == best);
	fprintf(stderr, "  brute force: %lld valid layouts, %lld fit, best %.6g tokens/s\n", valid, fit, best);
	search_result_free(&res);
}

/* Shards K of N together are the unsharded search, for several N; and
 * through their JSONL files (search_merge) too. */
static void test_shards(void)
{
	static struct scenario sc;
	struct sc_error err;
	struct search_opts o;
	struct search_result full, merged, part;

	if (!sc_test_load("scenarios/mixtral-8x22b-p6-b200.json", &sc)) {
		CHECK(false);
		return;
	}
	search_opts_default(&o);
	o.top = 12;
	o.space.max_micro_batch = 4;
	CHECK(search_result_init(&full, o.top, &err) == SC_OK);
	CHECK(search_run(&sc, &o, &full, &err) == SC_OK);
	CHECK(search_band_rows(&sc, &full, &err) == SC_OK);
	search_mark_ties(&full, o.objective, o.confidence);
	for (int n = 2; n <= 7; n += 5) {
		long long layouts = 0, oom = 0;

		CHECK(search_result_init(&merged, o.top, &err) == SC_OK);
		for (int k = 0; k < n; k++) {
			o.shard = k;
			o.shards = n;
			CHECK(search_result_init(&part, o.top, &err) == SC_OK);
			CHECK(search_run(&sc, &o, &part, &err) == SC_OK);
			for (int i = 0; i < part.n_rows; i++) {
				CHECK(part.rows[i].index % n == k);
				search_offer(&merged, &part.rows[i]);
			}
			layouts += part.stats.layouts;
			oom += part.stats.oom;
			search_result_free(&part);
		}
		CHECK(layouts == full.stats.layouts);
		CHECK(oom == full.stats.oom);
		CHECK(merged.n_rows == full.n_rows);
		for (int i = 0; i < full.n_rows && i < merged.n_rows; i++) {
			CHECK(merged.rows[i].index == full.rows[i].index);
			CHECK(merged.rows[i].score == full.rows[i].score);
		}
		search_result_free(&merged);
	}
	/* the same through files */
	{
		char dir[] = "/tmp/stepcast-test-search.XXXXXX";
		char paths[3][256];
		const char *pp[3];
		struct search_meta meta, mm;

		CHECK(mkdtemp(dir) != NULL);
		for (int k = 0; k < 3; k++) {
			FILE *f;

			snprintf(paths[k], sizeof(paths[k]), "%s/p%d.jsonl", dir, k);
			pp[k] = paths[k];
			o.shard = k;
			o.shards = 3;
			CHECK(search_result_init(&part, o.top, &err) == SC_OK);
			CHECK(search_run(&sc, &o, &part, &err) == SC_OK);
			CHECK(search_band_rows(&sc, &part, &err) == SC_OK);
			search_meta_of(&sc, &o, &meta);
			f = fopen(paths[k], "w");
			CHECK(f != NULL);
			if (f) {
				CHECK(rpt_search(f, &meta, &part, RPT_SEARCH_JSONL));
				fclose(f);
			}
			search_result_free(&part);
		}
		CHECK(search_merge(pp, 3, &mm, &merged, &err) == SC_OK);
		CHECK(mm.shards == 1 && mm.shard == 0);
		CHECK(merged.n_rows == full.n_rows);
		CHECK(merged.stats.layouts == full.stats.layouts);
		for (int i = 0; i < full.n_rows && i < merged.n_rows; i++) {
			const struct search_row *a = &merged.rows[i], *b = &full.rows[i];

			CHECK(a->index == b->index && a->score == b->score);
			CHECK(a->step_time_s == b->step_time_s && a->tokens_per_s == b->tokens_per_s);
			CHECK(a->mfu == b->mfu && a->mem_total_bytes == b->mem_total_bytes);
			CHECK(memcmp(a->part_s, b->part_s, sizeof(a->part_s)) == 0);
			CHECK(a->layout.tp == b->layout.tp && a->layout.pp == b->layout.pp &&
			      a->layout.vpp == b->layout.vpp && a->layout.dp == b->layout.dp &&
			      a->layout.ep == b->layout.ep && a->layout.etp == b->layout.etp &&
			      a->layout.zero_stage == b->layout.zero_stage &&
			      a->layout.fsdp == b->layout.fsdp && a->layout.schedule == b->layout.schedule);
			CHECK(a->micro_batch_seqs == b->micro_batch_seqs && a->recompute == b->recompute);
			CHECK(a->bottleneck == b->bottleneck);
			/* bands read back bit for bit; ties against the whole search's best */
			CHECK(a->band.log_bias == b->band.log_bias && a->band.log_sigma == b->band.log_sigma);
			CHECK(a->tie_with_best == b->tie_with_best);
		}
		search_result_free(&merged);
		/* a missing shard, a shard twice */
		CHECK(search_merge(pp, 2, &mm, &merged, &err) == SC_EINVAL);
		CHECK(strstr(err.message, "shard 2 of 3 is missing") != NULL);
		search_result_free(&merged);
		{
			const char *twice[3] = { pp[0], pp[1], pp[1] };

			CHECK(search_merge(twice, 3, &mm, &merged, &err) == SC_EINVAL);
			CHECK(strstr(err.message, "given twice") != NULL);
			search_result_free(&merged);
		}
		/* a part of another search */
		{
			FILE *f;
			char other[300];
			const char *mix[3] = { pp[0], pp[1], other };

			snprintf(other, sizeof(other), "%s/other.jsonl", dir);
			o.shard = 2;
			o.shards = 3;
			o.top = 11;
			CHECK(search_result_init(&part, o.top, &err) == SC_OK);
			CHECK(search_run(&sc, &o, &part, &err) == SC_OK);
			search_meta_of(&sc, &o, &meta);
			f = fopen(other, "w");
			if (f) {
				rpt_search(f, &meta, &part, RPT_SEARCH_JSONL);
				fclose(f);
			}
			search_result_free(&part);
			CHECK(search_merge(mix, 3, &mm, &merged, &err) == SC_EINVAL);
			CHECK(strstr(err.message, "not a shard of the same search") != NULL);
			search_result_free(&merged);
			unlink(other);
		}
		for (int k = 0; k < 3; k++)
			unlink(paths[k]);
		rmdir(dir);
	}
	search_result_free(&full);
}

static void test_options(void)
{
	static struct scenario sc;
	struct sc_error err;
	struct search_opts o;
	struct search_result res;

	if (!sc_test_load("scenarios/quickstart.json", &sc)) {
		CHECK(false);
		return;
	}
	search_opts_default(&o);
	CHECK(search_result_init(&res, 5, &err) == SC_OK);
	o.top = 5;
	o.shard = 3;
	o.shards = 3;
	CHECK(search_run(&sc, &o, &res, &err) == SC_EINVAL);
	o.shard = 0;
	o.shards = 1;
	o.objective = SEARCH_TIME_TO_TRAIN;
	o.tokens = 0;
	CHECK(search_run(&sc, &o, &res, &err) == SC_EINVAL);
	CHECK_STR(err.pointer, "/training/tokens_to_train");
	/* restricted space: only what was asked for */
	o.objective = SEARCH_USD_PER_TOKEN;
	o.space.recompute_mask = 1u << RECOMPUTE_FULL;
	o.space.zero_mask = 1u << 3;
	o.space.max_tp = 2;
	CHECK(search_run(&sc, &o, &res, &err) == SC_OK);
	CHECK(res.n_rows == 5);
	for (int i = 0; i < res.n_rows; i++) {
		CHECK(res.rows[i].recompute == RECOMPUTE_FULL);
		CHECK(res.rows[i].layout.fsdp && res.rows[i].layout.zero_stage == 3);
		CHECK(res.rows[i].layout.tp <= 2);
		if (i > 0)
			CHECK(res.rows[i].usd_per_mtoken >= res.rows[i - 1].usd_per_mtoken);
	}
	/* the usd figure is the price over the throughput */
	CHECK_REL(res.rows[0].usd_per_mtoken,
		  sc.cluster.instance.price.on_demand_usd_per_h * sc.cluster.nodes / 3600.0 /
		  res.rows[0].tokens_per_s * 1e6, 1e-12);
	/* capacity block where the instance has none */
	sc.cluster.instance.price.capacity_block_usd_per_h = 0;
	o.pricing = PRICING_CAPACITY_BLOCK;
	CHECK(search_run(&sc, &o, &res, &err) == SC_EINVAL);
	search_result_free(&res);
}

/* A hand-built result: the tie marks are model_band_order at the
 * confidence against row 0, on the objective's quantity; a real search's
 * bands are the ones predict prints for each layout. */
static void test_ties(void)
{
	static struct scenario sc, rs;
	struct search_result res;
	struct sc_error err;
	struct search_opts o;
	struct model_band b = { 0.0, 0.1 }, zero = { 0.0, 0.0 };
	/* ln(1.01) / (0.1 sqrt 2) = 0.07: P(row 0 below) 0.53, inside the band;
	 * ln(1.5) / (0.1 sqrt 2) = 2.87: P 0.998, outside */
	static const double step_s[] = { 1.00, 1.01, 1.5 };

	CHECK(search_result_init(&res, 3, &err) == SC_OK);
	for (int i = 0; i < 3; i++) {
		struct search_row row;

		memset(&row, 0, sizeof(row));
		row.index = i;
		row.step_time_s = step_s[i];
		row.tokens_per_s = 1e6 / step_s[i];
		row.score = -row.tokens_per_s;
		row.train.time_s = 1000 * step_s[i];
		row.band = b;
		search_offer(&res, &row);
	}
	CHECK(res.n_rows == 3);
	CHECK(search_mark_ties(&res, SEARCH_TOKENS_PER_S, 0.9) == 1);
	CHECK(!res.rows[0].tie_with_best);
	CHECK(res.rows[1].tie_with_best);
	CHECK(!res.rows[2].tie_with_best);
	/* the same decision through the rule itself */
	CHECK(model_band_order(&b, 1.00, &b, 1.01, 0, 0.9) == MODEL_ORDER_TIE);
	CHECK(model_band_order(&b, 1.00, &b, 1.5, 0, 0.9) == MODEL_ORDER_LESS);
	/* at P50 the point predictions decide: no tie */
	CHECK(search_mark_ties(&res, SEARCH_TOKENS_PER_S, 0.5) == 0);
	/* at P99.9 1.5 s is inside the band too (P 0.998) */
	CHECK(search_mark_ties(&res, SEARCH_TOKENS_PER_S, 0.999) == 2);
	/* a confidence outside (0, 1) is the default */
	CHECK(search_mark_ties(&res, SEARCH_TOKENS_PER_S, 0) == 1);
	/* without a band nothing is a tie */
	for (int i = 0; i < 3; i++)
		res.rows[i].band = zero;
	CHECK(search_mark_ties(&res, SEARCH_TOKENS_PER_S, 0.9) == 0);
	/* time_to_train decides on the time to train, not the step */
	for (int i = 0; i < 3; i++)
		res.rows[i].band = b;
	res.rows[1].train.time_s = 2000;
	CHECK(search_row_decided(SEARCH_TIME_TO_TRAIN, &res.rows[1]) == 2000);
	CHECK(search_mark_ties(&res, SEARCH_TIME_TO_TRAIN, 0.9) == 0);
	search_result_free(&res);

	/* a real search: each row's band is sim_step_band of its own prediction */
	if (!sc_test_load("scenarios/mixtral-8x22b-p6-b200.json", &sc)) {
		CHECK(false);
		return;
	}
	search_opts_default(&o);
	o.top = 5;
	o.space.max_micro_batch = 2;
	CHECK(search_result_init(&res, o.top, &err) == SC_OK);
	CHECK(search_run(&sc, &o, &res, &err) == SC_OK);
	CHECK(res.n_rows == 5);
	CHECK(search_band_rows(&sc, &res, &err) == SC_OK);
	for (int i = 0; i < res.n_rows; i++) {
		static struct step_result r;
		struct model_band want;

		search_row_scenario(&sc, &res.rows[i], &rs);
		CHECK(sim_step_predict(&rs, &r, &err) == SC_OK);
		want = sim_step_band(&rs, &r, NULL);
		CHECK(res.rows[i].band.log_sigma > 0);
		CHECK(res.rows[i].band.log_sigma == want.log_sigma &&
		      res.rows[i].band.log_bias == want.log_bias);
	}
	{
		int n = search_mark_ties(&res, o.objective, o.confidence), count = 0;

		for (int i = 1; i < res.n_rows; i++) {
			bool tie = model_band_order(&res.rows[0].band, res.rows[0].step_time_s,
						    &res.rows[i].band, res.rows[i].step_time_s, 0,
						    MODEL_DECISION_CONFIDENCE) == MODEL_ORDER_TIE;

			CHECK(res.rows[i].tie_with_best == tie);
			count += tie;
		}
		CHECK(n == count);
	}
	search_result_free(&res);
}

int main(void)
{
	RUN(test_two_phase);
	RUN(test_brute_force);
	RUN(test_screening_bound);
	RUN(test_shards);
	RUN(test_ties);
	RUN(test_options);
	sc_test_catalog_free();
	return sc_test_summary();
}
