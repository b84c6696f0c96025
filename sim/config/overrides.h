/* overrides.h: what-if edits of the configuration, `--set PATH=VALUE`.
 *
 * An override changes one value of a parsed JSON document before the one
 * strict loader of that document reads it, so that types, ranges, unknown
 * keys and cross-rules are checked exactly as for a file (no second copy of
 * any rule here).  PATH is dotted:
 *
 *   layout.tp=4, cluster.nodes=128, storage.tiers.0.kind=s3   the scenario
 *   catalog.instances.p5.48xlarge.efa_nic_Gbps=50              a catalogue entry
 *   catalog.gpus.h100-sxm.hbm_bytes=96e9                        (by its "name";
 *   catalog.calibrations.hopper-default.KEY=...                 names may hold dots)
 *
 * Catalogue documents: gpus, instances, fabrics, storage, models (list files,
 * entries matched by name) and calibrations (one file per profile, matched by
 * the file's stem).  VALUE is JSON when it parses as strict JSON (4, 96e9,
 * true, null, "text", {...}, [...]) and a string otherwise (p5en.48xlarge);
 * a value that starts with {, [ or " must be JSON; null removes the key so
 * that its default applies (layout.dp=null: derived again from the GPUs;
 * where a loader accepts null it means "not given" too).  Missing objects on
 * the way
 * are created, so the loader reports an unknown key where one was misspelt.
 * Later overrides of the same PATH win.
 *
 * After a load fails, cfg_overrides_blame() names the override that the
 * error is about ("--set layout.tpp=4: unknown key \"tpp\" (did you mean
 * \"tp\"?)").
 */
#ifndef SC_OVERRIDES_H
#define SC_OVERRIDES_H

#include <stdbool.h>

#include <cjson/cJSON.h>

#include "../../models/status.h"

#define CFG_MAX_OVERRIDES 64
#define CFG_OVERRIDE_TEXT_MAX 512

/* The catalogue documents an override may address. */
enum cfg_ov_doc {
	CFG_OV_SCENARIO,
	CFG_OV_GPUS,
	CFG_OV_INSTANCES,
	CFG_OV_FABRICS,
	CFG_OV_STORAGE,
	CFG_OV_MODELS,
	CFG_OV_CALIBRATIONS
};

struct cfg_override {
	char text[CFG_OVERRIDE_TEXT_MAX];  /* as given: "layout.tp=4" */
	enum cfg_ov_doc doc;
	char path[CFG_OVERRIDE_TEXT_MAX];  /* the dotted path inside the document
					      (catalogue: "NAME.key..." ) */
	char value[CFG_OVERRIDE_TEXT_MAX];
	/* set by cfg_overrides_apply for the last document it changed */
	char applied_file[SC_ERROR_FILE_MAX];
	char pointer[SC_ERROR_PTR_MAX];    /* the value's JSON pointer there */
	char created[SC_ERROR_PTR_MAX];    /* the topmost object it created, or "" */
};

struct cfg_overrides {
	int n;
	struct cfg_override item[CFG_MAX_OVERRIDES];
};

/* Append "PATH=VALUE" (text).  SC_EINVAL, with the override named in
 * err->file, for a missing '=', an empty path or segment, an unknown
 * catalogue document, a value that should be JSON and is not, or too many. */
enum sc_status cfg_overrides_add(struct cfg_overrides *ov, const char *text,
				 struct sc_error *err);

/* The catalogue document with this name ("gpus", "instances", ...); false if
 * none. */
bool cfg_overrides_doc(const char *name, enum cfg_ov_doc *doc);

/* Apply the overrides of doc to root, the parsed document read from file.
 * List documents (gpus ... models) find their entry by "name" under key
 * list_key; for CFG_OV_CALIBRATIONS, entry is the profile's file stem and
 * only overrides naming it apply.  ov may be NULL.  Errors (an entry or a
 * path that does not exist, a value where an object was needed) name the
 * override. */
enum sc_status cfg_overrides_apply(struct cfg_overrides *ov, enum cfg_ov_doc doc,
				   const char *list_key, const char *entry, cJSON *root,
				   const char *file, struct sc_error *err);

/* When err is about a value an override set (same file, its pointer or
 * below, or an object it created), rewrite it to name the override: file
 * becomes "--set TEXT"; an error at an enclosing object gets "(with --set
 * TEXT)" appended.  ov may be NULL. */
void cfg_overrides_blame(const struct cfg_overrides *ov, struct sc_error *err);

/* cfg_parse_file, then the scenario overrides. */
cJSON *cfg_parse_scenario_file(const char *path, struct cfg_overrides *ov,
			       struct sc_error *err);

/* The overrides as a JSON array of their texts (for reports); NULL when
 * none or out of memory. */
cJSON *cfg_overrides_json(const struct cfg_overrides *ov);

#endif
