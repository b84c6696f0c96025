/* goodput.h: from one step to the calendar: data-loading stalls,
 * checkpoints, failures, restarts and stragglers composed over a whole run.
 *
 * sim_goodput() takes a scenario with a "storage" (and/or "stragglers")
 * object and its step prediction, and composes models/storage (data demand
 * against supply, checkpoint size and I/O on the tier), models/resilience
 * (failure rates of the job's size, Young/Daly intervals, Daly's wall-time
 * model, straggler stretch) and the recovery method into the goodput
 * fraction (ideal step time x steps / expected wall time), the calendar's
 * split (useful work, stragglers, data stalls, checkpoints, lost work,
 * restarts, restores, planned interruptions), the time and cost to train,
 * and advice.  sim_step_predict() calls it for such scenarios and adds the
 * per-step parts (PART_DATA_STALL, PART_CHECKPOINT, PART_STRAGGLER) to the
 * breakdown; without the objects nothing here runs.
 *
 * Pure and allocation-free except the Monte-Carlo straggler estimate; every
 * struct is the caller's, fixed-size, nothing to free.
 */
#ifndef SC_SIM_GOODPUT_H
#define SC_SIM_GOODPUT_H

#include "../../models/resilience.h"
#include "../../models/storage.h"
#include "step.h"

/* Where the calendar goes (fractions of the expected wall time):
 *   useful      the ideal step's work
 *   stragglers  waiting for the slowest GPU
 *   data_stall  waiting for data
 *   checkpoint  blocking checkpoint saves (and checkpointless replication)
 *   lost_work   work redone after failures
 *   restart     detection, rescheduling, start-up after failures
 *   restore     reading state back after failures
 *   planned     planned interruptions (maintenance, upgrades) */
#define CAL_PART_LIST(X) X(CAL_USEFUL, "useful") X(CAL_STRAGGLER, "stragglers") \
	X(CAL_DATA_STALL, "data_stall") X(CAL_CHECKPOINT, "checkpoint") X(CAL_LOST_WORK, "lost_work") \
	X(CAL_RESTART, "restart") X(CAL_RESTORE, "restore") X(CAL_PLANNED, "planned")
enum cal_part { CAL_PART_LIST(SC_ENUM_ID) CAL_COUNT };

#define SC_GOODPUT_ADVICE_MAX 4
#define SC_GOODPUT_ADVICE_LEN 320

struct goodput_result {
	enum ckpt_recovery recovery;
	bool has_storage;          /* the scenario's "storage" object was used */
	/* one step */
	double base_step_s;        /* the step without the parts below */
	double straggler_stretch;  /* E[max_i s_i] over the job's GPUs (1: none) */
	double straggler_s;        /* per step */
	bool has_data;
	struct storage_bw data_bw;
	struct data_load_out data;
	double data_stall_s;       /* per step */
	double replication_s;      /* checkpointless: extra gradient all-reduce across replicas, per step */
	double work_step_s;        /* base + straggler + data stall + replication */
	double checkpoint_s;       /* blocking checkpoint time amortised per step */
	double step_s;             /* work_step_s + checkpoint_s (what predict reports) */
	/* checkpoint and restore */
	struct storage_bw ckpt_bw;
	struct ckpt_size ckpt;
	struct ckpt_io io;
	double blocking_s;         /* per checkpoint: sync stall, or async snapshot
				      plus any wait for the previous drain */
	double drain_s;            /* async: background write (0 if sync) */
	double drain_net_share;    /* async: fraction of a node's network the drain uses
				      while it runs (not taken from the step: reported) */
	bool periodic;             /* periodic checkpoints are taken */
	double host_bytes_per_node;
	double host_capacity_bytes;
	bool host_memory_ok;       /* async snapshot fits host memory */
	double exchange_s;         /* restore: all-gather of replicated state over EFA/NVLink */
	double restore_s;          /* after a failure: read + exchange + copy back, or the
				      checkpointless peer transfer */
	double mem_extra_bytes;    /* checkpointless: extra state per GPU ... */
	double mem_extra_by[MEM_COUNT]; /* ... by category */
	/* failures */
	double job_rate_per_h;     /* unexpected interruptions per hour */
	double gpu_rate_per_h;     /* ... of which from GPU causes */
	double node_rate_per_h;    /* ... and from node causes */
	double mtbf_s;
	double planned_per_h;
	double restart_s;          /* the recovery method's fixed part */
	double recovery_s;         /* restart + restore (+ an async drain's exposure) */
	double lost_per_failure_s; /* expected work redone per failure */
	/* interval */
	double young_s;            /* Young's interval for blocking_s */
	double daly_s;             /* Daly's higher-order interval */
	double optimum_s;          /* the complete model's numerical optimum */
	bool interval_auto;
	int interval_steps;        /* steps between checkpoints (0: none) */
	double interval_s;         /* interval_steps x work_step_s */
	/* calendar */
	double goodput;            /* CAL_USEFUL */
	double frac[CAL_COUNT];    /* sums to 1 */
	double interruptions_per_day;
	/* time to train (tokens_to_train given) */
	double steps;
	double wall_s;
	double gpu_hours;
	double cost_usd;           /* on-demand, else capacity blocks (purchase_default_pricing) */
	/* what to change, most important first */
	int n_advice;
	char advice[SC_GOODPUT_ADVICE_MAX][SC_GOODPUT_ADVICE_LEN];
};

/* Compose the calendar for sc from its step prediction r.  Only r's parts
 * other than PART_DATA_STALL, PART_CHECKPOINT and PART_STRAGGLER are read,
 * so r may come from sim_step_predict() with them already added.  Without a "storage" object only stragglers are
 * composed (goodput = 1 / stretch).  Errors: SC_EINVAL (a tier lacks the
 * numbers its kind needs), SC_ENOMEM (Monte-Carlo sampler). */

enum sc_status sim_goodput(const struct scenario *sc, const struct step_result *r,
			   struct goodput_result *g, struct sc_error *err);

/* Add g's per-step parts to r's breakdown, recompute step_time_s and what
 * derives from it (tokens/s, TFLOP/s, MFU, HFU), and add a checkpointless
 * replica's state to r's optimizer memory and OOM verdict. */
void sim_goodput_apply(const struct goodput_result *g, struct step_result *r);

/* sim_goodput() then sim_goodput_apply() on r; what sim_step_predict() calls
 * for a scenario with a "storage" or "stragglers" object. */
enum sc_status sim_goodput_extend(const struct scenario *sc, struct step_result *r,
				  struct sc_error *err);

/* sim_goodput_extend through memo (may be NULL). */
enum sc_status sim_goodput_extend_memo(const struct scenario *sc, struct step_result *r,
				       struct goodput_memo *memo, struct sc_error *err);

/* One option of a checkpoint comparison. */
struct goodput_option {
	char label[48];            /* e.g. "checkpoint to fsx-lustre" */
	char tier[SC_NAME_MAX];
	bool ok;                   /* false: not possible for this scenario (why) */
	char why[SC_ERROR_MSG_MAX];
	struct goodput_result g;
};

/* The scenario's run under each of: checkpoints to every tier of tiers[0..n)
 * (local NVMe, FSx, S3, ... with the scenario's async setting and Daly's
 * interval for each), then checkpointless recovery (durable checkpoints only
 * if the scenario sets an interval).  Fills out[0..n+1) and *n_out; an
 * option the scenario cannot use (no drives for NVMe, a data-parallel group
 * too small for replicas) has ok false and why.  r: the scenario's step.
 * SC_ENOMEM only. */
enum sc_status sim_goodput_compare(const struct scenario *sc, const struct step_result *r,
				   const struct storage_spec *const *tiers, int n,
				   struct goodput_option *out, int *n_out, struct sc_error *err);

const char *cal_part_name(enum cal_part p);

#endif
