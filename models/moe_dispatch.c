/* moe_dispatch.c: MoE dispatch/combine per backend (see moe_dispatch.h). */
#include "moe_dispatch.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "collective.h"

int moe_backend_of_name(const char *name)
{
	if (strcmp(name, "alltoall") == 0)
		return MOE_BACKEND_ALLTOALL;
	if (strcmp(name, "flex") == 0 || strcmp(name, "deepep") == 0 || strcmp(name, "hybridep") == 0)
		return MOE_BACKEND_FLEX;
	if (strcmp(name, "uccl-ep") == 0)
		return MOE_BACKEND_UCCL_EP;
	if (strcmp(name, "pplx-garden") == 0)
		return MOE_BACKEND_PPLX_GARDEN;
	return -1;
}

const char *moe_backend_name(enum moe_backend b)
{
	switch (b) {
	case MOE_BACKEND_ALLTOALL: return "alltoall";
	case MOE_BACKEND_FLEX: return "flex";
	case MOE_BACKEND_UCCL_EP: return "uccl-ep";
	case MOE_BACKEND_PPLX_GARDEN: return "pplx-garden";
	}
	return "unknown";
}

bool moe_backend_cpu_proxy(enum moe_backend b)
{
	return b == MOE_BACKEND_UCCL_EP || b == MOE_BACKEND_PPLX_GARDEN;
}

/* Distinct parties (NVLink domains, or GPUs of one domain) a token's top_k
 * experts reach when they are drawn evenly over N of them:
 * N (1 - (1 - 1/N)^k) (DeepSeek-V3 report, section 3.2.2). */
static double parties_hit(double N, int k)
{
	return N * (1.0 - pow(1.0 - 1.0 / N, k));
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
		struct coll_choice ch;

		c.time_s = coll_time(cal, s, COLL_ALL_TO_ALL, copies, &ch);
		c.nvlink_bytes = copies * (r - 1) / n;
		c.efa_bytes = copies * (n - r) / n;
		snprintf(c.algorithm, sizeof(c.algorithm), "%s/%s", moe_backend_name(b), ch.algorithm);
	} else if (!s->inter) {
		/* inside one NVLink domain DeepEP-style kernels send a token once
		 * to each other GPU holding one of its experts */
		struct coll_choice ch;
		double nvl = tokens * token_bytes * parties_hit(r, k) * (r - 1) / r;

		c.time_s = coll_all_to_all_split(cal, s, nvl, 0, &ch);
		c.nvlink_bytes = nvl;
		snprintf(c.algorithm, sizeof(c.algorithm), "%s/nvlink", moe_backend_name(b));
	} else {
		double efa, nvl, bnv, befa;

		if (b == MOE_BACKEND_PPLX_GARDEN) {
			/* NVLink inside the node, one RDMA write per remote expert
			 * rank across (pplx-garden fabric-lib) */
			efa = copies * (n - r) / n;
			nvl = copies * (r - 1) / n;
		} else if (low_latency) {
			/* DeepEP/UCCL-EP low-latency kernels: "pure RDMA", every
			 * copy to its expert's rank, the node's own included */
			efa = copies * (n - 1) / n;
			nvl = 0;
		} else {
			/* normal kernels: one copy per NVLink domain the token hits,
			 * through the RDMA ranks' buffers (the local domain's too:
			 * DeepEP internode layout), then NVLink fan-out; the UCCL-EP
			 * README's ~50 GB/s "RDMA bottleneck bandwidth" times its
			 * latency gives these bytes at EP16-32 */
			efa = tokens * token_bytes * parties_hit(N, k);
			nvl = tokens * token_bytes * parties_hit(r, k) * (r - 1) / r;
		}
		c.nvlink_bytes = nvl;
		c.efa_bytes = efa;
		bnv = s->nvlink_Bps * cal->nvlink_a2a_bw_eff;
		if (moe_backend_cpu_proxy(b)) {
			befa = net_efa_Bps_leaving(s, 0) * cal->ep_proxy_bw_eff;
			c.fixed_s = cal->ep_proxy_call_s + (n - 1) * cal->ep_proxy_peer_s;
			c.time_s = c.fixed_s + fmax(nvl / bnv, efa / befa);
			snprintf(c.algorithm, sizeof(c.algorithm), "%s/%s+cpu-proxy", moe_backend_name(b),
				 low_latency ? "low-latency" : "normal");
		} else {
			struct coll_choice ch;

			c.time_s = coll_all_to_all_split(cal, s, nvl, efa, &ch);
			snprintf(c.algorithm, sizeof(c.algorithm), "%s/%s", moe_backend_name(b), ch.algorithm);
		}
	}
	if (out)
		*out = c;
	return c.time_s;
}
