/* test_des_schedules.c: the DES replays every pipeline schedule of
 * models/schedule (sched_order: W as its own block, DualPipe's two
 * directions and fused F&B pairs, the V's turn without a message) and
 * agrees with the analytical closed forms within 3 % where nothing
 * contends: Llama-3-8B, tp 8 on one p5 node per stage, dp 1 (no DP
 * traffic), over a small grid of (pp, vpp, micro-batches) per schedule,
 * including fewer micro-batches than stages.  Prints the table. */
#include "../../models/schedule.h"
#include "../unit/sc_catalog.h"
#include "des_batch.h"

#include <cjson/cJSON.h>
#include <stdlib.h>

struct grid {
	const char *schedule;
	int pp, vpp, m;
};

static const struct grid grid[] = {
	{ "gpipe", 4, 1, 8 },  { "gpipe", 4, 1, 2 },
	{ "1f1b", 4, 1, 8 },   { "1f1b", 4, 1, 2 },   { "1f1b", 2, 1, 5 },
	{ "interleaved-1f1b", 4, 2, 8 }, { "interleaved-1f1b", 2, 4, 4 },
	{ "zb-h1", 4, 1, 8 },  { "zb-h1", 4, 1, 3 },  { "zb-h1", 2, 1, 6 },
	{ "zb-v", 4, 2, 8 },   { "zb-v", 2, 2, 4 },   { "zb-v", 4, 2, 12 },
	{ "dualpipe", 4, 1, 8 }, { "dualpipe", 2, 1, 4 }, { "dualpipe", 4, 1, 12 },
};
#define N_GRID (int)(sizeof(grid) / sizeof(grid[0]))

int main(void)
{
	static struct des_batch b;
	struct catalog *cat = sc_test_catalog();
	struct sc_error err;
	double t_ana[N_GRID], t_des[N_GRID];

	_Static_assert(N_GRID <= DES_BATCH_MAX, "more grid points than a batch holds");
	if (!cat)
		return 1;
	for (int i = 0; i < N_GRID; i++) {
		char json[1024];
		cJSON *root;

		snprintf(json, sizeof(json),
			 "{ \"name\": \"%s pp %d vpp %d m %d\", \"model\": \"llama3-8b\","
			 " \"cluster\": { \"instance\": \"p5.48xlarge\", \"nodes\": %d, \"fabric\": \"ultracluster\" },"
			 " \"training\": { \"seq_len\": 8192, \"global_batch_seqs\": %d, \"micro_batch_seqs\": 1,"
			 " \"precision\": \"bf16\", \"recompute\": \"selective\" },"
			 " \"layout\": { \"tp\": 8, \"pp\": %d, \"vpp\": %d, \"dp\": 1, \"zero_stage\": 0,"
			 " \"schedule\": \"%s\" } }",
			 grid[i].schedule, grid[i].pp, grid[i].vpp, grid[i].m, grid[i].pp, grid[i].m,
			 grid[i].pp, grid[i].vpp, grid[i].schedule);
		root = cJSON_Parse(json);
		CHECK(root != NULL);
		if (!root || scenario_read("grid", root, cat, &b.sc[i], &err) != SC_OK) {
			fprintf(stderr, "%s: %s %s\n", json, err.pointer, err.message);
			cJSON_Delete(root);
			sc_test_catalog_free();
			return 1;
		}
		cJSON_Delete(root);
	}
	b.n = N_GRID;
	sc_test_catalog_free();
	des_batch_run(&b);
	for (int i = 0; i < N_GRID; i++)
		t_ana[i] = t_des[i] = 0;
	fprintf(stderr, "%-18s %4s %4s %4s %11s %11s %8s %10s\n", "schedule", "pp", "vpp", "m",
		"analytic s", "des s", "diff %", "bubble s");
	for (int i = 0; i < N_GRID; i++) {
		struct des_result *r = &b.res[i];

		if (!des_batch_check(&b, i, b.sc[i].name, 0.03))
			continue;
		fprintf(stderr, "%-18s %4d %4d %4d %11.4f %11.4f %+8.2f %10.4f\n", grid[i].schedule,
			grid[i].pp, grid[i].vpp, grid[i].m, r->analytic.step_time_s, r->step.step_time_s,
			100.0 * (r->step.step_time_s / r->analytic.step_time_s - 1.0),
			r->analytic.part_s[PART_BUBBLE]);
		t_ana[i] = r->analytic.step_time_s;
		t_des[i] = r->step.step_time_s;
		des_result_free(r);
	}
	/* the zero-bubble schedules beat 1F1B on the same layout (analytical
	 * and simulated): ZB-H1's bubble is (p - 1)(F + B - W), not
	 * (p - 1)(F + B + W) */
	CHECK(t_ana[7] < t_ana[2]);
	CHECK(t_des[7] < t_des[2]);
	return sc_test_summary();
}
