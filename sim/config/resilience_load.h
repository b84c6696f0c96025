/* resilience_load.h: the resilience catalogue (configs/resilience.json):
 * failure profiles with their per-cause interruption counts, the recovery
 * methods, and the GPU-to-host links checkpoints are copied over.
 *
 * resilience_load() reads the file strictly (the cfg_json field tables
 * below, which the schema test compares with
 * configs/schema/resilience.schema.json) and checks its cross references:
 * every cause names a known profile, every profile has at least one cause,
 * both recovery methods ("checkpoint", "checkpointless") are present.  The
 * caller owns the struct and releases its arrays with resilience_free().
 * catalog_load() calls both for the whole catalogue.
 */
#ifndef SC_RESILIENCE_LOAD_H
#define SC_RESILIENCE_LOAD_H

#include "../../models/resilience_types.h"
#include "../../models/status.h"
#include "cfg_json.h"

/* GPU-to-host copy bandwidth of one GPU family (checkpoint snapshots). */
struct host_link_spec {
	char gpu_family[SC_NAME_MAX];
	double d2h_GBps;               /* device to host, per GPU */
	double h2d_GBps;               /* host to device, per GPU */
	char source[SC_SOURCE_MAX];
};

struct resilience_catalog {
	struct failure_profile_spec *profiles;
	int n_profiles;
	struct failure_cause_spec *causes;
	int n_causes;
	struct recovery_spec *recovery;
	int n_recovery;
	struct host_link_spec *host_links;
	int n_host_links;
};

extern const struct cfg_field cfg_failure_profile_fields[];
extern const struct cfg_field cfg_failure_cause_fields[];
extern const struct cfg_field cfg_recovery_fields[];
extern const struct cfg_field cfg_host_link_fields[];

/* Read DIR/resilience.json into rc (zeroed first).  On failure frees what
 * it read and fills err with the file and JSON pointer. */
enum sc_status resilience_load(const char *dir, struct resilience_catalog *rc,
			       struct sc_error *err);
void resilience_free(struct resilience_catalog *rc);

/* Lookups; NULL if absent. */
const struct failure_profile_spec *resilience_profile(const struct resilience_catalog *rc,
						      const char *name);
const struct recovery_spec *resilience_recovery(const struct resilience_catalog *rc,
						const char *name);
const struct host_link_spec *resilience_host_link(const struct resilience_catalog *rc,
						  const char *gpu_family);

#endif
