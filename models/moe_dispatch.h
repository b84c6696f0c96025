/* moe_dispatch.h: one MoE expert-parallel dispatch or combine call per
 * backend: its data-volume rule, fixed cost per call and bandwidth.
 *
 * Backends (what a scenario or validation case names):
 *   alltoall   Megatron-Core's all-to-all dispatcher over NCCL: top_k copies
 *              of every token travel to their experts' ranks
 *              (models/collective.h all-to-all);
 *   flex       DeepEP / HybridEP (Megatron's flex dispatcher): a token
 *              crosses the scale-out network once per remote NVLink domain
 *              holding one of its experts, then fans out over NVLink;
 *   uccl-ep    UCCL-EP, DeepEP's kernels with a CPU proxy that posts the
 *              RDMA writes on EFA (EFA has no IBGDA): the flex volume rule,
 *              plus the proxy's per-call and per-peer costs;
 *   pplx-garden  pplx-garden fabric-lib on EFA: NVLink inside the node,
 *              one RDMA write (CPU proxy) per remote expert rank;
 *   efa-gda    DeepEP's kernels on GPU-initiated EFA (aws-ofi-nccl >= 1.21
 *              EFA-GDA, NCCL's GIN device API; instances whose EFA has the
 *              hardware completion counter: p5en, p6-b200, p6-b300): the
 *              flex volume rule, no CPU proxy: each call pays the normal
 *              kernels' host sync (ep_proxy_call_s) and one EFA message
 *              latency (awsefa_step_alpha_s, the plugin's per-message
 *              network latency: net_lat 18-20 us + 3 us completion
 *              overhead in its tuner priors), and streams the same RDMA
 *              writes as UCCL-EP (ep_proxy_bw_eff); no per-peer proxy
 *              work;
 *   allgather  Megatron-Core's all-gather dispatcher: every EP rank gathers
 *              all ranks' tokens (an NCCL all-gather of n x tokens) and
 *              keeps those of its experts; the combine is the matching
 *              reduce-scatter.  One copy per token, whatever top_k.
 * Low-latency kernels (128-token decode batches) send every copy
 * directly to its expert's rank (no forwarding): top_k copies, the
 * (r - 1)/n of them to the NVLink domain's peers over NVLink, the
 * (n - r)/n remote ones over RDMA.  Sources: DeepEP README (normal vs low-latency kernels);
 * UCCL-EP README (uccl-project/uccl ep/README.md @da914a20); pplx-garden
 * docs/fabric-lib.md @24460037; validation/efa-collective-cases.json.
 * Pure; caller-owned structs.
 */
#ifndef SC_MOE_DISPATCH_H
#define SC_MOE_DISPATCH_H

#include <stdbool.h>

#include "calibration.h"
#include "enum_names.h"
#include "collective.h"
#include "network.h"

#define MOE_BACKEND_LIST(X) X(MOE_BACKEND_ALLTOALL, "alltoall") X(MOE_BACKEND_FLEX, "flex") \
	X(MOE_BACKEND_UCCL_EP, "uccl-ep") X(MOE_BACKEND_PPLX_GARDEN, "pplx-garden") \
	X(MOE_BACKEND_ALLGATHER, "allgather") X(MOE_BACKEND_EFA_GDA, "efa-gda")

enum moe_backend { MOE_BACKEND_LIST(SC_ENUM_ID) };

extern const char *const moe_backend_names[];

/* The backend of a name of moe_backend_names; -1 for an unknown name
 * ("deepep" and "hybridep", Megatron's flex dispatchers, are flex). */
int moe_backend_of_name(const char *name);
const char *moe_backend_name(enum moe_backend b);

/* The busiest expert rank's tokens (and EP bytes) over the mean, the one
 * owner of the routing rule: lay->moe_routing_imbalance where the scenario
 * states it (1: forced balance, as Megatron-Bridge benchmarks run), else
 * the profile's moe_router_imbalance (dropless routing); with a capacity
 * factor cf > 0 no expert keeps more than cf x its mean (Megatron
 * --moe-expert-capacity-factor drops the overflow; GShard, Lepikhin et
 * al. 2020, section 2.2), so the busiest rank carries min(imbalance, cf).
 * 1 for a dense model (top_k 0). */
double moe_routing_imbalance(const struct layout *lay, const struct calibration *cal, int top_k);

/* True when the backend drives EFA through a CPU proxy thread. */
bool moe_backend_cpu_proxy(enum moe_backend b);

/* The most tokens per rank DeepEP's low-latency (decode) kernels take:
 * "num_max_dispatch_tokens_per_rank (the actual batch size in the decoding
 * engine) should be less than 256" (DeepEP README, "Example use in
 * inference decoding"; its example and test_low_latency.py use 128; UCCL-EP
 * keeps the same kernels and bound).  A batch of more tokens per rank runs
 * the normal kernels. */
#define MOE_LL_MAX_DISPATCH_TOKENS_PER_RANK 256

/* True when a dispatch of `tokens` per rank fits the low-latency kernels
 * (the mode a benchmark that does not name its kernels ran). */
bool moe_low_latency_batch(double tokens);

struct moe_call {
	double time_s;
	double nvlink_bytes;  /* per rank, through its NVLink port */
	double efa_bytes;     /* per rank, through its EFA share */
	double fixed_s;       /* per-call fixed part (latency, proxy) */
	char algorithm[48];   /* backend/algorithm, e.g. "flex/node-dedup" */
	struct coll_choice choice; /* the NCCL call (or split all-to-all) behind
				      it, as coll_time() names it; a CPU-proxy
				      call: selected_by "backend" */
};

/* The flex (DeepEP normal kernels, HybridEP; UCCL-EP's normal mode) volume
 * rule, per rank, for `tokens` tokens of `token_bytes` with top_k experts
 * drawn evenly over the EP group s: EFA bytes = one copy per REMOTE NVLink
 * domain hit, N (1 - (1 - 1/N)^k) (N - 1)/N copies (DeepSeek-V3 report
 * 3.2.2 for the domains hit; DeepEP internode.cu puts over RDMA only for
 * dst_rdma_rank != rdma_rank, the local node's tokens go straight to the
 * NVLink forwarders); NVLink bytes = one copy per distinct GPU hit,
 * n (1 - (1 - 1/n)^k), of which (r - 1)/r leave the forwarder.  The one
 * owner of this rule: both engines and validate --collectives use it. */
void moe_flex_volume(const struct net_span *s, double tokens, double token_bytes, int top_k,
		     double *nvlink_bytes, double *efa_bytes);

/* One dispatch (or combine) of `tokens` tokens per rank of `token_bytes`
 * each (hidden x dtype bytes), top_k experts per token, over the EP group
 * span s.  low_latency: the low-latency kernels' volume rule.  Returns
 * seconds; fills out (may be NULL). */
double moe_dispatch_time(const struct calibration *cal, const struct net_span *s,
			 enum moe_backend b, double tokens, double token_bytes, int top_k,
			 bool low_latency, struct moe_call *out);

/* The call as flows for the discrete-event engine (models/collective.h,
 * struct coll_flows): the NCCL backends' own flows; a CPU-proxy backend as
 * an all-to-all pattern whose latency is the proxy's fixed cost and whose
 * bytes run at the raw link speeds (scaled by the backend's efficiencies).
 * Returns the same time as moe_dispatch_time(). */
double moe_dispatch_flows(const struct calibration *cal, const struct net_span *s,
			  enum moe_backend b, double tokens, double token_bytes, int top_k,
			  bool low_latency, struct coll_flows *out);

#endif
