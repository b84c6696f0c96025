/* resilience_load.c: strict loading of configs/resilience.json (see
 * resilience_load.h). */
#include "resilience_load.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "catalog_load.h"

#define REQ CFG_REQUIRED
#define POS CFG_POSITIVE


const struct cfg_field cfg_failure_profile_fields[] = {
	CFG_F_STR(struct failure_profile_spec, name, REQ, "profile name, e.g. llama3-h100"),
	CFG_F_INT(struct failure_profile_spec, observed_gpus, REQ | POS, "GPUs of the observed job"),
	CFG_F_INT(struct failure_profile_spec, gpus_per_node, REQ | POS, "GPUs per node of the observed job"),
	CFG_F_NUM(struct failure_profile_spec, observed_days, REQ | POS, "length of the observation window, days"),
	CFG_F_INT(struct failure_profile_spec, planned_interruptions, REQ | CFG_NONNEG, "planned interruptions in the window (no work lost)"),
	CFG_F_STR(struct failure_profile_spec, source, REQ, "where the numbers come from"),
	CFG_END
};

const struct cfg_field cfg_failure_cause_fields[] = {
	CFG_F_STR(struct failure_cause_spec, profile, REQ, "the profile this cause belongs to"),
	CFG_F_STR(struct failure_cause_spec, name, REQ, "cause, e.g. faulty-gpu"),
	CFG_F_STR(struct failure_cause_spec, category, REQ, "the source's grouping, e.g. gpu, host, network"),
	CFG_F_ENUM(struct failure_cause_spec, scales_with, REQ, fail_scale_names, "gpu (rate per GPU-hour) or node (rate per node-hour)"),
	CFG_F_INT(struct failure_cause_spec, interruptions, REQ | CFG_NONNEG, "unexpected job interruptions in the profile's window"),
	CFG_F_STR(struct failure_cause_spec, source, REQ, "where the count comes from"),
	CFG_END
};

const struct cfg_field cfg_recovery_fields[] = {
	CFG_F_STR(struct recovery_spec, name, REQ, "checkpoint or checkpointless"),
	CFG_F_NUM(struct recovery_spec, restart_s, REQ | CFG_NONNEG, "fixed cost of one recovery besides restoring state, s"),
	CFG_F_INT(struct recovery_spec, state_replicas, REQ | POS, "copies of the model and optimizer state in GPU memory"),
	CFG_F_STR(struct recovery_spec, source, REQ, "where the numbers come from"),
	CFG_END
};

const struct cfg_field cfg_host_link_fields[] = {
	CFG_F_STR(struct host_link_spec, gpu_family, REQ, "ampere, hopper or blackwell"),
	CFG_F_NUM(struct host_link_spec, d2h_GBps, REQ | POS, "device-to-host copy bandwidth per GPU, GB/s"),
	CFG_F_NUM(struct host_link_spec, h2d_GBps, REQ | POS, "host-to-device copy bandwidth per GPU, GB/s"),
	CFG_F_STR(struct host_link_spec, source, REQ, "where the numbers come from"),
	CFG_END
};

/* Read root[key], an array of objects described by fields, into a calloc'd
 * array of elem bytes each.  unique (may be NULL): the key of a string field
 * whose values must differ between entries. */
static enum sc_status read_array(struct cfg_reader *rd, const cJSON *root, const char *key,
				 const struct cfg_field *fields, size_t elem, const char *unique,
				 void **out, int *n_out)
{
	long key_off = -1;
	char where[SC_ERROR_PTR_MAX], ewhere[SC_ERROR_PTR_MAX];
	const cJSON *list = cJSON_GetObjectItemCaseSensitive(root, key), *item;
	char *arr;
	int n, i = 0;
	enum sc_status st;

	for (const struct cfg_field *f = fields; unique && f->key; f++)
		if (strcmp(f->key, unique) == 0)
			key_off = (long)f->offset;
	cfg_pointer_key(where, sizeof(where), "", key);
	if (!list)
		return sc_error_set(rd->err, SC_EINVAL, rd->file, "/", "missing required key \"%s\"", key);
	if (!cJSON_IsArray(list))
		return sc_error_set(rd->err, SC_EINVAL, rd->file, where, "expected an array, got %s",
				    cfg_json_type_name(list));
	n = cJSON_GetArraySize(list);
	if (n < 1)
		return sc_error_set(rd->err, SC_EINVAL, rd->file, where, "expected at least one entry");
	arr = calloc((size_t)n, elem);
	if (!arr)
		return sc_error_set(rd->err, SC_ENOMEM, rd->file, where, "out of memory");
	cJSON_ArrayForEach(item, list) {
		char *slot = arr + (size_t)i * elem;

		cfg_pointer_index(ewhere, sizeof(ewhere), where, i);
		if ((st = cfg_read_object(rd, item, fields, slot, ewhere)) != SC_OK) {
			free(arr);
			return st;
		}
		for (int j = 0; key_off >= 0 && j < i; j++) {
			const char *a = arr + (size_t)j * elem + key_off, *b = slot + key_off;
			if (strcmp(a, b) == 0) {
				char kwhere[SC_ERROR_PTR_MAX];
				cfg_pointer_key(kwhere, sizeof(kwhere), ewhere, unique);
				st = sc_error_set(rd->err, SC_EINVAL, rd->file, kwhere,
						  "duplicate name \"%s\" (also at %s/%d)", b, where, j);
				free(arr);
				return st;
			}
		}
		i++;
	}
	*out = arr;
	*n_out = n;
	return SC_OK;
}

/* Cross references and value checks that the field tables cannot express. */
static enum sc_status check(struct cfg_reader *rd, struct resilience_catalog *rc)
{
	char where[SC_ERROR_PTR_MAX];

	for (int i = 0; i < rc->n_recovery; i++) {
		if (sc_enum_parse(ckpt_recovery_names, rc->recovery[i].name) < 0) {
			snprintf(where, sizeof(where), "/recovery/%d/name", i);
			return sc_error_set(rd->err, SC_EINVAL, rd->file, where,
					    "unknown recovery method \"%s\"; expected \"checkpoint\" or \"checkpointless\"",
					    rc->recovery[i].name);
		}
		if (strcmp(rc->recovery[i].name, "checkpointless") == 0 && rc->recovery[i].state_replicas < 2) {
			snprintf(where, sizeof(where), "/recovery/%d/state_replicas", i);
			return sc_error_set(rd->err, SC_EINVAL, rd->file, where,
					    "checkpointless recovery needs at least 2 state replicas (got \"%d\")",
					    rc->recovery[i].state_replicas);
		}
	}
	for (int k = 0; ckpt_recovery_names[k]; k++)
		if (!resilience_recovery(rc, ckpt_recovery_names[k]))
			return sc_error_set(rd->err, SC_EINVAL, rd->file, "/recovery",
					    "missing the \"%s\" recovery method", ckpt_recovery_names[k]);
	for (int i = 0; i < rc->n_host_links; i++) {
		if (sc_enum_parse(cfg_gpu_family_names, rc->host_links[i].gpu_family) < 0) {
			snprintf(where, sizeof(where), "/host_links/%d/gpu_family", i);
			return sc_error_set(rd->err, SC_EINVAL, rd->file, where,
					    "unknown GPU family \"%s\"; expected \"ampere\", \"hopper\" or \"blackwell\"",
					    rc->host_links[i].gpu_family);
		}
	}
	for (int i = 0; i < rc->n_causes; i++) {
		const struct failure_cause_spec *c = &rc->causes[i];

		if (!resilience_profile(rc, c->profile)) {
			snprintf(where, sizeof(where), "/causes/%d/profile", i);
			return sc_error_set(rd->err, SC_ENOTFOUND, rd->file, where,
					    "unknown failure profile \"%s\"", c->profile);
		}
		for (int j = 0; j < i; j++)
			if (strcmp(rc->causes[j].profile, c->profile) == 0 &&
			    strcmp(rc->causes[j].name, c->name) == 0) {
				snprintf(where, sizeof(where), "/causes/%d/name", i);
				return sc_error_set(rd->err, SC_EINVAL, rd->file, where,
						    "duplicate cause \"%s\" of profile \"%s\" (also at /causes/%d)",
						    c->name, c->profile, j);
			}
	}
	for (int p = 0; p < rc->n_profiles; p++) {
		int n = 0;

		for (int i = 0; i < rc->n_causes; i++)
			n += strcmp(rc->causes[i].profile, rc->profiles[p].name) == 0;
		snprintf(where, sizeof(where), "/profiles/%d/name", p);
		if (n == 0)
			return sc_error_set(rd->err, SC_EINVAL, rd->file, where,
					    "failure profile \"%s\" has no causes", rc->profiles[p].name);
		if (n > SC_FAILURE_CAUSES_MAX)
			return sc_error_set(rd->err, SC_EINVAL, rd->file, where,
					    "failure profile \"%s\" has %d causes, more than the %d supported",
					    rc->profiles[p].name, n, SC_FAILURE_CAUSES_MAX);
		if (rc->profiles[p].observed_gpus % rc->profiles[p].gpus_per_node != 0) {
			snprintf(where, sizeof(where), "/profiles/%d/gpus_per_node", p);
			return sc_error_set(rd->err, SC_EINVAL, rd->file, where,
					    "gpus_per_node (%d) does not divide observed_gpus (%d)",
					    rc->profiles[p].gpus_per_node, rc->profiles[p].observed_gpus);
		}
	}
	return SC_OK;
}

enum sc_status resilience_load(const char *dir, struct resilience_catalog *rc,
			       struct sc_error *err)
{
	static const char *const allowed[] = { "schema_version", "profiles", "causes", "recovery",
					       "host_links", NULL };
	char path[1024];
	struct cfg_reader rd = { path, err, NULL };
	cJSON *root;
	enum sc_status st;

	memset(rc, 0, sizeof(*rc));
	snprintf(path, sizeof(path), "%s/resilience.json", dir);
	root = cfg_parse_file(path, err);
	if (!root)
		return err ? err->status : SC_EINVAL;
	if ((st = cfg_check_keys(&rd, root, allowed, "")) != SC_OK)
		goto out;
	if ((st = cfg_check_schema_version(root, path, err)) != SC_OK)
		goto out;
	if ((st = read_array(&rd, root, "profiles", cfg_failure_profile_fields,
			     sizeof(struct failure_profile_spec), "name",
			     (void **)&rc->profiles, &rc->n_profiles)) ||
	    (st = read_array(&rd, root, "causes", cfg_failure_cause_fields,
			     sizeof(struct failure_cause_spec), NULL,
			     (void **)&rc->causes, &rc->n_causes)) ||
	    (st = read_array(&rd, root, "recovery", cfg_recovery_fields,
			     sizeof(struct recovery_spec), "name",
			     (void **)&rc->recovery, &rc->n_recovery)) ||
	    (st = read_array(&rd, root, "host_links", cfg_host_link_fields,
			     sizeof(struct host_link_spec), "gpu_family",
			     (void **)&rc->host_links, &rc->n_host_links)) ||
	    (st = check(&rd, rc)))
		goto out;
out:
	cJSON_Delete(root);
	if (st != SC_OK)
		resilience_free(rc);
	return st;
}

void resilience_free(struct resilience_catalog *rc)
{
	free(rc->profiles);
	free(rc->causes);
	free(rc->recovery);
	free(rc->host_links);
	memset(rc, 0, sizeof(*rc));
}

CFG_LOOKUP(resilience_profile, struct resilience_catalog, struct failure_profile_spec, profiles, n_profiles, name)
CFG_LOOKUP(resilience_recovery, struct resilience_catalog, struct recovery_spec, recovery, n_recovery, name)
CFG_LOOKUP(resilience_host_link, struct resilience_catalog, struct host_link_spec, host_links, n_host_links,
	   gpu_family)
