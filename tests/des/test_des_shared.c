/* test_des_shared.c: jobs sharing one fabric (des_predict_together), with
 * the contention computed by hand.
 *
 * Two identical jobs, llama3-8b on 2 p5 nodes each (tp 8, dp 2: the DP
 * all-reduce is the only traffic that leaves a node), DP overlap off so
 * that all of it is exposed.  The fabric: leaves of 2 nodes, 2:1 taper, so
 * a leaf's uplink carries 2 x node EFA / 2 = one node's EFA.  Spread over
 * 2 leaves, job A has node 0 under leaf 0 and node 1 under leaf 1, job B
 * nodes 2 (leaf 0) and 3 (leaf 1).
 *   Alone, each leaf's uplink carries one node's DP traffic: exactly its
 *   capacity, so the all-reduce takes its contention-free time T = L + x/B
 *   (x EFA bytes per GPU after efficiency, B its NIC link, L the latency).
 *   Together, both jobs' DP traffic crosses the same uplinks at the same
 *   moments (identical programs): max-min fairness gives each B/2, so the
 *   bandwidth term doubles: T' = L + 2x/B, and the step grows by x/B.
 * Packed (each job under a leaf of its own) or on a non-blocking fabric
 * nothing is shared: together = alone, to the bit. */
#include "../../models/placement.h"
#include "../../sim/config/scenario_load.h"
#include "../../models/network.h"
#include "../../sim/des/des_internal.h"
#include "../unit/sc_catalog.h"
#include "../unit/sc_test.h"

#include <string.h>

static struct scenario job;

static void load_job(void)
{
	CHECK(sc_test_load_dp_pair("scenarios/quickstart.json", &job));
	job.cluster.fabric.nodes_per_leaf = 2;
	job.cluster.fabric.leaf_spine_oversubscription = 2.0;
	job.calibration.dp_overlap = 0;
}

/* Together and alone for placement kind of the 4 nodes. */
static void run(enum placement_gen kind, double oversub, double *alone_s, double *together_s,
		double *x_over_B)
{
	static struct placement whole, slice[2];
	static struct scenario s[2];
	const struct scenario *sp[2] = { &s[0], &s[1] };
	struct des_result alone, together[2];
	struct cluster fabric;
	struct sc_error err;
	struct des_program p;

	CHECK(placement_generate(&whole, kind, 4, 2, 2, 1, &err) == SC_OK);
	for (int k = 0; k < 2; k++) {
		int idx[2] = { 2 * k, 2 * k + 1 };

		CHECK(placement_subset(&whole, idx, 2, "slice", &slice[k], &err) == SC_OK);
		s[k] = job;
		s[k].cluster.fabric.leaf_spine_oversubscription = oversub;
		s[k].cluster.placement = &slice[k];
	}
	fabric = s[0].cluster;
	fabric.nodes = 4;
	fabric.placement = &whole;
	CHECK(des_predict(&s[0], NULL, &alone, &err) == SC_OK);
	CHECK(des_predict_together(sp, 2, &fabric, NULL, together, &err) == SC_OK);
	CHECK(together[0].step.step_time_s == together[1].step.step_time_s);
	*alone_s = alone.step.step_time_s;
	*together_s = together[0].step.step_time_s;
	/* x / B: the DP jobs' EFA bytes per GPU over its NIC link */
	CHECK(des_program_build(&s[0], NULL, &p, &err) == SC_OK);
	*x_over_B = 0;
	for (int j = 0; j < p.stages[0].n_jobs; j++)
		*x_over_B += p.stages[0].jobs[j].fl.efa_bytes / p.topo.nic_link_Bps;
	des_program_free(&p);
	des_result_free(&alone);
	placement_free(&whole);
	placement_free(&slice[0]);
	placement_free(&slice[1]);
}

static void test_shared_uplinks(void)
{
	double a, t, xb;

	run(PLACEMENT_GEN_SPREAD, 2.0, &a, &t, &xb);
	CHECK(xb > 0.01);
	CHECK_REL(t - a, xb, 2e-3);
	fprintf(stderr, "shared uplinks: alone %.6f s, together %.6f s (+%.6f s), x/B %.6f s, slowdown %.4fx\n",
		a, t, t - a, xb, t / a);
}

static void test_nothing_shared(void)
{
	double a, t, xb;

	run(PLACEMENT_GEN_PACKED, 2.0, &a, &t, &xb);
	CHECK(a == t);
	run(PLACEMENT_GEN_SPREAD, 1.0, &a, &t, &xb);
	CHECK(a == t);
}

/* Streams of flows (des_predict_shared: a serving job's KV transfers) on
 * the same fabric, by hand: leaves of 2 nodes at 2:1, so a leaf's uplink
 * is 2 x 8 NIC links / 2 = 8 B.  Spread, nodes 0 and 2 are under leaf 0,
 * 1 and 3 under leaf 1.  Eight flows of x bytes, GPU g of node 0 to GPU
 * g of node 1, fill leaf 0's uplink exactly: x / B each.  Eight more from
 * node 2 to node 3 at the same moment share it: 8 B / 16 each, 2 x / B.
 * Packed, nodes 0-1 and 2-3 share leaves and nothing leaves one: x / B. */
static void streams_of(enum placement_gen kind, int senders, double *mean_s, double *x_over_B)
{
	static struct placement whole;
	struct des_flow f[16];
	struct des_stream st = { f, 0 };
	struct des_stream_result sr;
	struct cluster fabric = job.cluster;
	struct net_topo t;
	struct sc_error err;

	CHECK(placement_generate(&whole, kind, 4, 2, 2, 1, &err) == SC_OK);
	fabric.nodes = 4;
	fabric.placement = &whole;
	for (int n = 0; n < senders; n++)
		for (int g = 0; g < 8; g++) {
			f[st.n_flows].src = 16 * n + g;
			f[st.n_flows].dst = 16 * n + 8 + g;
			f[st.n_flows].t_s = 0;
			f[st.n_flows].latency_s = 0;
			f[st.n_flows++].bytes = 1e9;
		}
	CHECK(des_predict_shared(NULL, 0, &st, 1, &fabric, NULL, NULL, &sr, &err) == SC_OK);
	CHECK(sr.flows == st.n_flows);
	net_topo_of(&fabric, &t);
	*mean_s = sr.mean_s;
	*x_over_B = 1e9 / t.nic_link_Bps;
	placement_free(&whole);
}

static void test_stream_uplinks(void)
{
	double m, xb;

	streams_of(PLACEMENT_GEN_SPREAD, 1, &m, &xb);
	CHECK_REL(m, xb, 1e-6);
	streams_of(PLACEMENT_GEN_SPREAD, 2, &m, &xb);
	CHECK_REL(m, 2 * xb, 1e-6);
	streams_of(PLACEMENT_GEN_PACKED, 2, &m, &xb);
	CHECK_REL(m, xb, 1e-6);
}

int main(void)
{
	load_job();
	RUN(test_shared_uplinks);
	RUN(test_nothing_shared);
	RUN(test_stream_uplinks);
	return sc_test_summary();
}
