/* calibration.c: the parameter table behind calibration.h. */
#include "calibration.h"

#include <stddef.h>
#include <string.h>

const struct calib_param_info calib_params[CALIB_COUNT] = {
#define SC_CALIB_INFO(name, unit, lo, hi, desc) { #name, unit, lo, hi, desc },
	SC_CALIB_PARAMS(SC_CALIB_INFO)
#undef SC_CALIB_INFO
};

static const size_t calib_offsets[CALIB_COUNT] = {
#define SC_CALIB_OFF(name, unit, lo, hi, desc) offsetof(struct calibration, name),
	SC_CALIB_PARAMS(SC_CALIB_OFF)
#undef SC_CALIB_OFF
};

double *calib_value(struct calibration *cal, enum calib_param i)
{
	return (double *)((char *)cal + calib_offsets[i]);
}

double calib_get(const struct calibration *cal, enum calib_param i)
{
	return *(const double *)((const char *)cal + calib_offsets[i]);
}

int calib_param_index(const char *name)
{
	for (int i = 0; i < CALIB_COUNT; i++)
		if (strcmp(calib_params[i].name, name) == 0)
			return i;
	return -1;
}

SC_ENUM_DEFINE(calib_fit_kind_name, enum calib_fit_kind, calib_fit_kind_names, CALIB_FIT_KIND_LIST)
SC_ENUM_DEFINE(calib_range_quantity_name, enum calib_range_quantity,
	       calib_range_quantity_names, CALIB_RANGE_QUANTITY_LIST)

/* Sources of the catalogue ranges (calibration.h X-macro min, max).  NCCL
 * hwLat: the per-step latencies of NCCL's own tuning model,
 * src/graph/tuning.cc (NVLink ring LL 0.6 us, Simple 3.4 us; network ring
 * LL 2.7 us, LL128 4.0 us, Simple 14 us; network tree LL 5 us). */
const char *const calib_range_sources[CALIB_COUNT] = {
	[CALIB_gemm_eta_max_bf16] = "max: best published maximum-achievable-matmul efficiency of any catalogue GPU, A100 SXM BF16 86.9 % (stas00/ml-engineering @744d01e, hardware-facts mamf-BF16-NVIDIA_A100_SXM); min 0.5, below every part in that table (lowest GB200 72.9 %)",
	[CALIB_gemm_eta_max_fp8] = "max: best published FP8 maximum-achievable-matmul efficiency, GH200 77.6 % (hardware-facts mamf-FP8-NVIDIA_GH200_SXM); min 0.5, below every part in that table (lowest H100 70.9 %)",
	[CALIB_gemm_eta_max_fp4] = "no FP4 microbenchmark in the hardware facts: max the best BF16 efficiency (86.9 %), min 0.3 (assumed)",
	[CALIB_gemm_half_dim] = "assumed: min a quarter of the 128-wide CTA tile of cuBLAS/CUTLASS kernels (32); max 2048, where the best shapes of the maximum-achievable-matmul tables (smallest dimension 1024-4096) would run below 2/3 of the plateau",
	[CALIB_attn_eta] = "max: FlashAttention-3 BF16 forward 740 TFLOP/s, 75 % of the H100 peak (Shah et al. 2024); FlashAttention-2 reaches 50-73 % of the A100 peak (Dao 2023); min 0.2, below FlashAttention-2 on H100 (about 35 %, Shah et al. 2024)",
	[CALIB_attn_eta_portable] = "max: FlashAttention-2 fwd+bwd reaches up to 73 % of the A100 peak (Dao 2023, FlashAttention-2, abstract and fig. 4); on H100 it reaches about 35 % (Shah et al. 2024, FlashAttention-3, abstract: no wgmma/TMA); min 0.05 (assumed: a portable kernel on a newer architecture at 5 % of its peak)",
	[CALIB_attn_half_head_dim] = "assumed: min 1 (about no loss with a smaller head dimension), max 256 (FlashAttention-3 still gains from head dimension 128 to 256, Shah et al. 2024 fig. 5)",
	[CALIB_attn_bwd_flops_ratio] = "min 2: a backward without recomputation (two GEMMs per forward GEMM); FlashAttention-2 recomputes the scores: 5 matmuls to 2 = 2.5 (Dao 2023, section 3.2); max 3",
	[CALIB_hbm_eta] = "max: MODEL-NOTES, large copies reach 85-92 % of the datasheet HBM bandwidth (92 % the best); min 0.6 (assumed)",
	[CALIB_kernel_overhead_s] = "min: GPU-side cost of a kernel launched back to back in one stream, about 1 us (A. Gray, NVIDIA developer blog 'Getting Started with CUDA Graphs', 2019: 3.8 us per 2.9 us kernel with stream launches); null-kernel launches about 3 us (NVIDIA developer forums, 2022); max 100 us (assumed)",
	[CALIB_graph_kernel_overhead_s] = "min 0.3 us: below the 0.5 us a kernel node of a launched graph adds (A. Gray, NVIDIA developer blog 'Getting Started with CUDA Graphs', 2019: 3.4 us per 2.9 us kernel with graphs, 3.8 us with stream launches); max 5 us (assumed: a graph cannot cost more per kernel than the eager launch floor of a few us)",
	[CALIB_nvlink_ring_alpha_s] = "min: NCCL hwLat NVLink ring LL 0.6 us per step (Simple 3.4 us); max 20 us (assumed)",
	[CALIB_nvlink_ring_bw_eff] = "max: nvbandwidth unidirectional copy 396.4 of 450 GB/s between two H200 (hardware-facts nvbandwidth-h200-nvlink-pair): no collective moves more through a link than a copy; min 0.5 (assumed)",
	[CALIB_nvlink_nvls_alpha_s] = "min: NCCL hwLat NVLink LL 0.6 us; max 50 us (assumed)",
	[CALIB_nvlink_nvls_bw_eff] = "max: the nvbandwidth copy rate over the line rate, 0.881 (hardware-facts nvbandwidth-h200-nvlink-pair); min 0.3 (assumed)",
	[CALIB_efa_ring_alpha_s] = "min: NCCL hwLat network ring LL 2.7 us per step (LL128 4.0, Simple 14 us); max 100 us (assumed)",
	[CALIB_efa_ring_bw_eff] = "assumed: min 0.2, below every public nccl-tests curve on p4de/p5 in the validation data; max 0.95 (RDMA headers over SRD)",
	[CALIB_efa_tree_alpha_s] = "min: NCCL hwLat network LL 2.7 us per step (tree LL 5 us); max 1 ms (assumed)",
	[CALIB_efa_startup_s] = "assumed: min 1 us, max 5 ms (the 0.1-0.5 ms intercepts of the public p4de/p5 nccl-tests curves lie well inside)",
	[CALIB_efa_tree_bw_eff] = "as efa_ring_bw_eff",
	[CALIB_nvlink_a2a_bw_eff] = "max: the nvbandwidth copy rate over the line rate, 0.881 (hardware-facts nvbandwidth-h200-nvlink-pair); min 0.3 (assumed)",
	[CALIB_efa_a2a_bw_eff] = "max: nccl-tests alltoall_perf on 8 x p5.48xlarge, 49.6 GB/s bus bandwidth of which 56/63 leaves the node: 44.1 of the 50 GB/s per-GPU EFA share = 0.88 (crazyguitar/aws-gpu-communication-benchmark @fd167f9 data/nccl_alltoall.csv; 2-32 nodes 39.7-44.1 GB/s), 0.9 with rounding; min 0.05",
	[CALIB_a2a_alpha_s] = "min: NCCL hwLat NVLink LL 0.6 us per send/recv pair; max 50 us per peer, above the network Simple latency (14 us)",
	[CALIB_p2p_alpha_s] = "min: NCCL hwLat NVLink LL 0.6 us; max 100 us (assumed)",
	[CALIB_awsefa_step_alpha_s] = "aws-ofi-nccl v1.21.1 tuner priors (tests/validation/data/efa-tuner-priors.json): per-platform network latency of tens of us per message; min 1 us (below any SRD round trip), max 100 us (assumed)",
	[CALIB_awsefa_tree_alpha_s] = "aws-ofi-nccl tuner priors: tree levels cost one network latency each; min 1 us; max 100 us (assumed), above NCCL's own estimate of a p5 tree level, hwLat network tree Simple 14 us (src/graph/tuning.cc) plus the 75 us net latency aws-ofi-nccl reports on p5 (efa-tuner-priors.json platform-p5-p5e-latency) = 89 us; a fit with a 200 us max moves it to 138 us only by trading it against awsefa_scale_decay (to 0.001), for 0.1 % of MAPE",
	[CALIB_awsefa_startup_s] = "min 0; max 2 ms, above every start-up seen in the p5 nccl-tests small-message curves (efa-collective-cases.json) (assumed)",
	[CALIB_awsefa_ring_bw_eff] = "max 1: no collective moves more than the EFA line rate (line-rate property test); min 0.3, below the 321 GB/s of 32-node all-reduce on p5 (efa-collective-cases.json)",
	[CALIB_awsefa_tree_bw_eff] = "max 1: the EFA line rate; min 0.3 (assumed)",
	[CALIB_awsefa_nvlstree_bw_eff] = "max 1: the EFA line rate; min 0.3 (assumed)",
	[CALIB_awsefa_a2a_bw_eff] = "max 1: the EFA line rate; min 0.3, below the 41 GB/s p5 all-to-all bus bandwidth at 32 nodes over its 50 GB/s per-GPU share (efa-collective-cases.json)",
	[CALIB_awsefa_a2a_peer_alpha_s] = "min 10 ns, max 100 us per peer (assumed; one send/recv pair per peer through aws-ofi-nccl)",
	[CALIB_awsefa_a2a_window_bytes] = "min 128 KiB: one NCCL p2p step at NCCL's default NCCL_P2P_NET_CHUNKSIZE (src/init.cc); max 4 MiB: NCCL_STEPS (8, src/include/device.h) steps of the 512 KiB NCCL_P2P_NET_CHUNKSIZE aws-ofi-nccl sets on p5/p5en/p6 (platform env_overrides, efa-tuner-priors.json), the whole pipeline of one connection",
	[CALIB_awsefa_a2a_window_eff] = "max 1: no slower opening; min 0.3 (assumed): the p5 all-to-all's incremental bus bandwidth is 27-36 GB/s while the per-peer message is at most 2 MiB and 42-45 GB/s beyond 4 MiB, at 8 to 32 nodes (crazyguitar aws-gpu-communication-benchmark nccl_alltoall.csv, efa-collective-cases.json)",
	[CALIB_awsefa_scale_decay] = "min 0 (no loss with scale), max 0.5 per doubling: all-reduce falls from 478 to 321 GB/s between 2 and 32 p5 nodes, about 0.1 per doubling (efa-collective-cases.json)",
	[CALIB_awsefa_ll128_alpha_fraction] = "LL128 latency over Simple's: NCCL hwLat network ring LL128 4.0 us against Simple 14 us (src/graph/tuning.cc) = 0.29; min 0.01, max 1",
	[CALIB_awsefa_ll128_bw_fraction] = "max 120/128 = 0.9375: LL128 carries 120 data bytes and 8 flag bytes per 128-byte line (NCCL src/device/prims_ll128.h; aws-ofi-nccl model tuner protocol_bw_factor LL128 0.9375, efa-tuner-priors.json model-cost-formulas); min 0.3 (assumed)",
	[CALIB_awsefa_ll128_overlap] = "min 0: latency and transfer in series (Simple's model); max 1: the larger term alone. LL128 puts the flag in every 128-byte line (NCCL src/device/prims_ll128.h), so a rank forwards each line of a ring or tree step as it lands instead of after the slice and its fence; the p5 all-gather's incremental bus bandwidth between 32 and 128 MiB is 400-450 GB/s at 2-16 nodes, above the 375 GB/s LL128 wire limit of a 400 GB/s node, which no additive latency allows (crazyguitar nccl_allgather.csv, efa-collective-cases.json)",
	[CALIB_awsefa_cross_rail_eff] = "cross-rail all-to-all about 40 % slower than rail-aligned on p5 (raw SRD tables, efa-collective-cases.json); min 0.1, max 1",
	[CALIB_ep_proxy_call_s] = "CPU-proxy EP (UCCL-EP, pplx-garden) dispatch/combine cost hundreds of us per call at small batches (efa-collective-cases.json EP points); min 1 us, max 2 ms (assumed)",
	[CALIB_ep_proxy_peer_s] = "min 0, max 100 us per remote rank and call (one proxy work request and completion; assumed)",
	[CALIB_ep_pplx_peer_s] = "as ep_proxy_peer_s: min 0, max 100 us per remote rank and call (assumed); a separate parameter because pplx-garden (fabric-lib: GPU kernels hand the transfers to host worker threads that post the RDMA writes) and UCCL-EP (a CPU proxy per GPU that posts one SRD write per work request) are different proxies",
	[CALIB_ep_proxy_bw_eff] = "max 1: the EFA line rate; min 0.05 (assumed)",
	[CALIB_dp_overlap] = "max 0.98: the last bucket's tail is modelled apart (dp_bucket_params); of the rest at least 2 % stays exposed while NCCL kernels and GEMMs share SMs (assumed floor); min 0: no overlap",
	[CALIB_fsdp_prefetch_overlap] = "max 0.95: the first all-gather of each pass cannot be prefetched (Zhao et al. 2023, PyTorch FSDP, VLDB: prefetch issues the next layer's all-gather during the current layer); 5 % exposed floor assumed; min 0",
	[CALIB_tp_overlap] = "max 0.9: Transformer Engine userbuffers overlap leaves the first and last chunk of each GEMM exposed (Megatron-Core tp_comm_overlap; 10 % floor assumed); min 0",
	[CALIB_cp_overlap] = "max 0.95: the first K/V block of the ring is exposed (Megatron-Core context parallelism; 5 % floor assumed); min 0",
	[CALIB_ep_overlap] = "max 0.9: dispatch of the first and combine of the last micro-batch stay exposed (DeepSeek-V3 dual-batch overlap; 10 % floor assumed); min 0",
	[CALIB_pp_overlap] = "max 0.95: the warm-up and cool-down sends of a pipeline have nothing to hide under (Megatron-LM overlap_p2p_comm; 5 % floor assumed); min 0",
	[CALIB_comm_interference] = "assumed: max 0.5 (overlapped NCCL kernels take SMs and HBM bandwidth; comm-overlap papers report 10-20 % slow-downs of overlapped GEMMs); min 0",
	[CALIB_moe_router_imbalance] = "min 1: perfectly balanced (Megatron-Bridge benchmarks force-balance); max 2 (assumed: auxiliary-loss or aux-free balancing keeps the busiest expert rank within 2x of the mean)",
	[CALIB_optimizer_bytes_per_param] = "min 8 (BF16 moments, no master copy); max 40 (FP32 master, moments, gradient and extra copies)",
	[CALIB_step_overhead_s] = "assumed: min 1 ms (a step reduces the loss and the gradient norm and syncs the host at least once); max 2 s",
	[CALIB_framework_reserve_bytes] = "assumed: min 0.5 GB (CUDA context alone), max 16 GB",
	[CALIB_nccl_buffer_bytes] = "assumed: min 0.1 GB, max 8 GB",
	[CALIB_ll_alpha_fraction] = "min 0.1: NCCL hwLat LL over Simple is 0.18-0.36 (NVLink ring 0.6/3.4, network ring 2.7/14, network tree 5/14); max 1",
	[CALIB_ll_bw_fraction] = "max 0.5: NCCL LL carries 8 data bytes per 16-byte line (a flag per data word); min 0.02 (assumed)",
	[CALIB_dp_bucket_params] = "min 1M, max 1G parameters (Megatron-LM bucket_size default max(40M, 1M x dp); PyTorch DDP 25 MB buckets)",
	[CALIB_uncertainty_rel] = "a validation statistic, not physics: 0 to 1",
	[CALIB_serve_hbm_eta] = "max: MODEL-NOTES, large copies reach 85-92 % of the datasheet HBM bandwidth (92 % the best); min 0.5 (assumed)",
	[CALIB_serve_gemm_m_tile] = "1 (no padding) to 256 (largest tensor-core M, Blackwell 2-CTA UMMA)",
	[CALIB_serve_kernel_overhead_s] = "min: a CUDA-graph kernel node, about 0.5 us (A. Gray, 'Getting Started with CUDA Graphs', 2019: 3.4 us per 2.9 us kernel with graphs); max 100 us (assumed)",
	[CALIB_serve_iteration_overhead_s] = "assumed: min 0.1 ms (an engine step schedules, samples and syncs with the host at least once); max 50 ms",
	[CALIB_serve_seq_overhead_s] = "assumed: 0.1 us to 100 us per running sequence per step",
	[CALIB_serve_request_overhead_s] = "assumed: 0.1 ms to 100 ms of front-end work per request",
	[CALIB_serve_request_latency_s] = "assumed: min 0 (an offline benchmark calls the engine directly), max 100 ms",
	[CALIB_serve_token_overhead_s] = "assumed: 1 us to 1 ms per streamed token",
	[CALIB_serve_kv_reread_l2_hit] = "min 0: each query head's thread block reads the KV head from HBM (TensorRT-LLM masked MHA, 'a single CUDA thread-block per head', docs/source/gpt_attention.md); max 0.95: the blocks of one group run together and L2 (50 MB on H100) serves all but the first read (assumed upper bound); the TensorRT-LLM XQA blog reports up to 2.4x more Llama-70B (group 8) throughput on H200 within the same latency from a kernel that loads the KV head once (docs/source/blogs/XQA-kernel.md)",
	[CALIB_serve_weight_only_compute_eta] = "max 1: the dequantisation hides entirely under the tensor-core work (the plain GEMM's rate); min 0.3 (assumed): vLLM warns that its weight-only Marlin FP4 path 'may degrade performance for compute-heavy workloads' (marlin_utils_fp4.py)",
	[CALIB_serve_prefill_attn_half_keys] = "min 0 (no length effect); max 4096 keys: FlashAttention-2 and -3 forward reach well over half their long-sequence throughput at 1-2k keys per query (Dao 2023, fig. 4; Shah et al. 2024, fig. 5) (assumed bound)",
	[CALIB_serve_uncertainty_rel] = "a validation statistic, not physics: 0 to 1",
};

void calib_bounds(const struct calibration *cal, enum calib_param i, double *min, double *max,
		  const char **source)
{
	if (cal && cal->has_bounds[i]) {
		*min = cal->bound_min[i];
		*max = cal->bound_max[i];
		if (source)
			*source = cal->bound_source[i];
		return;
	}
	*min = calib_params[i].min;
	*max = calib_params[i].max;
	if (source)
		*source = calib_range_sources[i];
}

bool calib_value_at_bound(double v, double min, double max)
{
	double tol = CALIB_AT_BOUND_FRACTION * (max - min);

	return v <= min + tol || v >= max - tol;
}

bool calib_at_bound(const struct calibration *cal, enum calib_param i)
{
	double lo, hi;

	calib_bounds(cal, i, &lo, &hi, NULL);
	return calib_value_at_bound(calib_get(cal, i), lo, hi);
}

bool calib_is_fitted(const struct calibration *cal, enum calib_param i)
{
	return strncmp(cal->source[i], "fit", 3) == 0;
}

bool calib_is_validate_fitted(const struct calibration *cal, enum calib_param i, bool serving)
{
	const char *tag = serving ? "fitted (stepcast validate --serving --fit)"
				  : "fitted (stepcast validate --fit)";

	return strncmp(cal->source[i], tag, strlen(tag)) == 0;
}

double calib_prior(const struct calibration *cal, enum calib_param i)
{
	return cal->has_prior[i] ? cal->prior[i] : calib_get(cal, i);
}

/* The software parameters (calibration.h calib_is_software), each with why
 * it is not a property of the GPU:
 * - dp_overlap, fsdp_prefetch_overlap, tp_overlap, cp_overlap, ep_overlap,
 *   pp_overlap: how much communication the framework's schedule hides
 *   (bucketed gradient reduce hooks, prefetch order, userbuffers, 1F1B
 *   send/recv placement: Megatron-Core's distributed data parallel and
 *   pipeline code, the same Python on every GPU);
 * - comm_interference: the slowdown of compute by the NCCL kernels running
 *   beside it, set by how many SMs/channels NCCL takes (NCCL_MAX_NCHANNELS,
 *   the framework's CUDA_DEVICE_MAX_CONNECTIONS=1), a software setting;
 * - step_overhead_s: per-step host work (loss and grad-norm reductions,
 *   logging, the data loader, optimizer launch), host software;
 * - kernel_overhead_s: the eager launch path (PyTorch dispatch, Python,
 *   the CUDA driver's launch) between kernels the GPU finishes faster than
 *   the host issues them; its range's floor is the GPU side;
 * - moe_router_imbalance: the router and its balancing (auxiliary loss,
 *   aux-free bias, forced balance in benchmarks) with the data, not the
 *   silicon.
 * - gemm_half_dim: how fast a GEMM's efficiency falls with a small
 *   dimension is set by the CTA tiles cuBLAS and CUTLASS pick and the
 *   waves they fill, a library choice: 128 x 128 to 128 x 256 tiles on
 *   sm90 (wgmma, 64 rows per warpgroup) and 128 or 256 (two-CTA) x 256 on
 *   sm100 (tcgen05.mma, PTX ISA 8.6; CUTLASS sm100 kernels), over 132 and
 *   148 SMs.  Blackwell's tiles are no smaller than Hopper's, so a
 *   family that has no GEMM data of its own left takes the others' fit as
 *   its lower estimate, not the one-tile guess of its prior.
 * Everything else (GEMM and attention efficiencies, HBM, NVLink, EFA and
 * EP transport, memory reserves) is hardware or the catalogue's. */
bool calib_is_software(enum calib_param i)
{
	switch (i) {
	case CALIB_dp_overlap:
	case CALIB_fsdp_prefetch_overlap:
	case CALIB_tp_overlap:
	case CALIB_cp_overlap:
	case CALIB_ep_overlap:
	case CALIB_pp_overlap:
	case CALIB_comm_interference:
	case CALIB_step_overhead_s:
	case CALIB_kernel_overhead_s:
	case CALIB_moe_router_imbalance:
	case CALIB_gemm_half_dim:
		return true;
	default:
		return false;
	}
}
