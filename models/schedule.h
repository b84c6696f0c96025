/* schedule.h: pipeline schedules turn per-stage micro-batch times into a step.
 *
 * A schedule is one row of a table (struct sched_ops, indexed by enum
 * sc_schedule): its validity rule (the framework's), its step time for any
 * p stages, v model chunks per rank and m micro-batches, its bubble, the
 * activations a rank holds at its peak, the parameter copies a rank keeps,
 * and the order in which each rank runs its forward (F), input-gradient
 * backward (B) and weight-gradient backward (W) passes.  The order is what
 * the discrete-event engine replays (sim/des) and what sched_replay() times
 * exactly; the step times are closed forms checked against that replay
 * (tests/unit/test_schedule.c).
 *
 * Rows: GPipe (Huang et al. 2019), 1F1B (Narayanan et al. 2021, PipeDream-
 * Flush), Megatron-Core's interleaved 1F1B, ZB-H1 (Qi et al. 2023, "Zero
 * Bubble Pipeline Parallelism", ICLR 2024), ZB-V (Qi et al. 2024, "Pipeline
 * Parallelism with Controllable Memory"; V-shaped placement of 2 chunks) and
 * DualPipe (DeepSeek-V3 technical report, arXiv 2412.19437, section 3.2.1;
 * github.com/deepseek-ai/DualPipe).
 *
 * Pure; plain structs.  Only sched_replay allocates (and frees) memory.
 */
#ifndef SC_SCHEDULE_H
#define SC_SCHEDULE_H

#include <stdbool.h>
#include <stddef.h>

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
	/* how stage_max_s splits: its forward part and the weight-gradient
	 * part of its backward (the rest, stage_max_s - fwd - wgrad, is the
	 * input-gradient backward B).  Both 0: not known, taken as thirds
	 * (forward, data gradient and weight gradient GEMMs have equal FLOPs).
	 * Only the zero-bubble schedules and DualPipe depend on the split. */
	double fwd_max_s;
	double wgrad_max_s;
};

struct sched_out {
	double time_s;          /* fill + steady state + drain */
	double busy_s;          /* m * stage_max_s: the slowest stage's own work */
	double bubble_s;        /* time_s - busy_s */
	double bubble_fraction; /* bubble_s / busy_s */
};

/* One pass of one micro-batch through one model chunk of a rank.
 * SCHED_OP_BW is a whole backward (B then W, its gradient sent after both,
 * as in Megatron's 1F1B); SCHED_OP_B sends its gradient at once and leaves
 * its W for later (zero-bubble schedules). */
enum sched_op_kind { SCHED_OP_F, SCHED_OP_B, SCHED_OP_W, SCHED_OP_BW };

struct sched_op {
	unsigned char kind;     /* enum sched_op_kind */
	/* an F run together with the op after it (DualPipe's overlapped
	 * forward-and-backward pair, "F&B"): both start when both inputs are
	 * there and both send when both are done */
	unsigned char fused;
	short chunk;            /* 0 .. sched_chunks() - 1 */
	int mb;                 /* 0 .. sched_chunk_microbatches() - 1 */
};

struct sched_ops {
	const char *name;
	/* the framework's rule for (p, v, m): false with a message naming it */
	bool (*check)(int p, int v, int m, char *why, size_t n);
	void (*step)(const struct sched_in *in, struct sched_out *out);
	/* micro-batches' worth of activations pipeline rank `stage` keeps at
	 * its peak (in units of one micro-batch through all its v chunks) */
	double (*inflight)(int p, int v, int m, int stage);
	/* the textbook bubble for equal stages (fill + drain of the paper's
	 * table), F, B, W of one micro-batch on a stage (all its chunks) */
	double (*bound)(int p, int v, int m, double f, double b, double w);
	/* stage's op order into ops; see sched_order */
	int (*order)(int p, int v, int m, int stage, struct sched_op *ops);
	double param_copies;    /* parameter copies a rank holds (DualPipe 2) */
};

/* The row of schedule s (never NULL for a valid enum value). */
const struct sched_ops *sched_get(enum sc_schedule s);

/* Whether schedule s runs with p stages, v chunks per rank and m
 * micro-batches per step; false with a one-line reason in why (n bytes,
 * may be NULL) naming the framework's rule and its source.  m == 0: the
 * micro-batches are not known, only the rules on p and v apply. */
bool sched_check(enum sc_schedule s, int p, int v, int m, char *why, size_t n);

/* Shorthands for sched_get(s)->step / ->inflight / ->param_copies. */
void sched_step(enum sc_schedule s, const struct sched_in *in,
		struct sched_out *out);
double sched_inflight(enum sc_schedule s, int p, int v, int m, int stage);
double sched_param_copies(enum sc_schedule s);

/* The most activation bytes rank `stage` holds at once under s's op order
 * when one micro-batch through chunk c keeps chunk_bytes[c]
 * (sched_chunks() entries): held from its F until its W or whole backward,
 * the replay's rule.  For ranks whose chunks differ (DualPipe's rank holds
 * stage r and stage p - 1 - r).  Returns -1 when the order cannot be
 * built (no memory, or m not valid for s). */
double sched_peak_bytes(enum sc_schedule s, int p, int v, int m, int stage,
			const double *chunk_bytes);

/* How much shorter than the closed form (sched_step) the exact replay of s
 * can be, as a fraction of the step: 0 for equal chunks; with unequal
 * chunks the closed forms' fill and drain are approximations.  Measured
 * over every pipelined layout of the shipped scenarios' search spaces
 * (ZB-H1 4.2 %, the others 1.4 %; DualPipe and ZB-V 2 % on random splits;
 * interleaved 1F1B 2.6 % on Mixtral-8x22B over 32 B200 nodes at Blackwell's
 * 60 us eager launch cost), with headroom; searches screen with it
 * (sim/search). */
double sched_closed_form_slack(enum sc_schedule s);

/* Textbook bubble of s for equal stages (see struct sched_ops). */
double sched_bubble_bound(enum sc_schedule s, int p, int v, int m, double f,
			  double b, double w);

/* ---- the op order ---------------------------------------------------------- */

/* Model chunks a rank runs: v, and 2 for DualPipe (one per direction). */
int sched_chunks(enum sc_schedule s, int v);

/* Micro-batches through each chunk: m, and m / 2 for DualPipe (each
 * direction is fed half of them). */
int sched_chunk_microbatches(enum sc_schedule s, int m);

/* Pipelines (directions) of s: 1, and 2 for DualPipe. */
int sched_pipes(enum sc_schedule s);

/* Virtual stages along one pipeline: p v (DualPipe: p). */
int sched_depth(enum sc_schedule s, int p, int v);

/* Where chunk `chunk` of rank `stage` sits: its pipeline and its position
 * j along it (0 = the first layers).  j is also the model slot of the
 * chunk: which of the sched_depth() even parts of the layers it holds
 * (interleaved: chunk * p + stage; ZB-V: stage, then 2p - 1 - stage;
 * DualPipe: stage for direction 0 and p - 1 - stage for direction 1).
 * Inline: it is in every stage loop of a search. */
static inline void sched_place(enum sc_schedule s, int p, int v, int stage, int chunk, int *pipe, int *j)
{
	(void)v;
	*pipe = 0;
	switch (s) {
	case SCHED_ZB_V:
		*j = chunk == 0 ? stage : 2 * p - 1 - stage;
		return;
	case SCHED_DUALPIPE:
		*pipe = chunk;
		*j = chunk == 0 ? stage : p - 1 - stage;
		return;
	default:
		*j = chunk * p + stage;
		return;
	}
}

/* The model slot of chunk `chunk` of rank `stage` (sched_place's j). */
static inline int sched_slot(enum sc_schedule s, int p, int v, int stage, int chunk)
{
	int pipe, j;

	sched_place(s, p, v, stage, chunk, &pipe, &j);
	return j;
}

/* The inverse: the rank and chunk at position j of pipeline pipe. */
void sched_at(enum sc_schedule s, int p, int v, int pipe, int j, int *stage,
	      int *chunk);

/* Stage's op order into ops (room for sched_max_ops()); returns the count,
 * or -1 when out of memory.  A fixed order: both engines replay it. */
int sched_order(enum sc_schedule s, int p, int v, int m, int stage, struct sched_op *ops);
int sched_max_ops(enum sc_schedule s, int p, int v, int m);

/* The exact makespan of s's op order: rank r's chunk c takes f[r * C + c]
 * forward, b[...] input-gradient backward and w[...] weight-gradient
 * backward per micro-batch (C = sched_chunks()), a pipeline message between
 * two ranks takes comm_s, every op starts when its rank is free and its
 * inputs have arrived.  stage_end (p entries, may be NULL) receives when
 * each rank finished; peak (p entries, may be NULL) the most activations
 * it held, in chunk-micro-batches.  Returns the makespan, or -1 when the
 * order deadlocks or memory runs out (a bug: the tests check every row). */
double sched_replay(enum sc_schedule s, int p, int v, int m, const double *f,
		    const double *b, const double *w, double comm_s,
		    double *stage_end, double *peak);

#endif
