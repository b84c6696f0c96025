/* placement.h: where a job's nodes sit on the fabric, and what its groups
 * cross because of it.
 *
 * A placement maps the job's nodes, in rank order (node i holds ranks
 * i * gpus_per_node .. + gpus_per_node - 1, Megatron's order tp -> cp ->
 * ep -> dp -> pp, models/layout), to network switches at three levels:
 *   level 0: the switch the instance hangs off (EC2 describe-instance-
 *            topology's network node layer 3, the last of NetworkNodes;
 *            a Slurm topology/tree leaf switch or topology/block block;
 *            Kubernetes label topology.k8s.aws/network-node-layer-3),
 *   level 1: its parent (EC2 layer 2, the Slurm switch above the leaf),
 *   level 2: the top (EC2 layer 1, the Slurm switch above that).
 * A level a source does not describe is one switch shared by all nodes.
 * Ids are dense per level (0 .. n_sw[l] - 1, in order of first use).
 *
 * What a group crosses (placement_group_cross): over every group of n
 * ranks at stride s (all of them, not just the first: a random placement
 * is not symmetric), the highest level whose switches differ among its
 * members, the worst fraction of a ring's EFA hops that leave a leaf (the
 * ring in rank order over the group's NVLink domains), the worst fraction
 * of an all-to-all's domain pairs in different leaves, and the fullest
 * leaf (job nodes under it over its capacity: the share of the leaf's
 * uplinks this job loads).  A packed placement (consecutive nodes fill a
 * leaf) gives exactly models/network.c's closed forms: 1/g of a ring's
 * hops and (N - g)/(N - 1) of an all-to-all's pairs leave, for g domains
 * per leaf (test_placement checks it).
 *
 * Pure; a struct placement owns its arrays (placement_free).
 */
#ifndef SC_PLACEMENT_H
#define SC_PLACEMENT_H

#include <stdbool.h>
#include <stdint.h>

#include "enum_names.h"
#include "status.h"

#define PLACEMENT_LEVELS 3
#define PLACEMENT_NAME_MAX 64
#define PLACEMENT_SOURCE_MAX 256

#define PLACEMENT_GEN_LIST(X) X(PLACEMENT_GEN_PACKED, "packed") X(PLACEMENT_GEN_RANDOM, "random") \
	X(PLACEMENT_GEN_SPREAD, "spread")
enum placement_gen { PLACEMENT_GEN_LIST(SC_ENUM_ID) };
extern const char *const placement_gen_names[];

struct placement {
	int nodes;                /* the job's nodes, in rank order */
	int *sw;                  /* [nodes * PLACEMENT_LEVELS]: sw[i * 3 + l] */
	int n_sw[PLACEMENT_LEVELS];
	int leaf_capacity;        /* nodes one level-0 switch holds (>= the most of this job under one) */
	char (*name)[PLACEMENT_NAME_MAX]; /* instance id or host name per node; NULL for generated */
	char source[PLACEMENT_SOURCE_MAX]; /* what it came from, for reports */
};

/* What the groups of one shape cross on placement pl. */
struct placement_cross {
	int level;                /* -1: every group inside one leaf; 0: crosses leaves (one hop up
				     and down); 1: crosses level-1 switches; 2: crosses the top */
	double ring_leave;        /* worst over groups: fraction of ring EFA hops between leaves */
	double a2a_leave;         /* worst: fraction of domain pairs between leaves */
	double leaf_fill;         /* fullest leaf the groups cross from: job nodes / leaf_capacity */
	int groups_crossing;      /* groups with members under more than one leaf */
	int groups;
};

/* Build pl from per-node switch keys (keys[i * 3 + l], NULL or "" = the
 * one shared switch of that level) and optional names (may be NULL).
 * leaf_capacity 0: the most nodes under one leaf.  Copies everything. */
enum sc_status placement_build(struct placement *pl, int nodes, const char *const *keys,
			       const char *const *names, int leaf_capacity, const char *source,
			       struct sc_error *err);

/* A generated placement of `nodes` nodes on `blocks` leaves of
 * nodes_per_leaf nodes each under one spine (blocks 0: as few as hold
 * them): packed fills leaves in order; spread deals nodes round-robin over
 * the blocks (every rank-order neighbour on another leaf: the worst a
 * topology-blind scheduler does); random takes a seeded uniform sample of
 * the blocks' slots in random order (what a scheduler that ignores
 * topology on a fragmented cluster gives).  SC_EINVAL when the blocks
 * cannot hold the nodes. */
enum sc_status placement_generate(struct placement *pl, enum placement_gen kind, int nodes,
				  int blocks, int nodes_per_leaf, uint64_t seed, struct sc_error *err);

/* The nodes idx[0..n) of src, in that order, as a placement of their own
 * (switch ids renumbered, names and leaf capacity kept). */
enum sc_status placement_subset(const struct placement *src, const int *idx, int n, const char *source,
				struct placement *out, struct sc_error *err);

/* Deep copy (src's arrays duplicated). */
enum sc_status placement_copy(struct placement *dst, const struct placement *src, struct sc_error *err);

void placement_free(struct placement *pl);

/* What every group of `ranks` ranks at `stride` (rank order) crosses when
 * each node holds gpus_per_node ranks and nodes_per_domain consecutive
 * job nodes form an NVLink domain.  Nodes beyond pl->nodes count as
 * packed after the last one (callers check the counts first). */
void placement_group_cross(const struct placement *pl, int ranks, int stride, int gpus_per_node,
			   int nodes_per_domain, struct placement_cross *out);

/* Leaf (level-0 switch) of job node i. */
static inline int placement_leaf(const struct placement *pl, int node)
{
	return node < pl->nodes ? pl->sw[node * PLACEMENT_LEVELS] : pl->sw[(pl->nodes - 1) * PLACEMENT_LEVELS];
}

const char *placement_gen_name(enum placement_gen g);

#endif
