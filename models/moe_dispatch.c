/* moe_dispatch.c: MoE dispatch/combine per backend (see moe_dispatch.h). */
#include "moe_dispatch.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "collective.h"

SC_ENUM_DEFINE(moe_backend_name, enum moe_backend, moe_backend_names, MOE_BACKEND_LIST)

int moe_backend_of_name(const char *name)
{
	if (strcmp(name, "deepep") == 0 || strcmp(name, "hybridep") == 0)
		return MOE_BACKEND_FLEX;
	return sc_enum_parse(moe_backend_names, name);
}

bool moe_low_latency_batch(double tokens)
{
	return tokens > 0 && tokens <= MOE_LL_MAX_DISPATCH_TOKENS_PER_RANK;
}

double moe_routing_imbalance(const struct layout *lay, const struct calibration *cal, int top_k)
{
	double imb;

	if (top_k <= 0)
		return 1.0;
	imb = lay->moe_routing_imbalance > 0 ? lay->moe_routing_imbalance : cal->moe_router_imbalance;
	if (!(imb > 1.0))
		imb = 1.0;
	if (lay->moe_capacity_factor > 0 && imb > lay->moe_capacity_factor)
		imb = fmax(1.0, lay->moe_capacity_factor);
	return imb;
}

bool moe_backend_cpu_proxy(enum moe_backend b)
{
	return b == MOE_BACKEND_UCCL_EP || b == MOE_BACKEND_PPLX_GARDEN;
}

/* A backend that drives EFA itself (its own kernels and call costs, not an
 * NCCL collective): the CPU-proxy ones and EFA-GDA. */
static bool own_call(enum moe_backend b)
{
	return moe_backend_cpu_proxy(b) || b == MOE_BACKEND_EFA_GDA;
}


/* Distinct parties (NVLink domains, or GPUs of one domain) a token's top_k
 * experts reach when they are drawn evenly over N of them:
 * N (1 - (1 - 1/N)^k) (DeepSeek-V3 report, section 3.2.2). */
static double parties_hit(double N, int k)
{
	return N * (1.0 - pow(1.0 - 1.0 / N, k));
}

void moe_flex_volume(const struct net_span *s, double tokens, double token_bytes, int top_k,
		     double *nvlink_bytes, double *efa_bytes)
{
	double n = s->ranks > 1 ? s->ranks : 1, r = s->ranks_per_domain > 1 ? s->ranks_per_domain : 1;
	double N = s->inter && s->domains > 1 ? s->domains : 1;
	int k = top_k > 0 ? top_k : 1;

	/* RDMA: one copy per remote domain hit; DeepEP's internode dispatch
	 * writes the local node's share straight into its own receive buffer
	 * ("if (dst_rdma_rank != rdma_rank)" guards the IBGDA put,
	 * csrc/kernels/internode.cu).  Its test_internode.py "RDMA bandwidth"
	 * counts every node hit, the local one too: a logical figure, not
	 * the NIC's bytes. */
	*efa_bytes = N > 1 ? tokens * token_bytes * parties_hit(N, k) * (N - 1) / N : 0;
	/* NVLink: one copy per distinct GPU of the EP group hit (is_token_in_rank),
	 * sent by the forwarder of that GPU's domain, except the copies whose
	 * expert sits on the forwarder itself ((r - 1)/r of them travel) */
	*nvlink_bytes = tokens * token_bytes * parties_hit(n, k) * (r - 1) / r;
}

/* The per-call fixed part of a CPU-proxy backend's call, apart from the
 * per-peer proxy work: the normal (high-throughput) kernels wait on the host
 * for the received-token counts before they can size the receive buffers
 * (DeepEP notify_dispatch and the busy-wait on moe_recv_counter, intranode
 * and internode alike; UCCL-EP keeps those kernels), ep_proxy_call_s; the
 * low-latency kernels preallocate for num_max_dispatch_tokens_per_rank and
 * never synchronise with the host (CUDA-graph capturable, DeepEP README),
 * so only their launches remain, within the per-peer cost. */
static double call_fixed_s(const struct calibration *cal, bool low_latency)
{
	return low_latency ? 0.0 : cal->ep_proxy_call_s;
}

double moe_dispatch_time(const struct calibration *cal, const struct net_span *s,
			 enum moe_backend b, double tokens, double token_bytes, int top_k,
			 bool low_latency, struct moe_call *out)
{
	struct moe_call c;
	double n = s->ranks, r = s->ranks_per_domain, N = s->domains;
	int k = top_k > 0 ? top_k : 1;
	double copies = tokens * token_bytes * k;

	memset(&c, 0, sizeof(c));
	if (s->ranks <= 1 || copies <= 0) {
		snprintf(c.algorithm, sizeof(c.algorithm), "none");
	} else if (b == MOE_BACKEND_ALLTOALL) {
		/* Megatron's all-to-all: an NCCL all-to-all of the top_k copies */
		c.time_s = coll_time(cal, s, COLL_ALL_TO_ALL, copies, &c.choice);
		c.nvlink_bytes = copies * (r - 1) / n;
		c.efa_bytes = copies * (n - r) / n;
		snprintf(c.algorithm, sizeof(c.algorithm), "%s/%s", moe_backend_name(b), c.choice.algorithm);
	} else if (b == MOE_BACKEND_ALLGATHER) {
		/* all-gather of every rank's tokens: nccl-tests size n x tokens */
		double S = tokens * token_bytes * n;

		c.time_s = coll_time(cal, s, COLL_ALL_GATHER, S, &c.choice);
		/* the least an all-gather moves per GPU: a domain receives the
		 * other domains' (N-1)/N S once, through its r NIC shares, and
		 * fans it out over NVLink */
		c.nvlink_bytes = S * (r - 1) / r / N;
		c.efa_bytes = s->inter ? S * (N - 1) / N / r : 0;
		snprintf(c.algorithm, sizeof(c.algorithm), "%s/%s", moe_backend_name(b), c.choice.algorithm);
	} else if (!s->inter) {
		/* inside one NVLink domain DeepEP-style kernels send a token once
		 * to each other GPU holding one of its experts */
		double nvl, efa;

		moe_flex_volume(s, tokens, token_bytes, k, &nvl, &efa);
		c.time_s = coll_all_to_all_split(cal, s, nvl, 0, &c.choice);
		c.nvlink_bytes = nvl;
		/* a CPU-proxy or EFA-GDA backend's normal-kernel call keeps
		 * its fixed part inside a node (call_fixed_s below) */
		if (own_call(b)) {
			c.fixed_s = call_fixed_s(cal, low_latency);
			c.time_s += c.fixed_s;
		}
		snprintf(c.algorithm, sizeof(c.algorithm), "%s/nvlink", moe_backend_name(b));
	} else {
		double efa, nvl, bnv, befa;

		if (b == MOE_BACKEND_PPLX_GARDEN) {
			/* NVLink inside the node, one RDMA write per remote expert
			 * rank across (pplx-garden fabric-lib) */
			efa = copies * (n - r) / n;
			nvl = copies * (r - 1) / n;
		} else if (low_latency) {
			/* DeepEP/UCCL-EP low-latency kernels: every copy straight
			 * to its expert's rank, no forwarding; a peer of the same
			 * NVLink domain through its P2P (NVLink) pointer, the rest
			 * by RDMA (DeepEP internode_ll.cu: nvshmemi_get_p2p_ptr,
			 * an IBGDA put only where it is 0; Buffer's
			 * allow_nvlink_for_low_latency_mode defaults to True, and
			 * UCCL-EP's ep/bench/test_low_latency.py keeps it on
			 * unless --disable-nvlink) */
			efa = copies * (n - r) / n;
			nvl = copies * (r - 1) / n;
		} else {
			moe_flex_volume(s, tokens, token_bytes, k, &nvl, &efa);
		}
		c.nvlink_bytes = nvl;
		c.efa_bytes = efa;
		bnv = s->nvlink_Bps * cal->nvlink_a2a_bw_eff;
		if (moe_backend_cpu_proxy(b)) {
			befa = net_efa_Bps_leaving(s, 0) * cal->ep_proxy_bw_eff;
			/* the per-peer work is each proxy's own: pplx-garden's
			 * host workers (ep_pplx_peer_s), UCCL-EP's proxy threads
			 * (ep_proxy_peer_s) */
			double peer_s = b == MOE_BACKEND_PPLX_GARDEN ? cal->ep_pplx_peer_s
								     : cal->ep_proxy_peer_s;

			c.fixed_s = call_fixed_s(cal, low_latency) + (n - 1) * peer_s;
			c.time_s = c.fixed_s + fmax(nvl / bnv, efa / befa);
			snprintf(c.algorithm, sizeof(c.algorithm), "%s/%s+cpu-proxy", moe_backend_name(b),
				 low_latency ? "low-latency" : "normal");
		} else if (b == MOE_BACKEND_EFA_GDA) {
			/* GPU-initiated: the same RDMA writes as UCCL-EP's (their
			 * throughput ep_proxy_bw_eff), posted by the GPU: no proxy
			 * work per peer, one SRD message latency of the plugin
			 * before the last write lands */
			befa = net_efa_Bps_leaving(s, 0) * cal->ep_proxy_bw_eff;
			c.fixed_s = call_fixed_s(cal, low_latency) + cal->awsefa_step_alpha_s;
			c.time_s = s->efa_gda ? c.fixed_s + fmax(nvl / bnv, efa / befa) : INFINITY;
			snprintf(c.algorithm, sizeof(c.algorithm), "%s/%s+gpu-initiated", moe_backend_name(b),
				 s->efa_gda ? (low_latency ? "low-latency" : "normal") : "unavailable");
		} else {
			c.time_s = coll_all_to_all_split(cal, s, nvl, efa, &c.choice);
			snprintf(c.algorithm, sizeof(c.algorithm), "%s/%s", moe_backend_name(b), c.choice.algorithm);
		}
	}
	if (b != MOE_BACKEND_ALLTOALL && b != MOE_BACKEND_FLEX) {
		/* the backend's own call (a CPU proxy, or the all-gather
		 * dispatcher's gather): named as the backend runs it */
		c.choice.time_s = c.time_s;
		snprintf(c.choice.algorithm, sizeof(c.choice.algorithm), "%s", c.algorithm);
		c.choice.tier = net_tier_name(s);
		c.choice.selected_by = "backend";
	}
	if (out)
		*out = c;
	return c.time_s;
}

double moe_dispatch_flows(const struct calibration *cal, const struct net_span *s,
			  enum moe_backend b, double tokens, double token_bytes, int top_k,
			  bool low_latency, struct coll_flows *out)
{
	struct moe_call c;
	double t = moe_dispatch_time(cal, s, b, tokens, token_bytes, top_k, low_latency, &c);
	int k = top_k > 0 ? top_k : 1;

	memset(out, 0, sizeof(*out));
	if (s->ranks <= 1 || !(t > 0))
		return t;
	if (b == MOE_BACKEND_ALLTOALL)
		return coll_flows_of(cal, s, COLL_ALL_TO_ALL, tokens * token_bytes * k, out);
	if (b == MOE_BACKEND_ALLGATHER)
		return coll_flows_of(cal, s, COLL_ALL_GATHER, tokens * token_bytes * s->ranks, out);
	if (!own_call(b))
		return coll_flows_of_a2a_split(cal, s, c.nvlink_bytes, s->inter ? c.efa_bytes : 0, out);
	if (!s->inter) {
		/* the NVLink exchange plus the call's fixed part (above) */
		coll_flows_of_a2a_split(cal, s, c.nvlink_bytes, 0, out);
		out->latency_s += c.fixed_s;
		out->time_s = t;
		out->choice.time_s = t;
		return t;
	}
	{
		double raw = net_efa_Bps_leaving(s, 0);

		out->pattern = COLL_PATTERN_ALL_TO_ALL;
		out->latency_s = c.fixed_s;
		out->nvlink_bytes = c.nvlink_bytes / cal->nvlink_a2a_bw_eff;
		out->efa_bytes = c.efa_bytes / cal->ep_proxy_bw_eff;
		out->efa_Bps = raw;
		out->nvlink_steps = c.nvlink_bytes > 0;
		out->efa_steps = c.efa_bytes > 0;
		out->time_s = t;
		out->choice.time_s = t;
		snprintf(out->choice.algorithm, sizeof(out->choice.algorithm), "%s", c.algorithm);
		out->choice.tier = net_tier_name(s);
		out->choice.selected_by = "backend";
	}
	return t;
}
