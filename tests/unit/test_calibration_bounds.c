/* test_calibration_bounds.c: every calibration parameter has a physical
 * range with a source, and no committed profile sits on a bound of it.
 *
 * A fit that ends on a bound of a parameter's physical range (a launch
 * cheaper than its measured latency, an efficiency above the best published
 * microbenchmark, an overlap that hides everything) was stopped by the
 * bound, not by the data: the model misses an effect and the parameter
 * absorbs it.  So every committed profile (every .json of configs/calibration) is
 * checked: each value inside its range and off both ends of it
 * (calib_at_bound), unless the profile cites the measurement that puts it
 * there ("on_bound").  Also: the catalogue ranges are intervals with a
 * source each, a profile's own "bounds" are read and must lie inside the
 * catalogue's, and the loader refuses a value outside a profile's bounds.
 * Runs from the repository root (ctest's working directory).
 */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "sc_test.h"
#include "sim/config/catalog_load.h"

static void test_ranges_sourced(void)
{
	for (int i = 0; i < CALIB_COUNT; i++) {
		const struct calib_param_info *p = &calib_params[i];

		CHECK(p->min < p->max);
		CHECK(calib_range_sources[i] != NULL && strlen(calib_range_sources[i]) > 10);
		if (!(p->min < p->max) || !calib_range_sources[i])
			fprintf(stderr, "  %s: range [%g, %g] source %s\n", p->name, p->min, p->max,
				calib_range_sources[i] ? calib_range_sources[i] : "(none)");
	}
}

/* Every committed profile: values inside their bounds and, unless cited,
 * off them. */
static void test_committed_profiles(void)
{
	DIR *d = opendir("configs/calibration");
	struct dirent *e;
	int files = 0;

	CHECK(d != NULL);
	if (!d)
		return;
	while ((e = readdir(d)) != NULL) {
		static struct calibration cal;
		struct sc_error err;
		char path[512];
		size_t len = strlen(e->d_name);

		if (len < 6 || strcmp(e->d_name + len - 5, ".json") != 0)
			continue;
		snprintf(path, sizeof(path), "configs/calibration/%s", e->d_name);
		sc_error_clear(&err);
		files++;
		if (calibration_load_file(path, &cal, &err) != SC_OK) {
			fprintf(stderr, "  %s: %s: %s\n", err.file, err.pointer, err.message);
			CHECK(false);
			continue;
		}
		for (int i = 0; i < CALIB_COUNT; i++) {
			double lo, hi;
			const char *src;

			calib_bounds(&cal, (enum calib_param)i, &lo, &hi, &src);
			CHECK(lo >= calib_params[i].min && hi <= calib_params[i].max);
			CHECK(src && src[0]);
			if (calib_at_bound(&cal, (enum calib_param)i) && !cal.on_bound[i][0]) {
				fprintf(stderr, "  %s: %s = %g is on a bound of [%g, %g] (%s) and no "
					"\"on_bound\" measurement says why\n", path, calib_params[i].name,
					calib_get(&cal, (enum calib_param)i), lo, hi,
					calib_is_fitted(&cal, (enum calib_param)i) ? "fitted" : "not fitted");
				CHECK(false);
			}
		}
	}
	closedir(d);
	CHECK(files >= 3);
}

/* calib_value_at_bound: the CALIB_AT_BOUND_FRACTION rule at both ends. */
static void test_at_bound_rule(void)
{
	CHECK(calib_value_at_bound(0.0, 0.0, 1.0));
	CHECK(calib_value_at_bound(0.9995, 0.0, 1.0));
	CHECK(calib_value_at_bound(1.35e-12, 0.0, 1e-3));
	CHECK(!calib_value_at_bound(0.5, 0.0, 1.0));
	CHECK(!calib_value_at_bound(0.002, 0.0, 1.0));
	CHECK(!calib_value_at_bound(0.998, 0.0, 1.0));
}

/* A profile with "bounds", "prior" and "on_bound": read; a value outside
 * the profile's bounds, or bounds outside the catalogue's, refused. */
static bool write_variant(const char *path, const char *param, const char *entry)
{
	struct sc_error err;
	cJSON *root = cfg_parse_file("configs/calibration/hopper-default.json", &err);
	cJSON *params, *e;
	char *text;
	FILE *f;
	bool ok;

	if (!root)
		return false;
	params = cJSON_GetObjectItemCaseSensitive(root, "parameters");
	e = cJSON_Parse(entry);
	if (!e) {
		cJSON_Delete(root);
		return false;
	}
	cJSON_ReplaceItemInObjectCaseSensitive(params, param, e);
	text = cJSON_Print(root);
	cJSON_Delete(root);
	f = text ? fopen(path, "w") : NULL;
	ok = f && fputs(text, f) >= 0;
	if (f)
		ok = fclose(f) == 0 && ok;
	free(text);
	return ok;
}

static void test_profile_bounds(void)
{
	static struct calibration cal;
	struct sc_error err;
	char dir[64], path[128];
	double lo, hi;
	const char *src;

	snprintf(dir, sizeof(dir), "%s/sc-bounds.XXXXXX", getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
	if (!mkdtemp(dir)) {
		CHECK(false);
		return;
	}
	snprintf(path, sizeof(path), "%s/p.json", dir);
	CHECK(write_variant(path, "kernel_overhead_s",
			    "{\"value\": 4e-6, \"source\": \"test\", \"prior\": 3e-6, "
			    "\"bounds\": {\"min\": 2e-6, \"max\": 5e-5, \"source\": \"launch latency of the class\"}}"));
	sc_error_clear(&err);
	CHECK(calibration_load_file(path, &cal, &err) == SC_OK);
	calib_bounds(&cal, CALIB_kernel_overhead_s, &lo, &hi, &src);
	CHECK(lo == 2e-6 && hi == 5e-5);
	CHECK_STR(src, "launch latency of the class");
	CHECK(calib_prior(&cal, CALIB_kernel_overhead_s) == 3e-6);
	CHECK(!calib_at_bound(&cal, CALIB_kernel_overhead_s));

	CHECK(write_variant(path, "kernel_overhead_s",
			    "{\"value\": 1.5e-6, \"source\": \"test\", "
			    "\"bounds\": {\"min\": 2e-6, \"max\": 5e-5, \"source\": \"x\"}}"));
	sc_error_clear(&err);
	CHECK(calibration_load_file(path, &cal, &err) == SC_EINVAL);
	CHECK_STR(err.pointer, "/parameters/kernel_overhead_s/value");

	CHECK(write_variant(path, "kernel_overhead_s",
			    "{\"value\": 4e-6, \"source\": \"test\", "
			    "\"bounds\": {\"min\": 1e-9, \"max\": 5e-5, \"source\": \"x\"}}"));
	sc_error_clear(&err);
	CHECK(calibration_load_file(path, &cal, &err) == SC_EINVAL);
	CHECK_STR(err.pointer, "/parameters/kernel_overhead_s/bounds");

	/* below the catalogue's measured launch latency: refused outright */
	CHECK(write_variant(path, "kernel_overhead_s", "{\"value\": 1.35e-12, \"source\": \"test\"}"));
	sc_error_clear(&err);
	CHECK(calibration_load_file(path, &cal, &err) == SC_EINVAL);

	/* on a bound with a cited measurement: kept, and the citation read */
	CHECK(write_variant(path, "moe_router_imbalance",
			    "{\"value\": 1.0, \"source\": \"test\", \"on_bound\": \"force-balanced routing\"}"));
	sc_error_clear(&err);
	CHECK(calibration_load_file(path, &cal, &err) == SC_OK);
	CHECK(calib_at_bound(&cal, CALIB_moe_router_imbalance));
	CHECK_STR(cal.on_bound[CALIB_moe_router_imbalance], "force-balanced routing");
	unlink(path);
	rmdir(dir);
}

int main(void)
{
	RUN(test_ranges_sourced);
	RUN(test_at_bound_rule);
	RUN(test_committed_profiles);
	RUN(test_profile_bounds);
	return sc_test_summary();
}
