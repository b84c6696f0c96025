/* fit.h: fit calibration parameters to measurements (`calibrate fit`).
 *
 * Collectives: the parameters of models/collective.c's alpha-beta model
 * (nvlink_ring_*, nvlink_nvls_*, efa_ring_*, efa_tree_*, efa_startup_s,
 * ll_*, a2a and p2p latencies and efficiencies) are fitted jointly to every
 * nccl-tests curve, through coll_time() itself, so that the fitted profile
 * reproduces the curves in `predict`: nonlinear least squares on the log of
 * time (GSL gsl_multifit_nlinear, trust region, from a fixed set of starts)
 * with a weak prior towards the base profile (parameters the data cannot
 * determine stay where the base put them).  Each curve is then split where
 * the fitted model changes algorithm, and every segment of three or more
 * points gets its own alpha and bus bandwidth (gsl_fit_wlinear), with R^2
 * and residuals: "alpha and beta per collective x algorithm x tier".
 * GEMM: gemm_eta_max_<dtype> and gemm_half_dim through gpu_gemm_time().
 * HBM: hbm_eta from a weighted line time = a + bytes / (eta * HBM bw).
 * Each fitted parameter gets a source and the range of the data that moved
 * it (message bytes and group sizes, GEMM dimensions, copy bytes).
 *
 * Ownership: everything is caller-owned; struct cal_fit_result is large
 * (allocate it on the heap).  Nothing to free.
 */
#ifndef SC_CAL_FIT_H
#define SC_CAL_FIT_H

#include <stdbool.h>

#include "../../models/calibration.h"
#include "../../models/scenario.h"
#include "../cal_measure.h"

#define CAL_FIT_MAX_FITS 64
#define CAL_FIT_MAX_NOTES 32
#define CAL_FIT_MAX_CURVES 32
#define CAL_FIT_MAX_POINTS 256

struct cal_fit_opts {
	int params[CALIB_COUNT]; /* collective parameters to fit; n_params 0: from the data */
	int n_params;
	double prior_weight;     /* pull towards the base profile, per parameter (logit units); <0: default */
	int starts;              /* multi-start count; 0: default */
	bool inplace;            /* fit the in-place times instead of the out-of-place ones */
};

/* One measured point against the fitted model. */
struct cal_fit_point {
	double x;                /* bytes (collective), flops (GEMM), bytes (HBM) */
	double measured_s;
	double predicted_s;
	char algorithm[48];      /* collective: the model's choice; GEMM: dtype and shape */
};

/* A curve (or a sweep) and how the fitted model reproduces it. */
struct cal_fit_curve {
	char name[CALIB_FIT_NAME_MAX];
	char op[32];             /* collectives */
	const char *tier;        /* "nvlink" or "efa" (static), NULL for GEMM/HBM */
	int ranks, nodes;
	double busbw_factor;     /* nccl-tests bus bandwidth factor */
	int n;
	struct cal_fit_point pts[CAL_FIT_MAX_POINTS];
	double r2_log;           /* of log time */
	double rms_rel, max_rel;
	double max_rel_from_1MiB; /* largest |residual| at sizes >= 1 MiB */
	double busbw_data_GBps;  /* at the largest size */
	double busbw_model_GBps;
};

struct cal_fit_result {
	struct calibration cal;  /* base with the fitted parameters */
	bool fitted[CALIB_COUNT];
	int n_fitted;
	int n_curves;
	struct cal_fit_curve curves[CAL_FIT_MAX_CURVES];
	int n_fits;              /* the profile's "fits": curves, segments, GEMM, HBM */
	struct calib_fit fits[CAL_FIT_MAX_FITS];
	int n_notes;             /* what was skipped and why */
	char notes[CAL_FIT_MAX_NOTES][256];
	double cost;             /* collective objective at the optimum */
};

/* Default weight of the prior (see fit_coll.c for the choice). */
#define CAL_FIT_PRIOR_WEIGHT 0.03
#define CAL_FIT_STARTS 96

/* Fit what m holds.  cl gives the GPU (peaks, HBM and NVLink bandwidth) and
 * the instance and fabric the collectives ran on (nodes is ignored: each
 * curve has its own group); base gives every parameter not fitted and must
 * be of cl's GPU family.  inputs names the measurement files (for sources).
 * On success res->cal is the fitted profile (name and description still
 * the base's: the caller sets them). */
enum sc_status cal_fit(const struct cal_measurements *m, const struct cluster *cl,
		       const struct calibration *base, const struct cal_fit_opts *opts,
		       struct cal_fit_result *res, struct sc_error *err);

/* Whether a collective that coll_time() reported as (algorithm, tier) uses
 * parameter p: the parameters its formula reads. */
bool cal_algorithm_uses(const char *algorithm, const char *tier, enum calib_param p);

/* Parse "a,b,c" into parameter indices (every name must be a collective
 * parameter the fit can move); false with err on an unknown name. */
bool cal_fit_parse_params(const char *list, struct cal_fit_opts *o, struct sc_error *err);

/* True for the parameters of the collective model. */
bool cal_is_collective_param(enum calib_param p);

#endif
