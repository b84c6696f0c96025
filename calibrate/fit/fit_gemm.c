/* fit_gemm.c: GEMM efficiency versus shape and HBM efficiency (see fit.h).
 *
 * GEMM: the model is gpu_gemm_time() (models/gpu.c): the roofline of one
 * GEMM with eta = gemm_eta_max(dtype) * f(m) f(n) f(k), f(d) = d / (d +
 * gemm_half_dim), plus kernel_overhead_s.  The plateau of each dtype in the
 * data and the half-efficiency dimension are fitted to log(time) by the
 * same least-squares engine as the collectives (weak prior towards the
 * base); kernel_overhead_s is left alone (it is fitted to whole training
 * steps by `validate --fit`, where it stands for more than a launch).
 *
 * HBM: gpu_memory_time() is bytes / (hbm_GBps * hbm_eta) per kernel plus
 * kernel_overhead_s, a line in bytes; a weighted least-squares line (GSL
 * gsl_fit_wlinear, weights 1/t^2 so that every size counts by its relative
 * error) gives the bandwidth as 1/slope and hbm_eta as that over the
 * datasheet bandwidth.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "../../models/gpu.h"
#include "fit_core.h"

struct gctx {
	const struct gpu_spec *gpu;
	const struct cal_gemm_point *pts;
	enum gpu_dtype *dt;
	int n;
};

static bool dtype_of(const char *s, enum gpu_dtype *out)
{
	if (strcmp(s, "bf16") == 0)
		*out = GPU_DTYPE_BF16;
	else if (strcmp(s, "fp8") == 0)
		*out = GPU_DTYPE_FP8;
	else if (strcmp(s, "fp4") == 0)
		*out = GPU_DTYPE_FP4;
	else
		return false;
	return true;
}

static double gemm_model_s(const struct gpu_spec *gpu, const struct calibration *cal,
			   enum gpu_dtype dt, const struct cal_gemm_point *p)
{
	struct gpu_time acc = { 0, 0, 0 };

	gpu_gemm_time(gpu, cal, dt, p->m, p->n, p->k, 1.0, &acc);
	return gpu_time_total(&acc);
}

static void gemm_residuals(const struct calibration *cal, double *r, void *arg)
{
	const struct gctx *c = arg;

	for (int i = 0; i < c->n; i++)
		r[i] = log(gemm_model_s(c->gpu, cal, c->dt[i], &c->pts[i]) / c->pts[i].time_s);
}

enum sc_status fit_gemm(const struct cal_measurements *m, const struct cluster *cl,
			const struct cal_fit_opts *opts, struct cal_fit_result *res,
			struct sc_error *err)
{
	enum gpu_dtype dt[CAL_FIT_MAX_POINTS];
	struct cal_gemm_point pts[CAL_FIT_MAX_POINTS];
	bool have[3] = { false, false, false };
	int params[4], np = 0, n = 0;
	struct gctx c;
	struct gpu_spec part;
	struct fit_problem prob;
	enum sc_status st;
	struct cal_fit_curve *cv = NULL;
	struct calib_fit *f;
	double dmin = INFINITY, dmax = 0, ly[CAL_FIT_MAX_POINTS], lyh[CAL_FIT_MAX_POINTS];
	double rms = 0, mx = 0;

	for (int i = 0; i < m->n_gemm; i++) {
		const struct cal_gemm_point *p = &m->gemm[i];
		enum gpu_dtype d;

		if (!dtype_of(p->dtype, &d)) {
			fit_note(res, "GEMM %s: unknown dtype: left out", p->dtype);
			continue;
		}
		if (!(gpu_peak_flops(&cl->gpu, d) > 0)) {
			fit_note(res, "GEMM %s: %s has no %s tensor cores: left out", p->dtype,
				  cl->gpu.name, p->dtype);
			continue;
		}
		if (n == CAL_FIT_MAX_POINTS) {
			fit_note(res, "more than %d GEMM points: the rest are not fitted", CAL_FIT_MAX_POINTS);
			break;
		}
		pts[n] = *p;
		dt[n++] = d;
		have[d] = true;
		dmin = fmin(dmin, fmin(p->m, fmin(p->n, p->k)));
		dmax = fmax(dmax, fmax(p->m, fmax(p->n, p->k)));
	}
	if (n == 0)
		return SC_OK;
	if (have[GPU_DTYPE_BF16])
		params[np++] = CALIB_gemm_eta_max_bf16;
	if (have[GPU_DTYPE_FP8])
		params[np++] = CALIB_gemm_eta_max_fp8;
	if (have[GPU_DTYPE_FP4])
		params[np++] = CALIB_gemm_eta_max_fp4;
	if (n >= 3)
		params[np++] = CALIB_gemm_half_dim;
	/* the sweep measures this part's plateau: the catalogue's published
	 * achievable rate (gpu_gemm_plateau) must not stand in for the
	 * gemm_eta_max_* being fitted */
	part = cl->gpu;
	part.achievable_bf16_flops = 0;
	part.achievable_fp8_flops = 0;
	c.gpu = &part;
	c.pts = pts;
	c.dt = dt;
	c.n = n;
	memset(&prob, 0, sizeof(prob));
	prob.n_points = n;
	prob.residuals = gemm_residuals;
	prob.ctx = &c;
	prob.params = params;
	prob.n_params = np;
	prob.prior_weight = opts->prior_weight >= 0 ? opts->prior_weight : CAL_FIT_PRIOR_WEIGHT;
	prob.starts = opts->starts > 0 ? opts->starts : CAL_FIT_STARTS;
	{
		double cost;
		if ((st = fit_run(&prob, &res->cal, &cost, err)) != SC_OK)
			return st;
	}
	for (int j = 0; j < np; j++) {
		struct calib_range *r = &res->cal.range[params[j]];
		res->fitted[params[j]] = true;
		res->n_fitted++;
		r->quantity = CALIB_RANGE_GEMM_DIM;
		r->min = dmin;
		r->max = dmax;
	}
	if (res->n_curves < CAL_FIT_MAX_CURVES) {
		cv = &res->curves[res->n_curves++];
		memset(cv, 0, sizeof(*cv));
		snprintf(cv->name, sizeof(cv->name), "gemm %s (%d shapes)", cl->gpu.name, n);
	}
	for (int i = 0; i < n; i++) {
		double t = gemm_model_s(&cl->gpu, &res->cal, dt[i], &pts[i]), rel = t / pts[i].time_s - 1;

		ly[i] = log(pts[i].time_s);
		lyh[i] = log(t);
		rms += rel * rel / n;
		mx = fmax(mx, fabs(rel));
		if (cv) {
			struct cal_fit_point *q = &cv->pts[cv->n++];
			q->x = 2.0 * pts[i].m * pts[i].n * pts[i].k;
			q->measured_s = pts[i].time_s;
			q->predicted_s = t;
			snprintf(q->algorithm, sizeof(q->algorithm), "%s %gx%gx%g%s%s", pts[i].dtype,
				 pts[i].m, pts[i].n, pts[i].k, pts[i].label[0] ? " " : "", pts[i].label);
		}
	}
	if (cv) {
		cv->rms_rel = sqrt(rms);
		cv->max_rel = mx;
		cv->r2_log = fit_r2(ly, lyh, n);
	}
	if ((f = fit_add(res))) {
		snprintf(f->name, sizeof(f->name), "gemm %s (%d shapes)", cl->gpu.name, n);
		f->kind = CALIB_FIT_GEMM;
		for (int j = 0; j < np; j++) {
			size_t len = strlen(f->params);
			snprintf(f->params + len, sizeof(f->params) - len, "%s%s", j ? "," : "",
				 calib_params[params[j]].name);
		}
		f->points = n;
		f->x_min = dmin;
		f->x_max = dmax;
		f->r2 = fit_r2(ly, lyh, n);
		f->rms_rel_residual = sqrt(rms);
		f->max_rel_residual = mx;
		for (int i = 0; i < n && i < CALIB_FIT_MAX_POINTS; i++) {
			f->x[i] = 2.0 * pts[i].m * pts[i].n * pts[i].k;
			f->residual[i] = exp(lyh[i] - ly[i]) - 1;
			f->n_residuals = i + 1;
		}
	}
	return SC_OK;
}

enum sc_status fit_hbm(const struct cal_measurements *m, const struct cluster *cl,
		       struct cal_fit_result *res, struct sc_error *err)
{
	double x[CAL_FIT_MAX_POINTS], y[CAL_FIT_MAX_POINTS];
	double yhat[CAL_FIT_MAX_POINTS], rel[CAL_FIT_MAX_POINTS];
	double eta, datasheet;
	struct fit_line line;
	int n = 0;
	struct calib_fit *f;
	struct calib_range *r;
	struct cal_fit_curve *cv = NULL;

	for (int i = 0; i < m->n_hbm && n < CAL_FIT_MAX_POINTS; i++) {
		x[n] = m->hbm[i].bytes;
		y[n] = m->hbm[i].time_s;
		n++;
	}
	if (n == 0)
		return SC_OK;
	if (n < 2)
		return sc_error_set(err, SC_EINVAL, NULL, NULL,
				    "one HBM measurement: a bandwidth needs at least two sizes");
	if (!fit_relative_line(x, y, n, yhat, rel, &line) || !(line.c1 > 0))
		return sc_error_set(err, SC_EINVAL, NULL, NULL,
				    "the HBM times do not grow with the bytes moved: no bandwidth to fit");
	datasheet = cl->gpu.hbm_GBps * 1e9;
	eta = 1.0 / line.c1 / datasheet;
	if (eta < calib_params[CALIB_hbm_eta].min || eta > calib_params[CALIB_hbm_eta].max)
		return sc_error_set(err, SC_ERANGE, NULL, NULL,
				    "measured HBM bandwidth %.0f GB/s is %.0f %% of the %s datasheet %.0f GB/s, "
				    "outside %g-%g: is it the right GPU (--instance)?",
				    1.0 / line.c1 / 1e9, 100 * eta, cl->gpu.name, cl->gpu.hbm_GBps,
				    calib_params[CALIB_hbm_eta].min, calib_params[CALIB_hbm_eta].max);
	*calib_value(&res->cal, CALIB_hbm_eta) = eta;
	res->fitted[CALIB_hbm_eta] = true;
	res->n_fitted++;
	r = &res->cal.range[CALIB_hbm_eta];
	r->quantity = CALIB_RANGE_COPY_BYTES;
	r->min = INFINITY;
	r->max = 0;
	if (res->n_curves < CAL_FIT_MAX_CURVES) {
		cv = &res->curves[res->n_curves++];
		memset(cv, 0, sizeof(*cv));
		snprintf(cv->name, sizeof(cv->name), "hbm %s (%d sizes)", cl->gpu.name, n);
	}
	for (int i = 0; i < n; i++) {
		r->min = fmin(r->min, x[i]);
		r->max = fmax(r->max, x[i]);
		if (cv) {
			struct cal_fit_point *q = &cv->pts[cv->n++];
			q->x = x[i];
			q->measured_s = y[i];
			q->predicted_s = yhat[i];
			snprintf(q->algorithm, sizeof(q->algorithm), "%s", m->hbm[i].kernel);
		}
	}
	if (cv) {
		cv->rms_rel = line.rms_rel;
		cv->max_rel = line.max_rel;
		cv->r2_log = fit_r2(y, yhat, n);
	}
	if ((f = fit_add(res))) {
		snprintf(f->name, sizeof(f->name), "hbm %s (%d sizes)", cl->gpu.name, n);
		f->kind = CALIB_FIT_HBM;
		snprintf(f->params, sizeof(f->params), "hbm_eta");
		f->points = n;
		f->x_min = r->min;
		f->x_max = r->max;
		f->r2 = fit_r2(y, yhat, n);
		f->rms_rel_residual = line.rms_rel;
		f->max_rel_residual = line.max_rel;
		f->alpha_s = line.c0 > 0 ? line.c0 : 0;
		f->busbw_GBps = 1.0 / line.c1 / 1e9;
		for (int i = 0; i < n && i < CALIB_FIT_MAX_POINTS; i++) {
			f->x[i] = x[i];
			f->residual[i] = rel[i];
			f->n_residuals = i + 1;
		}
	}
	return SC_OK;
}
