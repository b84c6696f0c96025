/* test_des_flows.c: the two engines share the fabric and the collective
 * formulas.  coll_flows_of() (the flows the DES replays) gives every
 * collective the same algorithm and time as coll_time() (the analytical
 * model), for every op, protocol, tier and size tried; net_topo_of() and
 * net_span_of() agree on the fabric. */
#include "../../models/collective.h"
#include "../../models/network.h"
#include "../unit/sc_fixtures.h"
#include "../unit/sc_test.h"

#include <string.h>

/* Hopper's collectives with a slower EFA tree and the LL and EFA
 * all-to-all values under test. */
static struct calibration cal(double ll_alpha, double efa_a2a_eff)
{
	struct calibration k = sc_fix_hopper_coll_cal();

	k.efa_tree_alpha_s = 2.5e-5;
	k.efa_tree_bw_eff = 0.55;
	k.efa_a2a_bw_eff = efa_a2a_eff;
	k.ll_alpha_fraction = ll_alpha;
	return k;
}

static void test_flows_match_coll_time(void)
{
	struct cluster cls[] = {
		sc_fix_cluster("hopper", 8, 8, 32, 100, 64, 16, 1.0),
		sc_fix_cluster("hopper", 8, 8, 32, 100, 512, 16, 2.0),
		sc_fix_cluster("ampere", 8, 8, 4, 100, 16, 32, 1.0),
		sc_fix_cluster("ampere", 8, 8, 4, 100, 512, 32, 1.0),
		sc_fix_cluster("blackwell", 4, 72, 4, 400, 72, 32, 1.0),
	};
	struct calibration cals[] = { cal(0.29, 0.35), cal(0.9, 0.9) };
	enum coll_op ops[] = { COLL_ALL_REDUCE, COLL_REDUCE_SCATTER, COLL_ALL_GATHER, COLL_ALL_TO_ALL,
			       COLL_SEND_RECV };
	int groups[][2] = { { 2, 1 }, { 8, 1 }, { 4, 2 }, { 16, 1 }, { 16, 8 }, { 32, 2 }, { 64, 8 },
			    { 2, 64 }, { 128, 8 }, { 72, 1 }, { 144, 4 }, { 1024, 2 }, { 2048, 1 } };
	double sizes[] = { 8, 4096, 1e6, 6.7e7, 1.6e8, 4e9 };
	int algos_seen = 0;
	char seen[32][COLL_NAME_MAX];

	for (size_t c = 0; c < sizeof(cls) / sizeof(cls[0]); c++)
		for (size_t k = 0; k < sizeof(cals) / sizeof(cals[0]); k++)
			for (size_t g = 0; g < sizeof(groups) / sizeof(groups[0]); g++)
				for (size_t o = 0; o < sizeof(ops) / sizeof(ops[0]); o++)
					for (size_t z = 0; z < sizeof(sizes) / sizeof(sizes[0]); z++) {
						struct net_span s = net_span_of(&cls[c], groups[g][0], groups[g][1]);
						struct coll_choice ch;
						struct coll_flows f;
						double t = coll_time(&cals[k], &s, ops[o], sizes[z], &ch);
						double tf = coll_flows_of(&cals[k], &s, ops[o], sizes[z], &f);
						bool known = false;

						CHECK_REL(tf, t, 1e-12);
						CHECK_STR(f.choice.algorithm, ch.algorithm);
						CHECK(f.nvlink_bytes >= 0 && f.efa_bytes >= 0 && f.latency_s >= 0);
						/* the bytes alone reproduce the bandwidth term */
						CHECK(f.latency_s <= t * (1 + 1e-12));
						if (!s.inter)
							CHECK(f.efa_bytes == 0);
						if (ops[o] == COLL_SEND_RECV)
							CHECK(f.pattern == COLL_PATTERN_P2P);
						if (ops[o] == COLL_ALL_TO_ALL)
							CHECK(f.pattern == COLL_PATTERN_ALL_TO_ALL);
						for (int a = 0; a < algos_seen; a++)
							known |= strcmp(seen[a], ch.algorithm) == 0;
						if (!known && algos_seen < 32)
							strcpy(seen[algos_seen++], ch.algorithm);
					}
	/* every algorithm of collective.c was exercised: ring, tree,
	 * hierarchical (ring and tree across EFA), NVLS, hierarchical NVLS,
	 * direct all-to-all, p2p, under both protocols */
	fprintf(stderr, "algorithms compared:");
	for (int a = 0; a < algos_seen; a++)
		fprintf(stderr, " %s", seen[a]);
	fprintf(stderr, "\n");
	CHECK(algos_seen >= 12);
}

static void test_a2a_split(void)
{
	struct cluster c = sc_fix_cluster("hopper", 8, 8, 32, 100, 64, 16, 1.0);
	struct calibration k = cal(0.29, 0.35);
	int n[] = { 16, 64, 256 };

	for (int i = 0; i < 3; i++) {
		struct net_span s = net_span_of(&c, n[i], 1);

		for (double nv = 0; nv <= 2e8; nv += 1e8)
			for (double efa = 0; efa <= 4e8; efa += 1e8) {
				struct coll_flows f;

				CHECK_REL(coll_flows_of_a2a_split(&k, &s, nv, efa, &f),
					  coll_all_to_all_split(&k, &s, nv, efa, NULL), 1e-12);
			}
	}
}

static void test_topology(void)
{
	struct cluster p5 = sc_fix_cluster("hopper", 8, 8, 32, 100, 2048, 32, 2.0);
	struct cluster p4d = sc_fix_cluster("ampere", 8, 8, 4, 100, 16, 32, 1.0);
	struct cluster nvl = sc_fix_cluster("blackwell", 4, 72, 4, 400, 72, 32, 1.0);
	struct net_topo t;
	struct net_span s;

	net_topo_of(&p5, &t);
	s = net_span_of(&p5, 2, 8);
	CHECK(t.nic_links == 8 && t.gpus_per_nic_link == 1);
	CHECK_REL(t.nic_link_Bps, 50e9, 1e-12);
	CHECK_REL(t.gpu_efa_Bps, s.efa_Bps, 1e-12);
	CHECK(t.domains == 2048 && t.leaf_domains == 32 && t.leaves == 64);
	CHECK_REL(t.leaf_uplink_Bps, 32 * 400e9 / 2, 1e-12);
	CHECK(net_topo_leaf_of(&t, 8 * 31 + 7) == 0 && net_topo_leaf_of(&t, 8 * 32) == 1);
	/* a group wider than a leaf: 32 of its 64 nodes under each leaf; a
	 * ring leaves a leaf on 1 hop in 32 (2:1 does not bind), a pair across
	 * leaves always (the share halves), an all-to-all sends 32 of its 63
	 * remote parts up (bound: 2 x 32/63 > 1) */
	s = net_span_of(&p5, 64, 8);
	CHECK(s.crosses_spine && s.leaf_domains == 32);
	CHECK_REL(s.oversubscription, t.oversubscription, 1e-12);
	CHECK_REL(s.efa_Bps, t.gpu_efa_Bps, 1e-12);
	CHECK_REL(net_efa_Bps_leaving(&s, 1.0 / 32), t.gpu_efa_Bps, 1e-12);
	CHECK_REL(net_efa_Bps_leaving(&s, 32.0 / 63), t.gpu_efa_Bps / (2 * 32.0 / 63), 1e-12);
	CHECK_REL(s.extra_latency_s, 2 * t.spine_hop_latency_s, 1e-12);
	s = net_span_of(&p5, 2, 8 * 32);
	CHECK(s.crosses_spine && s.leaf_domains == 1);
	CHECK_REL(net_efa_Bps_leaving(&s, 1.0), t.gpu_efa_Bps / t.oversubscription, 1e-12);
	s = net_span_of(&p5, 32, 8);
	CHECK(!s.crosses_spine && s.oversubscription == 1.0);

	net_topo_of(&p4d, &t);
	CHECK(t.nic_links == 4 && t.gpus_per_nic_link == 2);
	CHECK(net_topo_nic_link_of(&t, 5) == 2);
	CHECK_REL(t.nic_link_Bps, 12.5e9, 1e-12);
	CHECK_REL(t.gpu_efa_Bps, t.nic_link_Bps / 2, 1e-12);

	net_topo_of(&nvl, &t);
	CHECK(t.nodes_per_domain == 18 && t.domains == 4);
	CHECK(t.leaf_domains == 1 && t.leaves == 4);
	CHECK(net_topo_domain_of(&t, 71) == 0 && net_topo_domain_of(&t, 72) == 1);
	s = net_span_of(&nvl, 72, 1);
	CHECK(!s.inter);
	/* both engines put one NVL72 rack under a leaf: 144 GPUs cross */
	s = net_span_of(&nvl, 144, 1);
	CHECK(s.inter && s.crosses_spine && s.leaf_domains == 1);
}

int main(void)
{
	RUN(test_flows_match_coll_time);
	RUN(test_a2a_split);
	RUN(test_topology);
	return sc_test_summary();
}
