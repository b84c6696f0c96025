/* cal_regress.h: regression of calibrated predictions (`stepcast regress`).
 *
 * A directory (tests/regress/) pins a set of scenarios (scenarios/ *.json)
 * and the predictions they gave with every committed calibration profile of
 * their GPU family (baselines.json).  reg_run() predicts every scenario x
 * profile again; reg_compare() says which metric of which case moved by
 * more than a relative tolerance, which cases are new (no baseline) and
 * which baselines are stale (their case is gone).  reg_baselines_json()
 * writes the current predictions as the new baselines (--update).
 *
 * Ownership: reg_run() fills a caller-owned struct reg_run whose cases
 * array it allocates; release with reg_run_free().  Baselines likewise with
 * reg_baselines_free().  Returned cJSON trees are the caller's.
 */
#ifndef SC_CAL_REGRESS_H
#define SC_CAL_REGRESS_H

#include <stdbool.h>

#include <cjson/cJSON.h>

#include "../sim/analytic/step.h"
#include "../models/progress.h"
#include "../sim/config/catalog_load.h"

/* step_time_s, tokens_per_s, mfu, hfu, mem_total_bytes, then one
 * "<part>_s" per step_part: the metrics compared. */
#define REG_N_METRICS (5 + PART_COUNT)
#define REG_PATH_MAX 256
#define REG_ERROR_MAX 256

struct reg_case {
	char scenario[REG_PATH_MAX];       /* relative to the regress directory */
	char calibration[SC_NAME_MAX];
	bool failed;                       /* the prediction failed: error holds why */
	char error[REG_ERROR_MAX];
	double metric[REG_N_METRICS];
	double seconds;                    /* wall time of the prediction */
};

struct reg_run {
	int n_cases;
	struct reg_case *cases;
};

struct reg_baselines {
	int n_cases;
	struct reg_case *cases;            /* seconds unused */
};

/* Name of metric i ("step_time_s", ..., "compute_s", ...). */
const char *reg_metric_name(int i);

/* Predict every dir/scenarios/ *.json with every profile of cat whose GPU
 * family is the scenario's.  A scenario that does not load is an error;
 * a prediction that fails is recorded in its case. */
enum sc_status reg_run(const struct catalog *cat, const char *dir, struct reg_run *run,
		       struct sc_error *err);
/* The same with what-if overrides applied to every scenario (overrides.h),
 * telling progress (may be NULL) how many scenarios are done. */
enum sc_status reg_run_ov(const struct catalog *cat, const char *dir, struct cfg_overrides *ov,
			  const struct sc_progress *progress, struct reg_run *run, struct sc_error *err);
void reg_run_free(struct reg_run *run);

/* Read dir/baselines.json strictly.  A missing file gives zero cases when
 * allow_missing (for --update), else SC_EIO. */
enum sc_status reg_read_baselines(const char *path, bool allow_missing,
				  struct reg_baselines *b, struct sc_error *err);
void reg_baselines_free(struct reg_baselines *b);

/* The current predictions as baselines.json (schema_version 1). */
cJSON *reg_baselines_json(const struct reg_run *run);

enum reg_status {
	REG_HELD,      /* every metric within the tolerance */
	REG_MOVED,     /* some metric moved */
	REG_NEW,       /* no baseline for this case */
	REG_STALE,     /* a baseline whose case is gone */
	REG_CHANGED    /* failed now and not before, or the other way round */
};

struct reg_move {
	int metric;
	double baseline, now;
};

struct reg_result {
	const struct reg_case *now;       /* NULL for REG_STALE */
	const struct reg_case *baseline;  /* NULL for REG_NEW */
	enum reg_status status;
	int n_moves;
	struct reg_move moves[REG_N_METRICS];
};

struct reg_report {
	double tolerance_rel;
	int n_results, n_failed;
	struct reg_result *results;       /* owned; reg_report_free() */
};

/* Compare run with baselines: a metric moved when |now - baseline| >
 * tolerance_rel * |baseline| (and more than 1e-12 of it, so that
 * floating-point noise on a 0 does not count). */
enum sc_status reg_compare(const struct reg_run *run, const struct reg_baselines *b,
			   double tolerance_rel, struct reg_report *rep, struct sc_error *err);
void reg_report_free(struct reg_report *rep);

const char *reg_status_name(enum reg_status s);

#endif
