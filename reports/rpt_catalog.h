/* rpt_catalog.h: render the catalogue as text tables or JSON onto a stream
 * the caller owns.  Kinds: "gpus", "instances", "fabrics", "storage",
 * "models", "calibrations", "failures" (configs/resilience.json).
 */
#ifndef SC_RPT_CATALOG_H
#define SC_RPT_CATALOG_H

#include <stdbool.h>
#include <stdio.h>

#include "../sim/config/catalog_load.h"

extern const char *const rpt_catalog_kinds[];

/* True if kind is one of rpt_catalog_kinds. */
bool rpt_catalog_kind_valid(const char *kind);

/* Text table of one kind. */
void rpt_catalog_text(FILE *out, const struct catalog *cat, const char *kind);

/* JSON: {"KIND": [ ... ]} for one kind, or every kind when kind is NULL.
 * Returns false on allocation failure. */
bool rpt_catalog_json(FILE *out, const struct catalog *cat, const char *kind);

/* A calibration profile as the JSON its loader reads (schema_version,
 * name, gpu_family, description, parameters with value and source; a
 * parameter's range and the provenance when the profile has them, as
 * schema_version 2).  The caller frees the result with cJSON_Delete(); NULL
 * on allocation failure.  The writer is the config layer's
 * (cfg_calibration_json, sim/config/calibration_json.h); this is its name
 * for the renderers. */
cJSON *rpt_calibration_json(const struct calibration *c);

#endif
