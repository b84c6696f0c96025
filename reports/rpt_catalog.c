/* rpt_catalog.c: catalogue tables (see rpt_catalog.h). */
#include "rpt_catalog.h"

#include <stdlib.h>
#include <string.h>

const char *const rpt_catalog_kinds[] = { "gpus", "instances", "fabrics", "storage",
					  "models", "calibrations", NULL };

bool rpt_catalog_kind_valid(const char *kind)
{
	for (int i = 0; rpt_catalog_kinds[i]; i++)
		if (strcmp(kind, rpt_catalog_kinds[i]) == 0)
			return true;
	return false;
}

static void text_gpus(FILE *out, const struct catalog *cat)
{
	fprintf(out, "%-10s %-9s %9s %9s %9s %8s %9s %11s  %s\n", "gpu", "family",
		"bf16_TF", "fp8_TF", "fp4_TF", "hbm_GB", "hbm_GBps", "nvlink_GBps", "calibration");
	for (int i = 0; i < cat->n_gpus; i++) {
		const struct gpu_spec *g = &cat->gpus[i];
		char fp8[16] = "-", fp4[16] = "-";
		if (g->peak_fp8_flops > 0)
			snprintf(fp8, sizeof(fp8), "%.1f", g->peak_fp8_flops / 1e12);
		if (g->peak_fp4_flops > 0)
			snprintf(fp4, sizeof(fp4), "%.1f", g->peak_fp4_flops / 1e12);
		fprintf(out, "%-10s %-9s %9.1f %9s %9s %8.0f %9.0f %11.0f  %s\n", g->name, g->family,
			g->peak_bf16_flops / 1e12, fp8, fp4, g->hbm_bytes / 1e9, g->hbm_GBps,
			g->nvlink_GBps, g->calibration);
	}
}

static void text_instances(FILE *out, const struct catalog *cat)
{
	fprintf(out, "%-19s %-9s %4s %6s %9s %6s %7s %11s %11s  %s\n", "instance", "gpu", "gpus",
		"nvl", "efa_Gbps", "vcpus", "mem_GiB", "usd_per_h", "cb_usd_h", "price_date");
	for (int i = 0; i < cat->n_instances; i++) {
		const struct instance_spec *in = &cat->instances[i];
		char cb[16] = "-";
		if (in->price.capacity_block_usd_per_h > 0)
			snprintf(cb, sizeof(cb), "%.2f", in->price.capacity_block_usd_per_h);
		fprintf(out, "%-19s %-9s %4d %6d %9.0f %6d %7.0f %11.2f %11s  %s\n", in->name,
			in->gpu, in->gpus_per_node, in->nvlink_domain_gpus,
			in->efa_nics * in->efa_nic_Gbps, in->vcpus, in->memory_GiB,
			in->price.on_demand_usd_per_h, cb, in->price.date);
	}
}

static void text_fabrics(FILE *out, const struct catalog *cat)
{
	fprintf(out, "%-20s %5s %10s %8s %13s %10s %12s\n", "fabric", "rail", "nodes/leaf",
		"oversub", "nvlink_lat_us", "efa_lat_us", "spine_lat_us");
	for (int i = 0; i < cat->n_fabrics; i++) {
		const struct fabric_spec *f = &cat->fabrics[i];
		fprintf(out, "%-20s %5s %10d %8.2f %13.2f %10.2f %12.2f\n", f->name,
			f->rail_optimized ? "yes" : "no", f->nodes_per_leaf,
			f->leaf_spine_oversubscription, f->nvlink_latency_s * 1e6,
			f->efa_latency_s * 1e6, f->spine_hop_latency_s * 1e6);
	}
}

static void text_storage(FILE *out, const struct catalog *cat)
{
	fprintf(out, "%-28s %-10s %12s %12s %12s %10s\n", "storage", "kind", "rd_MBps_TiB",
		"wr_MBps_TiB", "drive_rd_GBps", "latency_ms");
	for (int i = 0; i < cat->n_storage; i++) {
		const struct storage_spec *s = &cat->storage[i];
		fprintf(out, "%-28s %-10s %12.0f %12.0f %12.2f %10.3f\n", s->name, s->kind,
			s->read_MBps_per_TiB, s->write_MBps_per_TiB, s->per_drive_read_GBps,
			s->latency_s * 1e3);
	}
}

static void text_models(FILE *out, const struct catalog *cat)
{
	fprintf(out, "%-18s %6s %6s %6s %5s %4s %7s %7s %5s %9s %9s\n", "model", "layers",
		"hidden", "ffn", "heads", "kv", "vocab", "experts", "top_k", "params_B",
		"active_B");
	for (int i = 0; i < cat->n_models; i++) {
		const struct model_arch *m = &cat->models[i];
		fprintf(out, "%-18s %6d %6d %6d %5d %4d %7d %7d %5d %9.1f %9.1f\n", m->name,
			m->layers, m->hidden, m->ffn_hidden, m->heads, m->kv_heads, m->vocab,
			m->experts, m->top_k, m->params_billion, m->active_params_billion);
	}
}

static void text_calibrations(FILE *out, const struct catalog *cat)
{
	fprintf(out, "%-22s %-10s  %s\n", "calibration", "family", "description");
	for (int i = 0; i < cat->n_calibrations; i++) {
		const struct calibration *c = &cat->calibrations[i];
		fprintf(out, "%-22s %-10s  %.100s\n", c->name, c->gpu_family, c->description);
	}
}

void rpt_catalog_text(FILE *out, const struct catalog *cat, const char *kind)
{
	if (strcmp(kind, "gpus") == 0)
		text_gpus(out, cat);
	else if (strcmp(kind, "instances") == 0)
		text_instances(out, cat);
	else if (strcmp(kind, "fabrics") == 0)
		text_fabrics(out, cat);
	else if (strcmp(kind, "storage") == 0)
		text_storage(out, cat);
	else if (strcmp(kind, "models") == 0)
		text_models(out, cat);
	else if (strcmp(kind, "calibrations") == 0)
		text_calibrations(out, cat);
}

cJSON *rpt_calibration_json(const struct calibration *c)
{
	cJSON *o = cJSON_CreateObject(), *params = cJSON_CreateObject();

	if (!o || !params) {
		cJSON_Delete(o);
		cJSON_Delete(params);
		return NULL;
	}
	cJSON_AddNumberToObject(o, "schema_version", c->schema_version);
	cJSON_AddStringToObject(o, "name", c->name);
	cJSON_AddStringToObject(o, "gpu_family", c->gpu_family);
	cJSON_AddStringToObject(o, "description", c->description);
	cJSON_AddItemToObject(o, "parameters", params);
	for (int i = 0; i < CALIB_COUNT; i++) {
		cJSON *p = cJSON_CreateObject();
		if (!p)
			break;
		cJSON_AddNumberToObject(p, "value", calib_get(c, (enum calib_param)i));
		cJSON_AddStringToObject(p, "source", c->source[i]);
		cJSON_AddItemToObject(params, calib_params[i].name, p);
	}
	return o;
}

static cJSON *kind_json(const struct catalog *cat, const char *kind)
{
	cJSON *arr = cJSON_CreateArray();

	if (!arr)
		return NULL;
#define ADD_ALL(list, count, fields) \
	for (int i = 0; i < cat->count; i++) \
		cJSON_AddItemToArray(arr, cfg_to_json(fields, &cat->list[i]));
	if (strcmp(kind, "gpus") == 0) {
		ADD_ALL(gpus, n_gpus, cfg_gpu_fields)
	} else if (strcmp(kind, "instances") == 0) {
		ADD_ALL(instances, n_instances, cfg_instance_fields)
	} else if (strcmp(kind, "fabrics") == 0) {
		ADD_ALL(fabrics, n_fabrics, cfg_fabric_fields)
	} else if (strcmp(kind, "storage") == 0) {
		ADD_ALL(storage, n_storage, cfg_storage_fields)
	} else if (strcmp(kind, "models") == 0) {
		ADD_ALL(models, n_models, cfg_model_fields)
	} else if (strcmp(kind, "calibrations") == 0) {
		for (int i = 0; i < cat->n_calibrations; i++)
			cJSON_AddItemToArray(arr, rpt_calibration_json(&cat->calibrations[i]));
	}
#undef ADD_ALL
	return arr;
}

bool rpt_catalog_json(FILE *out, const struct catalog *cat, const char *kind)
{
	cJSON *root = cJSON_CreateObject();
	char *text;

	if (!root)
		return false;
	for (int i = 0; rpt_catalog_kinds[i]; i++)
		if (!kind || strcmp(kind, rpt_catalog_kinds[i]) == 0)
			cJSON_AddItemToObject(root, rpt_catalog_kinds[i],
					      kind_json(cat, rpt_catalog_kinds[i]));
	text = cJSON_Print(root);
	cJSON_Delete(root);
	if (!text)
		return false;
	fprintf(out, "%s\n", text);
	free(text);
	return true;
}
