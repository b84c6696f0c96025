/* coll_validate.h: predict published collective-communication curves and
 * measure the error (`stepcast validate --collectives`).
 *
 * A curves file is a JSON list in the layout of
 * tests/validation/data/collective-cases.json (the aws-samples nccl-tests
 * curves) and efa-collective-cases.json (the EFA set, README-efa.md there):
 * each curve has a collective, a system (an instance type) or only a GPU
 * (one HGX/DGX node of that GPU), nodes, GPUs per node and points.  Every
 * point is predicted with the collective model (models/collective.h; the EP
 * dispatch/combine points with models/moe_dispatch.h) and compared on time
 * where the source publishes it, else on bus bandwidth, else on algorithm
 * bandwidth, else on the per-GPU throughput printed (GBps).  A curve the
 * model cannot express is kept with the reason.  The caller owns struct
 * cv_set and frees it with cv_free().
 */
#ifndef SC_COLL_VALIDATE_H
#define SC_COLL_VALIDATE_H

#include <stdbool.h>

#include "../../models/calibration.h"
#include "../../models/scenario.h"
#include "../../models/status.h"
#include "../config/catalog_load.h"

#define CV_ID_MAX 160
#define CV_REASON_MAX 256
#define CV_POINTS_MAX 64

enum cv_metric { CV_TIME, CV_BUSBW, CV_ALGBW, CV_THROUGHPUT };

struct cv_point {
	double bytes;           /* nccl-tests size; EP: tokens x hidden x dtype bytes */
	enum cv_metric metric;
	double measured;        /* s (time) or GB/s */
	double predicted;
	double err_rel;         /* (predicted - measured) / measured */
	char algorithm[96];     /* chosen algorithm/protocol, " [aws-ofi-nccl region]" when the plugin chose */
	bool used;              /* has a comparable measurement */
	bool call;              /* an EP dispatch/combine call: --min-bytes does not apply */
};

/* What a curve measures. */
enum cv_kind {
	CV_KIND_NCCL,           /* an NCCL collective (nccl-tests) */
	CV_KIND_RAW_SRD,        /* CPU-driven SRD all-to-all microbenchmark */
	CV_KIND_EP,             /* MoE expert-parallel dispatch or combine */
	CV_KIND_OTHER
};

struct cv_curve {
	char id[CV_ID_MAX];
	char source_group[CV_ID_MAX];
	char collective[32];
	char benchmark[CV_ID_MAX];
	char algorithm[CV_ID_MAX];      /* as the file states it (may be empty) */
	char system[SC_NAME_MAX];       /* as stated, or "" */
	char gpu[SC_NAME_MAX];
	int nodes, gpus_per_node;
	bool nccl_own_tuner;            /* "nccl_tuner": "nccl": NCCL's built-in
					   tuner chose (the aws-ofi-nccl tuner
					   was not loaded); default: the plugin's
					   region tuner where the instance has
					   tables */
	enum cv_kind kind;
	bool expressible;
	char reason[CV_REASON_MAX];
	int n_points;
	struct cv_point points[CV_POINTS_MAX];
	/* EP points: the workload (one point per curve in the EFA set) */
	int ep_tokens, ep_hidden, ep_top_k, ep_experts, ep_size;
	char ep_dtype[16];
	struct cluster cluster;         /* expressible only */
	struct calibration cal;         /* the profile it is predicted with */
};

struct cv_set {
	char path[1024];
	struct cv_curve *curves;
	int n_curves;
};

/* The default curves: the project's collective cases and the EFA set
 * (tests/validation/data, or $STEPCAST_VALIDATION_DIR). */
const char *cv_default_path(int i); /* i = 0, 1; NULL beyond */

/* Read one curves file and append its curves to set (set zeroed first by
 * the caller).  Strict on the fields it reads; errors name file and JSON
 * pointer. */
enum sc_status cv_load(const char *path, const struct catalog *cat, struct cv_set *set,
		       struct sc_error *err);

/* Predict every point of every expressible curve.  calibration given: that
 * profile for the curves on a GPU of its family; else each GPU's default. */
void cv_run(struct cv_set *set, const struct catalog *cat, const struct calibration *calibration);

/* The prediction of one point of curve c with profile cal (the rule
 * cv_run applies; for fits). */
double cv_predict_point(const struct cv_curve *c, const struct calibration *cal,
			const struct cv_point *p, char *algorithm, int algorithm_size);

/* Points counted by the statistics: used, predicted, and bytes >= min_bytes
 * (EP calls regardless of their size). */
bool cv_point_counts(const struct cv_point *p, double min_bytes);

/* used, measured and in the size range (the fit's selection). */
bool cv_point_selected(const struct cv_point *p, double min_bytes);

/* Fit params of *cal to the counted points of the curves on a GPU of cal's
 * family (least squares of log(predicted / measured), calibrate fit's
 * engine, every parameter inside its range), leaving out the curves of
 * source group exclude_group (NULL: none).  *points: points fitted. */
enum sc_status cv_fit(struct cv_set *set, struct calibration *cal, const int *params, int n_params,
		      double min_bytes, const char *exclude_group, int *points,
		      struct sc_error *err);

void cv_free(struct cv_set *set);

#endif
