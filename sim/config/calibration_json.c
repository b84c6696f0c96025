/* calibration_json.c: a calibration profile as the JSON its reader
 * (catalog_load.c) reads: the writer lives beside the reader, in the config
 * layer, so that calibrate/ (which writes fitted profiles) need not reach up
 * into reports/ for it.  See calibration_json.h. */
#include "calibration_json.h"

#include "catalog_load.h"

cJSON *cfg_calibration_json(const struct calibration *c)
{
	cJSON *o = cJSON_CreateObject(), *params = cJSON_CreateObject();

	if (!o || !params) {
		cJSON_Delete(o);
		cJSON_Delete(params);
		return NULL;
	}
	/* Ranges and provenance exist from schema_version 2 on. */
	int version = c->schema_version;
	bool v2 = c->has_provenance;

	for (int i = 0; i < CALIB_COUNT; i++)
		v2 |= c->range[i].quantity != CALIB_RANGE_NONE;
	if (v2 && version < 2)
		version = 2;
	cJSON_AddNumberToObject(o, "schema_version", version);
	cJSON_AddStringToObject(o, "name", c->name);
	cJSON_AddStringToObject(o, "gpu_family", c->gpu_family);
	cJSON_AddStringToObject(o, "description", c->description);
	if (c->has_provenance)
		cJSON_AddItemToObject(o, "provenance",
				      cfg_to_json(cfg_calib_provenance_fields, &c->provenance));
	cJSON_AddItemToObject(o, "parameters", params);
	for (int i = 0; i < CALIB_COUNT; i++) {
		cJSON *p = cJSON_CreateObject();
		const struct calib_range *r = &c->range[i];
		if (!p)
			break;
		cJSON_AddNumberToObject(p, "value", calib_get(c, (enum calib_param)i));
		cJSON_AddStringToObject(p, "source", c->source[i]);
		if (r->quantity != CALIB_RANGE_NONE) {
			struct cfg_calib_range rj = { (int)r->quantity - 1, r->min, r->max,
						      r->ranks_min, r->ranks_max };
			cJSON_AddItemToObject(p, "range", cfg_to_json(cfg_calib_range_fields, &rj));
		}
		if (c->has_bounds[i]) {
			cJSON *b = cJSON_CreateObject();

			if (b) {
				cJSON_AddNumberToObject(b, "min", c->bound_min[i]);
				cJSON_AddNumberToObject(b, "max", c->bound_max[i]);
				cJSON_AddStringToObject(b, "source", c->bound_source[i]);
				cJSON_AddItemToObject(p, "bounds", b);
			}
		}
		if (c->has_prior[i])
			cJSON_AddNumberToObject(p, "prior", c->prior[i]);
		if (c->on_bound[i][0])
			cJSON_AddStringToObject(p, "on_bound", c->on_bound[i]);
		cJSON_AddItemToObject(params, calib_params[i].name, p);
	}
	return o;
}
