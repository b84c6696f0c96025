/* test_placement.c: placements from EC2 / Slurm / Kubernetes files, the
 * generators, what groups cross, and the one rule both engines keep: a
 * packed placement predicts exactly what no placement does. */
#include "sc_test.h"

#include <math.h>
#include <string.h>

#include "../../models/network.h"
#include "../../models/placement.h"
#include "../../sim/analytic/step.h"
#include "../../sim/config/placement_load.h"
#include "../../sim/config/scenario_load.h"
#include "../../sim/placement/placement_eval.h"

#define D "tests/placement/data/"

static void test_ec2(void)
{
	struct placement pl;
	struct sc_error err;

	CHECK(placement_load_file(PLACEMENT_FMT_EC2, D "ec2-p5-8.json", NULL, 0, 0, 0, &pl, &err) == SC_OK);
	CHECK(pl.nodes == 8);
	CHECK(pl.n_sw[0] == 2 && pl.n_sw[1] == 1 && pl.n_sw[2] == 1);
	CHECK(pl.leaf_capacity == 4);
	CHECK_STR(pl.name[5], "i-0a1b2c3d4e5f60005");
	CHECK(placement_leaf(&pl, 3) == 0 && placement_leaf(&pl, 4) == 1);
	placement_free(&pl);
	/* the instances named, in that order */
	{
		const char *want[] = { "i-0a1b2c3d4e5f60007", "i-0a1b2c3d4e5f60000" };

		CHECK(placement_load_file(PLACEMENT_FMT_EC2, D "ec2-p5-8.json", want, 2, 2, 0, &pl, &err) == SC_OK);
		CHECK(pl.nodes == 2 && placement_leaf(&pl, 0) != placement_leaf(&pl, 1));
		CHECK_STR(pl.name[0], "i-0a1b2c3d4e5f60007");
		placement_free(&pl);
	}
	/* too few instances for the cluster */
	CHECK(placement_load_file(PLACEMENT_FMT_EC2, D "ec2-p5-8.json", NULL, 0, 9, 0, &pl, &err) == SC_EINVAL);
	CHECK(strstr(err.message, "8 instances") != NULL);
	CHECK_STR(err.file, D "ec2-p5-8.json");
}

static void test_k8s(void)
{
	struct placement pl;
	struct sc_error err;

	CHECK(placement_load_file(PLACEMENT_FMT_K8S, D "k8s-nodes-4.json", NULL, 0, 0, 0, &pl, &err) == SC_OK);
	CHECK(pl.nodes == 4); /* the m5 without topology labels is left out */
	CHECK(pl.n_sw[0] == 2);
	CHECK_STR(pl.name[2], "ip-10-0-1-12.us-east-2.compute.internal");
	placement_free(&pl);
}

static void test_slurm(void)
{
	struct placement pl;
	struct sc_error err;
	static const char bad_range[] = "SwitchName=s0 Nodes=n[5-2]\n";
	static const char undef[] = "SwitchName=s0 Nodes=n1\nSwitchName=top Switches=s[0-1]\n";
	static const char twice[] = "SwitchName=s0 Nodes=n[1-2]\nSwitchName=s1 Nodes=n2\n";
	static const char mixed[] = "SwitchName=s0 Nodes=n1\nBlockName=b Nodes=n2\n";

	CHECK(placement_load_file(PLACEMENT_FMT_SLURM, D "slurm-tree.conf", NULL, 0, 0, 0, &pl, &err) == SC_OK);
	CHECK(pl.nodes == 16 && pl.n_sw[0] == 2 && pl.n_sw[1] == 1);
	CHECK_STR(pl.name[8], "p5-st-009");
	CHECK(placement_leaf(&pl, 7) == 0 && placement_leaf(&pl, 8) == 1);
	placement_free(&pl);
	CHECK(placement_load_file(PLACEMENT_FMT_SLURM, D "slurm-block.conf", NULL, 0, 0, 0, &pl, &err) == SC_OK);
	CHECK(pl.nodes == 8 && pl.n_sw[0] == 2);
	CHECK_STR(pl.name[4], "gb200-05");
	placement_free(&pl);
	CHECK(placement_parse(PLACEMENT_FMT_SLURM, "t.conf", bad_range, sizeof(bad_range) - 1, NULL, 0, 0, 0, &pl,
			      &err) == SC_EINVAL);
	CHECK(strstr(err.message, "line 1") != NULL);
	CHECK(placement_parse(PLACEMENT_FMT_SLURM, "t.conf", undef, sizeof(undef) - 1, NULL, 0, 0, 0, &pl, &err) ==
	      SC_EINVAL);
	CHECK(strstr(err.message, "\"s1\" is not defined") != NULL);
	CHECK(placement_parse(PLACEMENT_FMT_SLURM, "t.conf", twice, sizeof(twice) - 1, NULL, 0, 0, 0, &pl, &err) ==
	      SC_EINVAL);
	CHECK(strstr(err.message, "appears twice") != NULL);
	CHECK(placement_parse(PLACEMENT_FMT_SLURM, "t.conf", mixed, sizeof(mixed) - 1, NULL, 0, 0, 0, &pl, &err) ==
	      SC_EINVAL);
}

/* Hand-computed crossings: 4 nodes of 8 GPUs, 2 leaves of 2.  A DP group
 * of 4 (one rank per node, stride 8) on spread (leaves A B A B): all 4
 * ring hops leave a leaf; of the 12 ordered domain pairs the 4 inside a
 * leaf stay, so 8/12 leave.  Packed (A A B B): 2 of 4 hops, 1 - 4/12. */
static void test_cross(void)
{
	struct placement pl;
	struct placement_cross x;
	struct sc_error err;

	CHECK(placement_generate(&pl, PLACEMENT_GEN_SPREAD, 4, 2, 2, 1, &err) == SC_OK);
	placement_group_cross(&pl, 4, 8, 8, 1, &x);
	CHECK(x.level == 0 && x.groups == 8 && x.groups_crossing == 8);
	CHECK_REL(x.ring_leave, 1.0, 1e-12);
	CHECK_REL(x.a2a_leave, 8.0 / 12.0, 1e-12);
	CHECK_REL(x.leaf_fill, 1.0, 1e-12);
	placement_free(&pl);
	CHECK(placement_generate(&pl, PLACEMENT_GEN_PACKED, 4, 0, 2, 1, &err) == SC_OK);
	placement_group_cross(&pl, 4, 8, 8, 1, &x);
	CHECK_REL(x.ring_leave, 0.5, 1e-12);
	CHECK_REL(x.a2a_leave, 8.0 / 12.0, 1e-12);
	/* a pair inside a leaf does not cross */
	placement_group_cross(&pl, 2, 8, 8, 1, &x);
	CHECK(x.level == -1 && x.groups_crossing == 0);
	placement_free(&pl);
	/* random: seeded, reproducible, inside its blocks */
	{
		struct placement a, b;

		CHECK(placement_generate(&a, PLACEMENT_GEN_RANDOM, 40, 4, 16, 7, &err) == SC_OK);
		CHECK(placement_generate(&b, PLACEMENT_GEN_RANDOM, 40, 4, 16, 7, &err) == SC_OK);
		CHECK(memcmp(a.sw, b.sw, sizeof(int) * 40 * PLACEMENT_LEVELS) == 0);
		CHECK(a.n_sw[0] <= 4 && a.leaf_capacity == 16);
		placement_free(&a);
		placement_free(&b);
		CHECK(placement_generate(&a, PLACEMENT_GEN_RANDOM, 40, 2, 16, 7, &err) == SC_EINVAL);
	}
}

/* Packed as a placement = no placement, to the last bit, for a dense
 * (DP, PP crossing leaves) and an MoE (EP all-to-all) scenario, on a
 * tapered fabric so that the uplink terms count. */
static void packed_is_default(const char *path)
{
	static struct catalog cat;
	static struct scenario sc;
	struct step_result a, b;
	struct placement pl;
	struct sc_error err;
	const struct fabric_spec *f;

	CHECK(catalog_load(catalog_default_dir(), &cat, &err) == SC_OK);
	CHECK(scenario_load(path, &cat, &sc, &err) == SC_OK);
	f = catalog_fabric(&cat, "ultracluster-2to1");
	CHECK(f != NULL);
	if (f)
		sc.cluster.fabric = *f;
	catalog_free(&cat);
	CHECK(sim_step_predict(&sc, &a, &err) == SC_OK);
	CHECK(placement_generate(&pl, PLACEMENT_GEN_PACKED, sc.cluster.nodes, 0, sc.cluster.fabric.nodes_per_leaf,
				 1, &err) == SC_OK);
	sc.cluster.placement = &pl;
	CHECK(sim_step_predict(&sc, &b, &err) == SC_OK);
	CHECK_REL(b.step_time_s, a.step_time_s, 1e-12);
	for (int i = 0; i < PART_COUNT; i++)
		CHECK(fabs(b.part_s[i] - a.part_s[i]) <= 1e-12 * a.step_time_s);
	/* spread costs at least as much */
	placement_free(&pl);
	CHECK(placement_generate(&pl, PLACEMENT_GEN_SPREAD, sc.cluster.nodes, 0, sc.cluster.fabric.nodes_per_leaf,
				 1, &err) == SC_OK);
	CHECK(sim_step_predict(&sc, &b, &err) == SC_OK);
	CHECK(b.step_time_s >= a.step_time_s * (1 - 1e-3));
	placement_free(&pl);
}

static void test_packed_is_default(void)
{
	packed_is_default("scenarios/llama3-405b-p5-2048.json");
	packed_is_default("scenarios/deepseek-v3-h800-2048.json");
}

/* The topology-aware choice of 32 of 64 free nodes listed interleaved over
 * 4 leaves (2 per layer-2 switch) takes the two leaves under one layer-2
 * switch; file order takes all four leaves in turn. */
static void test_choose(void)
{
	struct placement fr, pl;
	struct sc_error err;

	CHECK(placement_load_file(PLACEMENT_FMT_EC2, D "ec2-free-64.json", NULL, 0, 0, 32, &fr, &err) == SC_OK);
	CHECK(pl_choose(&fr, 32, PL_CHOOSE_AWARE, &pl, &err) == SC_OK);
	CHECK(pl.nodes == 32 && pl.n_sw[0] == 2 && pl.n_sw[1] == 1);
	for (int i = 1; i < 16; i++)
		CHECK(placement_leaf(&pl, i) == placement_leaf(&pl, 0));
	placement_free(&pl);
	CHECK(pl_choose(&fr, 32, PL_CHOOSE_FILE_ORDER, &pl, &err) == SC_OK);
	CHECK(pl.n_sw[0] == 4 && pl.n_sw[1] == 2);
	placement_free(&pl);
	CHECK(pl_choose(&fr, 65, PL_CHOOSE_AWARE, &pl, &err) == SC_EINVAL);
	placement_free(&fr);
}

int main(void)
{
	RUN(test_ec2);
	RUN(test_k8s);
	RUN(test_slurm);
	RUN(test_cross);
	RUN(test_packed_is_default);
	RUN(test_choose);
	return sc_test_summary();
}
