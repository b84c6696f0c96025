/* network.c: placement of a rank group on NVLink domains and EFA (see network.h). */
#include "network.h"

#include <string.h>

double net_efa_Bps_per_gpu(const struct instance_spec *inst)
{
	int g = inst->gpus_per_node > 0 ? inst->gpus_per_node : 1;

	return inst->efa_nics * inst->efa_nic_Gbps * 1e9 / 8.0 / g;
}

/* Members of a strided group that fall in one block of `block` consecutive
 * ranks: all of them if the group fits (stride * n <= block), else
 * block / stride when the stride is smaller than the block (the block holds
 * every stride-th rank), else 1.  Assumes aligned placement (groups start at
 * a multiple of their span), which Megatron's rank order gives. */
static int members_per_block(int n, int stride, int block)
{
	int r;

	if (block <= 1 || stride >= block)
		return 1;
	r = block / stride;
	return r < n ? r : n;
}

static bool family_has_nvls(const char *family)
{
	/* NVLink SHARP needs third-generation NVSwitch (Hopper) or later;
	 * Ampere's NVSwitch has no in-switch reduction (NVIDIA NVLink/NVSwitch
	 * product pages; NCCL 2.17 release notes: NVLS on H100). */
	return strcmp(family, "hopper") == 0 || strcmp(family, "blackwell") == 0;
}

struct net_span net_span_of(const struct cluster *c, int ranks, int stride)
{
	struct net_span s;
	const struct instance_spec *inst = &c->instance;
	int domain = inst->nvlink_domain_gpus > 0 ? inst->nvlink_domain_gpus
						  : inst->gpus_per_node;
	int gpn = inst->gpus_per_node > 0 ? inst->gpus_per_node : 1;
	int per_node;
	double span_nodes;

	memset(&s, 0, sizeof(s));
	if (ranks < 1)
		ranks = 1;
	if (stride < 1)
		stride = 1;
	s.ranks = ranks;
	s.ranks_per_domain = members_per_block(ranks, stride, domain);
	s.domains = (ranks + s.ranks_per_domain - 1) / s.ranks_per_domain;
	per_node = members_per_block(ranks, stride, gpn);
	s.nodes = (ranks + per_node - 1) / per_node;
	s.inter = s.domains > 1;
	s.nvls = family_has_nvls(c->gpu.family) && domain > 1;
	s.nvlink_Bps = c->gpu.nvlink_GBps * 1e9;
	s.efa_Bps = net_efa_Bps_per_gpu(inst);
	/* The group's nodes lie (ranks-1)*stride/gpn + 1 node indices apart:
	 * if that range is wider than one leaf, some paths cross the spine
	 * (one hop up and one down) and share its oversubscribed uplinks. */
	span_nodes = (double)(ranks - 1) * stride / gpn + 1.0;
	if (s.inter && c->fabric.nodes_per_leaf > 0 &&
	    span_nodes > c->fabric.nodes_per_leaf) {
		s.crosses_spine = true;
		s.extra_latency_s = 2.0 * c->fabric.spine_hop_latency_s;
		if (c->fabric.leaf_spine_oversubscription > 1.0)
			s.efa_Bps /= c->fabric.leaf_spine_oversubscription;
	}
	return s;
}

const char *net_tier_name(const struct net_span *s)
{
	return s->inter ? "efa" : "nvlink";
}
