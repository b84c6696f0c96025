/* scenario_storage.h: a scenario's optional "storage" and "stragglers"
 * objects: their field tables (part of cfg_scenario_fields, so the schema
 * test covers them) and the resolution that follows reading them.
 *
 * scenario_read() presets the defaults (scenario_storage_defaults), reads
 * the objects with the tables, then calls scenario_storage_resolve() once
 * the cluster's GPU is known: it fills what depends on other keys and on the
 * catalogue (default failure profile, recovery methods, the GPU family's
 * host link, bytes per token by vocabulary) and checks what the tables
 * cannot.  Plain structs inside struct scenario; nothing to free.
 */
#ifndef SC_SCENARIO_STORAGE_H
#define SC_SCENARIO_STORAGE_H

#include <cjson/cJSON.h>

#include "../../models/scenario.h"
#include "catalog_load.h"

extern const struct cfg_field cfg_storage_cfg_fields[];
extern const struct cfg_field cfg_straggler_fields[];

/* Defaults of keys the objects may omit (before reading). */
void scenario_storage_defaults(struct scenario *sc);

/* After reading: root is the scenario's JSON object, file names it in
 * errors.  Errors point at /storage/KEY or /stragglers/KEY. */
enum sc_status scenario_storage_resolve(const char *file, const cJSON *root,
					const struct catalog *cat, struct scenario *sc,
					struct sc_error *err);

#endif
