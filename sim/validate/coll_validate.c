/* coll_validate.c: published collective curves against the collective
 * model (see coll_validate.h).
 *
 * What is compared, per point: the time where the source publishes one
 * (a time the curators derived, listed in the curve's "derived" as
 * points[].time_us, is not published), else nccl-tests' bus bandwidth,
 * else its algorithm bandwidth, else the per-GPU throughput ("GBps").
 * GB/s is 1e9 bytes/s as printed; the raw SRD tables whose "GB/s" may be
 * GiB/s (flag gib_vs_gb_unit_caveat) are compared as printed.
 *
 * Which cluster: "system" an instance type of the catalogue -> that
 * instance, its EFA and the AWS UltraCluster fabric; no system but a GPU ->
 * one HGX/DGX node of that GPU (a single-node curve only); anything else is
 * not expressed, with the reason.
 */
#include "coll_validate.h"
#include "../config/datadir.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../calibrate/fit/fit_core.h"
#include "../../models/collective.h"
#include "../../models/moe_dispatch.h"
#include "../../models/network.h"
#include "../config/calibration_select.h"
#include "../config/cfg_json.h"

/* The AWS fabric an instance-type curve runs on (configs/fabrics.json). */
#define CV_AWS_FABRIC "ultracluster"

const char *cv_default_path(int i)
{
	static char path[2][1024];
	static const char *const names[2] = { "collective-cases.json", "efa-collective-cases.json" };

	if (i < 0 || i > 1)
		return NULL;
	snprintf(path[i], sizeof(path[i]), "%s/%s", cfg_validation_dir(), names[i]);
	return path[i];
}

static enum sc_status bad(struct sc_error *err, const char *file, const char *base,
			  const char *key, const char *msg)
{
	char where[SC_ERROR_PTR_MAX];

	cfg_pointer_key(where, sizeof(where), base, key);
	return sc_error_set(err, SC_EINVAL, file, where, "%s", msg);
}

/* String field: absent or null -> "", else must be a string. */
static enum sc_status get_str(const cJSON *o, const char *key, char *out, size_t size,
			      bool required, const char *file, const char *base, struct sc_error *err)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);

	out[0] = '\0';
	if (!v || cJSON_IsNull(v))
		return required ? bad(err, file, base, key, "required string is missing") : SC_OK;
	if (!cJSON_IsString(v))
		return bad(err, file, base, key, "expected a string");
	snprintf(out, size, "%s", v->valuestring);
	return SC_OK;
}

/* Number field: absent or null -> NAN, else must be a finite number. */
static enum sc_status get_num(const cJSON *o, const char *key, double *out, const char *file,
			      const char *base, struct sc_error *err)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);

	*out = NAN;
	if (!v || cJSON_IsNull(v))
		return SC_OK;
	if (!cJSON_IsNumber(v) || !isfinite(v->valuedouble))
		return bad(err, file, base, key, "expected a finite number");
	*out = v->valuedouble;
	return SC_OK;
}

static bool derived_has(const cJSON *c, const char *name)
{
	const cJSON *d = cJSON_GetObjectItemCaseSensitive(c, "derived"), *e;

	cJSON_ArrayForEach(e, d)
		if (cJSON_IsString(e) && strcmp(e->valuestring, name) == 0)
			return true;
	return false;
}

static bool flag_has(const cJSON *c, const char *name)
{
	const cJSON *d = cJSON_GetObjectItemCaseSensitive(c, "flags"), *e;

	cJSON_ArrayForEach(e, d)
		if (cJSON_IsString(e) && strcmp(e->valuestring, name) == 0)
			return true;
	return false;
}

static void not_expressed(struct cv_curve *c, const char *why)
{
	c->expressible = false;
	snprintf(c->reason, sizeof(c->reason), "%s", why);
}

static double dtype_bytes(const char *d)
{
	if (strcmp(d, "fp8") == 0)
		return 1;
	if (strcmp(d, "bf16") == 0 || strcmp(d, "fp16") == 0)
		return 2;
	if (strcmp(d, "fp32") == 0 || strcmp(d, "float32") == 0)
		return 4;
	return 0;
}

/* The cluster of an expressible curve, or the reason it is not. */
static void place_curve(struct cv_curve *c, const struct catalog *cat)
{
	const struct gpu_spec *gpu;
	const struct calibration *cal;
	struct cluster *cl = &c->cluster;

	memset(cl, 0, sizeof(*cl));
	if (c->system[0]) {
		const struct instance_spec *in = catalog_instance(cat, c->system);
		const struct fabric_spec *f = catalog_fabric(cat, CV_AWS_FABRIC);

		if (!in)
			return not_expressed(c, "system is not an instance type of the catalogue");
		if (!f)
			return not_expressed(c, "fabric \"" CV_AWS_FABRIC "\" is not in the catalogue");
		gpu = catalog_gpu(cat, in->gpu);
		if (!gpu)
			return not_expressed(c, "the instance's GPU is not in the catalogue");
		cl->instance = *in;
		cl->fabric = *f;
		if (c->gpus_per_node > 0 && c->gpus_per_node < in->gpus_per_node)
			return not_expressed(c, "fewer GPUs per node than the instance has (partial-node groups are not modelled)");
	} else if (c->gpu[0]) {
		if (c->nodes > 1)
			return not_expressed(c, "no system stated for a multi-node curve (the scale-out network is unknown)");
		gpu = catalog_gpu(cat, c->gpu);
		if (!gpu)
			return not_expressed(c, "GPU is not in the catalogue");
		/* one HGX/DGX node of that GPU: its GPUs in one NVLink domain */
		snprintf(cl->instance.name, sizeof(cl->instance.name), "hgx-%s", gpu->name);
		snprintf(cl->instance.gpu, sizeof(cl->instance.gpu), "%s", gpu->name);
		cl->instance.gpus_per_node = c->gpus_per_node > 0 ? c->gpus_per_node : 8;
		cl->instance.nvlink_domain_gpus = cl->instance.gpus_per_node;
		if (catalog_fabric(cat, CV_AWS_FABRIC))
			cl->fabric = *catalog_fabric(cat, CV_AWS_FABRIC);
	} else {
		return not_expressed(c, "neither system (instance type) nor GPU stated");
	}
	cl->gpu = *gpu;
	cl->nodes = c->nodes;
	cal = catalog_calibration(cat, gpu->calibration);
	if (!cal)
		return not_expressed(c, "the GPU's calibration profile is not in the catalogue");
	c->cal = *cal;
}

/* The curve's identity and shape: names, the tuner that chose NCCL's
 * algorithm, source group, nodes and GPUs per node. */
static enum sc_status read_curve_header(const cJSON *item, const char *file, const char *base,
					struct cv_curve *c, struct sc_error *err)
{
	enum sc_status st;
	double v;

	if ((st = get_str(item, "id", c->id, sizeof(c->id), true, file, base, err)) ||
	    (st = get_str(item, "collective", c->collective, sizeof(c->collective), true, file, base, err)) ||
	    (st = get_str(item, "source_group", c->source_group, sizeof(c->source_group), false, file, base, err)) ||
	    (st = get_str(item, "benchmark", c->benchmark, sizeof(c->benchmark), false, file, base, err)) ||
	    (st = get_str(item, "algorithm", c->algorithm, sizeof(c->algorithm), false, file, base, err)) ||
	    (st = get_str(item, "system", c->system, sizeof(c->system), false, file, base, err)) ||
	    (st = get_str(item, "gpu", c->gpu, sizeof(c->gpu), false, file, base, err)))
		return st;
	{
		/* which tuner chose NCCL's algorithm and protocol: the curve
		 * says so where its run's NCCL_TUNER_PLUGIN did not load the
		 * aws-ofi-nccl tuner (models/efa_tuner.h holds v1.21.1's
		 * tables; other plugin versions' tables differ) */
		char tuner[32];

		if ((st = get_str(item, "nccl_tuner", tuner, sizeof(tuner), false, file, base, err)))
			return st;
		if (tuner[0] && strcmp(tuner, "nccl") != 0 && strcmp(tuner, "aws-ofi-nccl") != 0)
			return bad(err, file, base, "nccl_tuner", "expected \"nccl\" or \"aws-ofi-nccl\"");
		c->nccl_own_tuner = strcmp(tuner, "nccl") == 0;
	}
	if (!c->source_group[0]) {
		/* the project's own file names its source in "source" only */
		char src[CV_ID_MAX];
		if ((st = get_str(item, "source", src, sizeof(src), false, file, base, err)))
			return st;
		snprintf(c->source_group, sizeof(c->source_group), "%.*s", (int)strcspn(src, " ;"), src);
	}
	if ((st = get_num(item, "nodes", &v, file, base, err)))
		return st;
	if (!(v >= 1 && v <= 1e5 && v == floor(v)))
		return bad(err, file, base, "nodes", "expected a whole number of nodes >= 1");
	c->nodes = (int)v;
	if ((st = get_num(item, "gpus_per_node", &v, file, base, err)))
		return st;
	if (!isnan(v) && !(v >= 1 && v <= 4096 && v == floor(v)))
		return bad(err, file, base, "gpus_per_node", "expected a whole number of GPUs >= 1");
	c->gpus_per_node = isnan(v) ? 0 : (int)v;
	return SC_OK;
}

/* An EP dispatch/combine point's shape (tokens, hidden, top_k, experts,
 * ep_size, dtype) into the curve; *bytes: the tokens' payload. */
static enum sc_status read_ep_shape(const cJSON *p, const char *file, const char *pbase, struct cv_curve *c,
				    double *bytes, struct sc_error *err)
{
	double tok, hid, k, ex, eps;
	char dt[16];
	enum sc_status st;

	if ((st = get_num(p, "tokens", &tok, file, pbase, err)) ||
	    (st = get_num(p, "hidden", &hid, file, pbase, err)) ||
	    (st = get_num(p, "top_k", &k, file, pbase, err)) ||
	    (st = get_num(p, "experts", &ex, file, pbase, err)) ||
	    (st = get_num(p, "ep_size", &eps, file, pbase, err)) ||
	    (st = get_str(p, "dtype", dt, sizeof(dt), false, file, pbase, err)))
		return st;
	if (!(tok >= 1 && hid >= 1 && k >= 1 && eps >= 1) || tok > 1e9 || hid > 1e6 ||
	    k > 1024 || eps > 1e6)
		return sc_error_set(err, SC_EINVAL, file, pbase,
				    "an EP point needs tokens, hidden, top_k and ep_size >= 1");
	c->ep_tokens = (int)tok;
	c->ep_hidden = (int)hid;
	c->ep_top_k = (int)k;
	c->ep_experts = isnan(ex) ? 0 : (int)ex;
	c->ep_size = (int)eps;
	snprintf(c->ep_dtype, sizeof(c->ep_dtype), "%s", dt);
	*bytes = tok * hid * (dtype_bytes(dt) > 0 ? dtype_bytes(dt) : 1);
	return SC_OK;
}

/* Point i of the curve: its size and the one published metric it is
 * compared on (a time not derived from a bandwidth first, then bus, alg
 * and plain bandwidth, then a derived time). */
static enum sc_status read_point(const cJSON *p, int i, bool time_derived, const char *file,
				 const char *base, struct cv_curve *c, struct sc_error *err)
{
	char pbase[SC_ERROR_PTR_MAX], where[SC_ERROR_PTR_MAX];
	struct cv_point *q = &c->points[i];
	double bytes, t, bus, alg, gb;
	enum sc_status st;

	cfg_pointer_key(where, sizeof(where), base, "points");
	cfg_pointer_index(pbase, sizeof(pbase), where, i);
	if (!cJSON_IsObject(p))
		return sc_error_set(err, SC_EINVAL, file, pbase, "expected a point object");
	if ((st = get_num(p, "bytes", &bytes, file, pbase, err)) ||
	    (st = get_num(p, "time_us", &t, file, pbase, err)) ||
	    (st = get_num(p, "busbw_GBps", &bus, file, pbase, err)) ||
	    (st = get_num(p, "algbw_GBps", &alg, file, pbase, err)) ||
	    (st = get_num(p, "GBps", &gb, file, pbase, err)))
		return st;
	if (c->kind == CV_KIND_EP) {
		if ((st = read_ep_shape(p, file, pbase, c, &bytes, err)))
			return st;
	} else if (!(bytes > 0)) {
		return bad(err, file, pbase, "bytes", "expected bytes > 0");
	}
	q->bytes = bytes;
	q->used = true;
	q->call = c->kind == CV_KIND_EP;
	if (!isnan(t) && t > 0 && !time_derived) {
		q->metric = CV_TIME;
		q->measured = t * 1e-6;
	} else if (!isnan(bus) && bus > 0) {
		q->metric = CV_BUSBW;
		q->measured = bus;
	} else if (!isnan(alg) && alg > 0) {
		q->metric = CV_ALGBW;
		q->measured = alg;
	} else if (!isnan(gb) && gb > 0) {
		q->metric = CV_THROUGHPUT;
		q->measured = gb;
	} else if (!isnan(t) && t > 0) {
		q->metric = CV_TIME;
		q->measured = t * 1e-6;
	} else {
		q->used = false;
	}
	return SC_OK;
}

/* Whether the model expresses the curve (NVSHMEM, broadcast/reduce and
 * EP benchmarks it cannot place are marked not expressed), then where it
 * runs. */
static void express_curve(struct cv_curve *c, bool nvshmem, const struct catalog *cat)
{
	if (nvshmem) {
		not_expressed(c, "NVSHMEM perftest all-to-all: the model has no NVSHMEM transport "
			      "(host-initiated or GPU-initiated through the EFA CPU proxy)");
		return;
	}
	if (strcmp(c->collective, "broadcast") == 0 || strcmp(c->collective, "reduce") == 0) {
		not_expressed(c, "broadcast/reduce are not modelled");
		return;
	}
	if (c->kind == CV_KIND_EP) {
		if (moe_backend_of_name(c->benchmark[0] == 'u' ? "uccl-ep" :
					strncmp(c->benchmark, "pplx", 4) == 0 ? "pplx-garden" : "?") < 0) {
			not_expressed(c, "EP benchmark of an unknown dispatch backend");
			return;
		}
		if (c->ep_size != c->nodes * (c->gpus_per_node > 0 ? c->gpus_per_node : 8)) {
			not_expressed(c, "ep_size is not nodes x gpus_per_node");
			return;
		}
		if (dtype_bytes(c->ep_dtype) <= 0) {
			not_expressed(c, "EP dtype not stated (the bytes per token are unknown)");
			return;
		}
		if (c->points[0].metric != CV_TIME) {
			not_expressed(c, "EP point without a published latency (its bandwidth "
				      "definition is the benchmark's own)");
			return;
		}
	}
	place_curve(c, cat);
}

static enum sc_status read_curve(const cJSON *item, const char *file, const char *base,
				 const struct catalog *cat, struct cv_curve *c, struct sc_error *err)
{
	const cJSON *pts, *p;
	enum sc_status st;
	int i = 0;
	bool time_derived, nvshmem;

	memset(c, 0, sizeof(*c));
	c->expressible = true;
	if (!cJSON_IsObject(item))
		return sc_error_set(err, SC_EINVAL, file, base, "expected a curve object");
	if ((st = read_curve_header(item, file, base, c, err)))
		return st;
	pts = cJSON_GetObjectItemCaseSensitive(item, "points");
	if (!cJSON_IsArray(pts) || cJSON_GetArraySize(pts) < 1)
		return bad(err, file, base, "points", "expected a non-empty array of points");
	if (cJSON_GetArraySize(pts) > CV_POINTS_MAX)
		return bad(err, file, base, "points", "too many points in one curve (at most 64)");

	if (strcmp(c->collective, "ep_dispatch") == 0 || strcmp(c->collective, "ep_combine") == 0)
		c->kind = CV_KIND_EP;
	else if (flag_has(item, "not_a_collective_library"))
		c->kind = CV_KIND_RAW_SRD;
	else
		c->kind = CV_KIND_NCCL;
	time_derived = derived_has(item, "points[].time_us");
	nvshmem = flag_has(item, "nvshmem_not_nccl");

	cJSON_ArrayForEach(p, pts) {
		if ((st = read_point(p, i, time_derived, file, base, c, err)))
			return st;
		i++;
	}
	c->n_points = i;
	express_curve(c, nvshmem, cat);
	return SC_OK;
}

enum sc_status cv_load(const char *path, const struct catalog *cat, struct cv_set *set,
		       struct sc_error *err)
{
	cJSON *root = cfg_parse_file(path, err), *item;
	enum sc_status st = SC_OK;
	int n, i = 0;
	struct cv_curve *grown;

	if (!root)
		return err->status;
	snprintf(set->path, sizeof(set->path), "%s", path);
	if (!cJSON_IsArray(root)) {
		cJSON_Delete(root);
		return sc_error_set(err, SC_EINVAL, path, "", "expected a JSON list of curves");
	}
	n = cJSON_GetArraySize(root);
	grown = realloc(set->curves, sizeof(*set->curves) * (size_t)(set->n_curves + n + 1));
	if (!grown) {
		cJSON_Delete(root);
		return sc_error_set(err, SC_ENOMEM, path, NULL, "out of memory");
	}
	set->curves = grown;
	cJSON_ArrayForEach(item, root) {
		char base[SC_ERROR_PTR_MAX];

		cfg_pointer_index(base, sizeof(base), "", i);
		if ((st = read_curve(item, path, base, cat, &set->curves[set->n_curves], err)) != SC_OK)
			break;
		for (int j = 0; j < set->n_curves; j++)
			if (strcmp(set->curves[j].id, set->curves[set->n_curves].id) == 0) {
				st = bad(err, path, base, "id", "duplicate curve id");
				break;
			}
		if (st != SC_OK)
			break;
		set->n_curves++;
		i++;
	}
	cJSON_Delete(root);
	return st;
}

bool cv_point_counts(const struct cv_point *p, double min_bytes)
{
	return cv_point_selected(p, min_bytes) && isfinite(p->predicted) && p->predicted > 0;
}

bool cv_point_selected(const struct cv_point *p, double min_bytes)
{
	return p->used && p->measured > 0 && (p->call || p->bytes >= min_bytes);
}

static bool op_of(const char *name, enum coll_op *op)
{
	static const struct {
		const char *name;
		enum coll_op op;
	} t[] = { { "all_reduce", COLL_ALL_REDUCE }, { "all_gather", COLL_ALL_GATHER },
		  { "reduce_scatter", COLL_REDUCE_SCATTER }, { "alltoall", COLL_ALL_TO_ALL },
		  { "all_to_all", COLL_ALL_TO_ALL }, { "sendrecv", COLL_SEND_RECV } };

	for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++)
		if (strcmp(name, t[i].name) == 0) {
			*op = t[i].op;
			return true;
		}
	return false;
}

/* A raw CPU-driven SRD all-to-all (UCCL ep/bench): every GPU posts
 * message-size writes to every peer on its own NICs, many of them
 * outstanding at once, so no message latency is paid in series: its
 * throughput is B, the GPU's EFA share at the all-to-all efficiency, times
 * awsefa_cross_rail_eff when the writes go to NICs of other rails.  (The
 * rail-aligned table holds 36.9-43.7 GB/s from 64 KiB to 4 MiB, where one
 * EFA message latency in series would cost half the rate at 1 MiB; below
 * 64 KiB the CPU's post rate limits, which the model does not hold: those
 * points are below validate's usual 1 MiB floor.) */
/* The raw SRD curves name their traffic first: "cross-rail ..." or
 * "rail-aligned ..." / "rail-optimized (no cross-rail traffic) ...". */
static bool cross_rail(const struct cv_curve *c)
{
	return strncmp(c->algorithm, "cross-rail", 10) == 0;
}

static double raw_srd_GBps(const struct cv_curve *c, const struct calibration *cal)
{
	struct net_span s = net_span_of(&c->cluster, c->cluster.nodes * c->cluster.instance.gpus_per_node, 1);
	double B = s.efa_Bps * cal->awsefa_a2a_bw_eff;

	if (cross_rail(c))
		B *= cal->awsefa_cross_rail_eff;
	return B / 1e9;
}

double cv_predict_point(const struct cv_curve *c, const struct calibration *cal,
			const struct cv_point *p, char *algorithm, int algorithm_size)
{
	int ranks = c->cluster.nodes * c->cluster.instance.gpus_per_node;
	struct net_span s = net_span_of(&c->cluster, ranks, 1);
	enum coll_op op;
	double t;

	if (c->nccl_own_tuner)
		s.efa_tuner = EFA_TUNER_NONE; /* NCCL's own rule: the fastest */

	if (algorithm && algorithm_size > 0)
		algorithm[0] = '\0';
	if (c->kind == CV_KIND_RAW_SRD) {
		if (algorithm)
			snprintf(algorithm, (size_t)algorithm_size, "raw-srd/%s",
				 cross_rail(c) ? "cross-rail" : "rail-aligned");
		return raw_srd_GBps(c, cal);
	}
	if (c->kind == CV_KIND_EP) {
		struct moe_call mc;
		enum moe_backend b = c->benchmark[0] == 'u' ? MOE_BACKEND_UCCL_EP : MOE_BACKEND_PPLX_GARDEN;
		/* the kernels the curve names (UCCL-EP "low-latency kernels",
		 * test_low_latency.py; pplx-garden "Decode"), else the ones its
		 * batch fits (models/moe_dispatch.h) */
		bool ll = strstr(c->algorithm, "low-latency") || strstr(c->benchmark, "low_latency")
			  ? true : strstr(c->algorithm, "normal") ? false : moe_low_latency_batch(c->ep_tokens);

		moe_dispatch_time(cal, &s, b, c->ep_tokens, c->ep_hidden * dtype_bytes(c->ep_dtype),
				  c->ep_top_k, ll, &mc);
		if (algorithm)
			snprintf(algorithm, (size_t)algorithm_size, "%s", mc.algorithm);
		return mc.time_s;
	}
	if (!op_of(c->collective, &op))
		return NAN;
	{
		struct coll_choice ch;

		t = coll_time(cal, &s, op, p->bytes, &ch);
		if (algorithm)
			snprintf(algorithm, (size_t)algorithm_size, "%s%s", ch.algorithm,
				 strncmp(ch.selected_by, "aws", 3) == 0 ? " [aws-ofi-nccl region]" : "");
	}
	switch (p->metric) {
	case CV_TIME: return t;
	case CV_BUSBW: return p->bytes / t * coll_busbw_factor(op, ranks) / 1e9;
	case CV_ALGBW: return p->bytes / t / 1e9;
	case CV_THROUGHPUT: return p->bytes / t / 1e9;
	}
	return NAN;
}

static void predict_curve(struct cv_curve *c)
{
	enum coll_op op;

	if (c->kind == CV_KIND_NCCL && !op_of(c->collective, &op)) {
		not_expressed(c, "collective is not one of all_reduce, all_gather, reduce_scatter, "
			      "alltoall, sendrecv");
		return;
	}
	for (int i = 0; i < c->n_points; i++) {
		struct cv_point *p = &c->points[i];

		p->predicted = cv_predict_point(c, &c->cal, p, p->algorithm, sizeof(p->algorithm));
		p->err_rel = p->used && p->measured > 0 ? (p->predicted - p->measured) / p->measured : 0;
	}
}

void cv_run(struct cv_set *set, const struct catalog *cat, const struct calibration *calibration)
{
	for (int i = 0; i < set->n_curves; i++) {
		struct cv_curve *c = &set->curves[i];

		if (!c->expressible)
			continue;
		if (calibration && calibration_fits_gpu(calibration, &c->cluster.gpu)) {
			c->cal = *calibration;
		} else if (cat) {
			const struct calibration *k = catalog_calibration(cat, c->cluster.gpu.calibration);
			if (k)
				c->cal = *k;
		}
		predict_curve(c);
	}
}

/* ---- fit --------------------------------------------------------------------- */

struct fit_ctx {
	struct cv_set *set;
	const int *curve;   /* per residual: curve index */
	const int *point;   /* per residual: point index */
};

static void residuals(const struct calibration *cal, double *r, void *arg)
{
	const struct fit_ctx *x = arg;
	int n = 0;

	(void)n;
	for (int i = 0; x->curve[i] >= 0; i++) {
		const struct cv_curve *c = &x->set->curves[x->curve[i]];
		const struct cv_point *p = &c->points[x->point[i]];
		double y = cv_predict_point(c, cal, p, NULL, 0);

		r[i] = y > 0 && isfinite(y) ? log(y / p->measured) : 10.0;
	}
}

enum sc_status cv_fit(struct cv_set *set, struct calibration *cal, const int *params, int n_params,
		      double min_bytes, const char *exclude_group, int *points,
		      struct sc_error *err)
{
	int total = 0, n = 0;
	int *curve, *point;
	struct fit_problem prob;
	struct fit_ctx x;
	double cost;
	enum sc_status st;

	for (int i = 0; i < set->n_curves; i++)
		total += set->curves[i].n_points;
	curve = malloc(sizeof(int) * (size_t)(total + 1));
	point = malloc(sizeof(int) * (size_t)(total + 1));
	if (!curve || !point) {
		free(curve);
		free(point);
		return sc_error_set(err, SC_ENOMEM, NULL, NULL, "out of memory");
	}
	for (int i = 0; i < set->n_curves; i++) {
		const struct cv_curve *c = &set->curves[i];

		if (!c->expressible || !calibration_fits_gpu(cal, &c->cluster.gpu) ||
		    (exclude_group && strcmp(c->source_group, exclude_group) == 0))
			continue;
		for (int j = 0; j < c->n_points; j++)
			if (cv_point_selected(&c->points[j], min_bytes)) {
				curve[n] = i;
				point[n++] = j;
			}
	}
	curve[n] = point[n] = -1;
	*points = n;
	if (n < n_params) {
		free(curve);
		free(point);
		return sc_error_set(err, SC_EINVAL, NULL, NULL,
				    "%d points for %d parameters: too few to fit \"%s\"", n, n_params,
				    cal->name);
	}
	x.set = set;
	x.curve = curve;
	x.point = point;
	memset(&prob, 0, sizeof(prob));
	prob.n_points = n;
	prob.residuals = residuals;
	prob.ctx = &x;
	prob.params = params;
	prob.n_params = n_params;
	prob.prior_weight = 0.01;
	prob.starts = 4;
	st = fit_run(&prob, cal, &cost, err);
	free(curve);
	free(point);
	return st;
}

void cv_free(struct cv_set *set)
{
	free(set->curves);
	memset(set, 0, sizeof(*set));
}
