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

enum sc_status cfg_ref_model(struct cfg_reader *rd, const struct catalog *cat, const cJSON *item,
			     struct model_arch *m, const char *where)
{
	const struct model_arch *c;

	if (cJSON_IsObject(item))
		return cfg_read_model(rd, item, m, where);
	if (!cJSON_IsString(item))
		return expected(rd, item, where, "a model name or a model object");
	if (!(c = catalog_model(cat, item->valuestring)))
		return catalog_unknown(cat, "model", item->valuestring, rd->file, where, rd->err);
	*m = *c;
	return SC_OK;
}

enum sc_status cfg_ref_instance(struct cfg_reader *rd, const struct catalog *cat, const cJSON *item,
				struct instance_spec *in, const char *where)
{
	const struct instance_spec *c;
	char gwhere[SC_ERROR_PTR_MAX];
	enum sc_status st;

	if (cJSON_IsObject(item)) {
		if ((st = cfg_read_instance(rd, item, in, where)) != SC_OK)
			return st;
		cfg_pointer_key(gwhere, sizeof(gwhere), where, "gpu");
		if (!catalog_gpu(cat, in->gpu))
			return catalog_unknown(cat, "gpu", in->gpu, rd->file, gwhere, rd->err);
		return SC_OK;
	}
	if (!cJSON_IsString(item))
		return expected(rd, item, where, "an instance type name or an instance object");
	if (!(c = catalog_instance(cat, item->valuestring)))
		return catalog_unknown(cat, "instance", item->valuestring, rd->file, where, rd->err);
	*in = *c;
	return SC_OK;
}

enum sc_status cfg_ref_fabric(struct cfg_reader *rd, const struct catalog *cat, const cJSON *item,
			      struct fabric_spec *f, const char *where)
{
	const struct fabric_spec *c;

	if (!cJSON_IsString(item))
		return expected(rd, item, where, "a fabric name");
	if (!(c = catalog_fabric(cat, item->valuestring)))
		return catalog_unknown(cat, "fabric", item->valuestring, rd->file, where, rd->err);
	*f = *c;
	return SC_OK;
}

enum sc_status cfg_ref_storage(struct cfg_reader *rd, const struct catalog *cat, const cJSON *item,
			       struct storage_spec *t, const char *where)
{
	const struct storage_spec *c;

	if (!cJSON_IsString(item))
		return expected(rd, item, where, "a storage tier name");
	if (!(c = catalog_storage(cat, item->valuestring)))
		return catalog_unknown(cat, "storage", item->valuestring, rd->file, where, rd->err);
	*t = *c;
	return SC_OK;
}

enum sc_status cfg_ref_calibration(struct cfg_reader *rd, const cJSON *item, void *slot, const char *where)
{
	(void)slot;
	if (!cJSON_IsString(item))
		return expected(rd, item, where, "a calibration profile name or file");
	return SC_OK;
}
