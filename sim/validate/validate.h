/* validate.h: predict published training runs and measure the error.
 *
 * val_load() reads a validation file (the schema of
 * tests/validation/data/training-cases.json: "models" and "cases") strictly,
 * and the systems file that says what scale-out network each GPU type's
 * published systems have.  val_run() turns each case into a struct scenario,
 * predicts it and records predicted versus measured step time, or the reason
 * the case cannot be expressed.  The caller owns struct val_set and frees it
 * with val_free().
 */
#ifndef SC_VALIDATE_H
#define SC_VALIDATE_H

#include <stdbool.h>

#include "../../models/scenario.h"
#include "../../models/status.h"
#include "../config/catalog_load.h"
#include "../config/cfg_json.h"

#define VAL_ID_MAX 160
#define VAL_REASON_MAX 256

struct val_case {
	char id[VAL_ID_MAX];
	char source_group[SC_NAME_MAX * 2];
	char trust[16];
	char model[SC_NAME_MAX];
	char gpu[SC_NAME_MAX];
	int gpu_count;
	char layout[96];               /* "tp8 pp4 vpp5 cp1 dp16 ep1" for tables */
	char precision[16];
	bool expressible;
	char reason[VAL_REASON_MAX];   /* why not, when !expressible */
	char assumptions[VAL_REASON_MAX]; /* defaults used for unstated fields */
	double measured_step_s;
	double predicted_step_s;
	double err_rel;                /* (predicted - measured) / measured */
	double predicted_mfu;
	bool predicted_oom;
	unsigned unstated;             /* VAL_UNSTATED_* bits: settings the case leaves open */
	int assumptions_built;         /* length of assumptions before val_run adds its own */
	bool oom_at_defaults;          /* stated settings and defaults do not fit */
	char fits_with[48];            /* what unstated setting fits instead ("" none) */
	double predicted_memory_bytes; /* per GPU, worst stage, as nvidia-smi would show it */
	double memory_capacity_bytes;  /* HBM less the driver's reserve */
	int bottleneck;                /* enum bottleneck */
	bool has_oos;                  /* out of sample (val_cross_validate) */
	double oos_predicted_step_s;   /* predicted with its source group left out of the fit */
	double oos_err_rel;
	struct scenario *scenario;     /* owned; NULL when not expressible */
};

/* Memory settings a case may leave unstated: since every case ran, val_run
 * takes the least of them that fits (see val_run). */
enum { VAL_UNSTATED_RECOMPUTE = 1u << 0, VAL_UNSTATED_SHARDING = 1u << 1 };
/* (the memory verdict only: see val_run) */

struct val_system {
	char gpu[SC_NAME_MAX];
	char system[SC_NAME_MAX];
	double scaleout_Gbps_per_gpu;
	char fabric[SC_NAME_MAX];
	char source[SC_SOURCE_MAX];
};

/* What a source group's recipes set that its cases do not state
 * (recipes.json beside the systems file). */
struct val_recipe {
	char source_group[SC_NAME_MAX * 2];
	char framework[SC_NAME_MAX];
	bool tp_comm_overlap;
	bool grad_reduce_in_fp32;
	bool fused_kernels;      /* fused loss and norms (torch.compile or equivalent) */
	bool portable_attention; /* FlashAttention-2 or its Triton port, not TE/cuDNN fused attention */
	char flop_convention[SC_NAME_MAX]; /* how the group counts its published TFLOP/s; "" none */
	char source[SC_SOURCE_MAX];
};

struct val_set {
	char path[512];
	struct val_case *cases;
	int n_cases;
	struct model_arch *models;
	char (*model_names)[SC_NAME_MAX];
	int n_models;
	struct val_system *systems;
	int n_systems;
	bool memory_cases;      /* the cases measure memory, not step time */
	struct val_recipe *recipes;
	int n_recipes;
};

struct val_stats {
	int count;
	double mape;        /* mean |err|, fraction */
	double median_ape;
	double p90_ape;
	double worst_ape;
	double mean_err;    /* signed mean: bias */
	int worst_index;    /* into val_set.cases */
};

/* Default paths (source tree, overridable with $STEPCAST_VALIDATION_DIR). */
const char *val_default_cases_path(void);
const char *val_default_systems_path(void);

/* Read the cases file and systems file and build a scenario per case.
 * Cases the model cannot express are kept with expressible = false. */
enum sc_status val_load(const char *cases_path, const char *systems_path,
			const struct catalog *cat, struct val_set *set,
			struct sc_error *err);

/* The parts of val_load, for readers of files that extend the training
 * cases (the memory cases): the systems file, a file's "models" object, and
 * one case object (training-case keys only: the caller removes its own
 * first) as set->cases-style entry vc, expressible or with the reason. */
enum sc_status val_load_systems(const char *path, struct val_set *set,
				const struct catalog *cat, struct sc_error *err);
enum sc_status val_read_models(const char *path, const cJSON *models, struct val_set *set,
			       struct sc_error *err);
enum sc_status val_read_case(const struct val_set *set, const struct catalog *cat,
			     const char *path, const cJSON *item, const char *where,
			     struct val_case *vc, struct sc_error *err);

/* What a reader of one case (or one system) needs: the set the systems,
 * recipes and models go into, the catalogue, and the set the cases go into
 * (the training set itself, or the memory set around it). */
struct val_loading {
	struct val_set *set;
	const struct catalog *cat;
	void *cases_set;
};

/* A file of cases (training-cases.json, memory-cases.json) read whole: the
 * systems file (and the recipes beside it) into ld->set, then cases_path
 * with its keys among top, its "models" into ld->set, and cfg_array_read's
 * "cases" (case_size each, into *cases and *n_cases) with read, given ld;
 * the document is deleted before it returns.  On error the caller frees the
 * sets it fills (what was read so far is in them). */
enum sc_status val_load_cases_file(const char *cases_path, const char *systems_path,
				   const char *const *top, struct val_loading *ld, size_t case_size,
				   void **cases, int *n_cases, cfg_item_reader read, struct sc_error *err);

/* Predict every expressible case.  calibration given: that profile for the
 * cases on a GPU of its family (calibration_fits_gpu); for the others, cat
 * given: each GPU's default profile from cat; else each scenario keeps the
 * profile it holds. */
enum sc_status val_run(struct val_set *set, const struct catalog *cat,
		       const struct calibration *calibration, struct sc_error *err);

/* Statistics over cases selected by filter (NULL: all expressible). */
void val_stats(const struct val_set *set, bool (*filter)(const struct val_case *, const void *),
	       const void *arg, struct val_stats *out);

/* val_stats of the in-sample errors (err_rel), or of the out-of-sample ones
 * (oos_err_rel, cases with has_oos) when out_of_sample. */
void val_stats_select(const struct val_set *set, bool (*filter)(const struct val_case *, const void *),
		      const void *arg, bool out_of_sample, struct val_stats *out);

/* Statistics of n signed relative errors err_rel[]; index[i] names the
 * case each came from (reported as worst_index).  Shared by the training
 * and serving validations. */
void val_stats_of_errors(const double *err_rel, const int *index, int n,
			 struct val_stats *out);

/* How the predictions' bands (models/uncertainty.h, from the profile each
 * case was predicted with) cover the measurements: the fractions of the
 * selected expressible cases whose measured step time lies below the
 * band's P10, between P10 and P90, and above P90.  A right band gives
 * 10 / 80 / 10 % out of sample; in sample it covers more. */
struct val_band_cover {
	int count;
	double below_p10, inside, above_p90;
};

void val_band_coverage(const struct val_set *set, bool (*filter)(const struct val_case *, const void *),
		       const void *arg, struct val_band_cover *out);

/* Runs that ran (every expressible case) predicted not to fit. */
struct val_oom_count {
	int expressed, predicted_oom;
	int oom_at_defaults;          /* before unstated settings are taken as what fits */
};

void val_oom_count(const struct val_set *set, struct val_oom_count *out);

void val_free(struct val_set *set);

#endif
