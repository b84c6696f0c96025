/* calibration_json.h: write a calibration profile as the JSON that
 * catalog_load() reads back (schema_version, name, gpu_family, description,
 * parameters with value and source; a parameter's range and the provenance
 * when the profile has them, as schema_version 2).
 */
#ifndef SC_CALIBRATION_JSON_H
#define SC_CALIBRATION_JSON_H

#include <cjson/cJSON.h>

#include "../../models/calibration.h"

/* The caller frees the result with cJSON_Delete(); NULL on allocation
 * failure. */
cJSON *cfg_calibration_json(const struct calibration *c);

#endif
