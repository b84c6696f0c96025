/* catalog_load.h: the catalogue (configs/) loaded into memory.
 *
 * catalog_load() reads gpus.json, instances.json, fabrics.json, storage.json,
 * models.json, resilience.json (resilience_load.h) and every
 * calibration/NAME.json of a config directory, strictly,
 * and checks cross references (instance -> GPU, GPU -> calibration profile).
 * The caller owns the struct catalog and releases it with catalog_free().
 * The field tables are exported for the schema test and for reading the same
 * kinds from other files (scenarios inline them; validation files reuse the
 * model table).
 */
#ifndef SC_CATALOG_LOAD_H
#define SC_CATALOG_LOAD_H

#include "../../models/calibration.h"
#include "../../models/catalog.h"
#include "../../models/status.h"
#include "cfg_json.h"
#include "overrides.h"

/* The GPU architecture families a catalogue entry may name (gpus.json
 * "family", resilience.json host_links "gpu_family"), NULL-terminated. */
extern const char *const cfg_gpu_family_names[];
#include "resilience_load.h"

struct catalog {
	char dir[512];
	struct gpu_spec *gpus;
	int n_gpus;
	struct instance_spec *instances;
	int n_instances;
	struct fabric_spec *fabrics;
	int n_fabrics;
	struct storage_spec *storage;
	int n_storage;
	struct model_arch *models;
	int n_models;
	struct calibration *calibrations;
	int n_calibrations;
	struct resilience_catalog resilience; /* resilience.json */
};

extern const struct cfg_field cfg_gpu_fields[];
extern const struct cfg_field cfg_instance_fields[];
extern const struct cfg_field cfg_price_fields[];
extern const struct cfg_field cfg_ultraserver_fields[];
extern const struct cfg_field cfg_fabric_fields[];
extern const struct cfg_field cfg_storage_fields[];
extern const struct cfg_field cfg_model_fields[];

/* The directory holding the catalogue: $STEPCAST_CONFIG_DIR if set, else the
 * source tree's configs/ (compiled in). */
const char *catalog_default_dir(void);

/* Load every catalogue file under dir.  On failure frees what it loaded. */
enum sc_status catalog_load(const char *dir, struct catalog *cat, struct sc_error *err);
/* The same with `--set catalog.KIND.NAME.KEY=VALUE` overrides applied to
 * each parsed file before it is read (overrides.h); errors about an
 * overridden value name the override.  ov may be NULL. */
enum sc_status catalog_load_ov(const char *dir, struct cfg_overrides *ov, struct catalog *cat,
			       struct sc_error *err);
void catalog_free(struct catalog *cat);

/* Lookups by name; NULL if absent. */
const struct gpu_spec *catalog_gpu(const struct catalog *cat, const char *name);
const struct instance_spec *catalog_instance(const struct catalog *cat, const char *name);
const struct fabric_spec *catalog_fabric(const struct catalog *cat, const char *name);
const struct storage_spec *catalog_storage(const struct catalog *cat, const char *name);
const struct model_arch *catalog_model(const struct catalog *cat, const char *name);
const struct calibration *catalog_calibration(const struct catalog *cat, const char *name);

/* Error for an unknown reference: "unknown KIND \"NAME\"" plus a did-you-mean
 * among the catalogue's names of that kind ("gpu", "instance", "fabric",
 * "storage", "model", "calibration"). */
enum sc_status catalog_unknown(const struct catalog *cat, const char *kind,
			       const char *name, const char *file,
			       const char *pointer, struct sc_error *err);

/* The one reader of a catalogue reference in a config file
 * (catalog_ref.c): a model NAME or inline model object; an instance type
 * NAME or inline instance object, whose "gpu" the catalogue must have; a
 * fabric or a storage tier NAME.  The value is copied into the slot; an
 * unknown name is catalog_unknown()'s error at where. */
enum sc_status cfg_ref_model(struct cfg_reader *rd, const struct catalog *cat, const cJSON *item,
			     struct model_arch *m, const char *where);
enum sc_status cfg_ref_instance(struct cfg_reader *rd, const struct catalog *cat, const cJSON *item,
				struct instance_spec *in, const char *where);
enum sc_status cfg_ref_fabric(struct cfg_reader *rd, const struct catalog *cat, const cJSON *item,
			      struct fabric_spec *f, const char *where);
enum sc_status cfg_ref_storage(struct cfg_reader *rd, const struct catalog *cat, const cJSON *item,
			       struct storage_spec *t, const char *where);
/* "calibration": only its type (a string) here, a cfg_field reader; the
 * profile is resolved with calibration_select once the GPU is known. */
enum sc_status cfg_ref_calibration(struct cfg_reader *rd, const cJSON *item, void *slot, const char *where);

/* Read one model object (the catalogue's model schema) into m, zeroing it
 * first and checking its internal consistency (heads divide hidden, MoE and
 * MLA fields together). */
enum sc_status cfg_read_model(struct cfg_reader *rd, const cJSON *obj,
			      struct model_arch *m, const char *pointer);
enum sc_status cfg_read_instance(struct cfg_reader *rd, const cJSON *obj,
				 struct instance_spec *in, const char *pointer);

/* The schema_version 2 parts of a calibration profile: a parameter's
 * "range" (quantity is an index into message_bytes, gemm_dim, copy_bytes,
 * i.e. enum calib_range_quantity - 1), "provenance" (struct
 * calib_provenance) and each entry of "fits" (struct calib_fit, less its
 * "x" and "residuals" arrays, which cfg_read_calibration_fit reads). */
struct cfg_calib_range {
	int quantity;
	double min, max;
	int ranks_min, ranks_max;
};
extern const struct cfg_field cfg_calib_range_fields[];

/* A parameter's "bounds": the profile's physical range (struct
 * calibration's bound_min, bound_max, bound_source). */
struct cfg_calib_bounds {
	double min, max;
	char source[SC_CALIB_BOUND_SOURCE_MAX];
};
extern const struct cfg_field cfg_calib_bounds_fields[];
extern const struct cfg_field cfg_calib_provenance_fields[];
extern const struct cfg_field cfg_calib_fit_fields[];

/* Read one entry of a profile's "fits" (zeroing fit first). */
enum sc_status cfg_read_calibration_fit(struct cfg_reader *rd, const cJSON *obj,
					struct calib_fit *fit, const char *pointer);

/* Read a profile's "fits" array into fits[0..max) (fits may be NULL to only
 * check it); the count into *n. */
enum sc_status cfg_read_calibration_fits(struct cfg_reader *rd, const cJSON *arr,
					 struct calib_fit *fits, int max, int *n,
					 const char *pointer);

/* Read one calibration profile file. */
enum sc_status calibration_load_file(const char *path, struct calibration *cal,
				     struct sc_error *err);
enum sc_status cfg_read_calibration(struct cfg_reader *rd, const cJSON *obj,
				    struct calibration *cal, const char *pointer);

#endif
