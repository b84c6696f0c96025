/* test_des_contention.c: contention the analytical model cannot see, each
 * with an answer computed by hand from max-min bandwidth sharing.
 *
 * The collectives run with the DES's own collective routine, platform and
 * SimGrid settings (des_probe_run).  Each member of a 2-member EFA
 * collective sleeps the latency L, then pushes x bytes to its peer while
 * receiving x; alone on a NIC link of bandwidth B this ends at L + x / B.
 * The analytical model times every group alone on its per-GPU share of the
 * node's EFA (less where the share of its traffic that leaves a leaf
 * exceeds the uplinks' taper: net_efa_Bps_leaving), so it gives one number
 * whatever else shares the links.
 *
 *  1. DP traffic of two pipeline stages sharing one node's NICs (a p4d-like
 *     node: 4 NICs for 8 GPUs, GPUs 2k and 2k+1 behind NIC k; stage A on
 *     the even GPUs, stage B on the odd ones).
 *  2. A 2:1 oversubscribed leaf-spine fabric with DP groups spread across
 *     leaves, and a ring whose only spine hops leave the uplinks idle.
 *  3. A checkpoint write sharing a GPU's NIC with its DP traffic.
 */
#include "../../models/collective.h"
#include "../../sim/des/des_internal.h"
#include "../unit/sc_fixtures.h"
#include "../unit/sc_test.h"

#include <string.h>

#define L_S 1e-4   /* latency of the collective, s */
#define X_B 1e9    /* bytes each member sends, after efficiency */
#define TOL 1e-6

static struct cluster node_cluster(int nodes, int efa_nics, double nic_Gbps, int per_leaf,
				   double oversub)
{
	struct cluster c = sc_fix_cluster("hopper", 8, 8, efa_nics, nic_Gbps, nodes, per_leaf, oversub);

	strcpy(c.gpu.name, "test-gpu");
	return c;
}

/* A 2-member EFA collective between GPU a and GPU b. */
static struct des_probe_coll pair(const int *g, double start_s)
{
	struct des_probe_coll c;

	memset(&c, 0, sizeof(c));
	c.n = 2;
	c.gpus = g;
	c.rpd = 1;
	c.fl.pattern = COLL_PATTERN_RING;
	c.fl.latency_s = L_S;
	c.fl.efa_bytes = X_B;
	c.fl.efa_steps = 1;
	c.steps = 1;
	c.start_s = start_s;
	return c;
}

static void test_two_stages_share_nics(void)
{
	struct cluster cl = node_cluster(2, 4, 100, 0, 1.0);
	struct des_probe pr;
	static int gpus[8][2];
	struct des_probe_coll coll[8];
	double end[8], none[1];
	struct sc_error err;
	double B, analytic;
	struct net_span s;

	memset(&pr, 0, sizeof(pr));
	net_topo_of(&cl, &pr.topo);
	B = pr.topo.nic_link_Bps; /* 12.5 GB/s, shared by 2 GPUs */
	CHECK(pr.topo.nic_links == 4 && pr.topo.gpus_per_nic_link == 2);
	CHECK_REL(B, 12.5e9, 1e-12);
	/* the analytical model: every GPU gets half a NIC, always */
	s = net_span_of(&cl, 2, 8);
	CHECK_REL(s.efa_Bps, 6.25e9, 1e-12);
	analytic = L_S + X_B / s.efa_Bps;
	for (int g = 0; g < 8; g++) {
		gpus[g][0] = g;      /* node 0 */
		gpus[g][1] = 8 + g;  /* node 1 */
	}
	/* a: stage A's DP alone: one flow per NIC direction, the whole NIC */
	for (int k = 0; k < 4; k++)
		coll[k] = pair(gpus[2 * k], 0);
	pr.coll = coll;
	pr.n_coll = 4;
	CHECK(des_probe_run(&pr, end, none, &err) == SC_OK);
	for (int k = 0; k < 4; k++)
		CHECK_REL(end[k], L_S + X_B / B, TOL);
	fprintf(stderr, "  1a stage A alone:        expected %.6f s, simulated %.6f s (analytical %.6f s)\n",
		L_S + X_B / B, end[0], analytic);
	/* b: both stages at once: two flows per NIC, half each */
	for (int k = 0; k < 4; k++) {
		coll[k] = pair(gpus[2 * k], 0);
		coll[4 + k] = pair(gpus[2 * k + 1], 0);
	}
	pr.n_coll = 8;
	CHECK(des_probe_run(&pr, end, none, &err) == SC_OK);
	for (int k = 0; k < 8; k++)
		CHECK_REL(end[k], L_S + 2 * X_B / B, TOL);
	fprintf(stderr, "  1b stages A and B:       expected %.6f s, simulated %.6f s (analytical %.6f s)\n",
		L_S + 2 * X_B / B, end[0], analytic);
	/* c: B starts when A is half way: A ends at L + 1.5 x/B, B at
	 * x/(2B) + L + 1.5 x/B (half shared, the rest alone) */
	for (int k = 0; k < 4; k++)
		coll[4 + k] = pair(gpus[2 * k + 1], X_B / (2 * B));
	CHECK(des_probe_run(&pr, end, none, &err) == SC_OK);
	for (int k = 0; k < 4; k++) {
		CHECK_REL(end[k], L_S + 1.5 * X_B / B, TOL);
		CHECK_REL(end[4 + k], L_S + 2.0 * X_B / B, TOL);
	}
	fprintf(stderr, "  1c B starts half way:    expected A %.6f s, B %.6f s; simulated %.6f s, %.6f s\n",
		L_S + 1.5 * X_B / B, L_S + 2.0 * X_B / B, end[0], end[4]);
}

static void test_oversubscribed_spine(void)
{
	/* 4 nodes, 2 per leaf, 2:1: a leaf's uplink carries 2 nodes x 8
	 * GPUs x 50 GB/s / 2 = 400 GB/s */
	struct cluster cl = node_cluster(4, 32, 100, 2, 2.0);
	struct des_probe pr;
	static int pairs[16][2], rings[8][4];
	struct des_probe_coll coll[16];
	double end[16], none[1];
	struct sc_error err;
	double B, L = L_S;
	struct net_span s;

	memset(&pr, 0, sizeof(pr));
	net_topo_of(&cl, &pr.topo);
	B = pr.topo.nic_link_Bps;
	CHECK_REL(B, 50e9, 1e-12);
	CHECK(pr.topo.leaves == 2);
	CHECK_REL(pr.topo.leaf_uplink_Bps, 400e9, 1e-12);
	/* a: DP groups spread across leaves: node i (leaf 0) pairs with node
	 * i + 2 (leaf 1), every GPU: 16 flows of 50 GB/s want 800 GB/s of a
	 * 400 GB/s uplink, each gets 25 GB/s */
	for (int i = 0; i < 2; i++)
		for (int g = 0; g < 8; g++) {
			pairs[8 * i + g][0] = 8 * i + g;
			pairs[8 * i + g][1] = 8 * (i + 2) + g;
			coll[8 * i + g] = pair(pairs[8 * i + g], 0);
		}
	pr.coll = coll;
	pr.n_coll = 16;
	CHECK(des_probe_run(&pr, end, none, &err) == SC_OK);
	for (int k = 0; k < 16; k++)
		CHECK_REL(end[k], L + X_B / (B / 2), TOL);
	s = net_span_of(&cl, 2, 16);
	CHECK(s.crosses_spine);
	/* the analytical model: every hop of a pair leaves the leaf */
	CHECK_REL(L + X_B / net_efa_Bps_leaving(&s, 1.0), end[0], TOL);
	fprintf(stderr, "  2a pairs across leaves:  expected %.6f s, simulated %.6f s (analytical %.6f s)\n",
		L + 2 * X_B / B, end[0], L + X_B / net_efa_Bps_leaving(&s, 1.0));
	/* b: one ring per rail over the 4 nodes: only the hops 1 -> 2 and
	 * 3 -> 0 cross, 8 flows of 50 GB/s per uplink direction = 400 GB/s:
	 * no slowdown */
	for (int g = 0; g < 8; g++) {
		for (int i = 0; i < 4; i++)
			rings[g][i] = 8 * i + g;
		coll[g] = pair(rings[g], 0);
		coll[g].n = 4;
	}
	pr.n_coll = 8;
	CHECK(des_probe_run(&pr, end, none, &err) == SC_OK);
	for (int k = 0; k < 8; k++)
		CHECK_REL(end[k], L + X_B / B, TOL);
	s = net_span_of(&cl, 4, 8);
	CHECK(s.crosses_spine && s.leaf_domains == 2);
	/* the analytical model: a ring leaves each leaf on 1 hop in 2, which
	 * a 2:1 taper carries at full speed */
	CHECK_REL(L + X_B / net_efa_Bps_leaving(&s, 1.0 / s.leaf_domains), end[0], TOL);
	fprintf(stderr, "  2b rings across leaves:  expected %.6f s, simulated %.6f s (analytical %.6f s)\n",
		L + X_B / B, end[0], L + X_B / net_efa_Bps_leaving(&s, 1.0 / s.leaf_domains));
	/* c: the pairs of a on a non-blocking fabric: no slowdown */
	cl = node_cluster(4, 32, 100, 2, 1.0);
	net_topo_of(&cl, &pr.topo);
	for (int k = 0; k < 16; k++)
		coll[k] = pair(pairs[k], 0);
	pr.n_coll = 16;
	CHECK(des_probe_run(&pr, end, none, &err) == SC_OK);
	for (int k = 0; k < 16; k++)
		CHECK_REL(end[k], L + X_B / B, TOL);
	fprintf(stderr, "  2c pairs, 1:1 fabric:    expected %.6f s, simulated %.6f s\n", L + X_B / B, end[0]);
}

static void test_checkpoint_shares_efa(void)
{
	struct cluster cl = node_cluster(2, 32, 100, 0, 1.0);
	struct des_probe pr;
	static const int g[2] = { 0, 8 };
	struct des_probe_coll coll[1];
	struct des_probe_flow ck[1];
	double end[1], fend[1];
	struct sc_error err;
	double B, C = 4e9;

	memset(&pr, 0, sizeof(pr));
	net_topo_of(&cl, &pr.topo);
	B = pr.topo.nic_link_Bps;
	pr.n_storage = 1;
	pr.storage_Bps = 1e12; /* the file system is not the bottleneck */
	coll[0] = pair(g, 0);
	pr.coll = coll;
	pr.n_coll = 1;
	/* alone */
	CHECK(des_probe_run(&pr, end, fend, &err) == SC_OK);
	CHECK_REL(end[0], L_S + X_B / B, TOL);
	/* with a checkpoint write of C bytes from GPU 0 (node 0) to storage,
	 * from t = 0: it has the NIC alone until L, then shares it with the
	 * DP flow, which ends at L + 2x/B; the checkpoint ends at (C + x)/B */
	ck[0].src = 0;
	ck[0].dst = -1;
	ck[0].bytes = C;
	ck[0].start_s = 0;
	pr.flow = ck;
	pr.n_flow = 1;
	CHECK(des_probe_run(&pr, end, fend, &err) == SC_OK);
	CHECK_REL(end[0], L_S + 2 * X_B / B, TOL);
	CHECK_REL(fend[0], (C + X_B) / B, TOL);
	fprintf(stderr, "  3a checkpoint + DP:      expected DP %.6f s, checkpoint %.6f s; simulated %.6f s, %.6f s "
		"(DP alone %.6f s)\n", L_S + 2 * X_B / B, (C + X_B) / B, end[0], fend[0], L_S + X_B / B);
	/* a data-loading read from storage into GPU 0 takes the other
	 * direction of its NIC: the DP flow node 1 -> node 0 shares it, with
	 * the same answer */
	ck[0].src = -1;
	ck[0].dst = 0;
	CHECK(des_probe_run(&pr, end, fend, &err) == SC_OK);
	CHECK_REL(end[0], L_S + 2 * X_B / B, TOL);
	CHECK_REL(fend[0], (C + X_B) / B, TOL);
	fprintf(stderr, "  3b data read + DP:       expected DP %.6f s, read %.6f s; simulated %.6f s, %.6f s\n",
		L_S + 2 * X_B / B, (C + X_B) / B, end[0], fend[0]);
}

int main(void)
{
	RUN(test_two_stages_share_nics);
	RUN(test_oversubscribed_spine);
	RUN(test_checkpoint_shares_efa);
	return sc_test_summary();
}
