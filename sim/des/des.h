/* des.h: the discrete-event engine: one training step simulated on SimGrid 3.32.
 *
 * des_predict() turns a scenario into per-rank programs (sim/des/des_program.c:
 * the analytical engine's op list and overlap rules, the pipeline schedule,
 * pipeline sends, DP/FSDP buckets, CP and EP traffic that crosses NVLink
 * domains), builds the fabric of models/network.h's struct net_topo as a
 * SimGrid platform (platform.cpp), and runs the simulation in a forked
 * child process (des_fork.c) whose result comes back over a pipe: SimGrid's
 * engine is a per-process singleton that cannot be reset and aborts on many
 * errors, so the parent never touches it.  The result has the analytical
 * engine's structure (struct step_result) plus what only a simulation
 * sees: the busiest links, the message count, and optionally a timeline
 * (des_trace_write: Chrome/Perfetto JSON).
 *
 * Ownership: the caller owns struct des_result and frees what des_predict()
 * allocated in it (the timeline) with des_result_free().  Nothing here
 * prints; errors are values (SC_EUNSUPPORTED for a layout the DES does not
 * cover, SC_EINVAL for a failed simulation, SC_ENOMEM).
 */
#ifndef SC_DES_H
#define SC_DES_H

#include <stdbool.h>
#include <stdio.h>

#include "../analytic/step.h"
#include "../../models/units.h"

/* Default message budget of one simulated step (--fidelity): past it,
 * collectives are coarsened (ring steps merged, DP buckets merged). */
#define DES_DEFAULT_FIDELITY 1000000.0
/* Default wall-clock limit of one simulation child. */
#define DES_DEFAULT_TIME_LIMIT_S 900.0
/* Default cost budgets of one simulation (docs/des.md "The discrete-event
 * engine", Cost): known from the program before any child starts
 * (struct des_estimate), past them des_predict() refuses with the estimate
 * (SC_EUNSUPPORTED) and names the option that raises it.  Flows cost about
 * 5-35 us each here (docs/des.md, the cost table), so 10^7 flows stay below the
 * 900 s time limit; 4 GiB is what a laptop or a CI runner can give one
 * child (search --rerank runs one per CPU).  Timeline slices (--trace) cost
 * about 40 bytes in memory and 110 bytes of JSON each. */
#define DES_DEFAULT_MAX_FLOWS 1e7
#define DES_DEFAULT_MAX_MEMORY_BYTES (4.0 * SC_GiB_BYTES)
#define DES_DEFAULT_MAX_EVENTS 2e7

struct des_options {
	double fidelity;      /* message budget; 0 = DES_DEFAULT_FIDELITY; < 0 = exact
				 (every ring step and bucket its own message) */
	double time_limit_s;  /* 0 = DES_DEFAULT_TIME_LIMIT_S */
	double max_flows;     /* refuse past this many flows; 0 = DES_DEFAULT_MAX_FLOWS */
	double max_memory_bytes; /* refuse past this peak memory estimate; 0 = default */
	double max_events;    /* with trace: refuse past this many timeline slices; 0 = default */
	bool trace;           /* record the timeline for des_trace_write() */
	bool no_fold;         /* simulate every TP replica even where they are
				 symmetric (tests) */
	bool checkpoint_step; /* simulate the step that writes a checkpoint (the
				 scenario's storage object; des_io.c) */
	unsigned checkpoint_jobs; /* des_predict_together: bit k, job k's step writes one */
};

/* The storage traffic of the simulated step (a scenario's "storage"
 * object, sim/des/des_io.c): data reads from the data tier and, in a
 * checkpoint step, the checkpoint written to its tier, as flows between
 * the GPUs and the storage hosts of the fabric. */
struct des_storage_use {
	bool data;                /* data reads simulated */
	bool checkpoint;          /* a checkpoint written in this step */
	bool async;               /* ... drained in the background */
	int readers, writers;     /* simulated ranks that read or write */
	double read_bytes;        /* per reader per step */
	double write_bytes;       /* per GPU */
	double read_s;            /* slowest reader: latency + its batch's flow */
	double write_s;           /* slowest writer: its share written (sync: the
				     stall's write; async: the drain) */
	double analytic_read_s;   /* the analytical fetch (goodput's data model) */
	double analytic_write_s;  /* the analytical write (sync) or drain (async) */
};

#define DES_NAME_MAX 40
#define DES_TOP_LINKS 10

/* One direction of one simulated link and what it carried in the step. */
struct des_link_use {
	char name[DES_NAME_MAX];  /* e.g. "n12-nic3 up", "leaf1 uplink down" */
	const char *kind;         /* "nvlink", "nic", "uplink", "storage" (static) */
	double capacity_Bps;
	double bytes;             /* simulated bytes (after efficiency) */
	double utilisation;       /* bytes / (capacity * step time) */
};

/* What one simulation will cost, from its program, before it runs
 * (des_estimate(); test_des_estimate checks the counts bound what the
 * simulation then does, and the memory model the child's peak RSS). */
struct des_estimate {
	int simulated_gpus;       /* SimGrid hosts with programs */
	int actors;               /* exact */
	long long routes;         /* platform routes (NVLink pairs inside a domain, NIC legs) */
	long long flows;          /* after coarsening; >= the flows simulated */
	long long flows_exact;    /* without coarsening */
	long long flows_fixed;    /* pipeline, CP and EP flows: coarsening cannot merge them */
	long long events;         /* timeline slices; >= those recorded with --trace */
	double memory_bytes;      /* peak memory of the child (model: see des_program.c) */
};

struct des_stats {
	int gpus;                 /* in the cluster */
	int simulated_gpus;       /* hosts with an actor program */
	int fold;                 /* TP replicas represented by one simulated GPU */
	int actors;
	long long messages;       /* flows simulated */
	long long messages_estimate;
	long long messages_exact; /* estimate without coarsening */
	int coll_steps;           /* most macro-steps of a DP collective (coarsening) */
	int bucket_merge;         /* DP buckets merged into one job */
	double platform_s;        /* child wall time: building the platform */
	double run_s;             /* child wall time: the simulation */
	double wall_s;            /* parent wall time, fork to result */
	double child_maxrss_bytes; /* peak RSS of the child (getrusage) */
	double child_cpu_s;       /* CPU time of the child (user + system) */
	struct des_estimate estimate; /* what was known before it ran */
};

/* A slice of a simulated GPU's timeline. */
enum des_ev_kind {
	DES_EV_FORWARD, DES_EV_BACKWARD, DES_EV_BUBBLE, DES_EV_PP_WAIT, DES_EV_CP, DES_EV_EP,
	DES_EV_DP_WAIT, DES_EV_FSDP, DES_EV_OPTIMIZER, DES_EV_OVERHEAD, DES_EV_INTERFERENCE,
	DES_EV_DP_JOB, DES_EV_PP_SEND, DES_EV_FLOWS, DES_EV_COUNT
};

struct des_event {
	int rank;                 /* global rank of the simulated GPU */
	unsigned char kind;       /* enum des_ev_kind */
	unsigned char track;      /* 0 compute stream, 1 DP stream, 2 PP stream, 3 CP/EP flows */
	short chunk;
	int mb;                   /* micro-batch, or job index; -1 none */
	double t0_s, t1_s;
};

struct des_result {
	struct step_result step;      /* the simulated step (analytical structure) */
	struct step_result analytic;  /* the analytical engine on the same scenario */
	struct des_stats stats;
	struct des_storage_use storage;
	int n_links;
	struct des_link_use links[DES_TOP_LINKS]; /* busiest first */
	long long n_events;
	struct des_event *events;     /* timeline (options.trace), owned */
};

/* Simulate one step of sc.  opt may be NULL (defaults).  On success fills
 * out (free with des_result_free); on failure fills err, out holds nothing
 * to free. */
enum sc_status des_predict(const struct scenario *sc, const struct des_options *opt,
			   struct des_result *out, struct sc_error *err);

/* The cost of simulating sc with opt (may be NULL), without simulating it:
 * fills est; fails as des_predict() would before it starts a child (a
 * layout the DES does not cover), but not on the budgets.  des_predict()
 * checks est against opt's budgets (des_estimate_check). */
enum sc_status des_estimate(const struct scenario *sc, const struct des_options *opt,
			    struct des_estimate *est, struct sc_error *err);

/* SC_OK when est fits opt's budgets (opt may be NULL: the defaults), else
 * SC_EUNSUPPORTED with the estimate and the option that raises the budget
 * (--max-flows, --max-memory, --max-events) in err. */
enum sc_status des_estimate_check(const struct des_estimate *est, const struct des_options *opt,
				  struct sc_error *err);

/* Simulate n scenarios, up to jobs children at once (jobs <= 0: the number
 * of online CPUs).  status[i] and errs[i] per scenario; returns SC_OK when
 * every one succeeded, else the first failure's status. */
enum sc_status des_predict_many(const struct scenario *const *sc, int n,
				const struct des_options *opt, int jobs,
				struct des_result *out, enum sc_status *status,
				struct sc_error *errs);

/* Simulate the n jobs sc[0..n) together on one fabric: fabric is the
 * cluster they share (its nodes all the jobs', in order: job k's nodes
 * after job k-1's; its placement, when set, says which leaves they are
 * under; each sc[k].cluster.placement must be its slice of it).  out[k]
 * is job k's step (no timeline); compare with des_predict() of sc[k]
 * alone for its slowdown.  The jobs share the instance type; when their
 * TP folding differs, none is folded. */
enum sc_status des_predict_together(const struct scenario *const *sc, int n, const struct cluster *fabric,
				    const struct des_options *opt, struct des_result *out, struct sc_error *err);

/* Traffic on the fabric that is not a training step (a serving
 * deployment's KV-cache transfers, sim/cluster): flows between GPUs of
 * the fabric, each issued at its time and sent after the previous flow
 * of the same source GPU ended (one transfer at a time per GPU, as a
 * prefill replica's KV sender).  With streams no job folds its TP
 * replicas (des_predict_shared): every GPU is simulated. */
struct des_flow {
	int src, dst;             /* global GPU indices of the fabric */
	double t_s;               /* issued */
	double bytes;
	double latency_s;         /* slept before it is sent (its alpha) */
};

struct des_stream {
	const struct des_flow *flows; /* by t_s within each source */
	int n_flows;
};

struct des_stream_result {
	int flows;                /* simulated (after folding) */
	double mean_s;            /* mean flow time, latency + transfer */
	double max_s;
	double mean_wait_s;       /* mean time queued behind the source's previous flow */
	double bytes;             /* simulated */
	double end_s;             /* when the last one arrived */
};

/* Simulate training jobs sc[0..n) (n may be 0) and streams[0..n_streams)
 * together on fabric, as des_predict_together; the streams' GPUs must be
 * on nodes after every job's.  stream_out[i] receives stream i's flows. */
enum sc_status des_predict_shared(const struct scenario *const *sc, int n, const struct des_stream *streams,
				  int n_streams, const struct cluster *fabric, const struct des_options *opt,
				  struct des_result *out, struct des_stream_result *stream_out,
				  struct sc_error *err);

void des_result_free(struct des_result *r);

/* Write r's timeline as Chrome trace-event JSON (loads in ui.perfetto.dev):
 * one process per simulated GPU, threads for its compute stream and its
 * DP, PP and CP/EP communication.  Returns false on a write error. */
bool des_trace_write(FILE *out, const struct scenario *sc, const struct des_result *r);

const char *des_ev_kind_name(enum des_ev_kind k);

#endif
