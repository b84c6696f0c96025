/* rpt_calibrate.h: render `stepcast calibrate`: the measurement summary
 * line, the fit report (text, or JSON with the profile, curves and notes)
 * and a profile as `calibrate show` prints it (text, or JSON with the
 * parameters listed with their ranges).  Streams are the caller's; the
 * JSON builders return a tree the caller owns (cJSON_Delete), NULL on
 * allocation failure.
 */
#ifndef SC_RPT_CALIBRATE_H
#define SC_RPT_CALIBRATE_H

#include <stdio.h>

#include <cjson/cJSON.h>

#include "../calibrate/cal_measure.h"
#include "../calibrate/fit/fit.h"

/* "stepcast: calibrate: N collective curves, ..." (what was read). */
void rpt_calibrate_summary(FILE *out, const struct cal_measurements *m);

/* The fit report: the profile written to path, the fitted parameters
 * against base with the range of the data, each curve's quality, the
 * segments, each curve's points and the notes. */
void rpt_calibrate_fit_text(FILE *out, const struct cal_fit_result *res, const struct calibration *base,
			    const char *path);

/* The same as JSON: "output", "profile", "curves" (with "points"), "notes". */
cJSON *rpt_calibrate_fit_json(const struct cal_fit_result *res, const char *path);

/* A profile: name, file (when path is not NULL), description, provenance,
 * one row a parameter (with a warning for those on a bound no measurement
 * puts there) and its fits with their residuals. */
void rpt_calibrate_show_text(FILE *out, const struct calibration *cal, const struct calib_fit *fits, int n,
			     const char *path);

/* The profile's JSON with "parameters" as a list of objects: each
 * parameter's physical range, whether it was fitted and whether it ends on
 * a bound. */
cJSON *rpt_calibrate_show_json(const struct calibration *cal, const struct calib_fit *fits, int n);

#endif
