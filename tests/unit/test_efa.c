/* test_efa.c: the AWS EFA transport: the aws-ofi-nccl region tuner, the
 * EFA parameters taking over from the generic scale-out ones, the MoE
 * dispatch backends' volume rules, and the collective-curves reader. */
#include "../../models/collective.h"
#include "../../models/efa_tuner.h"
#include "../../models/moe_dispatch.h"
#include "../../sim/config/catalog_load.h"
#include "../../sim/validate/coll_validate.h"
#include "sc_test.h"

#include <math.h>
#include <string.h>

static struct catalog cat;

static struct cluster cluster_of(const char *instance, int nodes)
{
	struct cluster c;
	const struct instance_spec *in = catalog_instance(&cat, instance);

	memset(&c, 0, sizeof(c));
	CHECK(in != NULL);
	if (!in)
		return c;
	c.instance = *in;
	c.gpu = *catalog_gpu(&cat, in->gpu);
	c.fabric = *catalog_fabric(&cat, "ultracluster");
	c.nodes = nodes;
	return c;
}

/* Points read off the P5/P5e 8-ranks-per-node all-reduce table of
 * nccl_ofi_regions.cpp (efa-tuner-priors.json
 * region-p5-p5e-ranks-per-node-8-all-reduce). */
static void test_regions(void)
{
	const char *table;
	const struct efa_region *r;

	/* 32 MiB on 64 ranks: inside TREE/LL128 (its edge 37748736 @ 32 ..
	 * 117440512 @ 64) */
	r = efa_tuner_choice(EFA_TUNER_P5_P5E, COLL_ALL_REDUCE, 33554432.0, 64, 8, &table);
	CHECK(r != NULL);
	if (r) {
		CHECK_STR(r->algorithm, "TREE");
		CHECK_STR(r->protocol, "LL128");
		CHECK_STR(table, "region-p5-p5e-ranks-per-node-8-all-reduce");
	}
	/* 8 GiB on 64 ranks: RING/SIMPLE */
	r = efa_tuner_choice(EFA_TUNER_P5_P5E, COLL_ALL_REDUCE, 8589934592.0, 64, 8, NULL);
	CHECK(r != NULL && strcmp(r->algorithm, "RING") == 0 && strcmp(r->protocol, "SIMPLE") == 0);
	/* the model tuner's forced rule: 16 nodes, 128 ranks, 3-5 GiB */
	r = efa_tuner_choice(EFA_TUNER_P5_P5E, COLL_ALL_REDUCE, 4294967296.0, 128, 16, &table);
	CHECK(r != NULL && strcmp(r->algorithm, "NVLS_TREE") == 0);
	CHECK(table && strcmp(table, "model-p5-quirk") == 0);
	/* not for 2 nodes or fewer, nor without a tuner platform, nor for a
	 * layout without a table (4 ranks per node) */
	CHECK(efa_tuner_choice(EFA_TUNER_P5_P5E, COLL_ALL_REDUCE, 33554432.0, 16, 2, NULL) == NULL);
	CHECK(efa_tuner_choice(EFA_TUNER_NONE, COLL_ALL_REDUCE, 33554432.0, 64, 8, NULL) == NULL);
	CHECK(efa_tuner_choice(EFA_TUNER_P5_P5E, COLL_ALL_REDUCE, 33554432.0, 32, 8, NULL) == NULL);
	/* every table of the four platforms was generated */
	CHECK(efa_region_table_count == 23);
}

/* On a p5 the collective model reads the awsefa_* parameters and names
 * the region's choice; the same NICs without the efa object read the
 * generic ones. */
static void test_transport(void)
{
	struct cluster c = cluster_of("p5.48xlarge", 8);
	const struct calibration *k = catalog_calibration(&cat, "hopper-default");
	struct calibration cal;
	struct net_span s;
	struct coll_choice ch;
	double t0, t1;

	CHECK(k != NULL);
	if (!k)
		return;
	cal = *k;
	s = net_span_of(&c, 64, 1);
	CHECK(s.aws_efa && s.inter && s.efa_tuner == EFA_TUNER_P5_P5E);
	coll_time(&cal, &s, COLL_ALL_REDUCE, 33554432.0, &ch);
	CHECK_STR(ch.algorithm, "tree/ll128");
	CHECK(strncmp(ch.selected_by, "aws-ofi-nccl region", 19) == 0);
	/* all-to-all: start-up + per-peer cost + EFA at awsefa_a2a_bw_eff, the
	 * first awsefa_a2a_window_bytes of each of the 56 remote peers'
	 * messages (1e9 / 64 each, more than the window) at
	 * awsefa_a2a_window_eff of that rate */
	t0 = coll_time(&cal, &s, COLL_ALL_TO_ALL, 1e9, NULL);
	CHECK(1e9 / 64 > cal.awsefa_a2a_window_bytes);
	CHECK_REL(t0, cal.awsefa_startup_s + 63 * cal.awsefa_a2a_peer_alpha_s +
			      fmax(7.0 / 64 * 1e9 / (c.gpu.nvlink_GBps * 1e9 * cal.nvlink_a2a_bw_eff),
				   (56.0 / 64 * 1e9 + 56 * cal.awsefa_a2a_window_bytes *
				    (1 / cal.awsefa_a2a_window_eff - 1)) /
				   (50e9 * cal.awsefa_a2a_bw_eff)), 1e-12);
	/* a per-peer message inside the window moves at the opening rate
	 * only: the EFA term is then 1 / window_eff times the steady one */
	cal.nvlink_a2a_bw_eff = 0.881;
	t1 = coll_time(&cal, &s, COLL_ALL_TO_ALL, 64e6, NULL) -
	     (cal.awsefa_startup_s + 63 * cal.awsefa_a2a_peer_alpha_s);
	CHECK_REL(t1, 56.0 / 64 * 64e6 / (50e9 * cal.awsefa_a2a_bw_eff * cal.awsefa_a2a_window_eff),
		  1e-12);
	cal = *k;
	/* a generic parameter no longer moves an EFA span's time */
	cal.efa_a2a_bw_eff = 0.1;
	t1 = coll_time(&cal, &s, COLL_ALL_TO_ALL, 1e9, NULL);
	CHECK_REL(t1, t0, 0);
	memset(&c.instance.efa, 0, sizeof(c.instance.efa));
	s = net_span_of(&c, 64, 1);
	CHECK(!s.aws_efa);
	CHECK(coll_time(&cal, &s, COLL_ALL_TO_ALL, 1e9, NULL) > t0);
	CHECK(coll_scaleout_param(&s, CALIB_efa_ring_bw_eff) == CALIB_efa_ring_bw_eff);
}

/* The volume rules of models/moe_dispatch.h on 4 p6-b200 nodes: the
 * normal kernels send one copy per REMOTE domain hit over EFA (DeepEP puts
 * over RDMA only for dst_rdma_rank != rdma_rank) and one per distinct GPU
 * hit over NVLink, the low-latency ones every copy; the proxy adds its
 * fixed costs; flex (what both engines call) has the same volumes. */
static void test_dispatch(void)
{
	struct cluster c = cluster_of("p6-b200.48xlarge", 4);
	const struct calibration *cal = catalog_calibration(&cat, "blackwell-default");
	struct net_span s = net_span_of(&c, 32, 1);
	struct moe_call n, ll, a2a;
	double tb = 7168, tokens = 4096;

	CHECK(cal != NULL);
	if (!cal)
		return;
	moe_dispatch_time(cal, &s, MOE_BACKEND_UCCL_EP, tokens, tb, 8, false, &n);
	moe_dispatch_time(cal, &s, MOE_BACKEND_UCCL_EP, tokens, tb, 8, true, &ll);
	moe_dispatch_time(cal, &s, MOE_BACKEND_ALLTOALL, tokens, tb, 8, false, &a2a);
	CHECK_REL(n.efa_bytes, tokens * tb * 4 * (1 - pow(0.75, 8)) * 3.0 / 4, 1e-12);
	CHECK_REL(n.nvlink_bytes, tokens * tb * 32 * (1 - pow(31.0 / 32, 8)) * 7.0 / 8, 1e-12);
	{
		struct moe_call f, one;
		struct coll_flows fl;
		struct cluster c2 = cluster_of("p6-b200.48xlarge", 2), c1 = cluster_of("p6-b200.48xlarge", 1);
		struct net_span s2 = net_span_of(&c2, 16, 1), s1 = net_span_of(&c1, 8, 1);
		double t;

		/* 2 nodes, top-8: 2 (1 - 2^-8) domains hit, one of them remote */
		t = moe_dispatch_time(cal, &s2, MOE_BACKEND_FLEX, tokens, tb, 8, false, &f);
		CHECK_REL(f.efa_bytes, tokens * tb * 2 * (1 - pow(0.5, 8)) / 2, 1e-12);
		CHECK(f.choice.selected_by && strcmp(f.choice.selected_by, "backend") != 0);
		/* the discrete-event engine's flows take the same time */
		CHECK_REL(moe_dispatch_flows(cal, &s2, MOE_BACKEND_FLEX, tokens, tb, 8, false, &fl), t, 1e-12);
		CHECK_REL(fl.choice.time_s, t, 1e-12);
		/* one node: nothing over EFA, one copy per other GPU hit */
		moe_dispatch_time(cal, &s1, MOE_BACKEND_FLEX, tokens, tb, 8, false, &one);
		CHECK(one.efa_bytes == 0);
		CHECK_REL(one.nvlink_bytes, tokens * tb * 8 * (1 - pow(7.0 / 8, 8)) * 7.0 / 8, 1e-12);
	}
	/* low-latency: the node's own peers over NVLink, the rest by RDMA */
	CHECK_REL(ll.efa_bytes, tokens * tb * 8 * 24.0 / 32, 1e-12);
	CHECK_REL(ll.nvlink_bytes, tokens * tb * 8 * 7.0 / 32, 1e-12);
	CHECK_REL(ll.fixed_s, 31 * cal->ep_proxy_peer_s, 1e-12); /* no host sync */
	CHECK_REL(a2a.efa_bytes, tokens * tb * 8 * 24.0 / 32, 1e-12);
	CHECK_REL(n.fixed_s, cal->ep_proxy_call_s + 31 * cal->ep_proxy_peer_s, 1e-12);
	CHECK(strstr(n.algorithm, "cpu-proxy") != NULL);
	{
		/* pplx-garden pays its own proxy's per-peer cost */
		struct calibration k2 = *cal;
		struct moe_call p1, p2;

		moe_dispatch_time(&k2, &s, MOE_BACKEND_PPLX_GARDEN, tokens, tb, 8, true, &p1);
		k2.ep_pplx_peer_s += 1e-6;
		k2.ep_proxy_peer_s += 5e-6; /* UCCL-EP's: no effect on pplx-garden */
		moe_dispatch_time(&k2, &s, MOE_BACKEND_PPLX_GARDEN, tokens, tb, 8, true, &p2);
		CHECK_REL(p2.fixed_s - p1.fixed_s, 31 * 1e-6, 1e-9);
	}
	CHECK(moe_backend_of_name("deepep") == MOE_BACKEND_FLEX);
	/* DeepEP's low-latency kernels take batches below 256 tokens per rank */
	CHECK(moe_low_latency_batch(128) && moe_low_latency_batch(MOE_LL_MAX_DISPATCH_TOKENS_PER_RANK));
	CHECK(!moe_low_latency_batch(4096) && !moe_low_latency_batch(0));
	CHECK(moe_backend_of_name("nope") == -1);
	{
		/* EFA-GDA: the proxy's writes without its per-peer work; only
		 * where the EFA has the hardware completion counter */
		struct moe_call g;
		struct coll_flows fl;
		struct cluster p5 = cluster_of("p5.48xlarge", 4);
		struct net_span s5 = net_span_of(&p5, 32, 1);
		double t = moe_dispatch_time(cal, &s, MOE_BACKEND_EFA_GDA, tokens, tb, 8, false, &g);

		CHECK(s.efa_gda && !s5.efa_gda);
		CHECK_REL(g.efa_bytes, n.efa_bytes, 1e-12);
		CHECK_REL(g.fixed_s, cal->ep_proxy_call_s + cal->awsefa_step_alpha_s, 1e-12);
		CHECK(t < n.time_s);
		CHECK_REL(moe_dispatch_flows(cal, &s, MOE_BACKEND_EFA_GDA, tokens, tb, 8, false, &fl), t, 1e-12);
		CHECK(isinf(moe_dispatch_time(cal, &s5, MOE_BACKEND_EFA_GDA, tokens, tb, 8, false, &g)));
		CHECK(strstr(g.algorithm, "unavailable") != NULL);
		CHECK(moe_backend_of_name("efa-gda") == MOE_BACKEND_EFA_GDA);
	}
	{
		/* routing: the scenario's factor, else the profile's; a capacity
		 * factor caps it; a dense model is balanced */
		struct layout lay;
		struct calibration k = *cal;

		memset(&lay, 0, sizeof(lay));
		k.moe_router_imbalance = 1.3;
		CHECK_REL(moe_routing_imbalance(&lay, &k, 8), 1.3, 1e-12);
		lay.moe_routing_imbalance = 1.0;
		CHECK_REL(moe_routing_imbalance(&lay, &k, 8), 1.0, 1e-12);
		lay.moe_routing_imbalance = 1.6;
		lay.moe_capacity_factor = 1.25;
		CHECK_REL(moe_routing_imbalance(&lay, &k, 8), 1.25, 1e-12);
		lay.moe_capacity_factor = 0.5; /* below the mean: nothing above it */
		CHECK_REL(moe_routing_imbalance(&lay, &k, 8), 1.0, 1e-12);
		CHECK_REL(moe_routing_imbalance(&lay, &k, 0), 1.0, 1e-12);
	}
	{
		/* NCCL's own tuner picks the all-gather protocol on EFA: LL
		 * below its bandwidth cap, LL128 beyond, Simple at the largest
		 * sizes of 2 nodes, where its Simple latency is paid once */
		struct cluster p2 = cluster_of("p5.48xlarge", 2), p32 = cluster_of("p5.48xlarge", 32);
		struct net_span a = net_span_of(&p2, 16, 1), b = net_span_of(&p32, 256, 1);
		const struct calibration *h = catalog_calibration(&cat, "hopper-default");
		struct coll_choice ch;

		CHECK(h != NULL);
		if (h) {
			coll_time(h, &a, COLL_ALL_GATHER, 65536.0, &ch);
			CHECK(strcmp(ch.algorithm, "ring/ll") == 0 && strcmp(ch.selected_by, "nccl tuner model") == 0);
			coll_time(h, &a, COLL_ALL_GATHER, 33554432.0, &ch);
			CHECK(strcmp(ch.algorithm, "ring/ll128") == 0);
			coll_time(h, &a, COLL_ALL_GATHER, 2147483648.0, &ch);
			CHECK(strcmp(ch.algorithm, "ring/simple") == 0);
			coll_time(h, &b, COLL_ALL_GATHER, 1073741824.0, &ch);
			CHECK(strcmp(ch.algorithm, "ring/ll128") == 0);
		}
	}
}

/* An LL128 ring across AWS EFA hides awsefa_ll128_overlap of the smaller
 * of its latency and transfer terms (models/collective.c ll128_hidden):
 * with no overlap the two add, with full overlap only the larger counts,
 * never less than the transfer alone (no faster than the wire); the DES
 * flows carry the same time; Simple and a span inside one node are not
 * touched. */
static void test_ll128_overlap(void)
{
	struct cluster c = cluster_of("p5.48xlarge", 32);
	const struct calibration *k = catalog_calibration(&cat, "hopper-default");
	struct calibration cal;
	struct net_span s;
	struct coll_flows f0, f;
	double lat, xfer, t;

	CHECK(k != NULL);
	if (!k)
		return;
	cal = *k;
	CHECK(cal.awsefa_ll128_overlap > 0 && cal.awsefa_ll128_overlap < 1);
	s = net_span_of(&c, 256, 1);
	cal.awsefa_ll128_overlap = 0;
	coll_flows_of_algorithm(&cal, &s, COLL_ALL_GATHER, 33554432.0, "ring/ll128", &f0);
	lat = f0.latency_s;
	xfer = f0.time_s - f0.latency_s;
	CHECK(lat > 0 && xfer > 0);
	for (double w = 0; w <= 1.0; w += 0.25) {
		cal.awsefa_ll128_overlap = w;
		t = coll_flows_of_algorithm(&cal, &s, COLL_ALL_GATHER, 33554432.0, "ring/ll128", &f);
		CHECK_REL(t, lat + xfer - w * fmin(lat, xfer), 1e-12);
		CHECK_REL(f.time_s, f.latency_s + (f0.time_s - f0.latency_s), 1e-12);
		CHECK(t >= xfer * (1 - 1e-12));
	}
	/* Simple keeps latency and transfer in series */
	cal.awsefa_ll128_overlap = 0;
	t = coll_flows_of_algorithm(&cal, &s, COLL_ALL_GATHER, 33554432.0, "ring/simple", &f0);
	cal.awsefa_ll128_overlap = 1;
	CHECK_REL(coll_flows_of_algorithm(&cal, &s, COLL_ALL_GATHER, 33554432.0, "ring/simple", &f), t, 0);
}

/* The shipped curves load; what cannot be expressed says why. */
static void test_curves(void)
{
	struct cv_set set;
	struct sc_error err;
	int expressed = 0, nvshmem = 0;

	memset(&set, 0, sizeof(set));
	CHECK(cv_load(cv_default_path(0), &cat, &set, &err) == SC_OK);
	CHECK(cv_load(cv_default_path(1), &cat, &set, &err) == SC_OK);
	CHECK(set.n_curves == 97);
	cv_run(&set, &cat, NULL);
	for (int i = 0; i < set.n_curves; i++) {
		const struct cv_curve *c = &set.curves[i];

		expressed += c->expressible;
		nvshmem += !c->expressible && strstr(c->reason, "NVSHMEM") != NULL;
		CHECK(c->expressible || c->reason[0]);
	}
	CHECK(nvshmem == 10);
	CHECK(expressed >= 50);
	cv_free(&set);
}

int main(void)
{
	struct sc_error err;

	if (catalog_load(catalog_default_dir(), &cat, &err) != SC_OK) {
		fprintf(stderr, "catalog: %s\n", err.message);
		return 1;
	}
	test_regions();
	test_transport();
	test_dispatch();
	test_ll128_overlap();
	test_curves();
	catalog_free(&cat);
	return sc_test_summary();
}
