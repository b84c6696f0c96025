/* test_des_oversub.c: leaf-spine oversubscription, analytical engine against
 * the discrete-event engine, on a scenario whose expert-parallel all-to-all
 * spans four leaves: tests/des/data/oversub-moe-1024.json (128 p5 nodes,
 * EP 128 x ETP 8: one EP member per node, 32 nodes per leaf), on the
 * catalogue's "ultracluster" (1:1) and "ultracluster-2to1" fabrics.
 *
 * What is expected, by hand: each member sends (n - r)/n of an all-to-all
 * over EFA, spread evenly over the 127 other nodes; 96 of them are under
 * other leaves, so 96/127 of the leaf's EFA traffic goes up a 2:1 tapered
 * uplink: the EFA term of every all-to-all is 2 x 96/127 = 1.51 times
 * longer on the 2:1 fabric.  The DP all-reduce ring leaves a leaf on 1 hop
 * in 32, which a 2:1 taper carries at full speed.  The DES builds the leaves
 * and their uplinks (sim/des/platform.cpp) and sees the same from the flows.
 *
 * Checks: (1) the analytical per-call all-to-all time is the hand formula on
 * both fabrics; (2) the simulated EP time agrees with the analytical one
 * within 3 % on both fabrics, and so does its 2:1 slow-down; (3) the steps
 * agree within 3 % once the DP part is set aside: in the DES the DP buckets
 * share the NICs (and, on the 2:1 fabric, the uplinks) with the backward's
 * all-to-all, contention that the analytical engine does not model
 * (test_des_contention.c), which it prints.  Coarsened to 20,000 flows: a
 * few seconds per fabric. */
#include "../../models/collective.h"
#include "../../sim/config/catalog_load.h"
#include "../../sim/config/scenario_load.h"
#include "../../sim/des/des.h"
#include "../unit/sc_test.h"

#include <math.h>
#include <string.h>

#define CASE "tests/des/data/oversub-moe-1024.json"

static const struct step_collective *find(const struct step_result *r, const char *what)
{
	for (int i = 0; i < r->n_collectives; i++)
		if (strcmp(r->collectives[i].what, what) == 0)
			return &r->collectives[i];
	return NULL;
}

/* The direct all-to-all of S bytes per rank on n ranks, one per node, N = n
 * domains of which g per leaf, by hand (models/collective.c all_to_all()
 * with the leaf share of network.h). */
static double a2a_by_hand(const struct scenario *sc, double S)
{
	const struct calibration *k = &sc->calibration;
	const struct cluster *c = &sc->cluster;
	double n = sc->layout.ep, N = n, g = c->fabric.nodes_per_leaf;
	double share = c->instance.efa_nics * c->instance.efa_nic_Gbps * 1e9 / 8 / c->instance.gpus_per_node;
	double load = c->fabric.leaf_spine_oversubscription * (N - g) / (N - 1);
	/* the instance describes its AWS EFA: the awsefa_* all-to-all
	 * parameters, with the start-up (models/collective.c efa_tier_of) */
	bool aws = c->instance.efa.generation > 0;
	double efa = share * (load > 1 ? 1 / load : 1) * (aws ? k->awsefa_a2a_bw_eff : k->efa_a2a_bw_eff);
	double lat = aws ? k->awsefa_startup_s + (n - 1) * k->awsefa_a2a_peer_alpha_s : (n - 1) * k->a2a_alpha_s;

	/* on AWS EFA the first awsefa_a2a_window_bytes of each peer's message
	 * move at awsefa_a2a_window_eff of the rate (efa_a2a_rate) */
	double opening = aws ? (n - 1) * fmin(S / n, k->awsefa_a2a_window_bytes) *
			       (1 / k->awsefa_a2a_window_eff - 1) : 0;

	/* r = 1: nothing over NVLink */
	return lat + 2 * c->fabric.spine_hop_latency_s + ((n - 1) / n * S + opening) / efa;
}

int main(void)
{
	static struct catalog cat;
	static struct scenario sc[2];
	const struct scenario *ptr[2] = { &sc[0], &sc[1] };
	static struct des_result res[2];
	const char *fabric[2] = { "ultracluster", "ultracluster-2to1" };
	enum sc_status st[2];
	struct sc_error errs[2], err;
	struct des_options opt;
	double ep_a[2] = { 0, 0 }, ep_d[2] = { 0, 0 };

	if (catalog_load(catalog_default_dir(), &cat, &err) != SC_OK) {
		fprintf(stderr, "catalog: %s\n", err.message);
		return 1;
	}
	for (int i = 0; i < 2; i++) {
		if (scenario_load(CASE, &cat, &sc[i], &err) != SC_OK) {
			fprintf(stderr, "%s: %s %s\n", CASE, err.pointer, err.message);
			return 1;
		}
		CHECK(catalog_fabric(&cat, fabric[i]) != NULL);
		sc[i].cluster.fabric = *catalog_fabric(&cat, fabric[i]);
	}
	CHECK(sc[0].cluster.fabric.leaf_spine_oversubscription == 1.0);
	CHECK(sc[1].cluster.fabric.leaf_spine_oversubscription == 2.0);
	CHECK(sc[0].cluster.fabric.nodes_per_leaf == 32 && sc[0].cluster.nodes == 128);
	catalog_free(&cat);
	memset(&opt, 0, sizeof(opt));
	opt.fidelity = 20000;
	des_predict_many(ptr, 2, &opt, 0, res, st, errs);
	fprintf(stderr, "%-18s %12s %12s %12s %12s %12s %12s\n", "fabric", "analytic s", "des s", "ep a s",
		"ep des s", "dp a s", "dp des s");
	for (int i = 0; i < 2; i++) {
		const struct step_result *a = &res[i].analytic, *d = &res[i].step;
		const struct step_collective *ep;

		CHECK(st[i] == SC_OK);
		if (st[i] != SC_OK) {
			fprintf(stderr, "%s: %s\n", fabric[i], errs[i].message);
			return sc_test_summary();
		}
		ep = find(a, "ep");
		CHECK(ep != NULL && strcmp(ep->tier, "efa") == 0 && ep->ranks == 128);
		if (ep)
			CHECK_REL(ep->time_s, a2a_by_hand(&sc[i], ep->bytes), 1e-9);
		ep_a[i] = a->part_s[PART_EP_COMM];
		ep_d[i] = d->part_s[PART_EP_COMM];
		fprintf(stderr, "%-18s %12.4f %12.4f %12.4f %12.4f %12.4f %12.4f\n", fabric[i], a->step_time_s,
			d->step_time_s, ep_a[i], ep_d[i], a->part_s[PART_DP_COMM], d->part_s[PART_DP_COMM]);
		CHECK_REL(ep_d[i], ep_a[i], 0.03);
		CHECK_REL(d->step_time_s - d->part_s[PART_DP_COMM], a->step_time_s - a->part_s[PART_DP_COMM],
			  0.03);
		des_result_free(&res[i]);
	}
	/* the 2:1 fabric is slower by the all-to-all's EFA share, in both */
	fprintf(stderr, "2:1 over 1:1, EP time: analytic %.4f, des %.4f\n", ep_a[1] / ep_a[0], ep_d[1] / ep_d[0]);
	CHECK(ep_a[1] > 1.15 * ep_a[0]);
	CHECK_REL(ep_d[1] / ep_d[0], ep_a[1] / ep_a[0], 0.03);
	return sc_test_summary();
}
