/* catalog_ref.c: the one reader of a catalogue reference in a config file
 * (see catalog_load.h): "model": NAME or an inline model, "instance": NAME
 * or an inline instance (whose "gpu" must be in the catalogue), "fabric",
 * storage tiers by NAME, and "calibration" by name or file (resolved later,
 * once the GPU is known).  An unknown name is catalog_unknown()'s error:
 * the file, the JSON pointer and a did-you-mean. */
#include "catalog_load.h"

#include <string.h>

static enum sc_status expected(struct cfg_reader *rd, const cJSON *item, const char *where, const char *what)
{
	return sc_error_set(rd->err, SC_EINVAL, rd->file, where, "expected %s, got %s", what,
			    cfg_json_type_name(item));
}

/* The catalogue's entry of this kind named name (NULL: none), its size in *size. */
static const void *lookup(const struct catalog *cat, const char *kind, const char *name, size_t *size)
{
	switch (kind[0]) {
	case 'm': *size = sizeof(struct model_arch); return catalog_model(cat, name);
	case 'i': *size = sizeof(struct instance_spec); return catalog_instance(cat, name);
	case 'f': *size = sizeof(struct fabric_spec); return catalog_fabric(cat, name);
	default: *size = sizeof(struct storage_spec); return catalog_storage(cat, name);
	}
}

/* A reference by name to the catalogue's kind ("model", "instance",
 * "fabric", "storage"), copied into slot; what: the value expected. */
static enum sc_status by_name(struct cfg_reader *rd, const struct catalog *cat, const cJSON *item,
			      const char *kind, const char *what, void *slot, const char *where)
{
	const void *c;
	size_t size;

	if (!cJSON_IsString(item))
		return expected(rd, item, where, what);
	if (!(c = lookup(cat, kind, item->valuestring, &size)))
		return catalog_unknown(cat, kind, item->valuestring, rd->file, where, rd->err);
	memcpy(slot, c, size);
	return SC_OK;
}

enum sc_status cfg_ref_model(struct cfg_reader *rd, const struct catalog *cat, const cJSON *item,
			     struct model_arch *m, const char *where)
{
	if (cJSON_IsObject(item))
		return cfg_read_model(rd, item, m, where);
	return by_name(rd, cat, item, "model", "a model name or a model object", m, where);
}

enum sc_status cfg_ref_instance(struct cfg_reader *rd, const struct catalog *cat, const cJSON *item,
				struct instance_spec *in, const char *where)
{
	char gwhere[SC_ERROR_PTR_MAX];
	enum sc_status st;

	if (!cJSON_IsObject(item))
		return by_name(rd, cat, item, "instance", "an instance type name or an instance object", in, where);
	if ((st = cfg_read_instance(rd, item, in, where)) != SC_OK)
		return st;
	cfg_pointer_key(gwhere, sizeof(gwhere), where, "gpu");
	if (!catalog_gpu(cat, in->gpu))
		return catalog_unknown(cat, "gpu", in->gpu, rd->file, gwhere, rd->err);
	return SC_OK;
}

enum sc_status cfg_ref_fabric(struct cfg_reader *rd, const struct catalog *cat, const cJSON *item,
			      struct fabric_spec *f, const char *where)
{
	return by_name(rd, cat, item, "fabric", "a fabric name", f, where);
}

enum sc_status cfg_ref_storage(struct cfg_reader *rd, const struct catalog *cat, const cJSON *item,
			       struct storage_spec *t, const char *where)
{
	return by_name(rd, cat, item, "storage", "a storage tier name", t, where);
}

enum sc_status cfg_ref_calibration(struct cfg_reader *rd, const cJSON *item, void *slot, const char *where)
{
	(void)slot;
	if (!cJSON_IsString(item))
		return expected(rd, item, where, "a calibration profile name or file");
	return SC_OK;
}
