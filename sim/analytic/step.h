/* step.h: the analytical step-time engine.
 *
 * sim_step_predict() composes the pure models (transformer op list, GPU
 * roofline, collectives over the network tiers, memory, pipeline schedule,
 * overlap rules) into one training step of the scenario's layout.  Pure:
 * no I/O, no allocation in the hot path, no globals; the caller owns both
 * structs.  Fails with SC_EINVAL (layout does not fit the model or cluster)
 * or SC_EUNSUPPORTED, filling err.
 */
#ifndef SC_SIM_STEP_H
#define SC_SIM_STEP_H

#include "../../models/collective.h"
#include "../../models/moe_dispatch.h"
#include "../../models/gpu.h"
#include "../../models/memory.h"
#include "../../models/network.h"
#include "../../models/scenario.h"
#include "../../models/status.h"
#include "../../models/transformer.h"
#include "../../models/uncertainty.h"

/* The parts of a step, each with its name (step_part_name, enum_names.h):
 *   compute      forward + backward + recompute GEMMs, attention, memory-bound ops
 *   tp_comm      exposed TP/SP collectives
 *   cp_comm      exposed CP ring exchange
 *   ep_comm      exposed EP all-to-all
 *   pp_comm      exposed PP send/recv
 *   dp_comm      exposed DP/FSDP gradient and parameter collectives
 *   bubble       pipeline fill and drain
 *   optimizer    optimizer step
 *   overhead     per-step fixed overheads and kernel launches
 * only with a scenario "storage" / "stragglers" object (sim/analytic/goodput.h):
 *   data_stall   waiting for training data
 *   checkpoint   blocking checkpoint time amortised per step, checkpointless replication
 *   straggler    waiting for the slowest GPU */
#define STEP_PART_LIST(X) X(PART_COMPUTE, "compute") X(PART_TP_COMM, "tp_comm") X(PART_CP_COMM, "cp_comm") \
	X(PART_EP_COMM, "ep_comm") X(PART_PP_COMM, "pp_comm") X(PART_DP_COMM, "dp_comm") \
	X(PART_BUBBLE, "bubble") X(PART_OPTIMIZER, "optimizer") X(PART_OVERHEAD, "overhead") \
	X(PART_DATA_STALL, "data_stall") X(PART_CHECKPOINT, "checkpoint") X(PART_STRAGGLER, "straggler")
enum step_part { STEP_PART_LIST(SC_ENUM_ID) PART_COUNT };

/* The parts of a GPU's memory: buffers are framework transients (FSDP
 * gathers, loss logits, workspaces), comm_buffers NCCL's (outside the
 * allocator), reserve the CUDA context and libraries. */
#define MEM_PART_LIST(X) X(MEM_WEIGHTS, "weights") X(MEM_GRADIENTS, "gradients") \
	X(MEM_OPTIMIZER, "optimizer") X(MEM_ACTIVATIONS, "activations") X(MEM_BUFFERS, "buffers") \
	X(MEM_COMM_BUFFERS, "comm_buffers") X(MEM_RESERVE, "reserve")
enum mem_part { MEM_PART_LIST(SC_ENUM_ID) MEM_COUNT };

#define BOTTLENECK_LIST(X) X(BOTTLENECK_TENSOR_CORES, "tensor_cores") X(BOTTLENECK_HBM, "hbm") \
	X(BOTTLENECK_NVLINK, "nvlink") X(BOTTLENECK_EFA, "efa") \
	X(BOTTLENECK_PIPELINE_BUBBLE, "pipeline_bubble") X(BOTTLENECK_OVERHEAD, "overhead")
enum bottleneck { BOTTLENECK_LIST(SC_ENUM_ID) BOTTLENECK_COUNT };

#define SC_ALGO_NAME_MAX 48

/* One collective of the step, as chosen: what, which algorithm, which tier. */
struct step_collective {
	const char *what;          /* "tp", "cp", "ep", "pp", "dp", "fsdp" (static string) */
	enum coll_op op;           /* the NCCL operation (bus bandwidth: coll_busbw_factor) */
	char algorithm[SC_ALGO_NAME_MAX]; /* e.g. "ring", "nvls", "hierarchical(nvls+efa-tree)" */
	const char *tier;          /* "nvlink" or "efa" (static string) */
	int ranks;
	double bytes;              /* per call, per rank */
	double time_s;             /* per call */
	double total_time_s;       /* per step, before overlap */
};

#define SC_STEP_MAX_COLLECTIVES 8

struct step_result {
	double step_time_s;
	double part_s[PART_COUNT];          /* sums to step_time_s */
	double tokens_per_s;
	double tokens_per_s_per_gpu;
	double model_flops_per_step;        /* no recompute counted */
	double hardware_flops_per_step;     /* with recompute */
	double model_tflops_per_gpu;
	double mfu;                         /* model flops / (peak of the precision) */
	double hfu;
	double mem_bytes[MEM_COUNT];        /* per GPU, worst pipeline stage */
	double mem_total_bytes;             /* worst stage, as nvidia-smi would show it */
	double mem_capacity_bytes;          /* usable: HBM less the driver's reserve */
	bool oom;
	struct mem_out mem_stage[2];        /* first and last pipeline stage (the same when pp = 1) */
	int mem_worst_stage;                /* which of the two mem_bytes describes */
	char mem_where[48];                 /* that rank in words ("first pipeline stage") */
	enum bottleneck bottleneck;
	double uncertainty_rel;             /* +- fraction (from calibration residuals) */
	int micro_batches;                  /* per step per pipeline */
	double bubble_fraction;
	int n_collectives;
	struct step_collective collectives[SC_STEP_MAX_COLLECTIVES];
};

enum sc_status sim_step_predict(const struct scenario *sc,
				struct step_result *out, struct sc_error *err);

/* ---- two-phase prediction, for searches ----------------------------------
 *
 * sim_step_predict() = sim_step_prepare() + sim_step_finish(STEP_COLLECTIVES |
 * STEP_EXACT_PIPELINE),
 * with identical results.  The prepare phase is the costly part (the op list
 * of one micro-batch and a few hundred roofline and collective evaluations);
 * it depends only on the "shape" of a micro-batch on one GPU: the model, the
 * cluster's instance, GPU and fabric (not its node count), the calibration,
 * training seq_len, micro_batch_seqs, precision, recompute and cuda_graphs, and layout
 * tp, cp, ep, etp, sequence_parallel, tp_comm_overlap, ep_comm_overlap and
 * moe_dispatcher.  A search prepares once per shape and finishes every
 * layout of that shape (pp, vpp, dp, schedule, ZeRO stage, FSDP, node
 * count, global batch).  struct step_prep is plain data (about 7 KiB, no
 * pointers into the scenario): the caller owns it, on the stack or not, and
 * may copy it. */

/* Time of one layer kind (dense, MoE, embedding, logits, MTP head) for one
 * micro-batch on one GPU, before and after overlap. */
struct step_kind_time {
	struct gpu_time compute;   /* forward + backward + recompute */
	double fwd_s, bwd_s;       /* compute time of each direction (windows) */
	double wgrad_s;            /* the weight-gradient GEMMs, part of bwd_s */
	double tp_s, cp_s, ep_s;   /* communication before overlap (tp_s
				      includes the expert-TP part etp_s) */
	double etp_s;
	double tp_exp_s, cp_exp_s, ep_exp_s; /* exposed */
	double interference_s;     /* extra compute from hidden communication */
	double total_s;            /* compute + exposed + interference */
	/* the same per direction, [0] forward and [1] backward (with
	 * recompute), for the discrete-event engine (sim/des), which replays
	 * CP and EP traffic as flows and applies the overlap rule to the
	 * simulated times: communication before overlap, the part of TP
	 * hidden under GEMMs, and the attention time CP can hide under */
	double tp_dir_s[2], tp_hid_dir_s[2];
	double cp_dir_s[2], cp_win_dir_s[2];
	double ep_dir_s[2];
};

struct step_prep {
	/* the shape it was prepared for (sim_step_finish checks these) */
	int tp, cp, ep, etp, seq_len, micro_batch_seqs;
	enum sc_precision precision;
	enum sc_recompute recompute;
	int recompute_layer_interval;
	enum sc_cuda_graphs cuda_graphs;
	bool sequence_parallel, tp_comm_overlap, ep_comm_overlap;
	enum sc_moe_dispatcher moe_dispatcher;
	double moe_routing_imbalance, moe_capacity_factor; /* the layout's routing inputs */
	/* what the rest of the step is computed from */
	enum gpu_dtype dtype;
	bool sp;                   /* sequence parallel in effect (tp > 1) */
	double imbalance;          /* MoE routing imbalance applied (1 if dense) */
	struct net_span tp_span, etp_span, cp_span, ep_span;
	struct tf_ops ops;
	struct step_kind_time k_dense, k_moe, k_embed, k_logits, k_mtp;
	struct tf_flops flops;     /* model FLOPs per token */
	struct mem_act act_dense, act_moe; /* one layer, one micro-batch */
};

/* sim_step_finish flags */
#define STEP_COLLECTIVES (1u << 0) /* fill step_result.collectives (costly) */
#define STEP_EXACT_PIPELINE (1u << 2) /* time the pipeline by replaying its
				      schedule with every chunk's own times and
				      the sends on the critical path (exact; up
				      to tens of microseconds), not by the
				      schedule's closed form (exact only for
				      equal chunks and free sends) */
#define STEP_STOP_IF_OOM (1u << 1) /* out of memory: fill only the memory
				      fields and oom, leave step_time_s 0 */

/* Validate sc's whole layout and prepare its shape into *prep.  Errors as
 * sim_step_predict. */
enum sc_status sim_step_prepare(const struct scenario *sc, struct step_prep *prep,
				struct sc_error *err);

/* Predict sc's step from prep, which must have been prepared from a scenario
 * with the same model, cluster instance/GPU/fabric and calibration (the
 * caller's promise: not checked) and the same shape fields (checked: else
 * SC_EINVAL).  Validates sc's layout as sim_step_predict does.  Without
 * STEP_COLLECTIVES in flags, out->n_collectives is 0 (the collectives array
 * is not touched) and everything else is identical to sim_step_predict's
 * result.  err may be NULL.  Allocation-free. */
enum sc_status sim_step_finish(const struct scenario *sc, const struct step_prep *prep,
			       unsigned flags, struct step_result *out, struct sc_error *err);

/* What every layout of one cluster shares in sim_goodput (goodput.h): the straggler
 * stretch (GPU count and straggler settings).  Zero it before first use;
 * the caller owns it. */
struct goodput_memo {
	bool valid;
	int gpus;
	struct straggler_cfg cfg;
	double stretch;
};

/* A memo for callers that finish many layouts of one prepared shape: the
 * exact pipeline (STEP_EXACT_PIPELINE), which layouts that differ only in
 * what it does not depend on (the ZeRO stage, FSDP) replay once, and the
 * straggler stretch of the cluster.  Zero it (memset) for each new prep;
 * the caller owns it. */
struct step_pipe_key {      /* what the exact pipeline depends on beyond the shape */
	int pp, vpp, micro_batches, first_stage_layers, last_stage_layers;
	int schedule, layer_split;
	double send_share_s, send_s;
};

struct step_pipe_memo {
	struct goodput_memo goodput; /* the straggler stretch (sim/analytic/goodput.h) */
	bool valid;
	struct step_pipe_key key;  /* zeroed, then filled: compared with memcmp */
	double time_s;             /* the replay */
	bool ok;
};

struct layout_info;

/* sim_step_finish with a memo (may be NULL) and sc's layout already derived
 * by layout_derive (li; NULL: derived and checked here).  With li, the
 * caller promises it is layout_derive(sc)'s (not checked): a search derives
 * each layout once and finishes it twice. */
enum sc_status sim_step_finish_memo(const struct scenario *sc, const struct step_prep *prep,
				    const struct layout_info *li, unsigned flags,
				    struct step_pipe_memo *memo, struct step_result *out,
				    struct sc_error *err);

const char *step_part_name(enum step_part p);
/* The part a step_collective's group (its `what`) is timed in. */
enum step_part step_part_of_collective(const char *what);
const char *mem_part_name(enum mem_part p);
const char *bottleneck_name(enum bottleneck b);

/* The dispatch backend (models/moe_dispatch.h) of a scenario's
 * moe_dispatcher: the one mapping both engines use. */
enum moe_backend ep_backend_of(enum sc_moe_dispatcher d);

/* The uncertainty band of prediction r of sc: the band of the regime it
 * is in (model_regimes_of, model_band_of_regimes: the widest regime band
 * of sc's profile), else the profile's uncertainty_rel band.  *regime
 * (may be NULL): which, REGIME_COUNT for the profile's. */
struct model_band sim_step_band(const struct scenario *sc, const struct step_result *r,
				enum model_regime *regime);

#endif
