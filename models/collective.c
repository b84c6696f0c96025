/* collective.c: alpha-beta collectives per algorithm and tier (see collective.h).
 *
 * Notation: S bytes (nccl-tests size), n ranks, r of them per NVLink domain,
 * N = n / r domains.  B_nv is the NVLink bandwidth per GPU and direction,
 * B_efa the per-GPU share of the node's EFA bandwidth; each is multiplied by
 * the calibrated bus-bandwidth efficiency of the algorithm on that tier.
 * alpha_* are calibrated latencies per algorithm step.
 *
 * Sources of the formulas: ring and tree from Thakur, Rabenseifner & Gropp,
 * "Optimization of collective communication operations in MPICH" (IJHPCA
 * 2005) and MODEL-NOTES; the per-node EFA volume of a double binary tree,
 * 2(N-1)/N * S, is NCCL's (Sanders et al. 2009, as used by NCCL 2.4+): equal
 * to a ring's for large N and half of it for N = 2, which is why the
 * 2-node nccl-tests curves beat the ring bound; hierarchical (reduce-scatter
 * inside the domain, all-reduce of S/r on r parallel rails, all-gather
 * inside) as in NCCL's NVLS-tree and Horovod's hierarchical all-reduce,
 * pipelined (the phases run on chunks, so their bandwidth terms overlap and
 * the slowest one bounds; their latencies add).  Protocols: NCCL's LL
 * protocol trades bandwidth for latency (8-byte stores with inline flags);
 * its alpha and bandwidth are the Simple ones times ll_alpha_fraction and
 * ll_bw_fraction.  NVLS has only the Simple protocol.  A collective that
 * crosses EFA also pays efa_startup_s once (times ll_alpha_fraction under
 * LL): the fill of NCCL's chunk pipeline through the network proxy, which
 * the 2-node curves show as a ~0.3 ms intercept of the large-message line
 * and which does not grow with the number of ring or tree steps.  The parameters were
 * fitted to the aws-samples nccl-tests all-reduce curves on 2 x p5.48xlarge
 * and 2 x p4de.24xlarge (derivation in the calibration profiles' sources).
 */
#include "collective.h"
#include "efa_tuner.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

struct best {
	double t;
	const char *name;
	struct coll_candidates *all; /* NULL, or where every candidate is listed */
	const char *selected_by;
	const char *region;
};

static void consider(struct best *b, double t, const char *name)
{
	if (b->all && b->all->n < COLL_CANDIDATES_MAX) {
		b->all->c[b->all->n].time_s = t;
		b->all->c[b->all->n].algorithm = name;
		b->all->n++;
	}
	if (t < b->t) {
		b->t = t;
		b->name = name;
	}
}

static double ceil_log2(int n)
{
	double l = 0;

	while ((1 << (int)l) < n && l < 30)
		l += 1;
	return l;
}

static double dmin(double a, double b) { return a < b ? a : b; }
static double dmax(double a, double b) { return a > b ? a : b; }

/* Fraction of a collective's EFA bytes that leave the leaf switch, where
 * the group spans several leaves (net_efa_Bps_leaving), g of its N domains
 * under each.  Rings (and p2p chains) visit a leaf's g domains in a row and
 * leave it on 1 hop in g.  NCCL's trees are binary trees over the domains in
 * rank order: an edge at height h joins domains 2^h apart, so the ~N/g
 * edges of span >= g leave and the rest stay: 1 in g again (and the DES
 * replays trees on the ring pattern).  An all-to-all sends the same to every
 * remote domain: (N - g) / (N - 1) of its EFA bytes leave. */
static double ring_leaving(const struct net_span *s)
{
	if (s->placed) /* measured on the placement (models/placement.h) */
		return s->crosses_spine ? s->ring_leave : 0.0;
	return s->crosses_spine ? 1.0 / (s->leaf_domains > 1 ? s->leaf_domains : 1) : 0.0;
}

static double a2a_leaving(const struct net_span *s)
{
	if (!s->crosses_spine || s->domains <= 1)
		return 0.0;
	if (s->placed)
		return s->a2a_leave;
	return (double)(s->domains - s->leaf_domains) / (s->domains - 1);
}

static double efa_ring_Bps(const struct net_span *s)
{
	return net_efa_Bps_leaving(s, ring_leaving(s));
}

static double efa_a2a_Bps(const struct net_span *s)
{
	return net_efa_Bps_leaving(s, a2a_leaving(s));
}

/* The parameters of the scale-out tier of span s.  Where the instance
 * describes its AWS EFA transport (s->aws_efa), the awsefa_* parameters
 * (priors from the aws-ofi-nccl tuner, fitted to the p5 nccl-tests curves
 * at 2 to 32 nodes); elsewhere (the DGX InfiniBand systems of the training
 * validation, an instance without an efa object) the generic efa_* ones.
 * On EFA the ring and tree bandwidth falls with the number of NVLink
 * domains, eff / (1 + awsefa_scale_decay log2(N / 2)) beyond 2: the p5
 * all-reduce and all-gather bus bandwidth at 8 GiB drops from 2 to 32
 * nodes while the all-to-all's per-GPU EFA rate stays flat (crazyguitar
 * aws-gpu-communication-benchmark, validation/efa-collective-cases.json),
 * which is why the decay is not applied to the all-to-all.  An all-to-all
 * across EFA also pays the start-up (the 32 MiB points' intercept). */
struct efa_tier {
	double ring_alpha, tree_alpha, startup;
	double ring_eff, tree_eff, nvlstree_eff;
	double a2a_eff, a2a_peer_alpha, a2a_startup;
	double a2a_window_bytes, a2a_window_eff; /* efa_a2a_time() */
};

/* The one owner of the generic <-> AWS EFA parameter correspondence: each
 * role of the scale-out tier, the generic parameter that plays it on an
 * InfiniBand (or undescribed) fabric and the awsefa_* one on an instance's
 * AWS EFA transport.  efa_tier_of(), coll_scaleout_param() and
 * coll_generic_param() (calibrate's fit) all read this table.  A role
 * with no generic parameter is 0 there (the all-to-all's start-up); the
 * per-peer all-to-all cost is the scale-out one only across domains. */
enum tier_role {
	R_RING_ALPHA, R_TREE_ALPHA, R_STARTUP, R_RING_EFF, R_TREE_EFF, R_NVLSTREE_EFF,
	R_A2A_EFF, R_A2A_PEER_ALPHA, R_A2A_STARTUP, R_LL128_ALPHA, R_LL128_BW, R_N
};

#define NO_PARAM (-1)

static const struct {
	int generic;    /* enum calib_param, or NO_PARAM */
	int aws;        /* enum calib_param */
} tier_params[R_N] = {
	[R_RING_ALPHA] = { CALIB_efa_ring_alpha_s, CALIB_awsefa_step_alpha_s },
	[R_TREE_ALPHA] = { CALIB_efa_tree_alpha_s, CALIB_awsefa_tree_alpha_s },
	[R_STARTUP] = { CALIB_efa_startup_s, CALIB_awsefa_startup_s },
	[R_RING_EFF] = { CALIB_efa_ring_bw_eff, CALIB_awsefa_ring_bw_eff },
	[R_TREE_EFF] = { CALIB_efa_tree_bw_eff, CALIB_awsefa_tree_bw_eff },
	/* NCCL's NVLS_TREE: the generic profiles have no tree bandwidth of
	 * their own for it */
	[R_NVLSTREE_EFF] = { CALIB_efa_tree_bw_eff, CALIB_awsefa_nvlstree_bw_eff },
	[R_A2A_EFF] = { CALIB_efa_a2a_bw_eff, CALIB_awsefa_a2a_bw_eff },
	[R_A2A_PEER_ALPHA] = { CALIB_a2a_alpha_s, CALIB_awsefa_a2a_peer_alpha_s },
	[R_A2A_STARTUP] = { NO_PARAM, CALIB_awsefa_startup_s },
	/* LL128 is weighed on AWS EFA only (n_protocols) */
	[R_LL128_ALPHA] = { NO_PARAM, CALIB_awsefa_ll128_alpha_fraction },
	[R_LL128_BW] = { NO_PARAM, CALIB_awsefa_ll128_bw_fraction },
};

static double tier_value(const struct calibration *cal, const struct net_span *s, enum tier_role r)
{
	int p = s->aws_efa ? tier_params[r].aws : tier_params[r].generic;

	return p == NO_PARAM ? 0.0 : calib_get(cal, (enum calib_param)p);
}

static struct efa_tier efa_tier_of(const struct calibration *cal, const struct net_span *s)
{
	struct efa_tier t;
	/* On EFA the ring and tree bandwidth falls with the domains (see
	 * above); >= 0 by the parameter's range, clamped so that no profile
	 * can make a span faster than its line rate */
	double decay = 1.0;

	if (s->aws_efa) {
		double N = s->domains > 2 ? s->domains : 2;
		/* the span's own log2(N / 2) where net_span_of() built it */
		double l2 = s->ranks == s->efa_tables_ranks && s->nodes == s->efa_tables_nodes
			    ? s->efa_scale_log2 : log2(N / 2.0);

		decay = 1.0 / (1.0 + fmax(0.0, cal->awsefa_scale_decay) * l2);
	}
	t.ring_alpha = tier_value(cal, s, R_RING_ALPHA);
	t.tree_alpha = tier_value(cal, s, R_TREE_ALPHA);
	t.startup = tier_value(cal, s, R_STARTUP);
	t.ring_eff = tier_value(cal, s, R_RING_EFF) * decay;
	t.tree_eff = tier_value(cal, s, R_TREE_EFF) * decay;
	t.nvlstree_eff = tier_value(cal, s, R_NVLSTREE_EFF) * decay;
	t.a2a_eff = tier_value(cal, s, R_A2A_EFF);
	t.a2a_peer_alpha = tier_value(cal, s, R_A2A_PEER_ALPHA);
	t.a2a_startup = tier_value(cal, s, R_A2A_STARTUP);
	/* the opening window is an AWS EFA (NCCL p2p over aws-ofi-nccl) term:
	 * elsewhere none, every byte at the steady rate */
	t.a2a_window_bytes = s->aws_efa ? cal->awsefa_a2a_window_bytes : 0.0;
	t.a2a_window_eff = s->aws_efa ? cal->awsefa_a2a_window_eff : 1.0;
	return t;
}

/* All-to-all latency of span s: one send/recv per peer (a2a_alpha_s inside
 * a domain; across EFA the tier's per-peer cost and start-up). */
static double a2a_latency(const struct calibration *cal, const struct net_span *s,
			  const struct efa_tier *e)
{
	if (!s->inter)
		return (s->ranks - 1) * cal->a2a_alpha_s;
	return e->a2a_startup + (s->ranks - 1) * e->a2a_peer_alpha;
}

static double efa_a2a_eff_Bps(const struct net_span *s, const struct efa_tier *e)
{
	return efa_a2a_Bps(s) * e->a2a_eff;
}

/* Effective EFA rate of an all-to-all that sends efa_bytes to `peers`
 * remote ranks across AWS EFA (efa_bytes / peers to each).  NCCL runs it as
 * grouped send/recv, one p2p connection per peer (src/enqueue.cc
 * scheduleP2pTasksToPlan: at 16+ p5 nodes one channel per peer, since
 * nChannelsMax halves while nChannels x nRanks > 4 p2pnChannels), each
 * moving its message in NCCL_P2P_NET_CHUNKSIZE steps with NCCL_STEPS (8)
 * of them outstanding.  In aws-ofi-nccl's RDMA protocol a step's write
 * waits for the receiver's control message carrying the buffer address
 * (src/nccl_ofi_rdma.cpp, NCCL_OFI_RDMA_SEND_CTRL); when a peer's
 * operation starts all its buffers are posted and announced at once and
 * every one of the n - r peers opens together, so the first
 * awsefa_a2a_window_bytes of each peer's message move at
 * awsefa_a2a_window_eff of the steady rate; once a connection's pipeline
 * is open, reposting overlaps the transfers.  The time is
 *   efa_bytes / B + peers min(m, W) (1 / w - 1) / B,   m = efa_bytes / peers,
 * whose incremental bandwidth rises with m up to B: the p5 all-to-all's
 * 27-36 GB/s between per-peer messages of 256 KiB and 2 MiB and 42-45 GB/s
 * beyond 4 MiB at 8-32 nodes, which no additive latency produces
 * (crazyguitar aws-gpu-communication-benchmark, efa-collective-cases.json).
 * Returned as a rate so that the DES flows carry the same time. */
static double efa_a2a_rate(const struct net_span *s, const struct efa_tier *e,
			   double efa_bytes, int peers)
{
	double B = efa_a2a_eff_Bps(s, e);
	double m, opening;

	if (efa_bytes <= 0 || peers < 1 || e->a2a_window_bytes <= 0 || e->a2a_window_eff >= 1.0)
		return B;
	m = efa_bytes / peers;
	opening = peers * dmin(m, e->a2a_window_bytes) * (1.0 / e->a2a_window_eff - 1.0);
	return efa_bytes / (efa_bytes + opening) * B;
}

/* One protocol's parameters: latencies and bandwidths after efficiency. */
struct proto {
	double start_efa;   /* once per collective that crosses EFA */
	double a_nv, a_efa_ring, a_efa_tree;
	double b_nv, b_efa_ring, b_efa_tree;
	double b_efa_nvlstree; /* the tree part of NVLS_TREE */
};

enum { P_SIMPLE, P_LL, P_LL128, P_N };

static struct proto proto_of(const struct calibration *cal, const struct net_span *s,
			     const struct efa_tier *e, int pi)
{
	struct proto p;
	double fa = pi == P_LL ? cal->ll_alpha_fraction :
		    pi == P_LL128 ? cal->awsefa_ll128_alpha_fraction : 1.0;
	double fb = pi == P_LL ? cal->ll_bw_fraction :
		    pi == P_LL128 ? cal->awsefa_ll128_bw_fraction : 1.0;
	p.a_nv = cal->nvlink_ring_alpha_s * fa;
	p.a_efa_ring = e->ring_alpha * fa + s->extra_latency_s;
	p.a_efa_tree = e->tree_alpha * fa + s->extra_latency_s;
	p.start_efa = s->inter ? e->startup * fa : 0.0;
	p.b_nv = s->nvlink_Bps * cal->nvlink_ring_bw_eff * fb;
	p.b_efa_ring = efa_ring_Bps(s) * e->ring_eff * fb;
	p.b_efa_tree = efa_ring_Bps(s) * e->tree_eff * fb;
	p.b_efa_nvlstree = efa_ring_Bps(s) * e->nvlstree_eff * fb;
	return p;
}

/* The part of an LL128 ring or tree collective across AWS EFA that
 * overlaps: latency L (every alpha term) and transfer W (the slowest
 * tier's bytes over its rate) are not in series there.  LL128 carries its
 * flag in every 128-byte line (NCCL src/device/prims_ll128.h), so a rank
 * forwards each line of a step as it lands, where Simple waits for the
 * slice and its fence; a fraction awsefa_ll128_overlap of the smaller term
 * hides under the larger.  The p5 all-gather's incremental bus bandwidth
 * between 32 and 128 MiB, 400-450 GB/s at 2-16 nodes, is above the LL128
 * wire limit of a 400 GB/s node (120/128 of it), which no additive latency
 * allows (crazyguitar cg-p5-nccl-allgather-*, efa-collective-cases.json).
 * Only where LL128 is weighed (n_protocols: AWS EFA across domains). */
static double ll128_hidden(const struct calibration *cal, const struct net_span *s, int pi,
			   double latency, double transfer)
{
	if (pi != P_LL128 || !s->aws_efa || !s->inter)
		return 0.0;
	return fmin(fmax(cal->awsefa_ll128_overlap, 0.0), 1.0) * dmin(latency, transfer);
}

/* latency + transfer less what ll128_hidden() overlaps */
static double joined(const struct calibration *cal, const struct net_span *s, int pi,
		     double latency, double transfer)
{
	return latency + transfer - ll128_hidden(cal, s, pi, latency, transfer);
}

/* Names, one static string per algorithm x protocol, so that choosing costs
 * no formatting in the hot path. */
static const char *const n_ring[P_N] = { "ring/simple", "ring/ll", "ring/ll128" };
static const char *const n_tree[P_N] = { "tree/simple", "tree/ll", "tree/ll128" };
static const char *const n_h_ring_ring[P_N] = {
	"hierarchical(ring+efa-ring)/simple", "hierarchical(ring+efa-ring)/ll",
	"hierarchical(ring+efa-ring)/ll128" };
static const char *const n_h_ring_tree[P_N] = {
	"hierarchical(ring+efa-tree)/simple", "hierarchical(ring+efa-tree)/ll",
	"hierarchical(ring+efa-tree)/ll128" };
static const char n_nvls_tree[] = "hierarchical(nvls+efa-tree)/simple";

/* Protocols weighed on span s: Simple and LL everywhere; LL128 where the
 * aws-ofi-nccl region tuner can choose it (an AWS EFA span across domains).
 * NCCL also runs LL128 on InfiniBand, but the generic scale-out parameters
 * were fitted without it; weighing it there would move every fitted DGX
 * prediction with a parameter no curve constrains. */
static int n_protocols(const struct net_span *s)
{
	return s->aws_efa && s->inter ? P_N : P_LL128;
}

/* NVLS (NVLink SHARP, multimem loads and stores that the NVSwitch reduces
 * and multicasts) as NCCL runs it inside a domain of r GPUs, in the bytes
 * one GPU moves through its NVLink port in its busier direction (S. Jeaugey,
 * NVIDIA/nccl issue 1083 and nccl-tests issue 212 / PR 239):
 *   reduce-scatter: sends its whole buffer S into the switch (multimem
 *     ld_reduce of every chunk), receives its reduced chunk S/r: S;
 *   all-gather: sends its chunk S/r (multimem store), receives S: S;
 *   all-reduce: both, S + S/r each way: (r+1)/r S (nccl-tests' busbw
 *     2(r-1)/r S / t then exceeds the line rate, the wire rate does not).
 * The bandwidth is the line rate times nvlink_nvls_bw_eff (<= 1): 480 GB/s
 * busbw on 8 x H100 is 480 x 8/14 x 9/8 = 309 GB/s on the wire, 0.686 of
 * 450.  A ring moves fn S per direction for reduce-scatter or all-gather,
 * less than NVLS's S, which is why NCCL's NVLS reduce-scatter is slower
 * than its ring on one H100 node (issue 1083) and the tuner here picks the
 * ring for them. */
static double nvls_wire_bytes(enum coll_op op, int r, double S)
{
	return op == COLL_ALL_REDUCE ? (double)(r + 1) / r * S : S;
}

static double nvls_Bps(const struct calibration *cal, const struct net_span *s)
{
	return s->nvlink_Bps * cal->nvlink_nvls_bw_eff;
}

/* On an AWS EFA span across domains only NCCL's own algorithms are weighed
 * (ring, tree, NVLS_TREE = hierarchical(nvls+efa-tree); ring alone for
 * all-gather and reduce-scatter, NCCL's PAT being for one rank per node):
 * the aws-ofi-nccl regions choose among them, and the p5 curves at 2 to 32
 * nodes follow them (an all-gather over 256 ranks pays 255 ring steps:
 * 2.7 ms at 32 MiB, crazyguitar cg-p5-nccl-allgather-32n).  Elsewhere the
 * hierarchical compositions stay candidates, as fitted. */
static bool nccl_only(const struct net_span *s)
{
	return s->aws_efa && s->inter;
}

static void all_reduce(const struct calibration *cal, const struct net_span *s,
		       const struct efa_tier *e, double S, struct best *b)
{
	int n = s->ranks, r = s->ranks_per_domain, N = s->domains;
	double fn = (double)(n - 1) / n;

	for (int pi = 0; pi < n_protocols(s); pi++) {
		struct proto p = proto_of(cal, s, e, pi);

		if (!s->inter) {
			consider(b, 2.0 * (n - 1) * p.a_nv + 2.0 * fn * S / p.b_nv,
				 n_ring[pi]);
			continue;
		}
		double fN = (double)(N - 1) / N;
		double fr = (double)(r - 1) / r;
		double lg = ceil_log2(N);
		/* flat ring over all n ranks: every step waits for the EFA hop;
		 * the inter-node hop of each of the node's rings is fed by the r
		 * member GPUs' NIC shares */
		double bring = dmin(p.b_nv, r * p.b_efa_ring);
		consider(b, joined(cal, s, pi, p.start_efa + 2.0 * (n - 1) * p.a_efa_ring,
				   2.0 * fn * S / bring), n_ring[pi]);
		/* NCCL tree: chain inside the domain (each GPU sends S up and S
		 * down over NVLink), double binary tree across domains */
		double intra_chain = r > 1 ? 2.0 * S / p.b_nv : 0.0;
		double inter_tree = 2.0 * fN * S / (r * p.b_efa_tree);
		consider(b, joined(cal, s, pi, p.start_efa + 2.0 * (lg * p.a_efa_tree + (r - 1) * p.a_nv),
				   dmax(intra_chain, inter_tree)), n_tree[pi]);
		if (r > 1 && !nccl_only(s)) {
			double intra = 2.0 * fr * S / p.b_nv;
			double lat_in = p.start_efa + 2.0 * (r - 1) * p.a_nv;
			double inter_ring = 2.0 * fN * S / (r * p.b_efa_ring);
			consider(b, lat_in + 2.0 * (N - 1) * p.a_efa_ring +
				 dmax(intra, inter_ring), n_h_ring_ring[pi]);
			consider(b, lat_in + 2.0 * lg * p.a_efa_tree +
				 dmax(intra, inter_tree), n_h_ring_tree[pi]);
		}
	}
	if (s->nvls && r > 1) {
		struct proto p = proto_of(cal, s, e, P_SIMPLE);
		double intra = nvls_wire_bytes(COLL_ALL_REDUCE, r, S) / nvls_Bps(cal, s);

		if (!s->inter) {
			consider(b, cal->nvlink_nvls_alpha_s + intra, "nvls/simple");
		} else {
			int N_ = s->domains;
			double fN = (double)(N_ - 1) / N_;
			double lg = ceil_log2(N_);

			if (!nccl_only(s))
				consider(b, p.start_efa + cal->nvlink_nvls_alpha_s + 2.0 * (N_ - 1) * p.a_efa_ring +
					 dmax(intra, 2.0 * fN * S / (r * p.b_efa_ring)),
					 "hierarchical(nvls+efa-ring)/simple");
			consider(b, p.start_efa + cal->nvlink_nvls_alpha_s + 2.0 * lg * p.a_efa_tree +
				 dmax(intra, 2.0 * fN * S / (r * p.b_efa_nvlstree)),
				 n_nvls_tree);
		}
	}
}

/* Reduce-scatter and all-gather move half of an all-reduce's volume; NCCL
 * runs them as ring or NVLS (no tree). */
static void half_collective(const struct calibration *cal, const struct net_span *s,
			    const struct efa_tier *e, double S, struct best *b)
{
	int n = s->ranks, r = s->ranks_per_domain, N = s->domains;
	double fn = (double)(n - 1) / n;
	double fr = (double)(r - 1) / r;

	for (int pi = 0; pi < n_protocols(s); pi++) {
		struct proto p = proto_of(cal, s, e, pi);

		if (!s->inter) {
			consider(b, (n - 1) * p.a_nv + fn * S / p.b_nv, n_ring[pi]);
			continue;
		}
		double fN = (double)(N - 1) / N;
		double bring = dmin(p.b_nv, r * p.b_efa_ring);

		consider(b, joined(cal, s, pi, p.start_efa + (n - 1) * p.a_efa_ring, fn * S / bring),
			 n_ring[pi]);
		if (r > 1 && !nccl_only(s))
			consider(b, p.start_efa + (r - 1) * p.a_nv + (N - 1) * p.a_efa_ring +
				 dmax(fr * S / p.b_nv, fN * S / (r * p.b_efa_ring)),
				 n_h_ring_ring[pi]);
	}
	if (s->nvls && r > 1 && !(s->inter && nccl_only(s))) {
		struct proto p = proto_of(cal, s, e, P_SIMPLE);
		double intra = nvls_wire_bytes(COLL_REDUCE_SCATTER, r, S) / nvls_Bps(cal, s);

		if (!s->inter) {
			consider(b, cal->nvlink_nvls_alpha_s + intra, "nvls/simple");
		} else {
			double fN = (double)(N - 1) / N;

			consider(b, p.start_efa + cal->nvlink_nvls_alpha_s + (N - 1) * p.a_efa_ring +
				 dmax(intra, fN * S / (r * p.b_efa_ring)),
				 "hierarchical(nvls+efa-ring)/simple");
		}
	}
}

/* All-to-all as NCCL runs it: one send/recv to every peer at once.  A rank
 * keeps 1/n of S; (r-1)/n goes over NVLink to domain peers and (n-r)/n over
 * its EFA share; both run concurrently. */
static void all_to_all(const struct calibration *cal, const struct net_span *s,
		       const struct efa_tier *e, double S, struct best *b)
{
	int n = s->ranks, r = s->ranks_per_domain;
	double bnv = s->nvlink_Bps * cal->nvlink_a2a_bw_eff;
	double lat = a2a_latency(cal, s, e);
	double v_efa = (double)(n - r) / n * S;

	if (!s->inter) {
		consider(b, lat + (double)(n - 1) / n * S / bnv, "direct");
		return;
	}
	consider(b, lat + s->extra_latency_s +
		 dmax((double)(r - 1) / n * S / bnv, v_efa / efa_a2a_rate(s, e, v_efa, n - r)),
		 "direct");
}

static void send_recv(const struct calibration *cal, const struct net_span *s,
		      const struct efa_tier *e, double S, struct best *b)
{
	if (!s->inter)
		consider(b, cal->p2p_alpha_s +
			 S / (s->nvlink_Bps * cal->nvlink_ring_bw_eff), "p2p");
	else
		consider(b, cal->p2p_alpha_s + s->extra_latency_s +
			 S / (efa_ring_Bps(s) * e->ring_eff), "p2p");
}

static void fill_choice(const struct net_span *s, const struct best *b, struct coll_choice *out)
{
	size_t len = strlen(b->name);

	if (len >= COLL_NAME_MAX)
		len = COLL_NAME_MAX - 1;
	memcpy(out->algorithm, b->name, len);
	out->algorithm[len] = '\0';
	out->time_s = b->t;
	out->tier = net_tier_name(s);
	out->selected_by = b->selected_by ? b->selected_by : "fastest";
	out->region = b->region;
}

double coll_all_to_all_split(const struct calibration *cal, const struct net_span *s,
			     double nvlink_bytes, double efa_bytes, struct coll_choice *out)
{
	struct best b = { INFINITY, "none", NULL, NULL, NULL };

	if (s->ranks <= 1 || nvlink_bytes + efa_bytes <= 0) {
		b.t = 0;
	} else {
		struct efa_tier et = efa_tier_of(cal, s);
		const struct efa_tier *e = &et;
		double lat = a2a_latency(cal, s, e);
		double t = lat + nvlink_bytes / (s->nvlink_Bps * cal->nvlink_a2a_bw_eff);
		if (s->inter && efa_bytes > 0)
			t = dmax(t, lat + s->extra_latency_s +
				 efa_bytes / efa_a2a_rate(s, e, efa_bytes, s->ranks - s->ranks_per_domain));
		consider(&b, t, s->inter ? "node-dedup" : "direct");
	}
	if (out)
		fill_choice(s, &b, out);
	return b.t;
}

/* The candidate the aws-ofi-nccl region tuner names for op on s (models/
 * efa_tuner.h), as this model's algorithm name: TREE -> tree (NCCL's tree:
 * a chain in the node, a double binary tree across), RING -> ring,
 * NVLS_TREE -> hierarchical(nvls+efa-tree); PAT and names with no
 * candidate leave the choice to the fastest one. */
static void region_select(const struct net_span *s, enum coll_op op, double bytes, struct best *b)
{
	const char *table;
	const struct efa_region *r;
	const char *name = NULL;
	int pi;

	if (!b->all)
		return;
	r = efa_tuner_choice_in(net_span_efa_table(s, op), s->efa_tuner, op, bytes, s->ranks, s->nodes,
				&table);
	if (!r)
		return;
	pi = r->proto == EFA_PROTO_LL ? P_LL : r->proto == EFA_PROTO_LL128 ? P_LL128 : P_SIMPLE;
	if (r->algo == EFA_ALGO_TREE)
		name = n_tree[pi];
	else if (r->algo == EFA_ALGO_RING)
		name = n_ring[pi];
	else if (r->algo == EFA_ALGO_NVLS_TREE && pi == P_SIMPLE)
		name = n_nvls_tree;
	if (!name)
		return;
	/* the candidates' names are the static strings above: compare them
	 * by address */
	for (int i = 0; i < b->all->n; i++)
		if (b->all->c[i].algorithm == name) {
			b->t = b->all->c[i].time_s;
			b->name = b->all->c[i].algorithm;
			b->selected_by = "aws-ofi-nccl region";
			b->region = table;
			return;
		}
}

/* ---- NCCL's own tuner (src/graph/tuning.cc, ncclTopoTuneModel) ------------------
 *
 * Where no aws-ofi-nccl region decides (2 nodes, a layout or size no region
 * covers, or NCCL_TUNER_PLUGIN not loaded), NCCL picks the algorithm and
 * protocol whose time by ITS OWN model, lat + bytes / busBw x ratio, is
 * least, not the one that really is fastest.  That model thinks a ring step
 * across the network costs 2.7 (LL), 4.0 (LL128) or 14 us (Simple) and an
 * NVLink step 0.6-3.4 us, while on EFA every one of the 255 steps of a
 * 256-rank ring all-gather costs ~10.6 us (the step waits for its slowest
 * hop, an SRD message: crazyguitar cg-p5-nccl-allgather-{2..32}n, 32 MiB);
 * so NCCL keeps LL128 far past the size where Simple would win and LL only
 * below its bandwidth cap llMaxBw.  Choosing by NCCL's model and timing
 * by the calibrated one is what nccl-tests on AWS measure.  Constants of
 * NVIDIA/nccl src/graph/tuning.cc @5067397c (v2.28): baseLat, hwLat (NVLink,
 * network), llMaxBws (Hopper 141 / 45 / 35 GB/s for 1, 2, >2 nodes;
 * Blackwell twice; Ampere 87.7 / 22.5 / 19), the ring LL x 0.5, LL128 x 0.92
 * and tree LL / 3.8, LL128 x 120/128 bandwidth refinements, the ratio
 * nRanks / nsteps (ring, NVLS_TREE) or 0.5 (tree), netOverhead 1 us
 * (x 3 for Simple, NCCL's x86 default; no CPU vendor in the catalogue).
 * NCCL's bandwidth is the ring graph's bwInter x channels beyond 2 nodes,
 * bwIntra x channels on 2 (tuning.cc: "nNodes <= 2 ? bwIntra : bwInter"),
 * taken here as the line rates: the node's EFA (r x the GPU's share), and
 * NVLink per GPU; the per-channel caps (perChMax*Bws, 29-57 GB/s x 16-32
 * channels) exceed them and are left out.
 * All-reduce keeps the fastest candidate: NCCL weighs NVLS_TREE
 * against the ring by the NVLS graph's channels and per-channel bwInter,
 * also a search result; with line rates for both it would never leave
 * NVLS_TREE, while the p5 curves step up to the ring's ~350 GB/s at
 * 2 GiB (4 nodes) to 8 GiB (16 nodes).  So NCCL's model chooses the
 * protocol of the ring all-gather and reduce-scatter, where it has only
 * constants: LL below ~10 MB, LL128 up to where Simple's fewer bytes per
 * line win by its 14 us network step, which puts the dip of the measured
 * curves where it is (crazyguitar cg-p5-nccl-allgather-{2,4,8,16}n: busbw
 * falls at 256 MiB x nodes / 2, where NCCL moves to Simple).
 * NCCL's model is a selector only: none of its numbers is a time. */
enum { NA_RING, NA_TREE, NA_NVLS_TREE };

static const double nccl_base_lat_us[2][P_N] = { /* [ring, tree][simple, ll, ll128] */
	{ 8.4, 6.6, 14.0 }, { 8.4, 6.8, 14.0 } };
static const double nccl_nvl_lat_us[2][P_N] = { { 3.4, 0.6, 1.9 }, { 4.0, 0.6, 1.25 } };
static const double nccl_net_lat_us[2][P_N] = { { 14.0, 2.7, 4.0 }, { 14.0, 5.0, 8.5 } };

/* NVLS_TREE in NCCL's model (tuning.cc): hwLat NVLINK NVLS_TREE Simple
 * 25 us inside the domain, hwLat NET NVLS_TREE Simple 20.9 us per tree
 * level across it.  NCCL adds the network's reported latency
 * (graph->latencyInter, twice under Simple for the flush: tuning.cc @5067397c)
 * to every network latency alike; the selector leaves it out of all its
 * tables, ring and tree as well: with the 75 us aws-ofi-nccl reports on
 * p5 (efa-tuner-priors.json platform-p5-p5e-latency) added, Simple's
 * network steps cost 2 x 75 us more and NCCL's move from LL128 to Simple
 * shifts to larger messages than the measured all-gather dip: the p5
 * curves fit worse (crazyguitar 4.6 -> 5.5 % after a refit). */
#define NCCL_NVLSTREE_INTRA_LAT_US 25.0
#define NCCL_NVLSTREE_NET_LAT_US 20.9

/* What NCCL's model reads of the GPU family, resolved once per choice:
 * llMaxBws for 1, 2 and > 2 nodes (Hopper 141 / 45 / 35 GB/s, Blackwell
 * twice, Ampere 87.7 / 22.5 / 19) and nvlsEfficiency (Hopper 0.85,
 * Blackwell 0.74). */
struct nccl_family {
	double ll_max_GBps[3];
	double nvls_eff;
};

static struct nccl_family nccl_family_of(const struct calibration *cal)
{
	static const struct nccl_family hopper = { { 141.0, 45.0, 35.0 }, 0.85 },
		blackwell = { { 282.0, 90.0, 70.0 }, 0.74 }, ampere = { { 87.7, 22.5, 19.0 }, 0.85 };

	if (strcmp(cal->gpu_family, "blackwell") == 0)
		return blackwell;
	if (strcmp(cal->gpu_family, "ampere") == 0)
		return ampere;
	return hopper;
}

static double nccl_ll_max_GBps(const struct nccl_family *f, int nodes)
{
	return f->ll_max_GBps[nodes <= 1 ? 0 : nodes == 2 ? 1 : 2];
}

static int log2i(int n)
{
	int l = 0;

	while ((1 << (l + 1)) <= n)
		l++;
	return l;
}

/* NCCL's predicted time (us) of algorithm a under protocol pi for op of
 * `bytes` on span s (inter-domain). */
static double nccl_model_us(const struct nccl_family *fam, const struct net_span *s, enum coll_op op,
			    double bytes, int a, int pi)
{
	int n = s->ranks, nodes = s->domains > 1 ? s->domains : 1, ppn = s->ranks_per_domain;
	int nsteps = op == COLL_ALL_REDUCE ? 2 * (n - 1) : n - 1;
	int inter_steps = op == COLL_ALL_REDUCE ? 2 * (nodes - 1) : nodes - 1;
	double nv_GBps = s->nvlink_Bps / 1e9, efa_GBps = ppn * s->efa_Bps / 1e9;
	double bus = nodes <= 2 ? nv_GBps : dmin(nv_GBps, efa_GBps);
	double lat, ratio;
	int t = a == NA_TREE;

	if (a == NA_NVLS_TREE) {
		/* intra: NVLS at nvlsEfficiency (Hopper 0.85, Blackwell 0.74),
		 * doubled for all-reduce; inter: the tree (NCCL doubles it on 2
		 * nodes, not weighed here) */
		bus = dmin(2.0 * nv_GBps * fam->nvls_eff, efa_GBps);
		lat = NCCL_NVLSTREE_INTRA_LAT_US + 2.0 * log2i(nodes) * NCCL_NVLSTREE_NET_LAT_US;
		ratio = (double)n / nsteps;
		return lat + bytes / (1e3 * bus * ratio);
	}
	if (pi == P_LL)
		bus = t ? dmin(bus / 3.8, nccl_ll_max_GBps(fam, nodes)) : dmin(nccl_ll_max_GBps(fam, nodes), bus * 0.5);
	else if (pi == P_LL128)
		bus *= t ? 120.0 / 128.0 : 0.92;
	else if (t)
		bus *= 0.92;
	lat = nccl_base_lat_us[t][pi];
	if (!t) {
		double intra = dmax(nccl_nvl_lat_us[0][pi], pi == P_SIMPLE ? 3.0 : 1.0);

		lat += (nsteps - inter_steps) * intra + inter_steps * nccl_net_lat_us[0][pi];
		ratio = (double)n / nsteps;
	} else {
		lat += 2.0 * ((ppn - 1) * nccl_nvl_lat_us[1][pi] + log2i(nodes) * nccl_net_lat_us[1][pi]);
		ratio = 0.5;
	}
	return lat + bytes / (1e3 * bus * ratio);
}

/* Among the candidates (NCCL's own algorithms only on an AWS EFA span), the
 * one NCCL's model predicts fastest. */
static void nccl_select(const struct calibration *cal, const struct net_span *s, enum coll_op op,
			double bytes, struct best *b)
{
	struct nccl_family fam = nccl_family_of(cal);
	double best_us = INFINITY;
	int best = -1;

	for (int i = 0; i < b->all->n; i++) {
		const char *name = b->all->c[i].algorithm;
		int a = -1, pi = -1;

		for (int k = 0; k < P_N; k++) {
			if (name == n_ring[k])
				a = NA_RING, pi = k;
			else if (name == n_tree[k])
				a = NA_TREE, pi = k;
		}
		if (name == n_nvls_tree)
			a = NA_NVLS_TREE, pi = P_SIMPLE;
		if (a < 0)
			continue;
		double us = nccl_model_us(&fam, s, op, bytes, a, pi);

		if (us < best_us) {
			best_us = us;
			best = i;
		}
	}
	if (best < 0)
		return;
	b->t = b->all->c[best].time_s;
	b->name = b->all->c[best].algorithm;
	b->selected_by = "nccl tuner model";
}

static void run(const struct calibration *cal, const struct net_span *s,
		enum coll_op op, double bytes, struct best *b)
{
	struct coll_candidates local;
	/* NCCL's choice on an AWS EFA span: the plugin's region where one
	 * decides, else NCCL's own model (nccl_select) */
	bool tuned = s->aws_efa && s->inter &&
		     (op == COLL_ALL_REDUCE || op == COLL_ALL_GATHER || op == COLL_REDUCE_SCATTER);
	struct coll_candidates *keep = b->all;
	struct efa_tier e;

	if (s->ranks <= 1 || bytes <= 0) {
		b->t = 0;
		return;
	}
	/* the scale-out tier's parameters once per call, not per protocol */
	e = efa_tier_of(cal, s);
	if (tuned && !b->all) {
		local.n = 0;
		b->all = &local;
	}
	switch (op) {
	case COLL_ALL_REDUCE: all_reduce(cal, s, &e, bytes, b); break;
	case COLL_REDUCE_SCATTER:
	case COLL_ALL_GATHER: half_collective(cal, s, &e, bytes, b); break;
	case COLL_ALL_TO_ALL: all_to_all(cal, s, &e, bytes, b); break;
	case COLL_SEND_RECV: send_recv(cal, s, &e, bytes, b); break;
	}
	if (tuned) {
		if (s->efa_tuner != EFA_TUNER_NONE)
			region_select(s, op, bytes, b);
		if (!b->selected_by && op != COLL_ALL_REDUCE)
			nccl_select(cal, s, op, bytes, b);
	}
	b->all = keep;
}

double coll_time(const struct calibration *cal, const struct net_span *s,
		 enum coll_op op, double bytes, struct coll_choice *out)
{
	struct best b = { INFINITY, "none", NULL, NULL, NULL };

	run(cal, s, op, bytes, &b);
	if (out)
		fill_choice(s, &b, out);
	return b.t;
}

int coll_candidates_of(const struct calibration *cal, const struct net_span *s,
		       enum coll_op op, double bytes, struct coll_candidates *out)
{
	struct best b = { INFINITY, "none", out, NULL, NULL };

	out->n = 0;
	run(cal, s, op, bytes, &b);
	return out->n;
}

double coll_busbw_factor(enum coll_op op, int n)
{
	if (n < 1)
		n = 1;
	switch (op) {
	case COLL_ALL_REDUCE: return 2.0 * (n - 1) / n;
	case COLL_REDUCE_SCATTER:
	case COLL_ALL_GATHER:
	case COLL_ALL_TO_ALL: return (double)(n - 1) / n;
	case COLL_SEND_RECV: return 1.0;
	}
	return 1.0;
}

enum calib_param coll_scaleout_param(const struct net_span *s, enum calib_param p)
{
	if (!s->aws_efa)
		return p;
	if (p == CALIB_a2a_alpha_s && !s->inter)
		return p; /* inside a domain the all-to-all's peers are NVLink */
	/* the first role p plays (efa_tree_bw_eff: the tree before NVLS_TREE) */
	for (int r = 0; r < R_N; r++)
		if (tier_params[r].generic == (int)p)
			return (enum calib_param)tier_params[r].aws;
	return p;
}

enum calib_param coll_generic_param(enum calib_param p)
{
	for (int r = 0; r < R_N; r++)
		if (tier_params[r].aws == (int)p)
			return tier_params[r].generic == NO_PARAM ? p : (enum calib_param)tier_params[r].generic;
	return p;
}

const char *coll_op_name(enum coll_op op)
{
	static const char *const names[] = SC_ENUM_NAMES(COLL_OP_LIST);

	return SC_NAME_OF(names, op);
}

/* ---- the chosen algorithm as flows (coll_flows_of) -------------------------------- */

/* Fill o from a latency and two streams: v_nv bytes at effective bandwidth
 * b_nv (bytes/s, after efficiency) and v_efa bytes at b_efa.  The bytes are
 * rescaled to run at the span's raw NVLink and EFA speeds, so that
 * time = lat + max(v_nv / b_nv, efa_lat + v_efa / b_efa), the formula the
 * candidate was chosen by. */
static void flows_set(const struct net_span *s, struct coll_flows *o, enum coll_pattern pat,
		      double lat, double efa_lat, double v_nv, double b_nv, int st_nv,
		      double v_efa, double b_efa, int st_efa)
{
	double t_nv = v_nv > 0 ? v_nv / b_nv : 0, t_efa = v_efa > 0 ? efa_lat + v_efa / b_efa : 0;
	/* b_efa includes the spine's share (efa_*_Bps); the bytes do not:
	 * the DES simulates the uplinks itself */
	double raw = pat == COLL_PATTERN_ALL_TO_ALL ? efa_a2a_Bps(s) : efa_ring_Bps(s);

	o->pattern = pat;
	o->latency_s = lat;
	o->efa_latency_s = v_efa > 0 ? efa_lat : 0;
	o->nvlink_bytes = v_nv > 0 ? v_nv * (s->nvlink_Bps / b_nv) : 0;
	o->efa_bytes = v_efa > 0 ? v_efa * (raw / b_efa) : 0;
	o->efa_Bps = raw;
	o->nvlink_steps = v_nv > 0 ? (st_nv > 0 ? st_nv : 1) : 0;
	o->efa_steps = v_efa > 0 ? (st_efa > 0 ? st_efa : 1) : 0;
	o->time_s = lat + dmax(t_nv, t_efa);
}

static bool ends_with(const char *s, const char *suffix)
{
	size_t a = strlen(s), b = strlen(suffix);

	return a >= b && strcmp(s + a - b, suffix) == 0;
}

/* The algorithms of all_reduce(), half_collective(), all_to_all() and
 * send_recv(), term by term: any change there must be made here too (the
 * unit test tests/des/test_des_flows.c compares both for every algorithm). */
static void flows_unhidden(const struct calibration *cal, const struct net_span *s,
			   enum coll_op op, double S, struct coll_flows *o)
{
	const char *a = o->choice.algorithm;
	int n = s->ranks, r = s->ranks_per_domain, N = s->domains;
	double fn = (double)(n - 1) / n, fr = (double)(r - 1) / r, fN = (double)(N - 1) / N;
	double lg = ceil_log2(N);
	int pi = ends_with(a, "/ll") ? P_LL : ends_with(a, "/ll128") ? P_LL128 : P_SIMPLE;
	struct efa_tier et = efa_tier_of(cal, s);
	const struct efa_tier *e = &et;
	struct proto p = proto_of(cal, s, e, pi);
	struct proto ps = proto_of(cal, s, e, P_SIMPLE);
	double bnvls = nvls_Bps(cal, s);
	double half = op == COLL_ALL_REDUCE ? 2.0 : 1.0; /* all-reduce = RS + AG */

	if (op == COLL_ALL_TO_ALL) {
		double bnv = s->nvlink_Bps * cal->nvlink_a2a_bw_eff;
		double lat = a2a_latency(cal, s, e);
		double v_efa = (double)(n - r) / n * S;

		if (!s->inter)
			flows_set(s, o, COLL_PATTERN_ALL_TO_ALL, lat, 0, fn * S, bnv, 1, 0, 1, 0);
		else
			flows_set(s, o, COLL_PATTERN_ALL_TO_ALL, lat + s->extra_latency_s, 0,
				  (double)(r - 1) / n * S, bnv, 1, v_efa,
				  efa_a2a_rate(s, e, v_efa, n - r), 1);
		return;
	}
	if (op == COLL_SEND_RECV) {
		if (!s->inter)
			flows_set(s, o, COLL_PATTERN_P2P, cal->p2p_alpha_s, 0, S,
				  s->nvlink_Bps * cal->nvlink_ring_bw_eff, 1, 0, 1, 0);
		else
			flows_set(s, o, COLL_PATTERN_P2P, cal->p2p_alpha_s + s->extra_latency_s, 0,
				  0, 1, 0, S, efa_ring_Bps(s) * e->ring_eff, 1);
		return;
	}
	if (strncmp(a, "ring/", 5) == 0) {
		if (!s->inter)
			flows_set(s, o, COLL_PATTERN_RING, half * (n - 1) * p.a_nv, 0,
				  half * fn * S, p.b_nv, (int)half * (n - 1), 0, 1, 0);
		else
			flows_set(s, o, COLL_PATTERN_RING, p.start_efa + half * (n - 1) * p.a_efa_ring, 0,
				  half * fn * S, p.b_nv, (int)half * (n - 1),
				  half * fn * S / r, p.b_efa_ring, (int)half * (n - 1));
	} else if (strncmp(a, "tree/", 5) == 0) {
		flows_set(s, o, COLL_PATTERN_RING,
			  p.start_efa + 2.0 * (lg * p.a_efa_tree + (r - 1) * p.a_nv), 0,
			  r > 1 ? 2.0 * S : 0, p.b_nv, 2 * (r - 1),
			  2.0 * fN * S / r, p.b_efa_tree, (int)(2 * lg));
	} else if (strncmp(a, "hierarchical(ring+efa-ring)/", 28) == 0) {
		flows_set(s, o, COLL_PATTERN_RING,
			  p.start_efa + half * (r - 1) * p.a_nv + half * (N - 1) * p.a_efa_ring, 0,
			  half * fr * S, p.b_nv, (int)half * (r - 1),
			  half * fN * S / r, p.b_efa_ring, (int)half * (N - 1));
	} else if (strncmp(a, "hierarchical(ring+efa-tree)/", 28) == 0) {
		flows_set(s, o, COLL_PATTERN_RING,
			  p.start_efa + 2.0 * (r - 1) * p.a_nv + 2.0 * lg * p.a_efa_tree, 0,
			  2.0 * fr * S, p.b_nv, 2 * (r - 1),
			  2.0 * fN * S / r, p.b_efa_tree, (int)(2 * lg));
	} else if (strcmp(a, "nvls/simple") == 0) {
		flows_set(s, o, COLL_PATTERN_RING, cal->nvlink_nvls_alpha_s, 0,
			  nvls_wire_bytes(op, r, S), bnvls, (int)half, 0, 1, 0);
	} else if (strcmp(a, "hierarchical(nvls+efa-ring)/simple") == 0) {
		flows_set(s, o, COLL_PATTERN_RING,
			  ps.start_efa + cal->nvlink_nvls_alpha_s + half * (N - 1) * ps.a_efa_ring, 0,
			  nvls_wire_bytes(op, r, S), bnvls, (int)half,
			  half * fN * S / r, ps.b_efa_ring, (int)half * (N - 1));
	} else if (strcmp(a, "hierarchical(nvls+efa-tree)/simple") == 0) {
		flows_set(s, o, COLL_PATTERN_RING,
			  ps.start_efa + cal->nvlink_nvls_alpha_s + 2.0 * lg * ps.a_efa_tree, 0,
			  nvls_wire_bytes(op, r, S), bnvls, 2,
			  2.0 * fN * S / r, ps.b_efa_nvlstree, (int)(2 * lg));
	}
}

/* flows_unhidden() and the part of the latency that an LL128 ring or
 * tree hides under its transfer (ll128_hidden(), as coll_time() weighs it) */
static void flows_by_name(const struct calibration *cal, const struct net_span *s,
			  enum coll_op op, double S, struct coll_flows *o)
{
	const char *a = o->choice.algorithm;
	double hide;

	flows_unhidden(cal, s, op, S, o);
	if (!ends_with(a, "/ll128") || o->pattern == COLL_PATTERN_NONE)
		return;
	hide = ll128_hidden(cal, s, P_LL128, o->latency_s, o->time_s - o->latency_s);
	o->latency_s -= hide;
	o->time_s -= hide;
}

double coll_flows_of(const struct calibration *cal, const struct net_span *s,
		     enum coll_op op, double bytes, struct coll_flows *out)
{
	memset(out, 0, sizeof(*out));
	coll_time(cal, s, op, bytes, &out->choice);
	out->time_s = out->choice.time_s;
	if (s->ranks <= 1 || bytes <= 0 || !isfinite(out->choice.time_s))
		return out->time_s;
	flows_by_name(cal, s, op, bytes, out);
	return out->time_s;
}

double coll_flows_of_algorithm(const struct calibration *cal, const struct net_span *s,
			      enum coll_op op, double bytes, const char *algorithm,
			      struct coll_flows *out)
{
	struct coll_candidates all;
	struct best b = { INFINITY, "none", NULL, NULL, NULL };

	memset(out, 0, sizeof(*out));
	coll_candidates_of(cal, s, op, bytes, &all);
	for (int i = 0; i < all.n; i++)
		if (strcmp(all.c[i].algorithm, algorithm) == 0) {
			b.t = all.c[i].time_s;
			b.name = all.c[i].algorithm;
		}
	fill_choice(s, &b, &out->choice);
	out->time_s = b.t;
	if (isfinite(b.t))
		flows_by_name(cal, s, op, bytes, out);
	return out->time_s;
}

double coll_flows_of_a2a_split(const struct calibration *cal, const struct net_span *s,
			       double nvlink_bytes, double efa_bytes, struct coll_flows *out)
{
	int n = s->ranks;
	struct efa_tier et = efa_tier_of(cal, s);
	const struct efa_tier *e = &et;
	double lat = n > 1 ? a2a_latency(cal, s, e) : 0;
	bool efa = s->inter && efa_bytes > 0;

	memset(out, 0, sizeof(*out));
	coll_all_to_all_split(cal, s, nvlink_bytes, efa_bytes, &out->choice);
	if (n <= 1 || nvlink_bytes + efa_bytes <= 0)
		return 0;
	flows_set(s, out, COLL_PATTERN_ALL_TO_ALL, lat, s->extra_latency_s,
		  nvlink_bytes, s->nvlink_Bps * cal->nvlink_a2a_bw_eff, 1,
		  efa ? efa_bytes : 0,
		  efa_a2a_rate(s, e, efa_bytes, s->ranks - s->ranks_per_domain), 1);
	return out->time_s;
}
