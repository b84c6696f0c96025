/* schedule.h: pipeline schedules turn per-stage micro-batch times into a step.
 *
 * A schedule is one entry of a table (sched_ops, indexed by enum sc_schedule):
 * how long a step of m micro-batches takes on p stages with v virtual stages
 * per rank, and how many micro-batches of activations stage 0 holds at once.
 * Adding zero-bubble or DualPipe later means adding an enum value and a row.
 * Pure; plain structs; nothing to free.
 */
#ifndef SC_SCHEDULE_H
#define SC_SCHEDULE_H

#include "scenario.h"

struct sched_in {
	int p;            /* pipeline stages (ranks), >= 1 */
	int v;            /* virtual stages (model chunks) per rank, >= 1 */
	int m;            /* micro-batches per step per pipeline, >= 1 */
	/* forward + backward time of one micro-batch on a stage (all its v
	 * chunks), including exposed intra-stage communication: the slowest
	 * stage and the sum over all p stages */
	double stage_max_s;
	double stage_sum_s;
};

struct sched_out {
	double time_s;          /* fill + steady state + drain */
	double busy_s;          /* m * stage_max_s: the slowest stage's own work */
	double bubble_s;        /* time_s - busy_s */
	double bubble_fraction; /* bubble_s / busy_s */
};

struct sched_ops {
	const char *name;
	void (*step)(const struct sched_in *in, struct sched_out *out);
	/* micro-batches' worth of activations pipeline rank `stage` keeps at
	 * its peak (in units of one micro-batch through all its v chunks) */
	double (*inflight)(int p, int v, int m, int stage);
};

/* The row of schedule s (never NULL for a valid enum value). */
const struct sched_ops *sched_get(enum sc_schedule s);

/* Shorthands for sched_get(s)->step / ->inflight. */
void sched_step(enum sc_schedule s, const struct sched_in *in,
		struct sched_out *out);
double sched_inflight(enum sc_schedule s, int p, int v, int m, int stage);

#endif
