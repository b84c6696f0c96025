/* cal_profile.h: calibration profiles as `calibrate` writes, shows and
 * checks them.
 *
 * A fitted profile is the base profile with the fitted parameters moved,
 * schema_version 2: a "range" per fitted parameter, "provenance" and the
 * "fits" with their residuals (see models/calibration.h).  predict uses the
 * ranges through cal_range_check() to warn when a collective of the
 * scenario lies outside the data a parameter was fitted to.
 *
 * Ownership: returned cJSON trees are the caller's (cJSON_Delete); every
 * struct is caller-owned.
 */
#ifndef SC_CAL_PROFILE_H
#define SC_CAL_PROFILE_H

#include <cjson/cJSON.h>

#include "../models/calibration.h"
#include "../sim/analytic/step.h"
#include "../sim/config/catalog_load.h"

/* The cluster of one node of `instance` with its GPU and `fabric` (NULL:
 * "ultracluster") from the catalogue; nodes is set to 1. */
enum sc_status cal_cluster_of(const struct catalog *cat, const char *instance,
			      const char *fabric, struct cluster *out, struct sc_error *err);

/* The profile as JSON: cfg_calibration_json()'s with the "fits" array
 * (n_fits may be 0).  NULL on allocation failure. */
cJSON *cal_profile_json(const struct calibration *cal, const struct calib_fit *fits, int n_fits);

/* Read the "fits" of a profile file into fits[0..max); *n the count.  The
 * profile itself must load (calibration_load_file) too. */
enum sc_status cal_profile_read_fits(const char *path, struct calib_fit *fits, int max,
				     int *n, struct sc_error *err);

struct cal_measurements;

/* Where a fitted profile goes: output when given, else
 * CAT_DIR/calibration/NAME.json.  An existing file is SC_EINVAL ("PATH
 * exists; pass --force to replace it") unless force. */
enum sc_status cal_profile_output_path(const char *output, const char *cat_dir, const char *name, bool force,
				       char *path, size_t size, struct sc_error *err);

/* A fitted profile's name, description (description, or one saying what
 * it was fitted to, on what and from which base) and provenance: created
 * (ISO 8601 UTC, the caller's clock), this tool, the measured software
 * stack, the instance, the base and the inputs. */
void cal_profile_describe(struct calibration *cal, const char *name, const char *description,
			  const struct cal_measurements *m, const struct cluster *cl,
			  const struct calibration *base, const char *created);

#define CAL_RANGE_MSG_MAX 384

/* One collective of a prediction outside a fitted parameter's range. */
struct cal_range_warning {
	char text[CAL_RANGE_MSG_MAX];
};

/* Check each collective of r (size, group size, algorithm and tier) against
 * the ranges of the parameters its algorithm uses in cal.  Fills up to max
 * warnings and returns how many collectives are outside (0: all inside, or
 * the profile records no ranges). */
int cal_range_check(const struct calibration *cal, const struct step_result *r,
		    struct cal_range_warning *out, int max);

#endif
