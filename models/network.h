/* network.h: which tiers a group of ranks spans, and their speeds.
 *
 * A communication group is n ranks taken every `stride` ranks in the global
 * rank order (Megatron order: TP innermost, then CP, then DP, then PP; see
 * net_stride_* below).  Consecutive ranks fill a node, nodes fill an NVLink
 * domain (8 GPUs on an HGX node, 72 on an NVL72 rack).  From that placement
 * this module tells how many of the group's ranks share one NVLink domain,
 * how many domains the group spans, and the per-GPU bandwidth and extra
 * latency of each tier.  Pure; plain structs; nothing to free.
 */
#ifndef SC_NETWORK_H
#define SC_NETWORK_H

#include <stdbool.h>

#include "scenario.h"

struct efa_region_table;

struct net_span {
	int ranks;            /* n */
	int ranks_per_domain; /* r: group members inside one NVLink domain */
	int domains;          /* N = ceil(n / r): NVLink domains spanned */
	int nodes;            /* nodes spanned */
	bool inter;           /* spans more than one NVLink domain: uses EFA */
	bool aws_efa;         /* the scale-out tier is the instance's described AWS
				 EFA transport (instance efa.generation > 0): the
				 collective model takes its awsefa_* parameters */
	int efa_tuner;        /* enum efa_tuner_platform of the instance */
	bool efa_gda;         /* the instance's EFA has the hardware completion
				 counter EFA-GDA needs (efa.hw_completion_counter) */
	bool nvls;            /* NVLink SHARP available (Hopper/Blackwell NVSwitch) */
	bool crosses_spine;   /* has members under more than one leaf switch */
	int leaf_domains;     /* g: the group's NVLink domains under one leaf
				 (= domains when it does not cross the spine) */
	double oversubscription; /* the fabric's leaf-to-spine taper where the
				    group crosses the spine, else 1 */
	double nvlink_Bps;    /* per GPU, per direction, bytes/s */
	double efa_Bps;       /* per GPU share of the node's EFA, bytes/s (line
				 rate; see net_efa_Bps_leaving for the spine) */
	double extra_latency_s; /* added per EFA step when crossing the spine */
	/* on a placement (cluster.placement, models/placement.h): what the
	 * worst of the group's instances crosses; oversubscription is then the
	 * fabric's times the fullest leaf's share of its capacity */
	bool placed;
	int spine_levels;     /* switch levels climbed above the leaves: 0 none, 1-3 */
	double ring_leave;    /* fraction of ring EFA hops that leave a leaf */
	double a2a_leave;     /* fraction of all-to-all domain pairs on different leaves */
	/* the aws-ofi-nccl region tables of this span for all-reduce,
	 * reduce-scatter and all-gather (models/efa_tuner.h), resolved once
	 * by net_span_of() for efa_tables_ranks ranks on efa_tables_nodes
	 * nodes; read them through net_span_efa_table() */
	const struct efa_region_table *efa_tables[3];
	int efa_tables_ranks, efa_tables_nodes;
	double efa_scale_log2;  /* log2(max(domains, 2) / 2), for the EFA
				   tier's decay with scale (models/collective.c),
				   valid with the tables */
};

/* The region table of op (all-reduce, reduce-scatter or all-gather) on span
 * s, or NULL: the one resolved when s was built, or, where a caller has
 * changed its ranks or nodes since, looked up again. */
const struct efa_region_table *net_span_efa_table(const struct net_span *s, int op);

/* Per-GPU EFA bandwidth of span s when a fraction `leaving` of its EFA
 * traffic leaves the leaf: efa_Bps * min(1, 1 / (oversubscription *
 * leaving)).  Every node under a leaf runs the same collective at once (the
 * group's replicas: other TP ranks, pipeline stages), so the leaf sends
 * `leaving` of its nodes' traffic up links of 1/oversubscription of their
 * bandwidth: the uplinks bind once oversubscription * leaving > 1.  Which
 * fraction leaves depends on the pattern (models/collective.c): a ring or
 * tree over N domains, g per leaf, leaves it on 1 of every g hops; an
 * all-to-all sends (N - g) / (N - 1) of its EFA bytes to other leaves. */
double net_efa_Bps_leaving(const struct net_span *s, double leaving);

/* The fabric of a cluster as one struct: nodes, NVLink domains, NIC links,
 * leaf (rail) switches, the spine and its oversubscription.  Both engines
 * take the fabric from here and nowhere else: net_span_of() for the
 * analytical model, the platform builder of sim/des for the discrete-event
 * engine, so that they cannot disagree about it.
 *
 * NIC links: the NICs of a node are spread evenly over its GPUs (a p5 has
 * 32 NICs for 8 GPUs, four behind each GPU's PCIe switch; a p4d has 4 for 8,
 * one per pair of GPUs).  The NICs behind one GPU act as one link of their
 * summed bandwidth (NCCL stripes a GPU's traffic over them); GPUs that
 * share a NIC share its link.  Leaves: a leaf switch holds leaf_domains
 * whole NVLink domains (nodes_per_leaf / nodes_per_domain, at least one:
 * nodes_per_leaf nodes on 8-GPU nodes, one rack of an NVL72), in both
 * engines.  Traffic that leaves a leaf shares its uplinks to the spine,
 * whose capacity is the leaf's NIC bandwidth divided by the
 * oversubscription. */
struct net_topo {
	int nodes;                /* >= 1 */
	int gpus_per_node;        /* >= 1 */
	int domain_gpus;          /* GPUs per NVLink domain (8 on HGX, 72 on NVL72) */
	int nodes_per_domain;     /* >= 1: domain_gpus / gpus_per_node, or 1 */
	int domains;              /* ceil(nodes / nodes_per_domain) */
	double nvlink_Bps;        /* per GPU, per direction */
	double gpu_efa_Bps;       /* per-GPU share of the node's EFA (net_efa_Bps_per_gpu) */
	double node_efa_Bps;      /* whole node, per direction */
	int nic_links;            /* NIC links per node: min(efa_nics, gpus_per_node); 0 = no EFA */
	int gpus_per_nic_link;    /* ceil(gpus_per_node / nic_links) */
	double nic_link_Bps;      /* per link, per direction */
	bool rail_optimized;
	int nodes_per_leaf;       /* the fabric's, 0 = one leaf for all */
	int leaf_domains;         /* whole NVLink domains per leaf in the DES, >= 1 */
	int leaves;               /* ceil(domains / leaf_domains) */
	double oversubscription;  /* leaf-to-spine, >= 1 */
	double leaf_uplink_Bps;   /* per leaf, per direction: its NIC bandwidth / oversubscription */
	double nvlink_latency_s;  /* the fabric's, per hop */
	double efa_latency_s;
	double spine_hop_latency_s;
	/* cluster.placement, or NULL (packed: leaves are blocks of
	 * leaf_domains domains); with one, leaves is its leaf count and a
	 * GPU's leaf its node's (net_topo_leaf_of) */
	const struct placement *placement;
};

/* The fabric of cluster c.  Never fails: missing counts fall back to 1 (or
 * 0 NIC links when the instance has no EFA). */
void net_topo_of(const struct cluster *c, struct net_topo *t);

/* NVLink domain, leaf and NIC link of a GPU (global GPU index, node-major). */
int net_topo_domain_of(const struct net_topo *t, int gpu);
int net_topo_leaf_of(const struct net_topo *t, int gpu);
int net_topo_nic_link_of(const struct net_topo *t, int gpu); /* index within its node */

/* Placement of a group of `ranks` ranks at stride `stride` on cluster c.
 * ranks >= 1, stride >= 1. */
struct net_span net_span_of(const struct cluster *c, int ranks, int stride);

/* Per-GPU share of the node's EFA bandwidth, bytes/s:
 * efa_nics * efa_nic_Gbps / 8 / gpus_per_node (* 1e9). */
double net_efa_Bps_per_gpu(const struct instance_spec *inst);
/* Whether the instance's EFA can run GPU-initiated transfers (the efa-gda
 * dispatcher): the hardware completion counter of EFA on p5en, p6-b200 and
 * p6-b300, aws-ofi-nccl >= 1.21. */
bool net_efa_gda_capable(const struct instance_spec *inst);

/* Tier name of a span: "nvlink" or "efa" (static strings). */
const char *net_tier_name(const struct net_span *s);

#endif
