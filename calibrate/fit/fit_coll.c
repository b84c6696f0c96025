/* fit_coll.c: collective parameters from nccl-tests curves (see fit.h).
 *
 * The model is models/collective.c itself: each measured point (curve c,
 * size S, time t) contributes w * ln(coll_time(cal, span_c, op_c, S) / t),
 * where span_c is where the curve's ranks sit on the instance (consecutive
 * ranks, nccl-tests' placement).  Fitting through coll_time() keeps the
 * fit and `predict` from disagreeing about what a parameter means: the
 * fastest algorithm wins at each size in both.
 *
 * Weights (why): w = 0.3 below 1 MiB, where times are latency-bound and
 * noisy (the published p5 curve is not even monotone there: 135 us at
 * 64 KiB, 109 us at 128 KiB) and matter little for training steps whose
 * collectives are MiB-sized; w = 1 from 1 MiB; w = 3 for the three largest
 * sizes of a curve, which fix the bus bandwidth the curve converges to (the
 * figure users compare with the link speed, and the one large DP/FSDP
 * buckets run at).  Prior: 0.03 logit units per parameter towards the base
 * profile; with two nodes the data cannot separate a per-step latency from
 * the start-up, or ring from tree (their formulas coincide for N = 2), and
 * the prior settles such directions at the base's values instead of at an
 * arbitrary bound.  On the published p5 and p4de curves this choice meets
 * the targets of tests/unit/test_cal_fit.c (large-message bus bandwidth
 * within 2 %, every size from 1 MiB within 10 %); with uniform weights the
 * 16 GiB p5 point is 3.6 % off.
 */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../models/network.h"
#include "fit_core.h"

#define W_SMALL 0.3
#define W_TAIL 3.0
#define SMALL_BYTES 1048576.0
#define TAIL_POINTS 3
#define MIN_SEGMENT 3

static const int collective_params[] = {
	CALIB_nvlink_ring_alpha_s, CALIB_nvlink_ring_bw_eff, CALIB_nvlink_nvls_alpha_s,
	CALIB_nvlink_nvls_bw_eff, CALIB_efa_ring_alpha_s, CALIB_efa_ring_bw_eff,
	CALIB_efa_tree_alpha_s, CALIB_efa_startup_s, CALIB_efa_tree_bw_eff,
	CALIB_nvlink_a2a_bw_eff, CALIB_efa_a2a_bw_eff, CALIB_a2a_alpha_s, CALIB_p2p_alpha_s,
	CALIB_ll_alpha_fraction, CALIB_ll_bw_fraction,
	CALIB_awsefa_step_alpha_s, CALIB_awsefa_tree_alpha_s, CALIB_awsefa_startup_s,
	CALIB_awsefa_ring_bw_eff, CALIB_awsefa_tree_bw_eff, CALIB_awsefa_nvlstree_bw_eff,
	CALIB_awsefa_a2a_bw_eff, CALIB_awsefa_ll128_alpha_fraction, CALIB_awsefa_ll128_bw_fraction,
	CALIB_awsefa_a2a_peer_alpha_s, CALIB_awsefa_scale_decay, CALIB_awsefa_ll128_overlap,
};

bool cal_is_collective_param(enum calib_param p)
{
	for (size_t i = 0; i < sizeof(collective_params) / sizeof(collective_params[0]); i++)
		if (collective_params[i] == (int)p)
			return true;
	return false;
}

bool cal_fit_parse_params(const char *list, struct cal_fit_opts *o, struct sc_error *err)
{
	char buf[1024], *save = NULL;

	o->n_params = 0;
	snprintf(buf, sizeof(buf), "%s", list);
	for (char *t = strtok_r(buf, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
		int i = calib_param_index(t);
		bool dup = false;

		if (i < 0 || !cal_is_collective_param((enum calib_param)i)) {
			sc_error_set(err, SC_EINVAL, "--params", NULL,
				     i < 0 ? "unknown calibration parameter \"%s\""
					   : "\"%s\" is not a parameter of the collective model", t);
			return false;
		}
		for (int j = 0; j < o->n_params; j++)
			dup |= o->params[j] == i;
		if (!dup)
			o->params[o->n_params++] = i;
	}
	if (o->n_params == 0) {
		sc_error_set(err, SC_EINVAL, "--params", NULL, "no parameter named");
		return false;
	}
	return true;
}

/* The parameters coll_time()'s formula for (algorithm, tier) reads (see
 * models/collective.c: the flat ring across EFA is bounded by the NVLink
 * ring and the EFA ring; tree chains inside the domain over the NVLink ring;
 * hierarchical names its two phases; "/ll" scales the Simple protocol's
 * latencies and bandwidths by ll_*). */
bool cal_algorithm_uses(const char *alg, const char *tier, enum calib_param p)
{
	/* an awsefa_* parameter is used where its generic counterpart is,
	 * except that NVLS_TREE's tree has a bandwidth of its own on EFA */
	bool nvlstree = strncmp(alg, "hierarchical(nvls+efa-tree)", 27) == 0;

	if ((p == CALIB_awsefa_tree_bw_eff && nvlstree) || (p == CALIB_awsefa_nvlstree_bw_eff && !nvlstree))
		return false;
	/* the awsefa_* parameter's generic role (models/collective.h owns
	 * the correspondence) */
	p = coll_generic_param(p);
	bool efa = tier && strcmp(tier, "efa") == 0;
	size_t len = strlen(alg);
	/* the protocol suffix exactly: "/ll" is not "/ll128" */
	bool ll = len >= 3 && strcmp(alg + len - 3, "/ll") == 0;
	bool ll128 = len >= 6 && strcmp(alg + len - 6, "/ll128") == 0;
	bool hier = strncmp(alg, "hierarchical(", 13) == 0;
	bool intra_nvls, inter_tree;

	if (p == CALIB_ll_alpha_fraction || p == CALIB_ll_bw_fraction)
		return ll;
	if (p == CALIB_awsefa_ll128_alpha_fraction || p == CALIB_awsefa_ll128_bw_fraction ||
	    p == CALIB_awsefa_ll128_overlap)
		return ll128;
	if (strcmp(alg, "direct") == 0 || strcmp(alg, "node-dedup") == 0)
		return p == CALIB_a2a_alpha_s || p == CALIB_nvlink_a2a_bw_eff ||
		       (efa && p == CALIB_efa_a2a_bw_eff);
	if (strcmp(alg, "p2p") == 0)
		return p == CALIB_p2p_alpha_s ||
		       p == (efa ? CALIB_efa_ring_bw_eff : CALIB_nvlink_ring_bw_eff);
	intra_nvls = hier ? strncmp(alg + 13, "nvls", 4) == 0 : strncmp(alg, "nvls", 4) == 0;
	inter_tree = hier ? strstr(alg, "efa-tree") != NULL : strncmp(alg, "tree", 4) == 0;
	if (intra_nvls && (p == CALIB_nvlink_nvls_alpha_s || p == CALIB_nvlink_nvls_bw_eff))
		return true;
	if (!intra_nvls && (p == CALIB_nvlink_ring_bw_eff ||
			    (p == CALIB_nvlink_ring_alpha_s && (!efa || hier || inter_tree))))
		return true;
	if (!efa)
		return false;
	if (p == CALIB_efa_startup_s)
		return true;
	if (inter_tree)
		return p == CALIB_efa_tree_alpha_s || p == CALIB_efa_tree_bw_eff;
	return p == CALIB_efa_ring_alpha_s || p == CALIB_efa_ring_bw_eff;
}

struct cpoint {
	int curve;
	double bytes, t, w;
};

/* Ascending message size (qsort). */
static int cpoint_by_bytes(const void *a, const void *b)
{
	double x = ((const struct cpoint *)a)->bytes, y = ((const struct cpoint *)b)->bytes;

	return (x > y) - (x < y);
}

struct cctx {
	int n_curves;
	struct net_span span[CAL_FIT_MAX_CURVES];
	enum coll_op op[CAL_FIT_MAX_CURVES];
	int n;
	struct cpoint *pts;
};

static void coll_residuals(const struct calibration *cal, double *r, void *arg)
{
	const struct cctx *c = arg;

	for (int i = 0; i < c->n; i++) {
		const struct cpoint *p = &c->pts[i];
		double t = coll_time(cal, &c->span[p->curve], c->op[p->curve], p->bytes, NULL);
		r[i] = p->w * log(t / p->t);
	}
}

/* The group of one curve on the instance: consecutive ranks, as nccl-tests
 * places them (one per GPU, host by host). */
static enum sc_status curve_span(const struct cal_curve *cv, const struct cluster *cl,
				 struct net_span *s, struct sc_error *err)
{
	int gpn = cl->instance.gpus_per_node;

	if (cv->gpus_per_node > 0 && cv->gpus_per_node != gpn)
		return sc_error_set(err, SC_EINVAL, cv->source, NULL,
				    "%s ran %d GPUs per host but %s has %d: pass the instance it ran on",
				    cv->op, cv->gpus_per_node, cl->instance.name, gpn);
	if (cv->nodes > 0 && cv->ranks > cv->nodes * gpn)
		return sc_error_set(err, SC_EINVAL, cv->source, NULL,
				    "%d ranks on %d hosts of %d GPUs each", cv->ranks, cv->nodes, gpn);
	*s = net_span_of(cl, cv->ranks, 1);
	return SC_OK;
}

static void join_names(char *out, size_t n, const bool *which)
{
	size_t len = 0;

	out[0] = '\0';
	for (int i = 0; i < CALIB_COUNT; i++) {
		if (!which[i])
			continue;
		len = strlen(out);
		if (len + strlen(calib_params[i].name) + 2 >= n)
			break;
		snprintf(out + len, n - len, "%s%s", len ? "," : "", calib_params[i].name);
	}
}

/* A weighted line t = a + b S over pts[lo..hi) of curve k: the segment's
 * alpha and bus bandwidth. */
static void add_segment(struct cal_fit_result *res, const struct cal_fit_curve *cv,
			int lo, int hi)
{
	int n = hi - lo;
	double x[CAL_FIT_MAX_POINTS], y[CAL_FIT_MAX_POINTS];
	double yhat[CAL_FIT_MAX_POINTS], rel[CAL_FIT_MAX_POINTS];
	struct fit_line line;
	struct calib_fit *f;

	for (int i = 0; i < n; i++) {
		x[i] = cv->pts[lo + i].x;
		y[i] = cv->pts[lo + i].measured_s;
	}
	if (!fit_relative_line(x, y, n, yhat, rel, &line))
		return;
	if (!(f = fit_add(res)))
		return;
	snprintf(f->name, sizeof(f->name), "%s %d ranks %s %s", cv->op, cv->ranks, cv->tier,
		 cv->pts[lo].algorithm);
	f->kind = CALIB_FIT_SEGMENT;
	snprintf(f->tier, sizeof(f->tier), "%s", cv->tier);
	snprintf(f->algorithm, sizeof(f->algorithm), "%s", cv->pts[lo].algorithm);
	f->points = n;
	f->x_min = x[0];
	f->x_max = x[n - 1];
	for (int i = 0; i < n && i < CALIB_FIT_MAX_POINTS; i++) {
		f->x[i] = x[i];
		f->residual[i] = rel[i];
		f->n_residuals = i + 1;
	}
	f->r2 = fit_r2(y, yhat, n);
	f->rms_rel_residual = line.rms_rel;
	f->max_rel_residual = line.max_rel;
	f->alpha_s = line.c0 > 0 ? line.c0 : 0;
	/* a flat, latency-bound segment has no meaningful bandwidth */
	f->busbw_GBps = line.c1 > 0 ? cv->busbw_factor / line.c1 / 1e9 : 0;
}

/* Parameters the data can move: those of the tiers and collectives it has. */
static void default_params(const struct cctx *c, struct cal_fit_opts *o)
{
	bool want[CALIB_COUNT] = { false };

	for (int k = 0; k < c->n_curves; k++) {
		const struct net_span *s = &c->span[k];
		enum coll_op op = c->op[k];

		if (op == COLL_ALL_TO_ALL) {
			want[CALIB_a2a_alpha_s] = true;
			want[s->inter ? CALIB_efa_a2a_bw_eff : CALIB_nvlink_a2a_bw_eff] = true;
			continue;
		}
		if (op == COLL_SEND_RECV) {
			want[CALIB_p2p_alpha_s] = true;
			continue;
		}
		want[CALIB_ll_alpha_fraction] = want[CALIB_ll_bw_fraction] = true;
		if (s->inter) {
			want[CALIB_efa_ring_alpha_s] = want[CALIB_efa_ring_bw_eff] = true;
			want[CALIB_efa_tree_alpha_s] = want[CALIB_efa_tree_bw_eff] = true;
			want[CALIB_efa_startup_s] = true;
		} else {
			/* NVLink parameters come from single-domain curves only:
			 * across nodes EFA hides them */
			want[CALIB_nvlink_ring_alpha_s] = want[CALIB_nvlink_ring_bw_eff] = true;
			if (s->nvls)
				want[CALIB_nvlink_nvls_alpha_s] = want[CALIB_nvlink_nvls_bw_eff] = true;
		}
	}
	o->n_params = 0;
	for (size_t i = 0; i < sizeof(collective_params) / sizeof(collective_params[0]); i++)
		if (want[collective_params[i]])
			o->params[o->n_params++] = collective_params[i];
}

/* One curve's usable points into c (timed, right elements, at most
 * CAL_FIT_MAX_POINTS), sorted by size, the largest weighted as the tail
 * that fixes the asymptotic bus bandwidth. Returns how many it took. */
static int gather_curve_points(const struct cal_curve *cv, const struct cal_fit_opts *opts,
			       struct cctx *c, struct cal_fit_result *res)
{
	int first = c->n, used = 0;

	for (int i = 0; i < cv->n_points && used < CAL_FIT_MAX_POINTS; i++) {
		const struct cal_coll_point *p = &cv->points[i];
		double t = opts->inplace ? p->inplace_time_s : p->time_s;
		struct cpoint *q = &c->pts[c->n];

		if (!(p->bytes > 0) || !(t > 0))
			continue;
		if ((opts->inplace ? p->inplace_wrong : p->wrong) > 0) {
			fit_note(res, "%s: %.0f bytes has wrong elements: left out", cv->source, p->bytes);
			continue;
		}
		q->curve = c->n_curves;
		q->bytes = p->bytes;
		q->t = t;
		q->w = p->bytes < SMALL_BYTES ? W_SMALL : 1.0;
		c->n++;
		used++;
	}
	if (used < 2)
		return used;
	/* a log's rows (or concatenated logs) need not be in increasing
	 * size; the segments and x ranges below read them in order */
	qsort(&c->pts[first], (size_t)(c->n - first), sizeof(c->pts[0]), cpoint_by_bytes);
	/* the largest sizes fix the asymptotic bus bandwidth */
	for (int i = 0; i < TAIL_POINTS && i < used; i++) {
		int best = -1;
		for (int j = first; j < c->n; j++)
			if (c->pts[j].w <= 1.0 && (best < 0 || c->pts[j].bytes > c->pts[best].bytes))
				best = j;
		if (best >= 0)
			c->pts[best].w = W_TAIL;
	}
	return used;
}

/* The measured curves the model can fit, with their network spans and
 * points; curve_of maps each fitted curve back to its measurement. */
static enum sc_status gather_curves(const struct cal_measurements *m, const struct cluster *cl,
				    const struct cal_fit_opts *opts, struct cctx *c, int *curve_of,
				    struct cal_fit_result *res, struct sc_error *err)
{
	enum sc_status st;

	for (int k = 0; k < m->n_curves; k++) {
		const struct cal_curve *cv = &m->curves[k];
		enum coll_op op;
		int first = c->n;

		if (!cal_op_to_coll(cv->op, &op)) {
			fit_note(res, "%s (%s): the model has no %s: not fitted", cv->op, cv->source, cv->op);
			continue;
		}
		if (cv->ranks < 2) {
			fit_note(res, "%s (%s): one rank: nothing to fit", cv->op, cv->source);
			continue;
		}
		if (c->n_curves == CAL_FIT_MAX_CURVES) {
			fit_note(res, "more than %d curves: the rest are not fitted", CAL_FIT_MAX_CURVES);
			break;
		}
		if ((st = curve_span(cv, cl, &c->span[c->n_curves], err)) != SC_OK)
			return st;
		c->op[c->n_curves] = op;
		if (gather_curve_points(cv, opts, c, res) < 2) {
			c->n = first;
			fit_note(res, "%s (%s): fewer than two timed sizes: not fitted", cv->op, cv->source);
			continue;
		}
		curve_of[c->n_curves++] = k;
	}
	return SC_OK;
}

/* On an instance with an AWS EFA transport the model reads the awsefa_*
 * counterparts of the generic scale-out parameters: fit those. */
static void use_awsefa_params(const struct cctx *c, struct cal_fit_opts *o)
{
	for (int i = 0, n = o->n_params; i < n; i++)
		for (int k = 0; k < c->n_curves; k++)
			if (c->span[k].inter) {
				o->params[i] = coll_scaleout_param(&c->span[k], (enum calib_param)o->params[i]);
				/* NCCL's NVLS_TREE has its own tree bandwidth there */
				if (o->params[i] == CALIB_awsefa_tree_bw_eff && o->n_params < CALIB_COUNT)
					o->params[o->n_params++] = CALIB_awsefa_nvlstree_bw_eff;
				/* and weighs LL128 beside LL */
				if (c->span[k].aws_efa && o->params[i] == CALIB_ll_bw_fraction &&
				    o->n_params + 1 < CALIB_COUNT) {
					o->params[o->n_params++] = CALIB_awsefa_ll128_alpha_fraction;
					o->params[o->n_params++] = CALIB_awsefa_ll128_bw_fraction;
				}
				break;
			}
}

/* Which measured points' algorithms read each parameter: how many, and
 * the message sizes and rank counts they span. */
struct param_use {
	double bmin[CALIB_COUNT], bmax[CALIB_COUNT];
	int rmin[CALIB_COUNT], rmax[CALIB_COUNT], used_by[CALIB_COUNT];
};

static void param_use_note(struct param_use *u, const struct net_span *span, const struct coll_choice *ch,
			   double x, int ranks)
{
	for (int p = 0; p < CALIB_COUNT; p++) {
		int q;

		if (!cal_algorithm_uses(ch->algorithm, ch->tier, (enum calib_param)p))
			continue;
		q = (int)coll_scaleout_param(span, (enum calib_param)p);
		if (q == CALIB_awsefa_tree_bw_eff &&
		    strncmp(ch->algorithm, "hierarchical(nvls+efa-tree)", 27) == 0)
			q = CALIB_awsefa_nvlstree_bw_eff;
		u->used_by[q]++;
		u->bmin[q] = fmin(u->bmin[q], x);
		u->bmax[q] = fmax(u->bmax[q], x);
		u->rmin[q] = ranks < u->rmin[q] ? ranks : u->rmin[q];
		u->rmax[q] = ranks > u->rmax[q] ? ranks : u->rmax[q];
	}
}

/* Fitted curve k against the fitted model: each point's prediction and
 * algorithm, the residual statistics, bus bandwidths and algorithm
 * segments; notes which parameters its points use. */
static void report_curve(const struct cctx *c, int k, const struct cal_curve *src, struct param_use *u,
			 struct cal_fit_result *res)
{
	struct cal_fit_curve *cv = &res->curves[res->n_curves++];
	double ly[CAL_FIT_MAX_POINTS], lyh[CAL_FIT_MAX_POINTS], rms = 0;
	int seg = 0;

	memset(cv, 0, sizeof(*cv));
	cv->tier = net_tier_name(&c->span[k]);
	cv->ranks = src->ranks;
	cv->nodes = c->span[k].nodes;
	cv->busbw_factor = coll_busbw_factor(c->op[k], src->ranks);
	snprintf(cv->op, sizeof(cv->op), "%s", src->op);
	snprintf(cv->name, sizeof(cv->name), "%s %d ranks (%d x %d) %s", src->op, src->ranks,
		 cv->nodes, c->span[k].ranks_per_domain, cv->tier);
	for (int i = 0; i < c->n; i++) {
		struct coll_choice ch;
		struct cal_fit_point *pt;
		double rel;

		if (c->pts[i].curve != k)
			continue;
		pt = &cv->pts[cv->n];
		pt->x = c->pts[i].bytes;
		pt->measured_s = c->pts[i].t;
		pt->predicted_s = coll_time(&res->cal, &c->span[k], c->op[k], pt->x, &ch);
		snprintf(pt->algorithm, sizeof(pt->algorithm), "%s", ch.algorithm);
		rel = pt->predicted_s / pt->measured_s - 1;
		ly[cv->n] = log(pt->measured_s);
		lyh[cv->n] = log(pt->predicted_s);
		rms += rel * rel;
		cv->max_rel = fmax(cv->max_rel, fabs(rel));
		if (pt->x >= SMALL_BYTES)
			cv->max_rel_from_1MiB = fmax(cv->max_rel_from_1MiB, fabs(rel));
		param_use_note(u, &c->span[k], &ch, pt->x, src->ranks);
		cv->n++;
	}
	if (cv->n == 0)
		return;
	cv->rms_rel = sqrt(rms / cv->n);
	cv->r2_log = fit_r2(ly, lyh, cv->n);
	{
		const struct cal_fit_point *last = &cv->pts[cv->n - 1];
		cv->busbw_data_GBps = cv->busbw_factor * last->x / last->measured_s / 1e9;
		cv->busbw_model_GBps = cv->busbw_factor * last->x / last->predicted_s / 1e9;
	}
	/* segments: runs of one algorithm */
	for (int i = 1; i <= cv->n; i++) {
		if (i < cv->n && strcmp(cv->pts[i].algorithm, cv->pts[seg].algorithm) == 0)
			continue;
		if (i - seg >= MIN_SEGMENT)
			add_segment(res, cv, seg, i);
		seg = i;
	}
}

/* Each fitted parameter's valid range from the points that use it; one no
 * point uses goes back to its base value, the data saying nothing. */
static void set_fitted_ranges(const struct param_use *u, const struct cal_fit_opts *o,
			      const struct calibration *base, bool *fitted, struct cal_fit_result *res)
{
	for (int j = 0; j < o->n_params; j++) {
		int p = o->params[j];
		struct calib_range *r = &res->cal.range[p];

		if (u->used_by[p] == 0) {
			/* no point's algorithm reads it: the data says nothing */
			*calib_value(&res->cal, (enum calib_param)p) =
				calib_get(base, (enum calib_param)p);
			fit_note(res, "%s: no measured point's algorithm uses it: kept at the base value",
				 calib_params[p].name);
			continue;
		}
		fitted[p] = true;
		r->quantity = CALIB_RANGE_MESSAGE_BYTES;
		r->min = u->bmin[p];
		r->max = u->bmax[p];
		r->ranks_min = u->rmin[p];
		r->ranks_max = u->rmax[p];
	}
}

/* One fit record per curve, after the segments (in input order). */
static void add_curve_records(const char *fitted_names, struct cal_fit_result *res)
{
	for (int k = 0; k < res->n_curves; k++) {
		const struct cal_fit_curve *cv = &res->curves[k];
		struct calib_fit *f;

		if (cv->n == 0 || !(f = fit_add(res)))
			continue;
		snprintf(f->name, sizeof(f->name), "%s", cv->name);
		f->kind = CALIB_FIT_CURVE;
		snprintf(f->tier, sizeof(f->tier), "%s", cv->tier);
		snprintf(f->params, sizeof(f->params), "%s", fitted_names);
		f->points = cv->n;
		f->x_min = cv->pts[0].x;
		f->x_max = cv->pts[cv->n - 1].x;
		f->r2 = cv->r2_log;
		f->rms_rel_residual = cv->rms_rel;
		f->max_rel_residual = cv->max_rel;
		f->busbw_GBps = cv->busbw_model_GBps;
		for (int i = 0; i < cv->n && i < CALIB_FIT_MAX_POINTS; i++) {
			f->x[i] = cv->pts[i].x;
			f->residual[i] = cv->pts[i].predicted_s / cv->pts[i].measured_s - 1;
			f->n_residuals = i + 1;
		}
	}
}

enum sc_status fit_collectives(const struct cal_measurements *m, const struct cluster *cl,
			       const struct cal_fit_opts *opts, struct cal_fit_result *res,
			       struct sc_error *err)
{
	struct cctx c;
	struct cal_fit_opts o = *opts;
	int curve_of[CAL_FIT_MAX_CURVES];
	enum sc_status st = SC_OK;
	struct fit_problem prob;
	char fitted_names[SC_CALIB_SOURCE_MAX];
	bool fitted[CALIB_COUNT] = { false };
	struct calibration base;
	struct param_use use = { .used_by = { 0 } };

	memset(&c, 0, sizeof(c));
	c.pts = calloc((size_t)CAL_FIT_MAX_CURVES * CAL_FIT_MAX_POINTS, sizeof(*c.pts));
	if (!c.pts)
		return sc_error_set(err, SC_ENOMEM, NULL, NULL, "out of memory");
	if ((st = gather_curves(m, cl, opts, &c, curve_of, res, err)) != SC_OK || c.n_curves == 0)
		goto out;
	if (o.n_params == 0)
		default_params(&c, &o);
	use_awsefa_params(&c, &o);
	memset(&prob, 0, sizeof(prob));
	prob.n_points = c.n;
	prob.residuals = coll_residuals;
	prob.ctx = &c;
	prob.params = o.params;
	prob.n_params = o.n_params;
	prob.prior_weight = opts->prior_weight >= 0 ? opts->prior_weight : CAL_FIT_PRIOR_WEIGHT;
	prob.starts = opts->starts > 0 ? opts->starts : CAL_FIT_STARTS;
	base = res->cal;
	if ((st = fit_run(&prob, &res->cal, &res->cost, err)) != SC_OK)
		goto out;

	/* Report each curve against the fitted model, and the ranges. */
	for (int i = 0; i < CALIB_COUNT; i++) {
		use.bmin[i] = INFINITY;
		use.bmax[i] = 0;
		use.rmin[i] = 1 << 30;
		use.rmax[i] = 0;
	}
	for (int k = 0; k < c.n_curves && res->n_curves < CAL_FIT_MAX_CURVES; k++)
		report_curve(&c, k, &m->curves[curve_of[k]], &use, res);
	set_fitted_ranges(&use, &o, &base, fitted, res);
	join_names(fitted_names, sizeof(fitted_names), fitted);
	add_curve_records(fitted_names, res);
	for (int p = 0; p < CALIB_COUNT; p++) {
		if (!fitted[p])
			continue;
		res->fitted[p] = true;
		res->n_fitted++;
	}
out:
	free(c.pts);
	return st;
}
