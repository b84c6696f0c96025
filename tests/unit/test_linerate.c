/* test_linerate.c: no collective moves data faster than its tier's line rate.
 *
 * A property over the whole catalogue (configs/): every instance type with
 * its GPU, every fabric, every calibration profile of the GPU's family,
 * every collective, every group placement inside an NVLink domain and
 * across domains (2 to 1,024 ranks at strides 1 to 256), sizes 1 KiB to
 * 16 GiB, and every algorithm x protocol the model weighs (not only the one
 * it picks: coll_candidates_of()).  For each, the bytes the busiest member
 * puts on the wire per direction, divided by the predicted time, must not
 * exceed the line rate of the tier, and the flows the DES replays at the raw
 * link speed must carry at least those bytes.
 *
 * Line rates, read from the catalogue here, not from models/network:
 *   NVLink: the GPU's nvlink_GBps (per GPU, per direction);
 *   EFA:    efa_nics x efa_nic_Gbps / 8 per node, shared by its
 *           gpus_per_node GPUs: each group member owns one GPU's share.
 *
 * Wire bytes per direction (S: nccl-tests size; n ranks, r of them per
 * NVLink domain, N = n / r domains; fn = (n-1)/n, fr = (r-1)/r, fN = (N-1)/N).
 * EFA bytes are those leaving the member's domain, divided among its r
 * members (the domain's traffic goes out through their r NIC shares).
 *   ring in one domain:       all-reduce 2 fn S, reduce-scatter/all-gather
 *                             fn S (each of the n-1 steps, twice for the
 *                             all-reduce, sends S/n; Thakur et al. 2005).
 *   ring across domains:      NVLink 2 fn S fr (of a channel's r hops in a
 *                             domain r-1 are NVLink hops, averaged over the
 *                             r channels); EFA 2 fn S per domain (one hop
 *                             out per channel).  RS/AG: half of both.
 *   tree:                     NVLink 2S for r >= 3 (a middle member of the
 *                             chain sends S up in the reduce and S down in
 *                             the broadcast), S for r = 2, 0 for r = 1; EFA
 *                             2 fN S per domain: the lower bound of any
 *                             all-reduce of N parties without in-network
 *                             reduction (Patarasuk & Yuan, JPDC 2009), met
 *                             by NCCL's double binary tree at N = 2.
 *   hierarchical(ring+efa-*): NVLink 2 fr S (reduce-scatter and all-gather
 *                             inside the domain), EFA 2 fN S per domain (r
 *                             rails, each an all-reduce of S/r over N
 *                             domains).  RS/AG: fr S and fN S.
 *   nvls:                     all-reduce (r+1)/r S: a GPU sends its whole
 *                             buffer into the switch (multimem reduce) and
 *                             its reduced S/r back (multimem store), and
 *                             receives S/r + S (S. Jeaugey, NVIDIA/nccl-tests
 *                             issue 212 and PR 239: algbw = link bw x
 *                             n/(n+1)); reduce-scatter sends S, all-gather
 *                             receives S (NVIDIA/nccl issue 1083).
 *   hierarchical(nvls+efa-*): NVLink as nvls, EFA as hierarchical ring.
 *   direct all-to-all:        NVLink (r-1)/n S, EFA (n-r)/n S per member.
 *   node-dedup all-to-all:    the caller's NVLink and EFA bytes.
 *   p2p:                      S on the pair's tier.
 *   MoE dispatch/combine:     the backend's own NVLink and EFA bytes
 *                             (models/moe_dispatch.h), every backend, normal
 *                             and low-latency kernels.
 * Every instance is checked twice: with its AWS EFA transport (the awsefa_*
 * parameters, the aws-ofi-nccl regions, LL128) and with the same NICs as a
 * generic scale-out network.
 * An algorithm not in this list fails the test: a new one needs its line.
 */
#include "../../models/collective.h"
#include "../../models/moe_dispatch.h"
#include "../../sim/config/catalog_load.h"
#include "sc_test.h"

#include <math.h>
#include <string.h>

#define SLACK 1e-9 /* relative, for rounding */

static bool starts(const char *s, const char *prefix)
{
	return strncmp(s, prefix, strlen(prefix)) == 0;
}

/* Wire bytes per direction of the busiest member: *nv through its NVLink
 * port, *efa through its NIC share (see the table above).  false when the
 * algorithm is unknown. */
static bool wire_bytes(enum coll_op op, const char *a, const struct net_span *s, double S,
		       double *nv, double *efa)
{
	double n = s->ranks, r = s->ranks_per_domain, N = s->domains;
	double fn = (n - 1) / n, fr = (r - 1) / r, fN = (N - 1) / N;
	double k = op == COLL_ALL_REDUCE ? 2.0 : 1.0; /* all-reduce = RS + AG */

	*nv = *efa = 0;
	if (op == COLL_ALL_TO_ALL) {
		if (strcmp(a, "direct") != 0)
			return false;
		*nv = (r - 1) / n * S;
		*efa = s->inter ? (n - r) / n * S : 0;
		return true;
	}
	if (op == COLL_SEND_RECV) {
		if (strcmp(a, "p2p") != 0)
			return false;
		if (s->inter)
			*efa = S;
		else
			*nv = S;
		return true;
	}
	if (starts(a, "ring/")) {
		if (!s->inter) {
			*nv = k * fn * S;
		} else {
			*nv = k * fn * S * fr;
			*efa = k * fn * S / r;
		}
	} else if (starts(a, "tree/")) {
		if (op != COLL_ALL_REDUCE)
			return false;
		*nv = r >= 3 ? 2 * S : (r == 2 ? S : 0);
		*efa = 2 * fN * S / r;
	} else if (starts(a, "hierarchical(ring+efa-")) {
		*nv = k * fr * S;
		*efa = k * fN * S / r;
	} else if (strcmp(a, "nvls/simple") == 0 || starts(a, "hierarchical(nvls+efa-")) {
		*nv = op == COLL_ALL_REDUCE ? (r + 1) / r * S : S;
		if (s->inter)
			*efa = k * fN * S / r;
	} else {
		return false;
	}
	return true;
}

struct rates {
	double nv_Bps, efa_Bps;
};

static int bad_printed;

static void report(const char *what, const struct cluster *c, const struct calibration *k,
		   enum coll_op op, const struct net_span *s, double S, const char *a,
		   double wire, double t, double line)
{
	if (bad_printed++ < 12)
		fprintf(stderr, "  %s over line rate: %s %s %s %s n=%d r=%d N=%d S=%.0f %s: "
			"%.4g B in %.4g s = %.1f GB/s > %.1f GB/s\n", what, c->instance.name,
			c->fabric.name, k->name, coll_op_name(op), s->ranks, s->ranks_per_domain,
			s->domains, S, a, wire, t, wire / t / 1e9, line / 1e9);
}

/* Checks one candidate (its time t) and its flows; returns false on a
 * violation (counted by the caller's CHECK). */
static bool check_candidate(const struct cluster *c, const struct calibration *k,
			    const struct net_span *s, const struct rates *lr, enum coll_op op,
			    double S, const char *a, double t)
{
	double nv, efa;
	struct coll_flows f;
	bool ok = true;

	if (!wire_bytes(op, a, s, S, &nv, &efa)) {
		fprintf(stderr, "  no wire-bytes formula for %s %s\n", coll_op_name(op), a);
		return false;
	}
	if (nv > t * lr->nv_Bps * (1 + SLACK)) {
		report("NVLink", c, k, op, s, S, a, nv, t, lr->nv_Bps);
		ok = false;
	}
	if (efa > t * lr->efa_Bps * (1 + SLACK)) {
		report("EFA", c, k, op, s, S, a, efa, t, lr->efa_Bps);
		ok = false;
	}
	/* the DES pushes the flows' bytes at the raw link speeds */
	coll_flows_of_algorithm(k, s, op, S, a, &f);
	if (f.nvlink_bytes < nv * (1 - SLACK) || f.efa_bytes < efa * (1 - SLACK)) {
		if (bad_printed++ < 12)
			fprintf(stderr, "  flows under the wire bytes: %s %s n=%d r=%d S=%.0f: "
				"NVLink %.4g < %.4g or EFA %.4g < %.4g\n", coll_op_name(op), a,
				s->ranks, s->ranks_per_domain, S, f.nvlink_bytes, nv, f.efa_bytes, efa);
		ok = false;
	}
	return ok;
}

static const enum coll_op ops[] = { COLL_ALL_REDUCE, COLL_REDUCE_SCATTER, COLL_ALL_GATHER,
				    COLL_ALL_TO_ALL, COLL_SEND_RECV };
static const int ranks[] = { 2, 3, 4, 6, 8, 16, 24, 32, 64, 72, 128, 144, 256, 512, 1024 };
static const int strides[] = { 1, 2, 4, 8, 16, 64, 256 };

static void test_catalogue_line_rate(void)
{
	static struct catalog cat;
	struct sc_error err;
	long cases = 0, candidates = 0, violations = 0;
	char seen[32][COLL_NAME_MAX];
	long bad[32] = { 0 };
	int n_seen = 0;

	CHECK(catalog_load(catalog_default_dir(), &cat, &err) == SC_OK);
	CHECK(cat.n_instances > 0 && cat.n_fabrics > 0 && cat.n_calibrations > 0);
	for (int i = 0; i < cat.n_instances; i++) {
		const struct instance_spec *inst = &cat.instances[i];
		const struct gpu_spec *gpu = catalog_gpu(&cat, inst->gpu);
		struct rates lr;

		CHECK(gpu != NULL);
		if (!gpu)
			continue;
		lr.nv_Bps = gpu->nvlink_GBps * 1e9;
		lr.efa_Bps = inst->efa_nics * inst->efa_nic_Gbps * 1e9 / 8.0 / inst->gpus_per_node;
		/* tv 0: the instance's AWS EFA transport (awsefa_* parameters,
		 * aws-ofi-nccl regions, LL128); tv 1: the same NICs without the
		 * efa object (the generic scale-out parameters, as on InfiniBand) */
		for (int tv = 0; tv < 2; tv++)
		for (int fb = 0; fb < cat.n_fabrics; fb++)
			for (int kc = 0; kc < cat.n_calibrations; kc++) {
				const struct calibration *k = &cat.calibrations[kc];
				struct cluster c;

				if (strcmp(k->gpu_family, gpu->family) != 0)
					continue;
				memset(&c, 0, sizeof(c));
				c.instance = *inst;
				if (tv == 1)
					memset(&c.instance.efa, 0, sizeof(c.instance.efa));
				c.gpu = *gpu;
				c.fabric = cat.fabrics[fb];
				c.nodes = 4096;
				for (size_t o = 0; o < sizeof(ops) / sizeof(ops[0]); o++)
					for (size_t g = 0; g < sizeof(ranks) / sizeof(ranks[0]); g++)
						for (size_t st = 0; st < sizeof(strides) / sizeof(strides[0]); st++) {
							struct net_span s;

							if ((long)ranks[g] * strides[st] > 8192)
								continue;
							s = net_span_of(&c, ranks[g], strides[st]);
							for (double S = 1024; S <= 17179869184.0; S *= 4) {
								struct coll_candidates all;

								coll_candidates_of(k, &s, ops[o], S, &all);
								cases++;
								CHECK(all.n > 0);
								for (int a = 0; a < all.n; a++) {
									int q = 0;
									bool ok = check_candidate(&c, k, &s, &lr, ops[o], S,
												  all.c[a].algorithm,
												  all.c[a].time_s);

									candidates++;
									while (q < n_seen && strcmp(seen[q], all.c[a].algorithm) != 0)
										q++;
									if (q == n_seen && n_seen < 32)
										strcpy(seen[n_seen++], all.c[a].algorithm);
									if (!ok) {
										violations++;
										if (q < 32)
											bad[q]++;
									}
								}
							}
						}
				/* MoE dispatch/combine of every backend (models/moe_dispatch.h):
				 * the bytes it puts through a GPU's NVLink port and NIC share */
				for (size_t g = 0; g < sizeof(ranks) / sizeof(ranks[0]); g++) {
					struct net_span s = net_span_of(&c, ranks[g], 1);

					for (int b = MOE_BACKEND_ALLTOALL; b <= MOE_BACKEND_ALLGATHER; b++)
						for (int ll = 0; ll < 2; ll++)
							for (double tok = 128; tok <= 16384; tok *= 8) {
								struct moe_call mc;
								double t = moe_dispatch_time(k, &s, (enum moe_backend)b, tok,
											     7168, 8, ll, &mc);

								if (s.ranks <= 1)
									continue;
								candidates++;
								if (mc.nvlink_bytes > t * lr.nv_Bps * (1 + SLACK) ||
								    (s.inter && mc.efa_bytes > t * lr.efa_Bps * (1 + SLACK))) {
									bool nvb = mc.nvlink_bytes > t * lr.nv_Bps * (1 + SLACK);

									report("moe dispatch", &c, k, COLL_ALL_TO_ALL, &s,
									       tok * 7168, mc.algorithm,
									       nvb ? mc.nvlink_bytes : mc.efa_bytes, t,
									       nvb ? lr.nv_Bps : lr.efa_Bps);
									violations++;
								}
							}
				}
				/* node-deduplicating all-to-all (MoE flex dispatcher) */
				for (size_t g = 0; g < sizeof(ranks) / sizeof(ranks[0]); g++) {
					struct net_span s = net_span_of(&c, ranks[g], 1);

					for (double nv = 0; nv <= 4e9; nv += 1e9)
						for (double efa = 0; efa <= 4e9; efa += 1e9) {
							double t = coll_all_to_all_split(k, &s, nv, efa, NULL);
							double e = s.inter ? efa : 0;

							if (nv + efa <= 0 || s.ranks <= 1)
								continue;
							candidates++;
							if (nv > t * lr.nv_Bps * (1 + SLACK) ||
							    e > t * lr.efa_Bps * (1 + SLACK)) {
								report("split a2a", &c, k, COLL_ALL_TO_ALL, &s, nv + efa,
								       "node-dedup", nv > t * lr.nv_Bps ? nv : e, t,
								       nv > t * lr.nv_Bps ? lr.nv_Bps : lr.efa_Bps);
								violations++;
							}
						}
				}
			}
	}
	fprintf(stderr, "  %ld cases, %ld candidates, %ld over a line rate; algorithms (violations):\n",
		cases, candidates, violations);
	for (int q = 0; q < n_seen; q++)
		fprintf(stderr, "    %-40s %ld\n", seen[q], bad[q]);
	CHECK(violations == 0);
	/* the grid reached every algorithm x protocol of models/collective.c
	 * (node-dedup, checked separately, not counted): 13 on the generic
	 * scale-out path, ring/ll128 and tree/ll128 on the AWS EFA transport */
	CHECK(n_seen >= 15);
	catalog_free(&cat);
}

/* The property catches the bug it was written for: NVLS timed at the
 * all-reduce's bus bandwidth over the line rate (1.067 on Hopper, the old
 * profiles' value) puts reduce-scatter over 450 GB/s. */
static void test_detects_old_nvls(void)
{
	static struct catalog cat;
	struct sc_error err;
	struct calibration k;
	struct cluster c;
	struct rates lr;
	struct net_span s;
	struct coll_candidates all;
	int over = 0;

	CHECK(catalog_load(catalog_default_dir(), &cat, &err) == SC_OK);
	memset(&c, 0, sizeof(c));
	c.instance = *catalog_instance(&cat, "p5.48xlarge");
	c.gpu = *catalog_gpu(&cat, "h100-sxm");
	c.fabric = *catalog_fabric(&cat, "ultracluster");
	c.nodes = 1;
	k = *catalog_calibration(&cat, "hopper-default");
	k.nvlink_nvls_bw_eff = 1.067;
	lr.nv_Bps = c.gpu.nvlink_GBps * 1e9;
	lr.efa_Bps = 50e9;
	s = net_span_of(&c, 8, 1);
	coll_candidates_of(&k, &s, COLL_REDUCE_SCATTER, 1073741824.0, &all);
	bad_printed = 1000; /* quiet */
	for (int a = 0; a < all.n; a++)
		over += !check_candidate(&c, &k, &s, &lr, COLL_REDUCE_SCATTER, 1073741824.0,
					 all.c[a].algorithm, all.c[a].time_s);
	bad_printed = 0;
	CHECK(over == 1);
	catalog_free(&cat);
}

int main(void)
{
	RUN(test_detects_old_nvls);
	RUN(test_catalogue_line_rate);
	return sc_test_summary();
}
