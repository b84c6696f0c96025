/* cal_measure.c: the measurement set and its JSON form (see cal_measure.h). */
#include "cal_measure.h"

#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../sim/config/cfg_json.h"
#include "../sim/config/rpt_num.h" /* after cJSON: output numbers checked */

#define NONNEG CFG_NONNEG
#define REQ CFG_REQUIRED

void cal_measurements_init(struct cal_measurements *m)
{
	memset(m, 0, sizeof(*m));
}

void cal_measurements_free(struct cal_measurements *m)
{
	for (int i = 0; i < m->n_curves; i++)
		free(m->curves[i].points);
	free(m->curves);
	free(m->gemm);
	free(m->hbm);
	free(m->storage);
	memset(m, 0, sizeof(*m));
}

static const char coll_point_kind[] = "collective point";

static const struct cfg_field coll_point_fields[], gemm_fields[], hbm_fields[], storage_fields[];

/* Every measurement, whichever reader made it, inside the plausibility
 * ranges of its field table (below): the one owner of "a measured value is
 * plausible", so what an ingester accepts the strict JSON reader reads
 * back.  what names the kind. */
static enum sc_status check_ranges(const struct cfg_field *fields, const void *elem, const char *what,
				   struct sc_error *err)
{
	for (const struct cfg_field *f = fields; f->key; f++) {
		double v;

		if (f->type != CFG_DOUBLE || !(f->flags & CFG_BOUNDED))
			continue;
		memcpy(&v, (const char *)elem + f->offset, sizeof(v));
		if (what == coll_point_kind && v == -1 && strstr(f->key, "wrong"))
			continue; /* N/A */
		if (!(v >= f->min && v <= f->max))
			return sc_error_set(err, SC_EINVAL, NULL, NULL,
					    "%s %s (%s) %.15g is outside the plausible range %.15g to %.15g",
					    what, f->key, f->description, v, f->min, f->max);
	}
	return SC_OK;
}

/* Grow *arr (of elem bytes each) to hold one more than *n; *cap doubles. */
static bool grow(void **arr, int *cap, int n, size_t elem)
{
	void *p;
	int c;

	if (n < *cap)
		return true;
	c = *cap ? *cap * 2 : 8;
	p = realloc(*arr, (size_t)c * elem);
	if (!p)
		return false;
	*arr = p;
	*cap = c;
	return true;
}

enum sc_status cal_add_curve(struct cal_measurements *m, const struct cal_curve *c,
			     struct sc_error *err)
{
	struct cal_curve *d;

	if (c->n_points > CAL_MAX_ROWS - m->n_rows)
		return sc_error_set(err, SC_EINVAL, NULL, NULL,
				    "more than %d measurement rows in one set: split the input", CAL_MAX_ROWS);
	if (m->n_curves >= CAL_MAX_CURVES)
		return sc_error_set(err, SC_EINVAL, NULL, NULL,
				    "more than %d collective curves in one set: split the input", CAL_MAX_CURVES);
	for (int i = 0; i < c->n_points; i++) {
		enum sc_status st = check_ranges(coll_point_fields, &c->points[i], coll_point_kind, err);

		if (st != SC_OK)
			return st;
	}
	if (!grow((void **)&m->curves, &m->cap_curves, m->n_curves, sizeof(*m->curves)))
		return sc_error_set(err, SC_ENOMEM, NULL, NULL, "out of memory");
	d = &m->curves[m->n_curves];
	*d = *c;
	d->points = NULL;
	d->n_points = 0;
	if (c->n_points > 0) {
		/* the capacity cal_curve_add_point() assumes: a power of two >= 8 */
		int cap = 8;
		while (cap < c->n_points)
			cap *= 2;
		d->points = malloc((size_t)cap * sizeof(*d->points));
		if (!d->points)
			return sc_error_set(err, SC_ENOMEM, NULL, NULL, "out of memory");
		memcpy(d->points, c->points, (size_t)c->n_points * sizeof(*d->points));
		d->n_points = c->n_points;
	}
	m->n_curves++;
	m->n_rows += c->n_points;
	return SC_OK;
}

enum sc_status cal_curve_add_point(struct cal_curve *c, const struct cal_coll_point *p,
				   struct sc_error *err)
{
	/* Curves grow one row at a time while a log is parsed: double as
	 * needed (the capacity is the next power of two above n_points). */
	int cap = 8;
	enum sc_status st = check_ranges(coll_point_fields, p, coll_point_kind, err);

	if (st != SC_OK)
		return st;
	while (cap < c->n_points)
		cap *= 2;
	if (c->n_points == 0 || c->n_points == cap) {
		int want = c->n_points == 0 ? 8 : cap * 2;
		struct cal_coll_point *q = realloc(c->points, (size_t)want * sizeof(*q));
		if (!q)
			return sc_error_set(err, SC_ENOMEM, NULL, NULL, "out of memory");
		c->points = q;
	}
	c->points[c->n_points++] = *p;
	return SC_OK;
}

#define ADD_POINT(fn, type, arr, n, cap, fields, what) \
	enum sc_status fn(struct cal_measurements *m, const type *p, struct sc_error *err) \
	{ \
		enum sc_status st_ = check_ranges(fields, p, what, err); \
		if (st_ != SC_OK) \
			return st_; \
		if (m->n_rows >= CAL_MAX_ROWS) \
			return sc_error_set(err, SC_EINVAL, NULL, NULL, \
					    "more than %d measurement rows in one set: split the input", \
					    CAL_MAX_ROWS); \
		if (!grow((void **)&m->arr, &m->cap, m->n, sizeof(*m->arr))) \
			return sc_error_set(err, SC_ENOMEM, NULL, NULL, "out of memory"); \
		m->arr[m->n++] = *p; \
		m->n_rows++; \
		return SC_OK; \
	}

ADD_POINT(cal_add_gemm, struct cal_gemm_point, gemm, n_gemm, cap_gemm, gemm_fields, "GEMM")
ADD_POINT(cal_add_hbm, struct cal_hbm_point, hbm, n_hbm, cap_hbm, hbm_fields, "HBM")
ADD_POINT(cal_add_storage, struct cal_storage_point, storage, n_storage, cap_storage, storage_fields,
	  "storage")

static void take_str(char *dst, const char *src, size_t n)
{
	if (!dst[0] && src[0])
		snprintf(dst, n, "%s", src);
}

enum sc_status cal_measurements_merge(struct cal_measurements *dst,
				      struct cal_measurements *src, struct sc_error *err)
{
	enum sc_status st = SC_OK;
	struct cal_provenance *a = &dst->prov;
	const struct cal_provenance *b = &src->prov;

	take_str(a->tool, b->tool, sizeof(a->tool));
	take_str(a->created, b->created, sizeof(a->created));
	take_str(a->gpu, b->gpu, sizeof(a->gpu));
	take_str(a->driver, b->driver, sizeof(a->driver));
	take_str(a->cuda, b->cuda, sizeof(a->cuda));
	take_str(a->nccl, b->nccl, sizeof(a->nccl));
	take_str(a->host, b->host, sizeof(a->host));
	if (!a->gpus)
		a->gpus = b->gpus;
	if (b->inputs[0] && !strstr(a->inputs, b->inputs)) {
		size_t len = strlen(a->inputs);
		snprintf(a->inputs + len, sizeof(a->inputs) - len, "%s%s", len ? ", " : "", b->inputs);
	}
	for (int i = 0; i < src->n_curves && st == SC_OK; i++) {
		/* move the points array instead of copying it */
		if (src->curves[i].n_points > CAL_MAX_ROWS - dst->n_rows ||
		    dst->n_curves >= CAL_MAX_CURVES) {
			st = sc_error_set(err, SC_EINVAL, NULL, NULL,
					  "more than %d measurement rows or %d collective curves in one set: "
					  "split the input", CAL_MAX_ROWS, CAL_MAX_CURVES);
			break;
		}
		if (!grow((void **)&dst->curves, &dst->cap_curves, dst->n_curves, sizeof(*dst->curves)))
			return sc_error_set(err, SC_ENOMEM, NULL, NULL, "out of memory");
		dst->curves[dst->n_curves++] = src->curves[i];
		dst->n_rows += src->curves[i].n_points;
		src->curves[i].points = NULL;
		src->curves[i].n_points = 0;
	}
	for (int i = 0; i < src->n_gemm && st == SC_OK; i++)
		st = cal_add_gemm(dst, &src->gemm[i], err);
	for (int i = 0; i < src->n_hbm && st == SC_OK; i++)
		st = cal_add_hbm(dst, &src->hbm[i], err);
	for (int i = 0; i < src->n_storage && st == SC_OK; i++)
		st = cal_add_storage(dst, &src->storage[i], err);
	cal_measurements_free(src);
	return st;
}

/* Field tables: the JSON form of each struct, for the strict reader. */
static const struct cfg_field prov_fields[] = {
	CFG_F_STR(struct cal_provenance, tool, 0, "what produced the measurements"),
	CFG_F_STR(struct cal_provenance, created, 0, "UTC date and time"),
	CFG_F_STR(struct cal_provenance, gpu, 0, "GPU name"),
	CFG_F_INT(struct cal_provenance, gpus, NONNEG, "GPUs seen"),
	CFG_F_STR(struct cal_provenance, driver, 0, "driver version"),
	CFG_F_STR(struct cal_provenance, cuda, 0, "CUDA version"),
	CFG_F_STR(struct cal_provenance, nccl, 0, "NCCL version"),
	CFG_F_STR(struct cal_provenance, host, 0, "host name"),
	CFG_F_STR(struct cal_provenance, inputs, 0, "files ingested"),
	CFG_END
};

static const struct cfg_field curve_fields[] = {
	CFG_F_STR(struct cal_curve, op, REQ, "collective"),
	CFG_F_STR(struct cal_curve, dtype, 0, "element type"),
	CFG_F_STR(struct cal_curve, redop, 0, "reduction"),
	CFG_F_INT(struct cal_curve, ranks, REQ | CFG_POSITIVE, "group size"),
	CFG_F_INT(struct cal_curve, nodes, NONNEG, "hosts"),
	CFG_F_INT(struct cal_curve, gpus_per_node, NONNEG, "GPUs per host"),
	CFG_F_STR(struct cal_curve, gpu, 0, "GPU name"),
	CFG_F_STR(struct cal_curve, source, 0, "where the table was read"),
	CFG_END
};

/* Plausibility ranges of measured quantities: a value outside is a
 * corrupt or hand-edited file, not a measurement (a 1e294 s collective made
 * the fit's r2 NaN).  The same bounds as the nccl-tests text reader
 * (ingest/ing_nccl_text.c: sizes to 2^48 bytes, no GPU holds more; times
 * to 1000 s, no collective takes longer); bandwidths to 10^5 GB/s, 50x
 * the fastest GPU link (NVLink 5: 1.8 TB/s); GEMM rates to 10^17 FLOP/s
 * (6x B300's dense FP4 peak); HBM to 10^14 B/s (12x B300's 8 TB/s);
 * storage to 10^13 B/s and 10^10 IOPS (an aggregate far above FSx for
 * Lustre's largest); times from 1 ns (below any kernel's launch). */
#define MEAS_MAX_BYTES 281474976710656.0 /* 2^48 */
#define MEAS_MAX_TIME_S 1000.0
#define MEAS_MIN_TIME_S 1e-9
#define MEAS_MAX_GBPS 1e5
#define MEAS_MAX_FLOPS 1e17
#define MEAS_MAX_HBM_BPS 1e14
#define MEAS_MAX_GEMM_DIM 16777216.0 /* 2^24 */
#define MEAS_MAX_STORAGE_BPS 1e13
#define MEAS_MAX_IOPS 1e10
#define MEAS_MAX_RUN_S 1e7 /* a fio run of 116 days */
#define MEAS_MAX_IO_BYTES 1e20 /* 10^13 B/s for 10^7 s */

/* "wrong" and "inplace_wrong" are absent when the tool printed N/A. */
static const struct cfg_field coll_point_fields[] = {
	CFG_F_NUM_RANGE(struct cal_coll_point, bytes, REQ, 0, MEAS_MAX_BYTES, "nccl-tests size, bytes"),
	CFG_F_NUM_RANGE(struct cal_coll_point, count, 0, 0, MEAS_MAX_BYTES, "elements"),
	CFG_F_NUM_RANGE(struct cal_coll_point, time_s, REQ, 0, MEAS_MAX_TIME_S, "out-of-place time, s"),
	CFG_F_NUM_RANGE(struct cal_coll_point, algbw_GBps, 0, 0, MEAS_MAX_GBPS, "algorithm bandwidth"),
	CFG_F_NUM_RANGE(struct cal_coll_point, busbw_GBps, 0, 0, MEAS_MAX_GBPS, "bus bandwidth"),
	CFG_F_NUM_RANGE(struct cal_coll_point, wrong, 0, 0, MEAS_MAX_BYTES, "wrong elements"),
	CFG_F_NUM_RANGE(struct cal_coll_point, inplace_time_s, 0, 0, MEAS_MAX_TIME_S, "in-place time, s"),
	CFG_F_NUM_RANGE(struct cal_coll_point, inplace_algbw_GBps, 0, 0, MEAS_MAX_GBPS,
			"in-place algorithm bandwidth"),
	CFG_F_NUM_RANGE(struct cal_coll_point, inplace_busbw_GBps, 0, 0, MEAS_MAX_GBPS,
			"in-place bus bandwidth"),
	CFG_F_NUM_RANGE(struct cal_coll_point, inplace_wrong, 0, 0, MEAS_MAX_BYTES, "in-place wrong elements"),
	CFG_END
};

static const struct cfg_field gemm_fields[] = {
	CFG_F_STR(struct cal_gemm_point, dtype, REQ, "bf16 or fp8"),
	CFG_F_STR(struct cal_gemm_point, label, 0, "shape's origin"),
	CFG_F_NUM_RANGE(struct cal_gemm_point, m, REQ, 1, MEAS_MAX_GEMM_DIM, "M"),
	CFG_F_NUM_RANGE(struct cal_gemm_point, n, REQ, 1, MEAS_MAX_GEMM_DIM, "N"),
	CFG_F_NUM_RANGE(struct cal_gemm_point, k, REQ, 1, MEAS_MAX_GEMM_DIM, "K"),
	CFG_F_NUM_RANGE(struct cal_gemm_point, time_s, REQ, MEAS_MIN_TIME_S, MEAS_MAX_TIME_S, "median time, s"),
	CFG_F_NUM_RANGE(struct cal_gemm_point, flops_per_s, 0, 0, MEAS_MAX_FLOPS, "2 m n k / time"),
	CFG_END
};

static const struct cfg_field hbm_fields[] = {
	CFG_F_STR(struct cal_hbm_point, kernel, REQ, "copy or read-write"),
	CFG_F_NUM_RANGE(struct cal_hbm_point, bytes, REQ, 1, MEAS_MAX_BYTES, "bytes read plus written"),
	CFG_F_NUM_RANGE(struct cal_hbm_point, time_s, REQ, MEAS_MIN_TIME_S, MEAS_MAX_TIME_S, "median time, s"),
	CFG_F_NUM_RANGE(struct cal_hbm_point, Bps, 0, 0, MEAS_MAX_HBM_BPS, "bytes / time"),
	CFG_END
};

static const struct cfg_field storage_fields[] = {
	CFG_F_STR(struct cal_storage_point, job, REQ, "fio job name"),
	CFG_F_STR(struct cal_storage_point, rw, 0, "fio rw="),
	CFG_F_STR(struct cal_storage_point, direction, REQ, "read, write or trim"),
	CFG_F_NUM_RANGE(struct cal_storage_point, bs_bytes, 0, 0, MEAS_MAX_BYTES, "block size"),
	CFG_F_INT(struct cal_storage_point, numjobs, NONNEG, "jobs"),
	CFG_F_INT(struct cal_storage_point, iodepth, NONNEG, "queue depth"),
	CFG_F_NUM_RANGE(struct cal_storage_point, bw_Bps, REQ, 0, MEAS_MAX_STORAGE_BPS, "bandwidth"),
	CFG_F_NUM_RANGE(struct cal_storage_point, iops, 0, 0, MEAS_MAX_IOPS, "I/O per second"),
	CFG_F_NUM_RANGE(struct cal_storage_point, lat_mean_s, 0, 0, MEAS_MAX_TIME_S, "mean latency"),
	CFG_F_NUM_RANGE(struct cal_storage_point, runtime_s, 0, 0, MEAS_MAX_RUN_S, "run time"),
	CFG_F_NUM_RANGE(struct cal_storage_point, io_bytes, 0, 0, MEAS_MAX_IO_BYTES, "bytes moved"),
	CFG_END
};

/* cJSON prints up to 17 significant digits; keep numbers as they are. */
static cJSON *array_of(const struct cfg_field *fields, const void *base, size_t elem, int n)
{
	cJSON *arr = cJSON_CreateArray();

	for (int i = 0; arr && i < n; i++) {
		cJSON *o = cfg_json_push(arr, cfg_to_json(fields, (const char *)base + (size_t)i * elem));
		if (!o) {
			cJSON_Delete(arr);
			return NULL;
		}
	}
	return arr;
}

static cJSON *curve_json(const struct cal_curve *c)
{
	cJSON *o = cfg_to_json(curve_fields, c), *pts = cJSON_CreateArray();

	if (!o || !pts) {
		cJSON_Delete(o);
		cJSON_Delete(pts);
		return NULL;
	}
	cJSON_AddItemToObject(o, "points", pts);
	for (int i = 0; i < c->n_points; i++) {
		const struct cal_coll_point *p = &c->points[i];
		cJSON *q = cfg_json_push(pts, cJSON_CreateObject());

		if (!q) {
			cJSON_Delete(o);
			return NULL;
		}
		cJSON_AddNumberToObject(q, "bytes", p->bytes);
		cJSON_AddNumberToObject(q, "count", p->count);
		cJSON_AddNumberToObject(q, "time_s", p->time_s);
		cJSON_AddNumberToObject(q, "algbw_GBps", p->algbw_GBps);
		cJSON_AddNumberToObject(q, "busbw_GBps", p->busbw_GBps);
		if (p->wrong >= 0)
			cJSON_AddNumberToObject(q, "wrong", p->wrong);
		if (p->inplace_time_s > 0) {
			cJSON_AddNumberToObject(q, "inplace_time_s", p->inplace_time_s);
			cJSON_AddNumberToObject(q, "inplace_algbw_GBps", p->inplace_algbw_GBps);
			cJSON_AddNumberToObject(q, "inplace_busbw_GBps", p->inplace_busbw_GBps);
			if (p->inplace_wrong >= 0)
				cJSON_AddNumberToObject(q, "inplace_wrong", p->inplace_wrong);
		}
	}
	return o;
}

cJSON *cal_measurements_to_json(const struct cal_measurements *m)
{
	cJSON *root = cJSON_CreateObject(), *curves = cJSON_CreateArray(), *x;
	bool ok = root && curves;

	if (!ok) {
		cJSON_Delete(root);
		cJSON_Delete(curves);
		return NULL;
	}
	cJSON_AddStringToObject(root, "format", "stepcast-measurements");
	cJSON_AddNumberToObject(root, "schema_version", 1);
	ok &= (x = cfg_to_json(prov_fields, &m->prov)) != NULL;
	if (x)
		cJSON_AddItemToObject(root, "provenance", x);
	cJSON_AddItemToObject(root, "collectives", curves);
	for (int i = 0; ok && i < m->n_curves; i++) {
		cJSON *c = curve_json(&m->curves[i]);
		ok &= c != NULL;
		if (c)
			cJSON_AddItemToArray(curves, c);
	}
	ok &= (x = array_of(gemm_fields, m->gemm, sizeof(*m->gemm), m->n_gemm)) != NULL;
	if (x)
		cJSON_AddItemToObject(root, "gemm", x);
	ok &= (x = array_of(hbm_fields, m->hbm, sizeof(*m->hbm), m->n_hbm)) != NULL;
	if (x)
		cJSON_AddItemToObject(root, "hbm", x);
	ok &= (x = array_of(storage_fields, m->storage, sizeof(*m->storage), m->n_storage)) != NULL;
	if (x)
		cJSON_AddItemToObject(root, "storage", x);
	if (!ok) {
		cJSON_Delete(root);
		return NULL;
	}
	return root;
}

/* An error of a value the reader took from rd's file at where: say where
 * (the add and range checks know the value, not its place). */
static enum sc_status at(struct cfg_reader *rd, const char *where, enum sc_status st)
{
	if (rd->err && !rd->err->pointer[0]) {
		snprintf(rd->err->file, sizeof(rd->err->file), "%s", rd->file ? rd->file : "");
		snprintf(rd->err->pointer, sizeof(rd->err->pointer), "%s", where);
	}
	return st;
}

/* Read each object of the array root[key] with fields into a scratch
 * element and hand it to add(). */
typedef enum sc_status (*add_fn)(struct cal_measurements *m, const void *elem,
				 struct sc_error *err);

static enum sc_status read_array(struct cfg_reader *rd, const cJSON *root, const char *key,
				 const struct cfg_field *fields, void *scratch, size_t elem,
				 add_fn add, struct cal_measurements *m)
{
	const cJSON *arr = cJSON_GetObjectItemCaseSensitive(root, key), *it;
	char where[SC_ERROR_PTR_MAX], w[SC_ERROR_PTR_MAX];
	enum sc_status st;
	int i = 0;

	if (!arr)
		return SC_OK;
	cfg_pointer_key(where, sizeof(where), "", key);
	if (!cJSON_IsArray(arr))
		return sc_error_set(rd->err, SC_EINVAL, rd->file, where,
				    "expected an array, got %s", cfg_json_type_name(arr));
	cJSON_ArrayForEach(it, arr) {
		cfg_pointer_index(w, sizeof(w), where, i++);
		memset(scratch, 0, elem);
		if ((st = cfg_read_object(rd, it, fields, scratch, w)) != SC_OK)
			return st;
		if ((st = add(m, scratch, rd->err)) != SC_OK)
			return at(rd, w, st);
	}
	return SC_OK;
}

static enum sc_status add_gemm(struct cal_measurements *m, const void *e, struct sc_error *err)
{
	struct cal_gemm_point p = *(const struct cal_gemm_point *)e;

	if (strcmp(p.dtype, "bf16") != 0 && strcmp(p.dtype, "fp8") != 0 && strcmp(p.dtype, "fp4") != 0)
		return sc_error_set(err, SC_EINVAL, NULL, NULL,
				    "unknown GEMM dtype \"%s\" (expected \"bf16\", \"fp8\" or \"fp4\")",
				    p.dtype);
	if (!(p.flops_per_s > 0))
		p.flops_per_s = 2.0 * p.m * p.n * p.k / p.time_s;
	/* a time of 5e-324 s gives infinite FLOP/s, which JSON cannot hold */
	if (!isfinite(p.flops_per_s))
		return sc_error_set(err, SC_EINVAL, NULL, NULL,
				    "GEMM %s %gx%gx%g: a time of %g s gives %g FLOP/s", p.dtype,
				    (double)p.m, (double)p.n, (double)p.k, p.time_s, p.flops_per_s);
	return cal_add_gemm(m, &p, err);
}

static enum sc_status add_hbm(struct cal_measurements *m, const void *e, struct sc_error *err)
{
	struct cal_hbm_point p = *(const struct cal_hbm_point *)e;

	if (!(p.Bps > 0))
		p.Bps = p.bytes / p.time_s;
	if (!isfinite(p.Bps))
		return sc_error_set(err, SC_EINVAL, NULL, NULL,
				    "HBM %s: %g bytes in %g s gives %g B/s", p.kernel, (double)p.bytes,
				    p.time_s, p.Bps);
	return cal_add_hbm(m, &p, err);
}

static enum sc_status add_storage(struct cal_measurements *m, const void *e, struct sc_error *err)
{
	return cal_add_storage(m, (const struct cal_storage_point *)e, err);
}

static enum sc_status read_curves(struct cfg_reader *rd, const cJSON *root,
				  struct cal_measurements *m)
{
	const cJSON *arr = cJSON_GetObjectItemCaseSensitive(root, "collectives"), *it;
	char where[SC_ERROR_PTR_MAX], w[SC_ERROR_PTR_MAX], pw[SC_ERROR_PTR_MAX];
	enum sc_status st;
	int i = 0;

	if (!arr)
		return SC_OK;
	if (!cJSON_IsArray(arr))
		return sc_error_set(rd->err, SC_EINVAL, rd->file, "/collectives",
				    "expected an array, got %s", cfg_json_type_name(arr));
	cJSON_ArrayForEach(it, arr) {
		struct cal_curve c;
		const cJSON *pts, *pt;
		cJSON *copy;
		char norm[32];
		int j = 0;

		cfg_pointer_index(where, sizeof(where), "/collectives", i++);
		memset(&c, 0, sizeof(c));
		if (!cJSON_IsObject(it))
			return sc_error_set(rd->err, SC_EINVAL, rd->file, where,
					    "expected an object, got %s", cfg_json_type_name(it));
		copy = cJSON_Duplicate(it, true);
		if (!copy)
			return sc_error_set(rd->err, SC_ENOMEM, rd->file, where, "out of memory");
		cJSON_DeleteItemFromObjectCaseSensitive(copy, "points");
		st = cfg_read_object(rd, copy, curve_fields, &c, where);
		cJSON_Delete(copy);
		if (st != SC_OK)
			return st;
		cfg_pointer_key(w, sizeof(w), where, "op");
		if (!cal_op_normalise(c.op, norm, sizeof(norm)))
			return sc_error_set(rd->err, SC_EINVAL, rd->file, w,
					    "unknown collective \"%s\"", c.op);
		snprintf(c.op, sizeof(c.op), "%s", norm);
		pts = cJSON_GetObjectItemCaseSensitive(it, "points");
		cfg_pointer_key(w, sizeof(w), where, "points");
		if (!pts)
			return sc_error_set(rd->err, SC_EINVAL, rd->file, where,
					    "missing required key \"points\"");
		if (!cJSON_IsArray(pts))
			return sc_error_set(rd->err, SC_EINVAL, rd->file, w,
					    "expected an array, got %s", cfg_json_type_name(pts));
		if ((st = cal_add_curve(m, &c, rd->err)) != SC_OK)
			return at(rd, where, st);
		cJSON_ArrayForEach(pt, pts) {
			struct cal_coll_point p;

			memset(&p, 0, sizeof(p));
			p.wrong = p.inplace_wrong = -1;
			cfg_pointer_index(pw, sizeof(pw), w, j++);
			if ((st = cfg_read_object(rd, pt, coll_point_fields, &p, pw)) != SC_OK)
				return st;
			if (m->n_rows >= CAL_MAX_ROWS)
				return sc_error_set(rd->err, SC_EINVAL, rd->file, pw,
						    "more than %d measurement rows in one set: split the input",
						    CAL_MAX_ROWS);
			st = cal_curve_add_point(&m->curves[m->n_curves - 1], &p, rd->err);
			if (st != SC_OK)
				return at(rd, pw, st);
			m->n_rows++;
		}
		if (j == 0)
			return sc_error_set(rd->err, SC_EINVAL, rd->file, w, "no points");
	}
	return SC_OK;
}

enum sc_status cal_measurements_read(const char *name, const cJSON *root,
				     struct cal_measurements *m, struct sc_error *err)
{
	static const char *const keys[] = { "format", "schema_version", "provenance", "collectives",
					    "gemm", "hbm", "storage", NULL };
	struct cfg_reader rd = { name, err, NULL };
	const cJSON *f = cJSON_GetObjectItemCaseSensitive(root, "format");
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(root, "schema_version");
	const cJSON *prov = cJSON_GetObjectItemCaseSensitive(root, "provenance");
	struct cal_gemm_point g;
	struct cal_hbm_point h;
	struct cal_storage_point sp;
	struct cal_provenance p;
	enum sc_status st;

	if (!cJSON_IsObject(root))
		return sc_error_set(err, SC_EINVAL, name, "/", "expected an object, got %s",
				    cfg_json_type_name(root));
	if (!cJSON_IsString(f) || strcmp(f->valuestring, "stepcast-measurements") != 0)
		return sc_error_set(err, SC_EINVAL, name, "/format",
				    "expected \"stepcast-measurements\"");
	if (!cJSON_IsNumber(v) || v->valuedouble != 1)
		return sc_error_set(err, SC_EINVAL, name, "/schema_version",
				    "expected schema_version 1");
	if ((st = cfg_check_keys(&rd, root, keys, "")) != SC_OK)
		return st;
	if (prov) {
		memset(&p, 0, sizeof(p));
		if ((st = cfg_read_object(&rd, prov, prov_fields, &p, "/provenance")) != SC_OK)
			return st;
		{
			struct cal_measurements tmp;
			cal_measurements_init(&tmp);
			tmp.prov = p;
			cal_measurements_merge(m, &tmp, err);
		}
	}
	if ((st = read_curves(&rd, root, m)) != SC_OK ||
	    (st = read_array(&rd, root, "gemm", gemm_fields, &g, sizeof(g), add_gemm, m)) != SC_OK ||
	    (st = read_array(&rd, root, "hbm", hbm_fields, &h, sizeof(h), add_hbm, m)) != SC_OK ||
	    (st = read_array(&rd, root, "storage", storage_fields, &sp, sizeof(sp), add_storage, m)) != SC_OK) {
		if (!err->file[0])
			snprintf(err->file, sizeof(err->file), "%s", name);
		return st;
	}
	return SC_OK;
}

bool cal_op_to_coll(const char *op, enum coll_op *out)
{
	static const struct { const char *name; enum coll_op op; } map[] = {
		{ "all_reduce", COLL_ALL_REDUCE },
		{ "all_gather", COLL_ALL_GATHER },
		{ "reduce_scatter", COLL_REDUCE_SCATTER },
		{ "all_to_all", COLL_ALL_TO_ALL },
		{ "send_recv", COLL_SEND_RECV },
	};

	for (size_t i = 0; i < sizeof(map) / sizeof(map[0]); i++)
		if (strcmp(op, map[i].name) == 0) {
			*out = map[i].op;
			return true;
		}
	return false;
}

bool cal_op_normalise(const char *name, char *out, size_t n)
{
	/* nccl-tests program names (one per file in its src/) and our own spellings. */
	static const struct { const char *in, *out; } map[] = {
		{ "all_reduce", "all_reduce" }, { "allreduce", "all_reduce" },
		{ "all_gather", "all_gather" }, { "allgather", "all_gather" },
		{ "reduce_scatter", "reduce_scatter" }, { "reducescatter", "reduce_scatter" },
		{ "alltoall", "all_to_all" }, { "all_to_all", "all_to_all" },
		{ "alltoallv", "alltoallv" },
		{ "sendrecv", "send_recv" }, { "send_recv", "send_recv" },
		{ "broadcast", "broadcast" }, { "reduce", "reduce" },
		{ "gather", "gather" }, { "scatter", "scatter" },
		{ "hypercube", "hypercube" },
	};
	char buf[64];
	size_t len;
	const char *base = strrchr(name, '/');

	base = base ? base + 1 : name;
	len = strlen(base);
	if (len == 0 || len >= sizeof(buf))
		return false;
	for (size_t i = 0; i <= len; i++)
		buf[i] = (char)tolower((unsigned char)base[i]);
	/* strip "_perf" and anything after it ("_perf_mpi") */
	{
		char *perf = strstr(buf, "_perf");
		if (perf)
			*perf = '\0';
	}
	for (size_t i = 0; i < sizeof(map) / sizeof(map[0]); i++)
		if (strcmp(buf, map[i].in) == 0) {
			snprintf(out, n, "%s", map[i].out);
			return true;
		}
	return false;
}
