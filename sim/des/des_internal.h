/* des_internal.h: the parts of the discrete-event engine (not for callers
 * outside sim/des and its tests).
 *
 *   des_program.c  scenario -> per-stage programs (pure C, no SimGrid)
 *   platform.cpp  net_topo -> SimGrid platform (the only C++)
 *   des_probe.c   explicit collectives and flows on a fabric (tests)
 *   des_engine.c   programs -> SimGrid actors -> result (runs in a child)
 *   des_fork.c     fork, pipe, time limit, parallel children
 *   des_trace.c    timeline -> Chrome/Perfetto JSON
 *   des.c          des_predict(): the above in order
 *
 * A struct des_program owns its arrays: des_program_free() releases them.
 */
#ifndef SC_DES_INTERNAL_H
#define SC_DES_INTERNAL_H

#include <stddef.h>
#include <stdint.h>

#include <simgrid/forward.h>

#include "platform.h"

#include "../../models/collective.h"
#include "../../models/layout.h"
#include "../../models/network.h"
#include "des.h"

/* ---- the program of one step ------------------------------------------------------ */

/* Groups a rank communicates in, besides the pipeline. */
enum des_group { DES_G_DENSE, DES_G_EXPERT, DES_G_REPLICA, DES_G_CP, DES_G_EP, DES_G_COUNT };

/* A group dimension in Megatron's rank order: rank r belongs to the group
 * {r - ((r / stride) % n) * stride + i * stride : i < n}. */
struct des_gdef {
	int n;
	int stride;
	struct net_span span;     /* net_span_of(n, stride): what the analytical model assumes */
};

/* Cost of one micro-batch through one model chunk in one direction on one
 * pipeline rank.  Times in seconds; bytes per rank, already divided by the
 * algorithm's bandwidth efficiency (struct coll_flows). */
struct des_cost {
	double busy_s;           /* executed on the GPU (everything below that is folded) */
	double wgrad_s;          /* backward: its weight-gradient GEMMs (part of busy_s) */
	double compute_s, memory_s, launch_s; /* the roofline parts of busy_s */
	double tp_exp_s;         /* exposed TP (inside the NVLink domain: folded) */
	double fold_cp_s;        /* exposed CP when its group stays inside a domain */
	double fold_ep_s;        /* exposed EP when its group stays inside a domain */
	double interference_s;   /* compute slowdown from hidden folded communication */
	/* CP ring exchange as flows (the CP group crosses NVLink domains) */
	double cp_s, cp_win_s;   /* analytical time before overlap, and the attention window */
	double cp_lat_s, cp_bytes;
	/* EP all-to-all as flows (the EP group crosses NVLink domains) */
	double ep_s;
	double ep_win_s;         /* window before CP's hidden part is taken out */
	double ep_cp_share;      /* share of the chunk's CP traffic in its MoE layers */
	double ep_lat_s, ep_efa_lat_s, ep_nv_bytes, ep_efa_bytes;
};

/* One pass of one micro-batch through one model chunk, in the order of
 * models/schedule (sched_order). */
struct des_op {
	unsigned char dir;        /* 0 forward, 1 backward, 2 weight gradient (W) */
	unsigned char split;      /* backward: input gradient only (its W is a later op) */
	unsigned char fused;      /* forward run with the next op as one pair (DualPipe's
				     F&B): both inputs first, both sends after */
	unsigned char recv;       /* wait for the pipeline message first */
	unsigned char send;       /* send a pipeline message after */
	unsigned char jobs_mode;  /* DES_JOBS_* */
	short chunk;
	short src;                /* recv: the pipeline stage the message comes from */
	short peer, peer_chunk;   /* send: the receiving stage and its chunk */
	int mb;
	int job_first, job_count; /* DP jobs gated, issued or overlapped */
};

/* What a block does with its DP jobs: nothing; launch piece k's jobs after
 * its k-th piece of work (gradient buckets); run them alongside under the
 * FSDP prefetch-overlap rule. */
enum { DES_JOBS_NONE, DES_JOBS_ISSUE, DES_JOBS_OVERLAP };

/* What a DP job reduces or gathers. */
enum { DES_WHAT_GRAD, DES_WHAT_GATHER, DES_WHAT_FSDP_BWD, DES_WHAT_ALL_REDUCE };

/* One collective on a rank's DP stream (a bucket, or several merged). */
struct des_job {
	unsigned char group;      /* DES_G_DENSE, DES_G_EXPERT, DES_G_REPLICA */
	unsigned char what;       /* DES_WHAT_* */
	short chunk;
	short piece;              /* launched after piece `piece` of its block */
	int steps;                /* macro-steps simulated */
	int buckets;
	struct coll_flows fl;     /* summed over merged buckets */
};

struct des_stage {
	int n_ops;
	struct des_op *ops;
	int n_jobs;
	struct des_job *jobs;
	int head_count;           /* jobs launched at the start (parameter all-gathers) */
	int tail_first, tail_count; /* jobs after the last block (hybrid-shard replicas) */
	double win_s[2];          /* GPU time of one micro-batch, forward and backward:
				     the analytical DP overlap windows */
	int n_sends;
	struct des_cost *cost;    /* [chunk * 2 + dir], dir 0 or 1 (a W op uses the backward's) */
	double params_dense, params_expert;
};

/* The storage traffic of one step (des_io.c): the volumes and rates of
 * the analytical goodput model (sim/analytic/goodput.h, models/storage.h,
 * their one owner), simulated as flows so that they contend. */
struct des_io {
	bool data;                /* data reads off the node (FSx, S3), simulated */
	char data_tier[SC_NAME_MAX];
	double read_bytes;        /* per reading rank per step */
	double read_lat_s;        /* the latency a loader of depth k does not hide:
				     latency / k, the whole latency when k = 0 */
	int prefetch;             /* batches in flight (0: the step waits for its own) */
	double read_Bps;          /* the tier's aggregate for the job */
	double analytic_read_s;   /* goodput's fetch time */
	bool ckpt;                /* this step writes a checkpoint */
	bool ckpt_async;          /* snapshot in the step, drain in the background */
	bool ckpt_nvme;           /* to the node's drives and one peer node's */
	char ckpt_tier[SC_NAME_MAX];
	double write_bytes;       /* per GPU: the checkpoint / GPUs */
	double write_Bps;         /* the tier's aggregate for the job */
	double gpu_write_Bps;     /* one GPU's ceiling: its node's / GPUs per node */
	double drive_s;           /* NVMe: a GPU's two shares on the drives */
	double snapshot_s;        /* GPU-to-host copy of a GPU's share */
	double write_lat_s;       /* the tier's latency */
	double analytic_write_s;  /* goodput's write (sync) or drain (async) */
	int readers, writers;     /* simulated ranks */
};

struct des_program {
	const struct scenario *sc;
	struct des_io io;
	struct step_prep prep;
	struct step_result analytic;
	struct layout_info li;    /* the layout's derived quantities (models/layout) */
	struct net_topo topo;
	int gpus, fold, nsim;     /* simulated ranks: r % fold == 0 */
	int tp, pp, v, dp, cp, ep, etp, edp, mb, zero;
	int nchunk;               /* model chunks per rank the schedule runs (sched_chunks) */
	struct des_gdef g[DES_G_COUNT];
	struct des_gdef pp_g;     /* n = pp, stride tp*cp*dp */
	bool cp_flows, ep_flows;
	struct coll_flows pp_msg; /* one pipeline send */
	double pp_exposed_s;      /* (1 - pp_overlap) * its time: the sender's share */
	double optimizer_s, overhead_s, tail_s; /* after the pipeline and DP */
	double gpu_flops;         /* host speed */
	struct des_stage *stages; /* [pp] */
	/* coarsening */
	double budget;
	int max_steps;            /* macro-steps per DP collective (0 = exact) */
	int merge;                /* DP buckets per merged job */
	long long messages_estimate, messages_exact, messages_fixed;
	struct des_estimate est;  /* the cost of running it (des_program_estimate) */
};

/* Build the program of sc's step.  opt may be NULL.  Fails with
 * SC_EUNSUPPORTED for what the DES does not cover (see the message), or
 * the analytical engine's errors. */
enum sc_status des_program_build(const struct scenario *sc, const struct des_options *opt,
				 struct des_program *p, struct sc_error *err);
void des_program_free(struct des_program *p);

/* Whether the DES simulates step part i (compute, TP/CP/EP/PP/DP
 * communication, the bubble, the optimizer, the step overhead); every
 * other part of the analytical step follows the simulated step as it is. */
bool des_simulates_part(enum step_part i);

/* Fill p->io from the goodput model of p's scenario (nothing without a
 * "storage" object) and take what it simulates out of p->tail_s: the data
 * stall when reads are simulated, the amortised checkpoint when this is
 * a checkpoint step (opt->checkpoint_step).  SC_EINVAL for a checkpoint
 * step without a checkpoint tier. */
enum sc_status des_io_build(struct des_program *p, const struct des_options *opt, struct sc_error *err);

/* Rank (global, simulated) reads a batch / writes its checkpoint share. */
bool des_io_reader(const struct des_program *p, int rank);

/* The cost of simulating p (fills p->est; des_program_build calls it). */
void des_program_estimate(struct des_program *p, const struct des_options *opt);

/* Member i of the group of rank r. */
static inline int des_member(const struct des_gdef *g, int r, int i)
{
	return r - ((r / g->stride) % g->n) * g->stride + i * g->stride;
}

static inline int des_index_in(const struct des_gdef *g, int r)
{
	return (r / g->stride) % g->n;
}

/* The overlap rule of the analytical engine (models/layout.h, its one
 * owner). */
#define des_hide layout_hidden_s

/* ---- the platform (platform.cpp, see platform.h) ----------------------------- */

/* The platform description of fabric t with hosts for gpus[0..n) (one
 * simulated GPU standing for `fold` TP replicas: its share of a leaf's
 * uplink is 1/fold of it). */
void des_platform_spec_of(const struct net_topo *t, int fold, double gpu_flops, const int *gpus,
			  int n, struct des_platform_spec *spec);

/* ---- the simulation (des_engine.c, in the child) ---------------------------------- */

/* Start SimGrid in this process with the DES's settings: the CM02 network
 * model with TCP-gamma 0 and no cross traffic (flows take exactly bytes /
 * bandwidth and share max-min fairly), logging off, small actor stacks,
 * no guard pages past 30,000 actors.  Once per process. */
void des_sim_init(int planned_actors);

/* Run p in this process (which must never have run SimGrid) and fill r
 * (events malloc'd when opt->trace).  Returns SC_OK or an error. */
enum sc_status des_engine_run(const struct des_program *p, const struct des_options *opt,
			      struct des_result *r, struct sc_error *err);

/* Run n_jobs programs together on one fabric (in this process, as
 * des_engine_run): job k's nodes are the fabric's nodes after job k-1's
 * (fabric->placement, when set, puts them under their leaves; each
 * program's own topo holds its slice); res[k] receives job k's result.
 * The jobs must share the instance and the TP folding. */
enum sc_status des_engine_run_jobs(const struct des_program *const *ps, int n_jobs,
				   const struct net_topo *fabric, const struct des_options *opt,
				   struct des_result *res, struct sc_error *err);

/* des_engine_run_jobs with streams[0..n_streams) beside the jobs (n_jobs
 * may be 0); stream_out[i] receives stream i's result. */
enum sc_status des_engine_run_shared(const struct des_program *const *ps, int n_jobs,
				     const struct des_stream *streams, int n_streams,
				     const struct net_topo *fabric, const struct des_options *opt,
				     struct des_result *res, struct des_stream_result *stream_out,
				     struct sc_error *err);

/* ---- streams (des_stream.c) ---------------------------------------------------------- */

struct des_streams_run;
/* The GPUs the streams need hosts for (folded, unique, increasing) into
 * gpus (may be NULL: only counted, with repeats); returns how many. */
int des_streams_gpus(const struct des_stream *st, int n, int fold, int *gpus);
/* Spawn the streams' actors on the platform's hosts (hosts[i] is gpus[i]'s). */
enum sc_status des_streams_start(const struct des_stream *st, int n, int fold, const int *gpus,
				 void *const *hosts, int n_hosts, struct des_streams_run **out,
				 struct sc_error *err);
enum sc_status des_streams_finish(const struct des_streams_run *run, struct des_stream_result *out,
				  struct sc_error *err);
void des_streams_free(struct des_streams_run *run);

/* One member's part of a ring-pattern collective (see struct coll_flows):
 * K macro-steps, each sleeping 1/K of the latency, then sending 1/K of the
 * NVLink and EFA bytes to out[0] and out[1] and receiving as much on in[0]
 * and in[1] (NULL out: that tier is not used).  A macro-step carries the
 * bytes and latency of the ring steps it merges, so that a contention-free
 * collective takes fl->time_s whatever K.  Runs in a SimGrid actor (the
 * mailbox arguments are sg_mailbox_t).  Returns false when a message from
 * another collective (tag) arrived: an internal error. */
bool des_ring_member(const struct coll_flows *fl, int K, sg_mailbox_t const out[2],
		     sg_mailbox_t const in[2], long long tag);

/* ---- explicit collectives and flows on a fabric (des_probe.c) --------------------- */

/* A collective among GPUs in ring order: member i sends its NVLink share
 * to the next member of its run of rpd (one NVLink domain) and its EFA
 * share to member (i + rpd) mod n. */
struct des_probe_coll {
	int n;
	const int *gpus;
	int rpd;
	struct coll_flows fl;     /* what each member sends */
	int steps;
	double start_s;
};

/* A point-to-point flow; src and dst >= 0 a GPU, < 0 storage host -1 - it. */
struct des_probe_flow {
	int src, dst;
	double bytes, start_s;
};

struct des_probe {
	struct net_topo topo;
	int n_storage;
	double storage_Bps;
	int n_coll;
	const struct des_probe_coll *coll;
	int n_flow;
	const struct des_probe_flow *flow;
};

/* Simulate pr's collectives and flows on its fabric (in a forked child,
 * the DES's SimGrid settings and platform): coll_end[i] is when the last
 * member of collective i finished, flow_end[k] when flow k arrived. */
enum sc_status des_probe_run(const struct des_probe *pr, double *coll_end, double *flow_end,
			     struct sc_error *err);

/* ---- child processes (des_fork.c) --------------------------------------------------- */

/* What a child runs.  run() writes its answer to fd and returns 0; or
 * prints a one-line message on its stderr (the parent's buffer, never the
 * terminal) and returns DES_CHILD_EXIT_BASE + an enum sc_status. */
#define DES_CHILD_EXIT_BASE 40
struct des_child_fn {
	int (*run)(void *arg, int fd);
	void *arg;
};

struct des_child_out {
	enum sc_status status;
	char message[SC_ERROR_MSG_MAX];
	unsigned char *data;      /* everything the child wrote, malloc'd */
	size_t len;
	double wall_s;
	double maxrss_bytes;      /* the child's, from wait4 */
	double cpu_s;             /* the child's user + system time, from wait4 */
};

/* Run n functions each in its own forked child, at most jobs at once, each
 * limited to time_limit_s of wall time (killed past it).  out[i] receives
 * child i's bytes or its failure: a crash (signal), a non-zero exit, or the
 * time limit.  Returns SC_OK when every child succeeded.  Flushes stdout and
 * stderr before forking. */
enum sc_status des_fork_run(const struct des_child_fn *fns, int n, int jobs,
			    double time_limit_s, struct des_child_out *out);

void des_child_out_free(struct des_child_out *o);

/* Write all of buf to fd (retrying short writes); 0 or -1. */
int des_write_all(int fd, const void *buf, size_t len);

#endif
