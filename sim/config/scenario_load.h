/* scenario_load.h: read a scenario file (a what-if question) into a struct
 * scenario, resolving catalogue names (or inline objects) and checking the
 * layout against the cluster.  The caller owns both structs; nothing to free.
 * Field tables are exported for the schema test.
 */
#ifndef SC_SCENARIO_LOAD_H
#define SC_SCENARIO_LOAD_H

#include "../../models/scenario.h"
#include "catalog_load.h"

extern const struct cfg_field cfg_scenario_fields[];
extern const struct cfg_field cfg_cluster_fields[];
extern const struct cfg_field cfg_training_fields[];
extern const struct cfg_field cfg_layout_fields[];

/* Load path against cat into sc.  Errors name the file and JSON pointer. */
enum sc_status scenario_load(const char *path, const struct catalog *cat,
			     struct scenario *sc, struct sc_error *err);

/* The same from a parsed tree (file is used in messages). */
enum sc_status scenario_read(const char *file, const cJSON *root,
			     const struct catalog *cat, struct scenario *sc,
			     struct sc_error *err);

/* Check a filled scenario's layout against its model and cluster (the checks
 * scenario_read applies after reading; also used for validation cases).
 * file may be NULL; pointers name the scenario keys. */
enum sc_status scenario_check(const struct scenario *sc, const char *file,
			      struct sc_error *err);

/* training.sac_attention_recomputed only with torchtitan's op-level
 * selective recompute (framework torchtitan, recompute selective, no
 * recompute_layer_interval): the error at ptr otherwise. */
enum sc_status training_sac_check(const struct training *t, const char *file, const char *ptr,
				  struct sc_error *err);

#endif
