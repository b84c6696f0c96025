/* calibration.h: the named, sourced constants of the performance models.
 *
 * Every constant the step-time model uses is one parameter here.  A profile
 * (configs/calibration/NAME.json) gives each parameter a value and a source;
 * sim/config loads it, `calibrate fit` moves it, `validate` judges it.  The
 * parameter list is one X-macro so that the loader, the schema test, the fit
 * code and `calibrate show` cannot disagree about names.
 * struct calibration holds fixed buffers only: nothing to free.
 */
#ifndef SC_CALIBRATION_H
#define SC_CALIBRATION_H

#include <stdbool.h>

#include "catalog.h"
#include "enum_names.h"

/* X(name, unit, min, max, description) */
#define SC_CALIB_PARAMS(X) \
	X(gemm_eta_max_bf16, "fraction", 0.5, 0.87, "fraction of the dense BF16/FP16 peak that a large GEMM reaches") \
	X(gemm_eta_max_fp8, "fraction", 0.5, 0.776, "fraction of the dense FP8 peak that a large GEMM reaches") \
	X(gemm_eta_max_fp4, "fraction", 0.3, 0.87, "fraction of the dense FP4 peak that a large GEMM reaches") \
	X(gemm_half_dim, "elements", 32.0, 2048.0, "GEMM dimension at which that dimension alone halves the efficiency") \
	X(attn_eta, "fraction", 0.2, 0.75, "flash-attention forward efficiency relative to the BF16 peak") \
	X(attn_eta_portable, "fraction", 0.05, 0.75, "forward efficiency of portable flash-attention kernels (FlashAttention-2, its Triton port: sm80 mma.sync) relative to the BF16 peak") \
	X(attn_half_head_dim, "elements", 1.0, 256.0, "head dimension at which it alone halves the fused flash-attention efficiency (attn_eta is at head dimension 128)") \
	X(attn_bwd_flops_ratio, "ratio", 2.0, 3.0, "flash-attention backward work over forward work (recomputes scores)") \
	X(hbm_eta, "fraction", 0.6, 0.92, "fraction of datasheet HBM bandwidth that large streaming kernels reach") \
	X(kernel_overhead_s, "s", 1e-6, 1e-4, "fixed cost per kernel (launch, tail effects)") \
	X(graph_kernel_overhead_s, "s", 3e-7, 5e-6, "fixed cost per kernel replayed from a captured CUDA graph (training.cuda_graphs full-iteration): the GPU-side gap and tail, no host launch path") \
	X(nvlink_ring_alpha_s, "s", 6e-7, 2e-5, "latency per ring step inside an NVLink domain") \
	X(nvlink_ring_bw_eff, "fraction", 0.5, 0.881, "ring bus bandwidth over NVLink bandwidth per GPU") \
	X(nvlink_nvls_alpha_s, "s", 6e-7, 5e-5, "latency of one NVLS (NVLink SHARP) collective") \
	X(nvlink_nvls_bw_eff, "fraction", 0.3, 0.881, "NVLS wire rate (bytes through a GPU's NVLink port per direction: (r+1)/r S all-reduce, S reduce-scatter/all-gather) over NVLink bandwidth per GPU") \
	X(efa_ring_alpha_s, "s", 2.7e-6, 1e-4, "latency per ring step across EFA") \
	X(efa_ring_bw_eff, "fraction", 0.2, 0.95, "ring bus bandwidth over the per-GPU share of EFA bandwidth") \
	X(efa_tree_alpha_s, "s", 2.7e-6, 1e-3, "latency per tree level across EFA") \
	X(efa_startup_s, "s", 1e-6, 5e-3, "fixed start-up of one ring/tree/hierarchical collective across EFA (Simple-protocol pipeline fill), independent of the group size") \
	X(efa_tree_bw_eff, "fraction", 0.2, 0.95, "tree bus bandwidth over the per-GPU share of EFA bandwidth") \
	X(nvlink_a2a_bw_eff, "fraction", 0.3, 0.881, "all-to-all bus bandwidth over NVLink bandwidth per GPU") \
	X(efa_a2a_bw_eff, "fraction", 0.05, 0.9, "all-to-all bus bandwidth over the per-GPU share of EFA bandwidth") \
	X(a2a_alpha_s, "s", 6e-7, 5e-5, "latency per peer of an all-to-all") \
	X(p2p_alpha_s, "s", 6e-7, 1e-4, "latency of one pipeline send/recv") \
	X(awsefa_step_alpha_s, "s", 1e-6, 1e-4, "AWS EFA transport (instances with an efa object): latency per ring step across EFA (one SRD message through libfabric and aws-ofi-nccl)") \
	X(awsefa_tree_alpha_s, "s", 1e-6, 1e-4, "AWS EFA transport: latency per tree level across EFA") \
	X(awsefa_startup_s, "s", 0.0, 2e-3, "AWS EFA transport: fixed start-up of one NCCL collective across EFA (proxy pipeline fill), ring, tree and all-to-all") \
	X(awsefa_ring_bw_eff, "fraction", 0.3, 1.0, "AWS EFA transport: ring bus bandwidth over the per-GPU share of EFA line rate, at 2 NVLink domains") \
	X(awsefa_tree_bw_eff, "fraction", 0.3, 1.0, "AWS EFA transport: tree (and NVLS-tree) bus bandwidth over the per-GPU share of EFA line rate, at 2 NVLink domains") \
	X(awsefa_nvlstree_bw_eff, "fraction", 0.3, 1.0, "AWS EFA transport: bandwidth of the inter-node tree of NCCL's NVLS_TREE over the per-GPU share of EFA line rate, at 2 NVLink domains") \
	X(awsefa_a2a_bw_eff, "fraction", 0.3, 1.0, "AWS EFA transport: rail-aligned all-to-all (NCCL PXN) EFA throughput over the per-GPU share of line rate") \
	X(awsefa_a2a_peer_alpha_s, "s", 1e-8, 1e-4, "AWS EFA transport: cost per peer of an all-to-all across EFA (one send/recv pair per peer)") \
	X(awsefa_a2a_window_bytes, "bytes", 131072.0, 4194304.0, "AWS EFA transport: opening window of each peer's message in an NCCL all-to-all across EFA (the bytes sent before the connection streams at its steady rate)") \
	X(awsefa_a2a_window_eff, "fraction", 0.3, 1.0, "AWS EFA transport: throughput of a peer's opening window (awsefa_a2a_window_bytes) over the steady all-to-all rate") \
	X(awsefa_scale_decay, "fraction", 0.0, 0.5, "AWS EFA transport: loss of ring/tree bandwidth per doubling of the NVLink domains beyond 2 (achieved = eff / (1 + decay log2(N/2)))") \
	X(awsefa_ll128_alpha_fraction, "fraction", 0.01, 1.0, "AWS EFA transport: latency of NCCL's LL128 protocol over that of Simple (LL128 is weighed only where the aws-ofi-nccl regions can choose it)") \
	X(awsefa_ll128_bw_fraction, "fraction", 0.3, 0.9375, "AWS EFA transport: bandwidth of NCCL's LL128 protocol over that of Simple") \
	X(awsefa_ll128_overlap, "fraction", 0.0, 1.0, "AWS EFA transport: fraction of the smaller of an LL128 ring/tree collective's latency and bandwidth terms that the other hides (LL128 forwards each 128-byte line as it arrives)") \
	X(awsefa_cross_rail_eff, "fraction", 0.1, 1.0, "AWS EFA transport: throughput of cross-rail traffic (to a NIC of another rail) over rail-aligned traffic") \
	X(ep_proxy_call_s, "s", 1e-6, 2e-3, "CPU-proxy expert-parallel dispatch/combine (UCCL-EP, pplx-garden on EFA): fixed cost per call (kernel launch, token-count exchange, proxy round trip)") \
	X(ep_proxy_peer_s, "s", 0.0, 1e-4, "CPU-proxy EP dispatch/combine: cost per remote rank per call (one proxy work request and completion)") \
	X(ep_pplx_peer_s, "s", 0.0, 1e-4, "pplx-garden EP dispatch/combine on EFA: cost per remote rank per call (its own host workers posting the RDMA writes; UCCL-EP's is ep_proxy_peer_s)") \
	X(ep_proxy_bw_eff, "fraction", 0.05, 1.0, "CPU-proxy EP dispatch/combine: EFA throughput over the per-GPU share of line rate") \
	X(dp_overlap, "fraction", 0.0, 0.98, "fraction of bucketed DP gradient communication hidden under backward") \
	X(fsdp_prefetch_overlap, "fraction", 0.0, 0.95, "fraction of FSDP/ZeRO-3 parameter all-gathers hidden by prefetch") \
	X(tp_overlap, "fraction", 0.0, 0.9, "fraction of TP/SP communication hidden under GEMMs") \
	X(cp_overlap, "fraction", 0.0, 0.95, "fraction of CP ring exchange hidden under attention") \
	X(ep_overlap, "fraction", 0.0, 0.9, "fraction of EP all-to-all hidden (set by the scenario's overlap flag)") \
	X(pp_overlap, "fraction", 0.0, 0.95, "fraction of PP send/recv hidden under other micro-batches") \
	X(comm_interference, "fraction", 0.0, 0.5, "compute slowdown while overlapped communication runs") \
	X(moe_router_imbalance, "ratio", 1.0, 2.0, "slowest expert rank's tokens over the mean (dropless routing)") \
	X(optimizer_bytes_per_param, "bytes", 8.0, 40.0, "HBM bytes moved per local parameter by the optimizer step") \
	X(step_overhead_s, "s", 1e-3, 2.0, "fixed per-step cost outside the schedule (data loader, logging, sync)") \
	X(framework_reserve_bytes, "bytes", 5e8, 16e9, "memory the framework and CUDA context keep per GPU") \
	X(nccl_buffer_bytes, "bytes", 1e8, 8e9, "communication buffers per GPU") \
	X(ll_alpha_fraction, "fraction", 0.1, 1.0, "latency of NCCL's low-latency (LL) protocol over that of the Simple protocol") \
	X(ll_bw_fraction, "fraction", 0.02, 0.5, "bandwidth of NCCL's low-latency (LL) protocol over that of the Simple protocol") \
	X(dp_bucket_params, "params", 1e6, 1e9, "parameters per DP gradient bucket (the exposed tail is at least one bucket)") \
	X(uncertainty_rel, "fraction", 0.0, 1.0, "relative uncertainty of a predicted step time (from validation residuals)") \
	X(serve_hbm_eta, "fraction", 0.5, 0.92, "fraction of datasheet HBM bandwidth that inference kernels reach (decode weight streaming, paged-KV attention)") \
	X(serve_gemm_m_tile, "rows", 1.0, 256.0, "M tile an inference GEMM pads its rows to (tensor-core instruction shape)") \
	X(serve_kernel_overhead_s, "s", 5e-7, 1e-4, "fixed cost per inference kernel (gap between CUDA-graph kernels, tail effects)") \
	X(serve_iteration_overhead_s, "s", 1e-4, 5e-2, "fixed cost per serving-engine iteration (scheduling, sampling, host-device sync)") \
	X(serve_seq_overhead_s, "s", 1e-7, 1e-4, "serving-engine cost per sequence per iteration (sampling, detokenisation, output streaming)") \
	X(serve_request_overhead_s, "s", 1e-4, 0.1, "front-end work per request before the engine queues it (HTTP, tokenisation), one request at a time") \
	X(serve_request_latency_s, "s", 0.0, 0.1, "latency a request spends in the front end's pipeline beyond its serialized work (HTTP parse, tokenizer thread, hand-off to the engine at its next step), overlapping other requests") \
	X(serve_token_overhead_s, "s", 1e-6, 1e-3, "front-end work per streamed output token (detokenisation, one server-sent event per token)") \
	X(serve_kv_reread_l2_hit, "fraction", 0.0, 0.95, "fraction of a per-head decode kernel's repeated reads of a shared KV head that L2 serves (0: every query head of a group reads it from HBM)") \
	X(serve_weight_only_compute_eta, "fraction", 0.3, 1.0, "fraction of the tensor-core GEMM rate a weight-only kernel (Marlin, AWQ, triton MXFP4: weights narrower than the activations, dequantised in registers) reaches when compute-bound") \
	X(serve_prefill_attn_half_keys, "keys", 0.0, 4096.0, "mean keys per query at which a prefill attention kernel reaches half of attn_eta (short prompts fill fewer tiles)") \
	X(serve_uncertainty_rel, "fraction", 0.0, 1.0, "relative uncertainty of predicted serving throughput and latency (from serving validation residuals)")

enum calib_param {
#define SC_CALIB_ENUM(name, unit, lo, hi, desc) CALIB_##name,
	SC_CALIB_PARAMS(SC_CALIB_ENUM)
#undef SC_CALIB_ENUM
	CALIB_COUNT
};

#define SC_CALIB_SOURCE_MAX 384
#define SC_CALIB_BOUND_SOURCE_MAX 256

/* Where a fitted parameter was measured (profiles of schema_version 2, from
 * `calibrate fit`): the range of the independent variable in the data that
 * moved it, so that a prediction outside the calibrated region can warn.
 * CALIB_RANGE_NONE: no range recorded (a sourced or default value). */
/* message_bytes: collective size, nccl-tests "size" convention; gemm_dim:
 * GEMM M, N and K, elements; copy_bytes: HBM bytes read plus written by
 * one kernel. */
#define CALIB_RANGE_QUANTITY_LIST(X) X(CALIB_RANGE_NONE, "none") X(CALIB_RANGE_MESSAGE_BYTES, "message_bytes") \
	X(CALIB_RANGE_GEMM_DIM, "gemm_dim") X(CALIB_RANGE_COPY_BYTES, "copy_bytes")
enum calib_range_quantity { CALIB_RANGE_QUANTITY_LIST(SC_ENUM_ID) };
extern const char *const calib_range_quantity_names[];

struct calib_range {
	enum calib_range_quantity quantity;
	double min, max;          /* in the quantity's unit */
	int ranks_min, ranks_max; /* message_bytes: group sizes measured (0: not recorded) */
};

#define SC_CALIB_PROV_MAX 128

/* Where a fitted profile comes from (schema_version 2, optional). */
struct calib_provenance {
	char created[SC_CALIB_PROV_MAX];      /* UTC date and time of the fit */
	char tool[SC_CALIB_PROV_MAX];         /* e.g. "stepcast 0.1.0 calibrate fit" */
	char gpu[SC_CALIB_PROV_MAX];          /* GPU name as the measuring tool printed it */
	char driver[SC_CALIB_PROV_MAX];
	char cuda[SC_CALIB_PROV_MAX];
	char nccl[SC_CALIB_PROV_MAX];
	char instance[SC_CALIB_PROV_MAX];     /* instance type the data was fitted against */
	char base_profile[SC_CALIB_PROV_MAX]; /* profile the unfitted parameters come from */
	char inputs[SC_CALIB_SOURCE_MAX];     /* measurement files */
};

/* One fit's quality as a profile records it ("fits", schema_version 2): a
 * whole collective curve against the model, one algorithm's alpha-beta
 * segment of it, a GEMM sweep or an HBM sweep.  Not part of struct
 * calibration (predictions do not need it); `calibrate show` reads it. */
#define CALIB_FIT_KIND_LIST(X) X(CALIB_FIT_CURVE, "curve") X(CALIB_FIT_SEGMENT, "segment") \
	X(CALIB_FIT_GEMM, "gemm") X(CALIB_FIT_HBM, "hbm")
enum calib_fit_kind { CALIB_FIT_KIND_LIST(SC_ENUM_ID) };
extern const char *const calib_fit_kind_names[];

#define CALIB_FIT_NAME_MAX 128
#define CALIB_FIT_MAX_POINTS 128

struct calib_fit {
	char name[CALIB_FIT_NAME_MAX];      /* e.g. "all_reduce 16 ranks (2 x 8)" */
	enum calib_fit_kind kind;
	char tier[16];                      /* "nvlink", "efa" or "" */
	char algorithm[48];                 /* segment: the model's algorithm, else "" */
	char params[SC_CALIB_SOURCE_MAX];   /* parameters the fit moved, comma-separated */
	int points;
	double x_min, x_max;                /* independent variable: bytes or elements */
	double r2;                          /* curve: of log time; segment, HBM: of time; GEMM: of log time */
	double rms_rel_residual;            /* root mean square of predicted/measured - 1 */
	double max_rel_residual;            /* largest |predicted/measured - 1| */
	double alpha_s;                     /* segment, HBM: intercept (0: not applicable) */
	double busbw_GBps;                  /* segment: bus bandwidth; HBM: bandwidth (0: n/a) */
	int n_residuals;                    /* x[] and residual[] entries */
	double x[CALIB_FIT_MAX_POINTS];
	double residual[CALIB_FIT_MAX_POINTS]; /* predicted/measured - 1 at x[i] */
};

const char *calib_fit_kind_name(enum calib_fit_kind k);
const char *calib_range_quantity_name(enum calib_range_quantity q);

/* Prediction regimes of the uncertainty bands (models/uncertainty.h says
 * which a prediction is in).  A band per regime: P10, P50 and P90 of
 * measured / predicted over the validation cases of that regime, predicted
 * out of sample (configs/uncertainty-bands.json, written by `stepcast
 * validate --out-of-sample --bands-output`), attached to every profile by
 * the catalogue loader. */
#define MODEL_REGIME_LIST(X) \
	X(REGIME_SINGLE_NODE, "single-node")              /* training inside one node */ \
	X(REGIME_MULTI_NODE_DENSE, "multi-node-dense")    /* dense model across nodes */ \
	X(REGIME_FSDP, "fsdp-zero3")                      /* FSDP or ZeRO-3 */ \
	X(REGIME_MOE_EP_NVLINK, "moe-ep-nvlink")          /* MoE, expert parallelism inside the NVLink domain */ \
	X(REGIME_MOE_EP_NETWORK, "moe-ep-network")        /* MoE, expert parallelism across the network */ \
	X(REGIME_LONG_CONTEXT, "long-context")            /* sequence >= 32k tokens */ \
	X(REGIME_SHORT_STEP, "short-step")                /* predicted step < 1 s */ \
	X(REGIME_SERVE_PREFILL, "serve-prefill-heavy")    /* serving, more prompt than output tokens */ \
	X(REGIME_SERVE_DECODE, "serve-decode-heavy")      /* serving, at least as many output as prompt tokens */
enum model_regime { MODEL_REGIME_LIST(SC_ENUM_ID) REGIME_COUNT };
/* The regimes' names as the bands file spells them, NULL-terminated. */
extern const char *const model_regime_names[];

struct model_regime_band {
	bool present;
	int cases;                /* residuals behind it */
	double p10, p50, p90;     /* quantiles of measured / predicted */
	double coverage;          /* P10-P90 coverage out of sample (nested), fraction; < 0: not measured */
};

struct calibration {
	char name[SC_NAME_MAX];
	char gpu_family[SC_NAME_MAX];
	char description[SC_SOURCE_MAX];
	int schema_version;
#define SC_CALIB_FIELD(name, unit, lo, hi, desc) double name;
	SC_CALIB_PARAMS(SC_CALIB_FIELD)
#undef SC_CALIB_FIELD
	char source[CALIB_COUNT][SC_CALIB_SOURCE_MAX];
	struct calib_range range[CALIB_COUNT]; /* schema_version 2 */
	bool has_provenance;                   /* schema_version 2 */
	struct calib_provenance provenance;
	/* The profile's own physical range of a parameter ("bounds": narrower
	 * than the catalogue's calib_params[] range for one GPU class, e.g. its
	 * measured launch latency), with the range's source; has_bounds false:
	 * the catalogue range.  Read through calib_bounds(). */
	bool has_bounds[CALIB_COUNT];
	double bound_min[CALIB_COUNT], bound_max[CALIB_COUNT];
	char bound_source[CALIB_COUNT][SC_CALIB_BOUND_SOURCE_MAX];
	/* The value before any fit ("prior"): where `validate --fit` centres
	 * its prior (see sim/validate/fit.h); has_prior false: the value. */
	bool has_prior[CALIB_COUNT];
	double prior[CALIB_COUNT];
	/* A measurement that puts the value on its bound ("on_bound"): a value
	 * within calib_at_bound() of a bound is an error of the profile unless
	 * this cites why (tests/unit/test_calibration_bounds.c). */
	char on_bound[CALIB_COUNT][SC_CALIB_BOUND_SOURCE_MAX];
	/* The regime bands (configs/uncertainty-bands.json); none present:
	 * uncertainty_rel and serve_uncertainty_rel give the band. */
	struct model_regime_band regime_band[REGIME_COUNT];
};

struct calib_param_info {
	const char *name;
	const char *unit;
	double min;
	double max;
	const char *description;
};

/* The table of parameters, CALIB_COUNT entries, in X-macro order. */
extern const struct calib_param_info calib_params[CALIB_COUNT];

/* Pointer to parameter i of cal (i < CALIB_COUNT). */
double *calib_value(struct calibration *cal, enum calib_param i);
double calib_get(const struct calibration *cal, enum calib_param i);

/* Index of a parameter by name, or -1. */
int calib_param_index(const char *name);

/* Where each catalogue range calib_params[i].min..max comes from: the
 * physical limit each end stands for (a launch no cheaper than its measured
 * latency, an efficiency no higher than the best published microbenchmark,
 * an overlap that leaves a floor exposed), CALIB_COUNT entries. */
extern const char *const calib_range_sources[CALIB_COUNT];

/* The physical range of parameter i in profile cal: the profile's "bounds"
 * when it has them, else the catalogue's.  *source: where it comes from. */
void calib_bounds(const struct calibration *cal, enum calib_param i, double *min, double *max,
		  const char **source);

/* Whether v lies within CALIB_AT_BOUND_FRACTION of its range's width from
 * either end of [min, max]: a fit that ended there was stopped by the
 * bound, not by the data. */
#define CALIB_AT_BOUND_FRACTION 1e-3
bool calib_value_at_bound(double v, double min, double max);
bool calib_at_bound(const struct calibration *cal, enum calib_param i);

/* Whether parameter i of cal was fitted to measurements: its source begins
 * with "fit" ("fitted (stepcast validate --fit) ...", "fit to ...", "fitted
 * by stepcast calibrate fit ..."), the convention every fitting tool
 * writes. */
bool calib_is_fitted(const struct calibration *cal, enum calib_param i);

/* Whether parameter i was fitted by `stepcast validate --fit` (training)
 * or `validate --serving --fit` (serving): what the out-of-sample
 * validation refits with each source group left out. */
bool calib_is_validate_fitted(const struct calibration *cal, enum calib_param i, bool serving);

/* The prior of parameter i: cal->prior[i] when recorded, else its value. */
double calib_prior(const struct calibration *cal, enum calib_param i);

/* Whether parameter i describes the software stack (framework overlap and
 * scheduling, per-step host work, the eager launch path, the router, the
 * GEMM libraries' tile shapes), not the silicon or the network: the same
 * Megatron-Core or torchtitan on another GPU family runs it the same way.  Cross-validation gives such a
 * parameter, in a family whose fold has no data left, the value the other
 * families fitted without that fold (models/calibration.c says which and
 * why). */
bool calib_is_software(enum calib_param i);

#endif
