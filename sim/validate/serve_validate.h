/* serve_validate.h: predict published serving measurements and measure the
 * error, separately for throughput, time to first token (TTFT) and time per
 * output token (TPOT).
 *
 * sval_load() reads a serving validation file (the schema of
 * tests/validation/data/serving-cases.json: "models" and "cases") strictly,
 * fills the models' unstated fields from a supplement file, and turns each
 * case into a serving scenario with one documented rule per unstated
 * setting (listed per case in `assumptions`), or records why the case
 * cannot be expressed.  sval_run() simulates every expressible case.
 *
 * Why serving models have their own reader rather than cfg_read_model():
 * the file's models leave fields null where the cited source does not give
 * them (vocab, ffn_hidden, tied_embeddings), fields the catalogue's table
 * rightly requires, and carry two fields the catalogue does not have
 * (shared_expert_ffn_hidden, parallel_attention).  Loosening the catalogue's
 * table would weaken every catalogue and scenario check; a second strict
 * table here keeps both strict.  The caller owns struct sval_set and frees
 * it with sval_free().
 */
#ifndef SC_SERVE_VALIDATE_H
#define SC_SERVE_VALIDATE_H

#include <stdbool.h>

#include "../serve/serve_config.h"
#include "validate.h"

enum sval_metric { SVAL_THROUGHPUT, SVAL_TTFT, SVAL_TPOT, SVAL_METRICS };

struct sval_value {
	bool have;              /* the case publishes this metric */
	double measured;        /* tokens/s, or ms */
	double predicted;
	double err_rel;         /* (predicted - measured) / measured */
	char stat[24];          /* which statistic: "output tokens/s", "mean", "median", ... */
	bool has_oos;           /* predicted with its source group left out of the fit */
	double oos_predicted;
	double oos_err_rel;
};

#define SVAL_NOTE_MAX 512

struct sval_case {
	char id[VAL_ID_MAX];
	char source_group[SC_NAME_MAX * 2];
	char trust[16];
	char model[SC_NAME_MAX];
	char gpu[SC_NAME_MAX];
	char engine[SC_NAME_MAX];
	int gpu_count;
	char layout[64];
	char precision[48];
	char kind[24];          /* "offline", "online", "static" */
	char engine_version[SC_NAME_MAX * 2]; /* "vllm 0.8", "tensorrt-llm ?" */
	char regime[16];        /* "prefill-heavy", "decode-heavy", "long-output",
				   "balanced" (sval_regime), "-" before lengths */
	bool expressible;
	char reason[VAL_REASON_MAX];
	char assumptions[SVAL_NOTE_MAX];
	struct sval_value m[SVAL_METRICS];
	/* open loop above the simulated deployment's sustainable rate: its
	 * latencies depend on the request count, so only its throughput is
	 * compared (sval_compared) */
	bool unstable;
	double sustainable_rps;
	struct srv_scenario *sc; /* owned; NULL when not expressible */
};

struct sval_set {
	char path[512];
	struct sval_case *cases;
	int n_cases;
	bool oos;               /* sval_cross_validate ran: out-of-sample values exist */
};

/* Default paths (source tree, overridable with $STEPCAST_VALIDATION_DIR). */
const char *sval_default_cases_path(void);
const char *sval_default_supplement_path(void);

enum sc_status sval_load(const char *cases_path, const char *supplement_path,
			 const struct catalog *cat, const struct srv_engines *engines,
			 struct sval_set *set, struct sc_error *err);

/* Simulate every expressible case.  calibration given: that profile for
 * the cases of its GPU family; else each case keeps its own.  A case whose
 * simulation fails becomes not expressible with the reason. */
void sval_run(struct sval_set *set, const struct calibration *calibration);

/* Statistics of one metric over the cases selected by filter (NULL: all). */
/* The serving regime bands (REGIME_SERVE_PREFILL, REGIME_SERVE_DECODE of
 * models/uncertainty.h, by the mean lengths) from the out-of-sample values
 * of the cases of GPU family `family` (NULL: all): every compared metric
 * once, as the time-like ratio measured / predicted (TTFT, TPOT) or
 * predicted / measured (throughput), so one band widens all three
 * (bands.h's val_band_of_log_ratios over source groups); coverage nested,
 * each value against the band of its regime's other source groups
 * (covered[r]: values checked). */
void sval_regime_bands(const struct sval_set *set, const char *family,
		       struct model_regime_band band[REGIME_COUNT], int covered[REGIME_COUNT]);

/* MAPE (fraction) of the out-of-sample predictions of the compared values
 * of metric among the cases filter accepts (NULL: all); *count of them. */
double sval_oos_mape(const struct sval_set *set, enum sval_metric metric,
		     bool (*filter)(const struct sval_case *, const void *), const void *arg,
		     int *count);

void sval_stats(const struct sval_set *set, enum sval_metric metric,
		bool (*filter)(const struct sval_case *, const void *), const void *arg,
		struct val_stats *out);

/* The regime of mean lengths in and out tokens: long-output (out >=
 * SVAL_LONG_OUTPUT_TOKENS), prefill-heavy (in >= 4 out), decode-heavy (out
 * >= 4 in), else balanced (static). */
#define SVAL_LONG_OUTPUT_TOKENS 1000
const char *sval_regime(double in, double out);

/* Whether metric k of vc enters the statistics and the fit: published,
 * expressed, and for TTFT and TPOT a stable run. */
bool sval_compared(const struct sval_case *vc, enum sval_metric k);

/* "throughput", "ttft" or "tpot" (static). */
const char *sval_metric_name(enum sval_metric m);

void sval_free(struct sval_set *set);

#endif
