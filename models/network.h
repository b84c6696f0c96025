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

struct net_span {
	int ranks;            /* n */
	int ranks_per_domain; /* r: group members inside one NVLink domain */
	int domains;          /* N = ceil(n / r): NVLink domains spanned */
	int nodes;            /* nodes spanned */
	bool inter;           /* spans more than one NVLink domain: uses EFA */
	bool nvls;            /* NVLink SHARP available (Hopper/Blackwell NVSwitch) */
	bool crosses_spine;   /* spans more nodes than one leaf (rail) switch holds */
	double nvlink_Bps;    /* per GPU, per direction, bytes/s */
	double efa_Bps;       /* per GPU share of the node's EFA, bytes/s, after
				 leaf-spine oversubscription where it applies */
	double extra_latency_s; /* added per EFA step when crossing the spine */
};

/* Placement of a group of `ranks` ranks at stride `stride` on cluster c.
 * ranks >= 1, stride >= 1. */
struct net_span net_span_of(const struct cluster *c, int ranks, int stride);

/* Per-GPU share of the node's EFA bandwidth, bytes/s:
 * efa_nics * efa_nic_Gbps / 8 / gpus_per_node (* 1e9). */
double net_efa_Bps_per_gpu(const struct instance_spec *inst);

/* Tier name of a span: "nvlink" or "efa" (static strings). */
const char *net_tier_name(const struct net_span *s);

#endif
