/* network.c: placement of a rank group on NVLink domains and EFA (see network.h). */
#include "network.h"
#include "efa_tuner.h"

#include <math.h>
#include <string.h>

#include "placement.h"

bool net_efa_gda_capable(const struct instance_spec *inst)
{
	return inst->efa.generation > 0 && inst->efa.hw_completion_counter;
}

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

/* The fabric's basic counts, shared by net_topo_of() and net_span_of() (the
 * latter in the search's inner loop: it takes only these, not the whole
 * struct net_topo). */
static int gpus_per_node_of(const struct instance_spec *inst)
{
	return inst->gpus_per_node > 0 ? inst->gpus_per_node : 1;
}

static int domain_gpus_of(const struct instance_spec *inst)
{
	return inst->nvlink_domain_gpus > 0 ? inst->nvlink_domain_gpus : gpus_per_node_of(inst);
}

static double oversubscription_of(const struct fabric_spec *f)
{
	return f->leaf_spine_oversubscription > 1.0 ? f->leaf_spine_oversubscription : 1.0;
}

static int nodes_per_domain_of(const struct instance_spec *inst)
{
	int gpn = gpus_per_node_of(inst), d = domain_gpus_of(inst);

	return d > gpn ? d / gpn : 1;
}

/* Whole NVLink domains under one leaf, at least 1; 0 when the fabric has
 * one leaf for all (nodes_per_leaf 0).  The one rule for both engines. */
static int leaf_domains_of(const struct instance_spec *inst, const struct fabric_spec *f)
{
	int k;

	if (f->nodes_per_leaf <= 0)
		return 0;
	k = f->nodes_per_leaf / nodes_per_domain_of(inst);
	return k > 1 ? k : 1;
}

void net_topo_of(const struct cluster *c, struct net_topo *t)
{
	const struct instance_spec *inst = &c->instance;
	const struct fabric_spec *f = &c->fabric;
	int nics = inst->efa_nics > 0 && inst->efa_nic_Gbps > 0 ? inst->efa_nics : 0;

	memset(t, 0, sizeof(*t));
	t->nodes = c->nodes > 0 ? c->nodes : 1;
	t->gpus_per_node = gpus_per_node_of(inst);
	t->domain_gpus = domain_gpus_of(inst);
	t->nodes_per_domain = nodes_per_domain_of(inst);
	t->domains = (t->nodes + t->nodes_per_domain - 1) / t->nodes_per_domain;
	t->nvlink_Bps = c->gpu.nvlink_GBps * 1e9;
	t->gpu_efa_Bps = net_efa_Bps_per_gpu(inst);
	t->node_efa_Bps = t->gpu_efa_Bps * t->gpus_per_node;
	t->nic_links = nics < t->gpus_per_node ? nics : t->gpus_per_node;
	if (t->nic_links > 0) {
		t->gpus_per_nic_link = (t->gpus_per_node + t->nic_links - 1) / t->nic_links;
		t->nic_link_Bps = t->node_efa_Bps / t->nic_links;
	}
	t->rail_optimized = f->rail_optimized;
	t->nodes_per_leaf = f->nodes_per_leaf > 0 ? f->nodes_per_leaf : 0;
	t->leaf_domains = leaf_domains_of(inst, f);
	if (t->leaf_domains < 1)
		t->leaf_domains = t->domains;
	t->leaves = (t->domains + t->leaf_domains - 1) / t->leaf_domains;
	t->oversubscription = oversubscription_of(f);
	t->leaf_uplink_Bps = t->leaf_domains * t->nodes_per_domain * t->node_efa_Bps /
			     t->oversubscription;
	t->nvlink_latency_s = f->nvlink_latency_s;
	t->efa_latency_s = f->efa_latency_s;
	t->spine_hop_latency_s = f->spine_hop_latency_s;
	if (c->placement && c->placement->nodes == t->nodes) {
		/* leaves are the placement's level-0 switches, each with
		 * uplinks for its whole capacity (its other nodes idle or
		 * another job's) */
		t->placement = c->placement;
		t->leaves = c->placement->n_sw[0];
		t->leaf_uplink_Bps = c->placement->leaf_capacity * t->node_efa_Bps / t->oversubscription;
	}
}

int net_topo_domain_of(const struct net_topo *t, int gpu)
{
	return gpu / t->gpus_per_node / t->nodes_per_domain;
}

int net_topo_leaf_of(const struct net_topo *t, int gpu)
{
	if (t->placement) /* an NVLink domain is one rack: its first node's leaf */
		return placement_leaf(t->placement, net_topo_domain_of(t, gpu) * t->nodes_per_domain);
	return net_topo_domain_of(t, gpu) / t->leaf_domains;
}

int net_topo_nic_link_of(const struct net_topo *t, int gpu)
{
	return t->nic_links > 0 ? (gpu % t->gpus_per_node) / t->gpus_per_nic_link : 0;
}

/* The span's spine terms measured on the cluster's placement (every group
 * of this shape, the worst; models/placement.h): levels climbed (two
 * switch hops each), the fractions of ring and all-to-all traffic that
 * leave a leaf, and the taper times the fullest leaf's share of its
 * capacity (a half-empty leaf's uplinks carry half the load). */
static void span_place(const struct cluster *c, struct net_span *s, int stride)
{
	struct placement_cross x;
	int npd = nodes_per_domain_of(&c->instance);

	placement_group_cross(c->placement, s->ranks, stride, gpus_per_node_of(&c->instance), npd, &x);
	s->placed = true;
	s->crosses_spine = x.level >= 0;
	s->spine_levels = x.level + 1;
	s->ring_leave = x.ring_leave;
	s->a2a_leave = x.a2a_leave;
	s->extra_latency_s = 2.0 * s->spine_levels * c->fabric.spine_hop_latency_s;
	s->oversubscription = s->crosses_spine ? oversubscription_of(&c->fabric) * x.leaf_fill : 1.0;
	s->leaf_domains = x.ring_leave > 0 ? (int)(1.0 / x.ring_leave + 0.5) : s->domains;
	if (s->leaf_domains < 1)
		s->leaf_domains = 1;
}

struct net_span net_span_of(const struct cluster *c, int ranks, int stride)
{
	struct net_span s;
	const struct instance_spec *inst = &c->instance;
	const struct fabric_spec *f = &c->fabric;
	int domain = domain_gpus_of(inst), gpn = gpus_per_node_of(inst);
	int leaf_domains = leaf_domains_of(inst, f);
	int per_node, per_leaf;

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
	s.aws_efa = inst->efa.generation > 0;
	s.efa_tuner = inst->efa.tuner_platform;
	s.efa_gda = net_efa_gda_capable(inst);
	s.nvls = family_has_nvls(c->gpu.family) && domain > 1;
	s.nvlink_Bps = c->gpu.nvlink_GBps * 1e9;
	s.efa_Bps = net_efa_Bps_per_gpu(inst);
	s.leaf_domains = s.domains;
	s.oversubscription = 1.0;
	/* Members under one leaf (a block of leaf_domains whole domains, the
	 * same placement rule as for nodes and domains): fewer than all, and
	 * some paths cross the spine (one hop up and one down) and share the
	 * leaves' uplinks (net_efa_Bps_leaving). */
	if (s.inter && leaf_domains > 0) {
		per_leaf = members_per_block(ranks, stride, leaf_domains * domain);
		if (per_leaf < ranks) {
			s.crosses_spine = true;
			s.extra_latency_s = 2.0 * f->spine_hop_latency_s;
			s.leaf_domains = per_leaf / s.ranks_per_domain;
			if (s.leaf_domains < 1)
				s.leaf_domains = 1;
			s.oversubscription = oversubscription_of(f);
		}
	}
	if (s.inter && c->placement && c->placement->nodes == c->nodes)
		span_place(c, &s, stride);
	s.efa_tables_ranks = s.ranks;
	s.efa_tables_nodes = s.nodes;
	s.efa_scale_log2 = s.domains > 2 ? log2(s.domains / 2.0) : 0.0;
	if (s.aws_efa && s.inter)
		for (int op = 0; op < 3; op++)
			s.efa_tables[op] = efa_tuner_table(s.efa_tuner, (enum coll_op)op, s.ranks, s.nodes);
	return s;
}

const struct efa_region_table *net_span_efa_table(const struct net_span *s, int op)
{
	if (op < 0 || op > 2)
		return NULL;
	if (s->ranks == s->efa_tables_ranks && s->nodes == s->efa_tables_nodes)
		return s->efa_tables[op];
	return efa_tuner_table(s->efa_tuner, (enum coll_op)op, s->ranks, s->nodes);
}

double net_efa_Bps_leaving(const struct net_span *s, double leaving)
{
	double load = s->oversubscription * leaving;

	return load > 1.0 ? s->efa_Bps / load : s->efa_Bps;
}

const char *net_tier_name(const struct net_span *s)
{
	return s->inter ? "efa" : "nvlink";
}
