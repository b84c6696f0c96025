/* search.h: enumerate every valid parallel layout of a scenario, prune by
 * divisibility and memory, predict the rest and keep the best.
 *
 * The enumeration is a fixed nested order (search_run's comment), so every
 * layout has an index; a shard K of N takes the layouts whose index is K
 * modulo N, and search_merge() joins the shards' results into exactly the
 * result of the unsharded run (ranking is a total order: objective, then
 * index).  Each layout is checked for memory first and predicted only when it
 * fits; the step engine's shape part (op list, per-kind times) is prepared
 * once per micro-batch shape and reused (sim_step_prepare/finish), so the
 * inner loop is allocation-free.
 *
 * Ownership: struct search_result owns its rows (search_result_init
 * allocates them, search_result_free releases them); everything else is
 * plain data.  Nothing here prints.
 *
 * Re-ranking (issue 5, `search --rerank K` with the SimGrid engine) goes
 * between search_run() and the report: re-time the first K rows, write the
 * new step time and objective into them and call search_sort().
 */
#ifndef SC_SEARCH_H
#define SC_SEARCH_H

#include <stdbool.h>

#include "../../models/progress.h"
#include "../../models/scenario.h"
#include "../../models/status.h"
#include "../analytic/step.h"
#include "../plan/cost.h"

/* highest throughput first, cheapest per token first, shortest time to
 * train the budget first */
#define SEARCH_OBJECTIVE_LIST(X) X(SEARCH_TOKENS_PER_S, "tokens_per_s") \
	X(SEARCH_USD_PER_TOKEN, "usd_per_token") X(SEARCH_TIME_TO_TRAIN, "time_to_train")
enum search_objective { SEARCH_OBJECTIVE_LIST(SC_ENUM_ID) SEARCH_OBJECTIVE_COUNT };
extern const char *const search_objective_names[];

const char *search_objective_name(enum search_objective o);
bool search_objective_parse(const char *s, enum search_objective *out);

/* Which layouts to enumerate.  A zero field takes the default given. */
/* Every pipeline schedule (enum sc_schedule, models/scenario.h). */
#define SEARCH_SCHEDULES (SCHED_DUALPIPE + 1)
#define SEARCH_ALL_SCHEDULES ((1u << SEARCH_SCHEDULES) - 1)

struct search_space {
	int max_tp;          /* default: the NVLink domain */
	int max_cp;          /* default 16 */
	int max_pp;          /* default: the model's layers */
	int max_vpp;         /* default: no limit (pp * vpp must divide the layers) */
	int max_ep;          /* default: the model's experts */
	int max_micro_batch; /* default: no limit (must divide the global batch) */
	unsigned recompute_mask; /* bit (1 << enum sc_recompute); default all */
	unsigned zero_mask;      /* bit (1 << stage), 3 = ZeRO-3/FSDP; default all */
	unsigned schedule_mask;  /* bit (1 << enum sc_schedule); default all but GPipe (1F1B
				    holds less and is as fast) */
};

#define SEARCH_DEFAULT_MAX_CP 16
/* The memory model's own error where it errs low: the largest
 * under-prediction among the Megatron-Core cases above 10 GiB of `validate
 * --memory` (3.3 %: the 7B TP 4 on GB200 and the MoE TP 2 PP 2 EP 4 CI
 * runs), as a fraction of the usable capacity a ranked layout leaves free. */
#define SEARCH_DEFAULT_HEADROOM 0.033

/* in with its defaults filled in for scenario sc (what search_run uses). */
void search_space_resolve(const struct scenario *sc, const struct search_space *in,
			  struct search_space *out);

struct search_opts {
	struct search_space space;
	enum search_objective objective;
	int top;                   /* rows to keep, >= 1 */
	int shard, shards;         /* take layouts with index % shards == shard */
	enum plan_pricing pricing; /* for usd_per_h and the dollar figures */
	double tokens;             /* budget for time and cost to train; 0: none */
	/* free memory a layout must leave per GPU: < 0 (the default)
	 * SEARCH_DEFAULT_HEADROOM of the usable capacity */
	double min_headroom_bytes;
	/* the one decision rule's confidence for the tie marks
	 * (search_mark_ties); MODEL_DECISION_CONFIDENCE by default */
	double confidence;
	const struct sc_progress *progress; /* told how far the enumeration is; NULL: nobody */
};

/* One predicted layout. */
struct search_row {
	long long index;             /* position in the enumeration */
	struct layout layout;
	int micro_batch_seqs;
	enum sc_recompute recompute;
	double step_time_s;
	double tokens_per_s;
	double mfu;
	double part_s[PART_COUNT];
	double mem_total_bytes;
	double mem_capacity_bytes;
	enum bottleneck bottleneck;
	int micro_batches;
	double bubble_fraction;
	struct plan_train train;     /* time and cost to train opts.tokens */
	double usd_per_mtoken;       /* at the step's throughput (without goodput) */
	double score;                /* the objective, lower is better */
	/* Set after ranking, for the kept rows only (search_band_rows,
	 * search_mark_ties); the enumeration leaves them zero. */
	struct model_band band;      /* of its step time (sim_step_band) */
	bool tie_with_best;          /* not row 0, and model_band_order cannot tell it from row 0 */
};

struct search_stats {
	long long layouts;     /* valid by divisibility, in this shard */
	long long oom;         /* of which did not fit in memory */
	long long predicted;   /* of which were predicted (fit) */
	long long rejected;    /* of which the engine refused (should be 0) */
	long long shapes;      /* micro-batch shapes prepared */
};

struct search_result {
	struct search_row *rows;  /* best first */
	int n_rows;
	int cap;                  /* = opts.top */
	struct search_stats stats;
};

/* Allocate room for top rows.  SC_ENOMEM on failure. */
enum sc_status search_result_init(struct search_result *res, int top, struct sc_error *err);
void search_result_free(struct search_result *res);

/* Fill o with the defaults: objective tokens_per_s, top 10, no sharding,
 * on-demand, the default space, tokens 0. */
void search_opts_default(struct search_opts *o);

/* Enumerate sc's model on sc's cluster (sc's layout is ignored except its
 * flags tp_comm_overlap, ep_comm_overlap and moe_dispatcher; sc's training
 * micro_batch_seqs and recompute are searched) and keep the opts->top best
 * in res (initialised by search_result_init with the same top).  Errors:
 * SC_EINVAL (bad options, e.g. time_to_train without a budget, a shard out
 * of range, a capacity-block price the instance does not have),
 * SC_EUNSUPPORTED (the GPU lacks the precision).  No valid layout is not an
 * error: res->n_rows is 0. */
enum sc_status search_run(const struct scenario *sc, const struct search_opts *opts,
			  struct search_result *res, struct sc_error *err);

/* Insert row into res if it ranks among the best res->cap (by score, then
 * index).  Used by search_run and search_merge. */
void search_offer(struct search_result *res, const struct search_row *row);

/* Re-sort res's rows by score then index (after a re-ranker changed them). */
void search_sort(struct search_result *res);

/* The band of each kept row's step time: sim_step_band of the row's
 * scenario (search_row_scenario) at its step time, the band predict prints
 * for that layout.  Called after ranking (and re-ranking), so the
 * enumeration's loop does no band work.  SC_ENOMEM on failure. */
enum sc_status search_band_rows(const struct scenario *sc, struct search_result *res,
				struct sc_error *err);

/* The quantity objective o ranks, as a positive time or cost (lower is
 * better): step_time_s for tokens_per_s (every layout moves the same tokens
 * per step, so throughput is their inverse), the $/M tokens a report
 * prints for usd_per_token, the time to train for time_to_train.  Each is
 * the step time times factors the model knows (tokens per step, price,
 * steps, goodput), so the step-time band is its band. */
double search_row_decided(enum search_objective o, const struct search_row *row);

/* Mark the rows that the one decision rule (models/uncertainty.h
 * model_band_order at confidence c, independent errors: two layouts are two
 * predictions) cannot tell from row 0 on objective o: tie_with_best, and
 * return how many.  The ranking stays by the point prediction; this only
 * says which of the rows below the best are inside its band.  Needs the
 * rows' bands (search_band_rows; a merge reads them back from the parts).
 * c outside (0, 1) is MODEL_DECISION_CONFIDENCE. */
int search_mark_ties(struct search_result *res, enum search_objective o, double c);

/* The scenario of one row: sc with the row's layout, micro-batch and
 * recompute (for predict-style reports of a chosen layout). */
void search_row_scenario(const struct scenario *sc, const struct search_row *row,
			 struct scenario *out);

/* The objective's value of a predicted step (lower is better). */
double search_score(enum search_objective o, double tokens_per_s, double usd_per_mtoken,
		    double time_to_train_s);

#endif
