/* test_collective.c: network placement and collective times against a
 * public nccl-tests curve.  Reads nothing from disk: the calibration values
 * are those of configs/calibration/hopper-default.json and the measured
 * points are copied below with their source. */
#include "../../models/collective.h"
#include "../../models/network.h"
#include "sc_fixtures.h"
#include "sc_test.h"

#include <string.h>

static void test_placement(void)
{
	struct cluster c = sc_fix_p5_cluster(64);
	struct net_span s;

	/* TP 8 at stride 1: one node, NVLink */
	s = net_span_of(&c, 8, 1);
	CHECK(!s.inter);
	CHECK(s.ranks_per_domain == 8 && s.domains == 1);
	CHECK(s.nvls);
	CHECK_STR(net_tier_name(&s), "nvlink");
	/* CP 2 at stride 4 (tp 4): still one node */
	s = net_span_of(&c, 2, 4);
	CHECK(!s.inter && s.ranks_per_domain == 2);
	/* DP 16 at stride 8 (tp 8): one rank per node, 16 nodes, EFA */
	s = net_span_of(&c, 16, 8);
	CHECK(s.inter);
	CHECK(s.ranks_per_domain == 1 && s.domains == 16);
	CHECK_STR(net_tier_name(&s), "efa");
	CHECK_REL(s.efa_Bps, 50e9, 1e-12);  /* 32 x 100 Gb/s / 8 GPUs */
	CHECK(!s.crosses_spine);
	/* DP 16 at stride 2 (tp 2): 4 per node, 4 nodes */
	s = net_span_of(&c, 16, 2);
	CHECK(s.inter && s.ranks_per_domain == 4 && s.domains == 4);
	/* a 64-node DP group spans more than one 16-node leaf */
	s = net_span_of(&c, 64, 8);
	CHECK(s.crosses_spine && s.leaf_domains == 16);
	CHECK(s.oversubscription == 1.0);
	CHECK_REL(s.extra_latency_s, 2e-6, 1e-12);
	/* NVL72: 72 GPUs in one NVLink domain across 18 trays of 4 */
	c.instance.gpus_per_node = 4;
	c.instance.nvlink_domain_gpus = 72;
	s = net_span_of(&c, 64, 1);
	CHECK(!s.inter && s.nodes == 16);
	/* Ampere has no NVLS */
	strcpy(c.gpu.family, "ampere");
	s = net_span_of(&c, 8, 1);
	CHECK(!s.nvls);
}

/* nccl-tests all_reduce_perf, 2 x p5.48xlarge (16 H100), out-of-place time
 * per size: aws-samples/awsome-distributed-training,
 * micro-benchmarks/nccl-tests/README.md at commit 7217859f67bc (the
 * validation record aws-nccltests-allreduce-p5-2nodes). */
static const struct { double bytes, time_us; } p5_points[] = {
	{ 8, 69.12 },
	{ 1048576, 123.2 },
	{ 16777216, 298.1 },
	{ 67108864, 601.5 },
	{ 268435456, 1468.2 },
	{ 1073741824, 4607.6 },
	{ 17179869184.0, 66132 },
};

static void test_p5_allreduce(void)
{
	struct cluster c = sc_fix_p5_cluster(2);
	struct calibration k = sc_fix_hopper_coll_cal();
	struct net_span s = net_span_of(&c, 16, 1);
	struct coll_choice ch;
	double prev = 0;

	CHECK(s.inter && s.ranks_per_domain == 8 && s.domains == 2);
	for (size_t i = 0; i < sizeof(p5_points) / sizeof(p5_points[0]); i++) {
		double want = p5_points[i].time_us * 1e-6;
		double got = coll_time(&k, &s, COLL_ALL_REDUCE, p5_points[i].bytes, &ch);

		fprintf(stderr, "  p5 2x8 all_reduce %12.0f B: measured %9.1f us, model %9.1f us (%+5.1f %%) %s\n",
			p5_points[i].bytes, want * 1e6, got * 1e6, 100 * (got / want - 1),
			ch.algorithm);
		CHECK_STR(ch.tier, "efa");
		if (p5_points[i].bytes >= 64.0 * 1048576)
			CHECK_REL(got, want, 0.25);
		else
			CHECK(got > 0.5 * want && got < 2.0 * want);
		CHECK(got >= prev);
		prev = got;
	}
	/* large messages: NVLS inside the node, EFA between (NCCL's NVLS-tree) */
	coll_time(&k, &s, COLL_ALL_REDUCE, 1073741824.0, &ch);
	CHECK(strncmp(ch.algorithm, "hierarchical(nvls+", 18) == 0);
	/* small messages: the LL protocol */
	coll_time(&k, &s, COLL_ALL_REDUCE, 8, &ch);
	CHECK(strstr(ch.algorithm, "/ll") != NULL);
}

static void test_intra_node(void)
{
	struct cluster c = sc_fix_p5_cluster(1);
	struct calibration k = sc_fix_hopper_coll_cal();
	struct net_span s = net_span_of(&c, 8, 1);
	struct coll_choice ch;
	double t, busbw;

	/* large all-reduce in one H100 node: NVLS, bus bandwidth ~480 GB/s */
	t = coll_time(&k, &s, COLL_ALL_REDUCE, 1073741824.0, &ch);
	CHECK_STR(ch.algorithm, "nvls/simple");
	busbw = 1073741824.0 / t * coll_busbw_factor(COLL_ALL_REDUCE, 8);
	CHECK(busbw > 440e9 && busbw < 490e9);
	/* without NVLS (Ampere) the ring, ~0.8 of NVLink */
	strcpy(c.gpu.family, "ampere");
	s = net_span_of(&c, 8, 1);
	t = coll_time(&k, &s, COLL_ALL_REDUCE, 1073741824.0, &ch);
	CHECK_STR(ch.algorithm, "ring/simple");
	busbw = 1073741824.0 / t * coll_busbw_factor(COLL_ALL_REDUCE, 8);
	CHECK_REL(busbw, 0.8 * 450e9, 0.02);
	/* all-gather and reduce-scatter take half an all-reduce's volume */
	{
		double ar = coll_time(&k, &s, COLL_ALL_REDUCE, 256e6, NULL);
		double ag = coll_time(&k, &s, COLL_ALL_GATHER, 256e6, NULL);
		double rs = coll_time(&k, &s, COLL_REDUCE_SCATTER, 256e6, NULL);

		CHECK_REL(ag, ar / 2, 0.02);
		CHECK_REL(rs, ag, 1e-12);
	}
}

static void test_other_ops(void)
{
	struct cluster c = sc_fix_p5_cluster(8);
	struct calibration k = sc_fix_hopper_coll_cal();
	struct coll_choice ch;
	struct net_span one = net_span_of(&c, 1, 1);
	struct net_span ep8 = net_span_of(&c, 8, 1);
	struct net_span ep64 = net_span_of(&c, 64, 1);
	struct net_span pp = net_span_of(&c, 2, 8);
	double t8, t64, t;

	/* one rank: nothing to do */
	CHECK(coll_time(&k, &one, COLL_ALL_REDUCE, 1e9, &ch) == 0);
	CHECK_STR(ch.algorithm, "none");
	/* all-to-all over EFA is much slower than inside a node */
	t8 = coll_time(&k, &ep8, COLL_ALL_TO_ALL, 64e6, &ch);
	CHECK_STR(ch.algorithm, "direct");
	CHECK_STR(ch.tier, "nvlink");
	t64 = coll_time(&k, &ep64, COLL_ALL_TO_ALL, 64e6, &ch);
	CHECK_STR(ch.tier, "efa");
	CHECK(t64 > 4 * t8);
	/* 7/8 of 64 MB over a 0.35 x 50 GB/s share, plus 63 peers' latency */
	CHECK_REL(t64, 63 * 5e-6 + 64e6 * 56 / 64 / (0.35 * 50e9), 1e-9);
	/* pipeline send/recv between nodes */
	t = coll_time(&k, &pp, COLL_SEND_RECV, 16e6, &ch);
	CHECK_STR(ch.algorithm, "p2p");
	CHECK_REL(t, 2e-5 + 16e6 / (0.61 * 50e9), 1e-9);
	/* more nodes never make a ring-or-tree all-reduce cheaper */
	{
		struct net_span d16 = net_span_of(&c, 16, 8), d64;
		struct cluster big = sc_fix_p5_cluster(64);

		d64 = net_span_of(&big, 64, 8);
		CHECK(coll_time(&k, &d64, COLL_ALL_REDUCE, 1e9, NULL) >=
		      coll_time(&k, &d16, COLL_ALL_REDUCE, 1e9, NULL));
	}
	CHECK_REL(coll_busbw_factor(COLL_ALL_REDUCE, 16), 30.0 / 16, 1e-12);
	CHECK_STR(coll_op_name(COLL_ALL_TO_ALL), "all_to_all");
}

/* NVLS on one 8 x H100 node: the all-reduce keeps nccl-tests' ~480 GB/s
 * bus bandwidth (MODEL-NOTES) while its wire rate, (r+1)/r S / t, stays
 * under the 450 GB/s line rate; reduce-scatter and all-gather, which NVLS
 * would send or receive S per GPU, go to the ring at 0.8 x 450 = 360 GB/s
 * busbw, as NCCL does on one H100 node (NVIDIA/nccl issues 1047, 1083). */
static void test_nvls_wire_rate(void)
{
	struct cluster c = sc_fix_p5_cluster(1);
	struct calibration k = sc_fix_hopper_coll_cal();
	struct net_span s = net_span_of(&c, 8, 1);
	double S = 17179869184.0, t;
	struct coll_choice ch;

	t = coll_time(&k, &s, COLL_ALL_REDUCE, S, &ch);
	CHECK_STR(ch.algorithm, "nvls/simple");
	CHECK_REL(coll_busbw_factor(COLL_ALL_REDUCE, 8) * S / t, 480e9, 0.01);
	CHECK(9.0 / 8.0 * S / t < 450e9);
	t = coll_time(&k, &s, COLL_REDUCE_SCATTER, S, &ch);
	CHECK_STR(ch.algorithm, "ring/simple");
	CHECK_REL(coll_busbw_factor(COLL_REDUCE_SCATTER, 8) * S / t, 360e9, 0.01);
	t = coll_time(&k, &s, COLL_ALL_GATHER, S, &ch);
	CHECK_STR(ch.algorithm, "ring/simple");
	/* two GPUs: NVLS would move 1.5 S per direction, the ring S */
	s = net_span_of(&c, 2, 1);
	t = coll_time(&k, &s, COLL_ALL_REDUCE, S, &ch);
	CHECK_STR(ch.algorithm, "ring/simple");
	CHECK(S / t <= 450e9);
}

int main(void)
{
	RUN(test_placement);
	RUN(test_nvls_wire_rate);
	RUN(test_p5_allreduce);
	RUN(test_intra_node);
	RUN(test_other_ops);
	return sc_test_summary();
}
