/* serve.h: a serving question (struct srv_scenario) and what the serving
 * simulation answers (struct srv_result).
 *
 * A serving scenario is a model on replicas of tp x pp GPUs of one instance
 * type, a serving engine's settings (continuous batching with a token
 * budget, chunked prefill, paged KV cache, admission policy), number
 * formats, and a workload (arrival process, prompt and output lengths,
 * SLOs).  Optional: disaggregated prefill and decode pools.  Everything is
 * plain fixed-size data: copy freely, nothing to free.  The loader is
 * serve_config.h, the simulation serve_sim.h, the planner serve_plan.h.
 */
#ifndef SC_SERVE_H
#define SC_SERVE_H

#include <stdbool.h>

#include "../../models/calibration.h"
#include "../../models/catalog.h"
#include "../../models/serving.h"

/* How an engine schedules one iteration.
 * MIXED: decodes and prefill chunks share each iteration's token budget
 *   (TensorRT-LLM in-flight batching, vLLM v1, LMDeploy TurboMind);
 * PREFILL_FIRST: an iteration with admissible prompts runs only prefills,
 *   decodes wait (vLLM before v1 without chunked prefill, SGLang);
 * STATIC: a batch is admitted only when the previous one has finished
 *   (static batching benchmarks). */
enum srv_schedule { SRV_SCHED_MIXED, SRV_SCHED_PREFILL_FIRST, SRV_SCHED_STATIC };

/* KV admission.  ON_DEMAND: blocks are taken as tokens arrive and running
 * requests are preempted (KV freed, recomputed later) when the cache is full
 * (vLLM, SGLang); RESERVE: a request is admitted only if its prompt and
 * whole output fit, and never preempted (TensorRT-LLM's
 * GUARANTEED_NO_EVICT scheduler). */
enum srv_kv_policy { SRV_KV_ON_DEMAND, SRV_KV_RESERVE };

/* What kv_mem_fraction is a fraction of ("kv_mem_fraction_of"): "total" HBM
 * for weights, activations and KV cache (vLLM gpu_memory_utilization),
 * what weights and activations leave "free" (TensorRT-LLM
 * kv_cache_free_gpu_mem_fraction, LMDeploy cache_max_entry_count), or total
 * HBM for "weights-and-kv" only (SGLang mem_fraction_static), or total HBM
 * for the "kv" pool alone (LMDeploy TurboMind before v0.2.2): enum
 * srv_mem_basis (models/serving.h), whose list owns the names. */

/* How the engine's decode attention kernel walks a grouped-query KV cache
 * ("decode_attention"): GROUPED loads each KV head once for all the query
 * heads that share it (TensorRT-LLM XQA, FlashInfer, FlashAttention with
 * the query group packed, FlashMLA); PER_HEAD runs one thread block per
 * query head, so each shares its KV head's reads with the others of its
 * group only through L2 (TensorRT-LLM masked MHA before XQA, vLLM's
 * original paged-attention kernel). */
enum srv_decode_attention { SRV_DECODE_GROUPED, SRV_DECODE_PER_HEAD };

/* Where the KV-cache format comes from when a scenario does not state it
 * ("kv_cache_dtype"): MODEL, the model's activation dtype (vLLM and
 * SGLang "auto"); CHECKPOINT, a quantised checkpoint's own KV format
 * (TensorRT-LLM reads kv_cache_quant_algo, FP8 in NVIDIA ModelOpt FP8 and
 * NVFP4 checkpoints). */
enum srv_kv_dtype_rule { SRV_KV_DTYPE_MODEL, SRV_KV_DTYPE_CHECKPOINT };

enum srv_arrival {
	SRV_ARRIVAL_POISSON,     /* open loop at rate_rps */
	SRV_ARRIVAL_CONCURRENCY, /* closed loop: `concurrency` clients, one request each at a time */
	SRV_ARRIVAL_BURST,       /* every request at time 0 (offline benchmarks) */
	SRV_ARRIVAL_TRACE        /* arrival times and lengths from a CSV file */
};

enum srv_dist { SRV_DIST_FIXED, SRV_DIST_UNIFORM, SRV_DIST_NORMAL, SRV_DIST_LOGNORMAL };

enum srv_router { SRV_ROUTER_LEAST_LOADED, SRV_ROUTER_ROUND_ROBIN };

/* Token lengths: fixed at mean, uniform on [min, max], or normal /
 * lognormal with mean and sd, clipped to [min, max] (0: no clip). */
struct srv_length {
	enum srv_dist dist;
	double mean;
	double sd;
	int min;
	int max;
};

struct srv_engine {
	char name[SC_NAME_MAX];
	int max_num_seqs;           /* running sequences per replica */
	int max_num_batched_tokens; /* tokens per iteration (prefill budget) */
	bool chunked_prefill;       /* split prompts to fit the budget */
	enum srv_schedule schedule;
	enum srv_kv_policy kv_policy;
	int kv_block_tokens;        /* paged KV block */
	double kv_mem_fraction;     /* of total HBM or of what the weights leave free */
	enum srv_mem_basis kv_mem_fraction_of;
	int kv_cache_tokens;        /* > 0: the KV pool holds this many tokens per replica (a block
				       count the benchmark sets), whatever kv_mem_fraction says */
	char source[SC_SOURCE_MAX];
	/* decode attention as the engine's kernels run it */
	enum srv_decode_attention decode_attention;
	int grouped_max_group;      /* GROUPED kernel covers groups up to this (0: any); larger: per head */
	bool sliding_window_kv;     /* the KV cache and attention keep only a sliding-window model's window */
	bool full_window_kv_pool;   /* attention keeps to the window, the KV pool holds every token */
	bool context_pass_separate; /* new prompts (but their last token) run in a pass of their own,
				       their last token in the decode pass (TurboMind v0.1) */
	enum srv_kv_dtype_rule kv_cache_dtype;
	char attention_source[SC_SOURCE_MAX];
	/* smaller-GPU defaults (vLLM V1: GPUs under 70 GiB, and A100s, get
	 * 256 sequences and 2048 tokens); 0 / "" where the engine has none */
	int small_gpu_max_num_seqs;
	int small_gpu_max_num_batched_tokens;
	double small_gpu_below_GiB;      /* total HBM under this, GiB */
	char small_gpu_names[SC_NAME_MAX]; /* comma-separated parts of a GPU name that also qualify */
	/* with attention data parallelism max_num_seqs and
	 * max_num_batched_tokens apply to each attention rank (TensorRT-LLM,
	 * vLLM: one scheduler per rank), not to the replica (SGLang divides
	 * them over its ranks) */
	bool attention_dp_per_rank_limits;
	/* the per-rank limits before srv_engine_attention_dp_limits scaled
	 * them (0: never scaled); a disaggregated pool with its own
	 * attention_dp scales these by its own degree (srv_engine_pool_limits) */
	int rank_max_num_seqs;
	int rank_max_num_batched_tokens;
	/* a wrapper (NVIDIA NIM): the entry whose defaults it runs ("" none) */
	char wraps[SC_NAME_MAX];
};

#define SRV_PATH_MAX 512

/* An MLPerf Inference scenario (LoadGen): OFFLINE sends every query at
 * once and scores throughput; SERVER sends Poisson queries at a rate and
 * the result is the largest rate whose p99 TTFT and TPOT meet the
 * benchmark's limits (serve reports it, srv_max_rate). */
enum srv_mlperf { SRV_MLPERF_NONE, SRV_MLPERF_OFFLINE, SRV_MLPERF_SERVER };

struct srv_workload {
	enum srv_arrival arrival;
	enum srv_mlperf mlperf;
	char dataset[SC_NAME_MAX];    /* configs/datasets.json entry ("" none) */
	char tokenizer[SC_NAME_MAX];  /* its statistics used (resolved at load) */
	double rate_rps;
	int concurrency;
	char trace[SRV_PATH_MAX];
	int requests;
	int warmup_requests;
	struct srv_length input_tokens;
	struct srv_length output_tokens;
	double prefix_cache_hit_rate; /* fraction of prompt tokens found cached */
	int seed;
	bool front_end;               /* requests pass an HTTP front end (serve_request_overhead_s) */
};

struct srv_slo {
	double ttft_p50_ms, ttft_p99_ms;
	double tpot_p50_ms, tpot_p99_ms;
};

struct srv_disagg {
	int prefill_replicas;        /* 0: not disaggregated */
	int decode_replicas;
	struct srv_layout prefill;
	struct srv_layout decode;
};

struct srv_scenario {
	char name[SC_SOURCE_MAX];
	char file[SRV_PATH_MAX];     /* the scenario's path ("" when built in memory) */
	struct srv_arch arch;
	struct instance_spec instance;
	struct gpu_spec gpu;
	struct fabric_spec fabric;
	struct srv_layout replica;
	int replicas;
	int layout_gpus;             /* > 0: replica.tp and replicas not stated; the
					layout of this many GPUs is the best one
					(srv_pick_layout) */
	char layout_note[320];       /* how the layout was chosen ("" stated) */
	struct srv_precision precision;
	struct srv_engine engine;
	struct srv_speculative speculative;
	struct srv_workload workload;
	struct srv_slo slo;
	struct srv_disagg disagg;
	enum srv_router router;
	struct calibration calibration;
};

/* Distribution summary of one per-request quantity, seconds. */
struct srv_dist_stats {
	int count;
	double mean, p50, p90, p99, max;
};

/* What one replica configuration is, before any request. */
struct srv_replica_summary {
	int gpus;                     /* tp x pp */
	double weights_bytes;         /* per GPU */
	double kv_pool_bytes;         /* per GPU */
	double kv_capacity_tokens;    /* whole replica, full-attention tokens */
	double kv_bytes_per_token;    /* per GPU */
	double decode_step_batch1_s;  /* one decode step of one sequence */
	double weight_stream_s;       /* weights bytes / (HBM x serve_hbm_eta) */
	int max_num_seqs;             /* its batch limits (srv_engine_pool_limits) */
	int max_num_batched_tokens;
};

struct srv_result {
	int requests;                 /* simulated */
	int measured;                 /* after warm-up */
	int completed;
	int gpus;
	double duration_s;            /* measurement window */
	double makespan_s;            /* first arrival to last completion */
	double requests_per_s;
	double output_tokens_per_s;
	double input_tokens_per_s;
	double output_tokens_per_s_per_gpu;
	struct srv_dist_stats ttft_s, tpot_s, e2e_s, queue_s;
	double itl_mean_s;            /* token-weighted mean inter-token latency */
	double mean_input_tokens, mean_output_tokens;
	double kv_util_mean;          /* time-weighted KV pool use, fraction */
	double kv_util_peak;
	double mean_decode_batch;     /* sequences per decoding iteration */
	double busy_fraction;         /* replica time spent iterating */
	long long iterations;
	int preemptions;
	/* Little's law over the arrivals of the measurement window */
	double little_L;              /* time-average requests in the system */
	double little_lambda;         /* arrivals per second */
	double little_W;              /* mean time in the system, s */
	/* disaggregated prefill/decode */
	bool disaggregated;
	struct srv_dist_stats kv_transfer_s;
	double kv_transfer_bytes_per_request; /* per GPU pair */
	const char *kv_transfer_tier;         /* "nvlink" or "efa" (static) */
	struct srv_replica_summary replica;   /* unified, or the decode pool's */
	struct srv_replica_summary prefill;   /* disaggregated: the prefill pool's */
	bool slo_given;
	bool slo_met;
	double usd_per_h;             /* on-demand where sold, else capacity blocks; whole
					 instances or UltraServers (models/purchase.h) */
	int nodes;
	double usd_per_m_output_tokens;   /* 0 with cost_known false */
	double usd_per_m_total_tokens;
	bool cost_known;              /* tokens flowed in a steady measurement window */
	/* Stability of an open loop (Poisson or trace arrivals; srv_stability).
	 * Closed loops and bursts are finite work: stable and steady. */
	bool open_loop;
	double offered_rps;           /* arrivals per second of the measurement window */
	double offered_output_tokens_per_s; /* their tokens over the window */
	double offered_input_tokens_per_s;
	double sustainable_rps;       /* the deployment's saturated completion rate
					 (srv_capacity); 0: not computed */
	bool stable;                  /* offered_rps <= sustainable_rps */
	bool steady;                  /* stable, and the window spans SRV_STEADY_LIFETIMES
					 mean request lifetimes */
	int steady_requests;          /* requests whose window would be long enough
					 (0: already steady or unstable) */
	/* MLPerf Server (srv_max_rate, filled by the caller that asks) */
	bool max_rate_done;
	double max_rate_rps;          /* largest rate meeting the SLOs; 0: none */
	double max_rate_output_tokens_per_s;
	double max_rate_ttft_p99_s, max_rate_tpot_p99_s;
};

/* A measurement window reaches steady state when it is at least this many
 * mean request lifetimes (end-to-end latencies) long: in a stable queue the
 * requests in flight at the window's end are then at most 1/5 of those it
 * counts (Little's law: L = lambda W, against lambda T arrivals), the same
 * order as the warm-up vLLM's benchmark_serving and MLPerf LoadGen discard
 * (LoadGen's Server scenario runs at least 600 s, hundreds of lifetimes). */
#define SRV_STEADY_LIFETIMES 5.0

/* The names of the enum values as the scenario files spell them (static
 * strings). */
const char *srv_schedule_name(enum srv_schedule s);
const char *srv_kv_policy_name(enum srv_kv_policy p);
const char *srv_arrival_name(enum srv_arrival a);
const char *srv_dist_name(enum srv_dist d);
const char *srv_router_name(enum srv_router r);

/* GPUs of the whole deployment. */
int srv_scenario_gpus(const struct srv_scenario *sc);

/* Instances (nodes) the deployment needs: replicas are packed whole into
 * nodes when a replica is no larger than a node. */
int srv_scenario_nodes(const struct srv_scenario *sc);

#endif
