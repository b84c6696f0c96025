/* calibration_select.c: resolve, load and check a calibration profile
 * reference (see calibration_select.h). */
#include "calibration_select.h"

#include <stdio.h>
#include <string.h>

bool calibration_ref_is_path(const char *ref)
{
	size_t len = strlen(ref);

	return strchr(ref, '/') || (len >= 5 && strcmp(ref + len - 5, ".json") == 0);
}

bool calibration_ref_path(const struct catalog *cat, const char *ref, const char *relative_to,
			  char *path, size_t size)
{
	const char *slash = relative_to ? strrchr(relative_to, '/') : NULL;
	int n;

	if (!calibration_ref_is_path(ref))
		n = snprintf(path, size, "%s/calibration/%s.json", cat->dir, ref);
	else if (ref[0] == '/' || !slash)
		n = snprintf(path, size, "%s", ref);
	else /* relative to the directory of the file that names it */
		n = snprintf(path, size, "%.*s/%s", (int)(slash - relative_to), relative_to, ref);
	return n >= 0 && (size_t)n < size;
}

bool calibration_fits_gpu(const struct calibration *cal, const struct gpu_spec *gpu)
{
	return strcmp(cal->gpu_family, gpu->family) == 0;
}

static enum sc_status load_path(const char *ref, const char *relative_to, const char *file,
				const char *pointer, struct calibration *out, struct sc_error *err)
{
	char path[SC_ERROR_FILE_MAX];
	struct sc_error lerr;
	enum sc_status st;

	if (!calibration_ref_path(NULL, ref, relative_to, path, sizeof(path)))
		return sc_error_set(err, SC_EINVAL, file, pointer,
				    "profile path \"%.64s...\" is too long", ref);
	sc_error_clear(&lerr);
	st = calibration_load_file(path, out, &lerr);
	if (st == SC_EIO)
		/* say which key or option named the file: "cannot read" alone
		 * does not tell a user where the path came from */
		return sc_error_set(err, st, file, pointer, "profile \"%s\": %s", path,
				    lerr.message);
	if (st != SC_OK && err)
		*err = lerr; /* the profile's own path and JSON pointer */
	return st;
}

enum sc_status calibration_select(const struct catalog *cat, const struct gpu_spec *gpu,
				  const char *ref, const char *relative_to, const char *file,
				  const char *pointer, struct calibration *out,
				  struct sc_error *err)
{
	enum sc_status st;
	bool path;

	if (!ref) {
		const struct calibration *c;

		if (!gpu)
			return sc_error_set(
			    err, SC_EINTERNAL, file, pointer,
			    "no calibration profile and no GPU to take its default from");
		if (!(c = catalog_calibration(cat, gpu->calibration)))
			return catalog_unknown(cat, "calibration", gpu->calibration, file, pointer,
					       err);
		*out = *c;
		return SC_OK; /* catalog_load checked the default's family */
	}
	if (!ref[0])
		return sc_error_set(
		    err, SC_EINVAL, file, pointer,
		    "expected a calibration profile name or a profile file, got \"\"");
	if ((path = calibration_ref_is_path(ref))) {
		if ((st = load_path(ref, relative_to, file, pointer, out, err)) != SC_OK)
			return st;
		/* the catalogue's regime bands (uncertainty-bands.json) are the
		 * validation's, not the profile's: a profile file gets them too */
		for (int k = 0; cat && k < cat->n_calibrations; k++)
			if (strcmp(cat->calibrations[k].gpu_family, out->gpu_family) == 0) {
				memcpy(out->regime_band, cat->calibrations[k].regime_band,
				       sizeof(out->regime_band));
				break;
			}
	} else {
		const struct calibration *c = catalog_calibration(cat, ref);

		if (!c)
			return catalog_unknown(cat, "calibration", ref, file, pointer, err);
		*out = *c;
	}
	if (gpu && !calibration_fits_gpu(out, gpu))
		return sc_error_set(err, SC_EINVAL, file, pointer,
				    "profile \"%s\"%s%s%s is for %s GPUs, but %s is %s", out->name,
				    path ? " (" : "", path ? ref : "", path ? ")" : "",
				    out->gpu_family, gpu->name, gpu->family);
	return SC_OK;
}
