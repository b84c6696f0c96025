/* rpt_calibrate.c: see rpt_calibrate.h. */
#include "rpt_calibrate.h"

#include <string.h>

#include "../calibrate/cal_profile.h"
#include "../sim/config/cfg_json.h"
#include "../sim/config/rpt_num.h" /* after cJSON: output numbers checked */

void rpt_calibrate_summary(FILE *out, const struct cal_measurements *m)
{
	fprintf(out, "stepcast: calibrate: %d collective curve%s, %d GEMM, %d HBM, %d storage "
		"measurement%s\n", m->n_curves, m->n_curves == 1 ? "" : "s", m->n_gemm, m->n_hbm,
		m->n_storage, m->n_storage == 1 ? "" : "s");
}

/* The range of the data that fitted a parameter, "-" when none; padded to
 * its column in show's table. */
static void print_range(FILE *out, const struct calib_range *r, bool pad)
{
	const char *unit = r->quantity == CALIB_RANGE_GEMM_DIM ? "elements" : "bytes";
	char buf[96] = "-";

	if (r->quantity != CALIB_RANGE_NONE && r->ranks_max > 0)
		snprintf(buf, sizeof(buf), "%.4g-%.4g %s, %d-%d ranks", r->min, r->max, unit,
			 r->ranks_min, r->ranks_max);
	else if (r->quantity != CALIB_RANGE_NONE)
		snprintf(buf, sizeof(buf), "%.4g-%.4g %s", r->min, r->max, unit);
	fprintf(out, pad ? "%-34s" : "%s", buf);
}

static void print_fits_text(FILE *out, const struct calib_fit *fits, int n, bool residuals)
{
	if (n == 0) {
		fprintf(out, "fits        none recorded\n");
		return;
	}
	fprintf(out, "\nfits (R^2 of log time for curves and GEMM, of time for segments and HBM;\n"
		"     residual = predicted / measured - 1)\n");
	fprintf(out, "  %-58s %-8s %6s %8s %7s %7s %10s %11s\n", "name", "kind", "points", "R^2", "rms %",
		"max %", "alpha us", "bw GB/s");
	for (int i = 0; i < n; i++) {
		const struct calib_fit *f = &fits[i];
		char alpha[32] = "-", bw[32] = "-";

		if (f->alpha_s > 0)
			snprintf(alpha, sizeof(alpha), "%.2f", 1e6 * f->alpha_s);
		if (f->busbw_GBps > 0)
			snprintf(bw, sizeof(bw), "%.2f", f->busbw_GBps);
		fprintf(out, "  %-58.58s %-8s %6d %8.4f %7.2f %7.2f %10s %11s\n", f->name,
			calib_fit_kind_name(f->kind), f->points, f->r2, 100 * f->rms_rel_residual,
			100 * f->max_rel_residual, alpha, bw);
	}
	if (!residuals)
		return;
	for (int i = 0; i < n; i++) {
		const struct calib_fit *f = &fits[i];
		if (f->kind == CALIB_FIT_SEGMENT || f->n_residuals == 0)
			continue;
		fprintf(out, "\nresiduals of %s\n", f->name);
		for (int k = 0; k < f->n_residuals; k++)
			fprintf(out, "  %16.0f  %+7.2f %%\n", f->x[k], 100 * f->residual[k]);
	}
}

/* Each curve's quality: R^2, residuals, bus bandwidth measured and fitted
 * at the largest size. */
static void print_fit_curves(FILE *out, const struct cal_fit_result *res)
{
	fprintf(out, "\ncurves                                  points  R^2(log)   rms %%   max %%  max %% >=1MiB"
		"  busbw data  busbw fit  diff %%\n");
	for (int k = 0; k < res->n_curves; k++) {
		const struct cal_fit_curve *c = &res->curves[k];
		char data[32] = "-", fit[32] = "-", diff[32] = "-", big[32] = "-";

		if (c->busbw_data_GBps > 0) {
			snprintf(data, sizeof(data), "%.2f", c->busbw_data_GBps);
			snprintf(fit, sizeof(fit), "%.2f", c->busbw_model_GBps);
			snprintf(diff, sizeof(diff), "%+.2f", 100 * (c->busbw_model_GBps / c->busbw_data_GBps - 1));
			snprintf(big, sizeof(big), "%.2f", 100 * c->max_rel_from_1MiB);
		}
		fprintf(out, "  %-38.38s %6d %9.4f %7.2f %7.2f %12s %11s %10s %7s\n", c->name, c->n, c->r2_log,
			100 * c->rms_rel, 100 * c->max_rel, big, data, fit, diff);
	}
}

/* Alpha and bus bandwidth of each segment, then each curve's points. */
static void print_fit_segments(FILE *out, const struct cal_fit_result *res)
{
	fprintf(out, "\nsegments: alpha and bus bandwidth per collective x algorithm x tier\n");
	fprintf(out, "  %-62s %6s %22s %10s %11s %8s %7s\n", "collective, ranks, tier, algorithm", "points",
		"bytes", "alpha us", "busbw GB/s", "R^2", "max %");
	for (int i = 0; i < res->n_fits; i++) {
		const struct calib_fit *f = &res->fits[i];
		char bytes[48], bw[32] = "-";
		if (f->kind != CALIB_FIT_SEGMENT)
			continue;
		snprintf(bytes, sizeof(bytes), "%.4g-%.4g", f->x_min, f->x_max);
		if (f->busbw_GBps > 0)
			snprintf(bw, sizeof(bw), "%.2f", f->busbw_GBps);
		fprintf(out, "  %-62.62s %6d %22s %10.2f %11s %8.4f %7.2f\n", f->name, f->points, bytes,
			1e6 * f->alpha_s, bw, f->r2, 100 * f->max_rel_residual);
	}
	for (int k = 0; k < res->n_curves; k++) {
		const struct cal_fit_curve *c = &res->curves[k];
		fprintf(out, "\n%s\n  %16s %13s %13s %8s  %s\n", c->name, "x", "measured us", "predicted us",
			"resid %", "model");
		for (int i = 0; i < c->n; i++)
			fprintf(out, "  %16.0f %13.3f %13.3f %+8.2f  %s\n", c->pts[i].x, 1e6 * c->pts[i].measured_s,
				1e6 * c->pts[i].predicted_s,
				100 * (c->pts[i].predicted_s / c->pts[i].measured_s - 1), c->pts[i].algorithm);
	}
}

void rpt_calibrate_fit_text(FILE *out, const struct cal_fit_result *res, const struct calibration *base,
			    const char *path)
{
	fprintf(out, "profile     %s (%s, schema_version 2) written to %s\n", res->cal.name,
		res->cal.gpu_family, path);
	fprintf(out, "base        %s\n", base->name);
	fprintf(out, "inputs      %s\n", res->cal.provenance.inputs);
	fprintf(out, "\nfitted parameters         value         base          range of the fitted data\n");
	for (int p = 0; p < CALIB_COUNT; p++) {
		if (!res->fitted[p])
			continue;
		fprintf(out, "  %-22s %12.6g  %12.6g  ", calib_params[p].name,
			calib_get(&res->cal, (enum calib_param)p), calib_get(base, (enum calib_param)p));
		print_range(out, &res->cal.range[p], false);
		fprintf(out, "\n");
	}
	print_fit_curves(out, res);
	print_fit_segments(out, res);
	if (res->n_notes) {
		fprintf(out, "\nnotes\n");
		for (int i = 0; i < res->n_notes; i++)
			fprintf(out, "  %s\n", res->notes[i]);
	}
}

/* A fitted curve in `calibrate fit --report-format json`
 * (calibrate/fit/fit.h), every field written; its points follow under
 * "points". */
static const struct cfg_field fit_curve_fields[] = {
	CFG_F_STR(struct cal_fit_curve, name, CFG_REQUIRED, "the curve"),
	CFG_F_NUM(struct cal_fit_curve, r2_log, CFG_REQUIRED, "R^2 of log time"),
	CFG_F_NUM(struct cal_fit_curve, rms_rel, CFG_REQUIRED, "RMS relative residual"),
	CFG_F_NUM(struct cal_fit_curve, max_rel, CFG_REQUIRED, "largest relative residual"),
	CFG_F_NUM(struct cal_fit_curve, max_rel_from_1MiB, CFG_REQUIRED, "largest at sizes >= 1 MiB"),
	CFG_F_NUM(struct cal_fit_curve, busbw_data_GBps, CFG_REQUIRED, "measured at the largest size"),
	CFG_F_NUM(struct cal_fit_curve, busbw_model_GBps, CFG_REQUIRED, "modelled at the largest size"),
	CFG_END
};

static const struct cfg_field fit_point_fields[] = {
	CFG_F_NUM(struct cal_fit_point, x, CFG_REQUIRED, "bytes (collective, HBM) or flops (GEMM)"),
	CFG_F_NUM(struct cal_fit_point, measured_s, CFG_REQUIRED, "measured time"),
	CFG_F_NUM(struct cal_fit_point, predicted_s, CFG_REQUIRED, "the fitted model's time"),
	CFG_F_STR_AS(struct cal_fit_point, algorithm, "model", CFG_REQUIRED, "the model's choice"),
	CFG_END
};

cJSON *rpt_calibrate_fit_json(const struct cal_fit_result *res, const char *path)
{
	cJSON *o = cJSON_CreateObject(), *curves = cJSON_CreateArray(), *notes = cJSON_CreateArray();
	cJSON *profile = cal_profile_json(&res->cal, res->fits, res->n_fits);

	if (!o || !curves || !notes || !profile) {
		cJSON_Delete(o);
		cJSON_Delete(curves);
		cJSON_Delete(notes);
		cJSON_Delete(profile);
		return NULL;
	}
	cJSON_AddStringToObject(o, "output", path);
	cJSON_AddItemToObject(o, "profile", profile);
	cJSON_AddItemToObject(o, "curves", curves);
	for (int k = 0; k < res->n_curves; k++) {
		const struct cal_fit_curve *c = &res->curves[k];
		cJSON *x = cfg_to_json(fit_curve_fields, c), *pts = cJSON_CreateArray();
		if (!x || !pts) {
			cJSON_Delete(x);
			cJSON_Delete(pts);
			continue;
		}
		cJSON_AddItemToObject(x, "points", pts);
		for (int i = 0; i < c->n; i++)
			if (!cfg_json_push(pts, cfg_to_json(fit_point_fields, &c->pts[i])))
				break;
		cJSON_AddItemToArray(curves, x);
	}
	cJSON_AddItemToObject(o, "notes", notes);
	for (int i = 0; i < res->n_notes; i++)
		cJSON_AddItemToArray(notes, cJSON_CreateString(res->notes[i]));
	return o;
}

static void show_provenance_text(FILE *out, const struct calib_provenance *p)
{
	fprintf(out, "created     %s by %s\n", p->created, p->tool);
	if (p->instance[0])
		fprintf(out, "instance    %s\n", p->instance);
	if (p->base_profile[0])
		fprintf(out, "base        %s\n", p->base_profile);
	if (p->gpu[0] || p->driver[0] || p->cuda[0] || p->nccl[0])
		fprintf(out, "measured    gpu %s  driver %s  cuda %s  nccl %s\n", p->gpu[0] ? p->gpu : "-",
			p->driver[0] ? p->driver : "-", p->cuda[0] ? p->cuda : "-", p->nccl[0] ? p->nccl : "-");
	if (p->inputs[0])
		fprintf(out, "inputs      %s\n", p->inputs);
}

/* One row a parameter: value, physical range, fitted, on a bound, the
 * range of the data that fitted it, source; then a warning for the
 * parameters on a bound that no measurement puts there. */
static void show_parameters_text(FILE *out, const struct calibration *cal)
{
	int n_bound = 0;

	fprintf(out, "\n  %-26s %14s %11s %11s %-6s %-8s %-34s %s\n", "parameter", "value", "min", "max",
		"fitted", "at_bound", "fitted range", "source");
	for (int p = 0; p < CALIB_COUNT; p++) {
		enum calib_param i = (enum calib_param)p;
		double lo, hi;

		calib_bounds(cal, i, &lo, &hi, NULL);
		fprintf(out, "  %-26s %14.6g %11.4g %11.4g %-6s %-8s ", calib_params[p].name, calib_get(cal, i), lo,
			hi, calib_is_fitted(cal, i) ? "yes" : "no",
			!calib_at_bound(cal, i) ? "no" : cal->on_bound[p][0] ? "cited" : "YES");
		print_range(out, &cal->range[p], true);
		fprintf(out, " %.90s%s\n", cal->source[p], strlen(cal->source[p]) > 90 ? "..." : "");
		n_bound += calib_at_bound(cal, i) && !cal->on_bound[p][0];
	}
	if (n_bound)
		fprintf(out, "\nwarning: %d parameter%s on a bound of %s physical range with no measurement "
			"that puts %s there (at_bound YES)\n", n_bound, n_bound > 1 ? "s" : "",
			n_bound > 1 ? "their" : "its", n_bound > 1 ? "them" : "it");
}

void rpt_calibrate_show_text(FILE *out, const struct calibration *cal, const struct calib_fit *fits, int n,
			     const char *path)
{
	fprintf(out, "profile     %s (%s, schema_version %d)\n", cal->name, cal->gpu_family, cal->schema_version);
	if (path)
		fprintf(out, "file        %s\n", path);
	fprintf(out, "description %s\n", cal->description);
	if (cal->has_provenance)
		show_provenance_text(out, &cal->provenance);
	show_parameters_text(out, cal);
	print_fits_text(out, fits, n, true);
}

/* "parameters" as a list of objects (the profile itself keeps its
 * "parameters" object). */
static bool show_parameters_json(cJSON *j, const struct calibration *cal)
{
	cJSON *arr = cJSON_CreateArray();

	if (!arr)
		return false;
	for (int p = 0; p < CALIB_COUNT; p++) {
		cJSON *o = cJSON_CreateObject();
		const char *range_source;
		double lo, hi;

		if (!o || !cJSON_AddItemToArray(arr, o)) {
			cJSON_Delete(o);
			cJSON_Delete(arr);
			return false;
		}
		calib_bounds(cal, (enum calib_param)p, &lo, &hi, &range_source);
		cJSON_AddStringToObject(o, "name", calib_params[p].name);
		cJSON_AddStringToObject(o, "unit", calib_params[p].unit);
		cJSON_AddNumberToObject(o, "value", calib_get(cal, (enum calib_param)p));
		cJSON_AddNumberToObject(o, "min", lo);
		cJSON_AddNumberToObject(o, "max", hi);
		cJSON_AddStringToObject(o, "range_source", range_source);
		cJSON_AddNumberToObject(o, "prior", calib_prior(cal, (enum calib_param)p));
		cJSON_AddStringToObject(o, "source", cal->source[p]);
		cJSON_AddBoolToObject(o, "fitted", calib_is_fitted(cal, (enum calib_param)p));
		cJSON_AddBoolToObject(o, "at_bound", calib_at_bound(cal, (enum calib_param)p));
		if (cal->on_bound[p][0])
			cJSON_AddStringToObject(o, "on_bound", cal->on_bound[p]);
	}
	cJSON_ReplaceItemInObjectCaseSensitive(j, "parameters", arr);
	return true;
}

cJSON *rpt_calibrate_show_json(const struct calibration *cal, const struct calib_fit *fits, int n)
{
	cJSON *j = cal_profile_json(cal, fits, n);

	if (j && !show_parameters_json(j, cal)) {
		cJSON_Delete(j);
		j = NULL;
	}
	return j;
}
