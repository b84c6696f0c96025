/* fit.c: `calibrate fit` as a library call (see fit.h): run the fits the
 * measurements allow and give every moved parameter a source. */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "fit_core.h"

void fit_note(struct cal_fit_result *res, const char *fmt, ...)
{
	va_list ap;

	if (res->n_notes >= CAL_FIT_MAX_NOTES)
		return;
	va_start(ap, fmt);
	vsnprintf(res->notes[res->n_notes++], sizeof(res->notes[0]), fmt, ap);
	va_end(ap);
}

struct calib_fit *fit_add(struct cal_fit_result *res)
{
	struct calib_fit *f;

	if (res->n_fits >= CAL_FIT_MAX_FITS) {
		if (res->n_fits == CAL_FIT_MAX_FITS)
			fit_note(res, "more than %d fits: the rest are not recorded", CAL_FIT_MAX_FITS);
		return NULL;
	}
	f = &res->fits[res->n_fits++];
	memset(f, 0, sizeof(*f));
	return f;
}

/* "fitted by stepcast calibrate fit to FILES: VALUE; N measurements from
 * MIN to MAX UNIT" within the source's 383 bytes. */
static void set_source(struct cal_fit_result *res, int p, const char *inputs)
{
	const struct calib_range *r = &res->cal.range[p];
	char range[160] = "";
	const char *unit = r->quantity == CALIB_RANGE_GEMM_DIM ? "elements" : "bytes";

	if (r->quantity == CALIB_RANGE_MESSAGE_BYTES)
		snprintf(range, sizeof(range), "; data %.4g-%.4g %s, %d-%d ranks", r->min, r->max, unit,
			 r->ranks_min, r->ranks_max);
	else if (r->quantity != CALIB_RANGE_NONE)
		snprintf(range, sizeof(range), "; data %.4g-%.4g %s", r->min, r->max, unit);
	snprintf(res->cal.source[p], sizeof(res->cal.source[p]),
		 "fitted by stepcast calibrate fit (GSL least squares through the model) to %.200s: %.6g%s",
		 inputs && inputs[0] ? inputs : "measurements", calib_get(&res->cal, (enum calib_param)p),
		 range);
}

enum sc_status cal_fit(const struct cal_measurements *m, const struct cluster *cl,
		       const struct calibration *base, const struct cal_fit_opts *opts,
		       struct cal_fit_result *res, struct sc_error *err)
{
	struct cal_fit_opts def;
	enum sc_status st;

	memset(res, 0, sizeof(*res));
	if (!opts) {
		memset(&def, 0, sizeof(def));
		def.prior_weight = -1;
		opts = &def;
	}
	if (strcmp(base->gpu_family, cl->gpu.family) != 0)
		return sc_error_set(err, SC_EINVAL, NULL, NULL,
				    "the base profile \"%s\" is for %s GPUs, the instance has a %s GPU (%s)",
				    base->name, base->gpu_family, cl->gpu.family, cl->gpu.name);
	res->cal = *base;
	/* The base's own ranges describe its data, not this one's. */
	memset(res->cal.range, 0, sizeof(res->cal.range));
	if ((st = fit_collectives(m, cl, opts, res, err)) != SC_OK ||
	    (st = fit_gemm(m, cl, opts, res, err)) != SC_OK ||
	    (st = fit_hbm(m, cl, res, err)) != SC_OK)
		return st;
	if (m->n_storage > 0)
		fit_note(res, "%d storage measurements (fio): no model parameter takes them yet; "
			 "they are kept in the measurements only", m->n_storage);
	if (res->n_fitted == 0)
		return sc_error_set(err, SC_EINVAL, NULL, NULL,
				    "nothing to fit: the measurements have no collective curve the model "
				    "covers, no GEMM and no HBM timing");
	for (int p = 0; p < CALIB_COUNT; p++)
		if (res->fitted[p])
			set_source(res, p, m->prov.inputs);
	res->cal.schema_version = 2;
	return SC_OK;
}
