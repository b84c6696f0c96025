/* rpt_catalog.c: catalogue tables (see rpt_catalog.h). */
#include "rpt_catalog.h"
#include "rpt_util.h"

#include "../models/purchase.h"
#include "../sim/config/calibration_json.h"

#include <stdlib.h>
#include <string.h>
#include "../sim/config/rpt_num.h" /* after cJSON: output numbers checked */

const char *const rpt_catalog_kinds[] = { "gpus", "instances", "fabrics", "storage",
					  "models", "calibrations", "failures", NULL };

bool rpt_catalog_kind_valid(const char *kind)
{
	for (int i = 0; rpt_catalog_kinds[i]; i++)
		if (strcmp(kind, rpt_catalog_kinds[i]) == 0)
			return true;
	return false;
}

static void text_gpus(FILE *out, const struct catalog *cat)
{
	int w = 10; /* the name column fits the longest name */

	for (int i = 0; i < cat->n_gpus; i++)
		if ((int)strlen(cat->gpus[i].name) > w)
			w = (int)strlen(cat->gpus[i].name);
	fprintf(out, "%-*s %-9s %9s %9s %9s %8s %9s %11s  %s\n", w, "gpu", "family",
		"bf16_TF", "fp8_TF", "fp4_TF", "hbm_GB", "hbm_GBps", "nvlink_GBps", "calibration");
	for (int i = 0; i < cat->n_gpus; i++) {
		const struct gpu_spec *g = &cat->gpus[i];
		char fp8[16] = "-", fp4[16] = "-";
		if (g->peak_fp8_flops > 0)
			snprintf(fp8, sizeof(fp8), "%.1f", g->peak_fp8_flops / 1e12);
		if (g->peak_fp4_flops > 0)
			snprintf(fp4, sizeof(fp4), "%.1f", g->peak_fp4_flops / 1e12);
		fprintf(out, "%-*s %-9s %9.1f %9s %9s %8.0f %9.0f %11.0f  %s\n", w, g->name, g->family,
			g->peak_bf16_flops / 1e12, fp8, fp4, g->hbm_bytes / 1e9, g->hbm_GBps,
			g->nvlink_GBps, g->calibration);
	}
}

/* A price cell: "-" when the option does not exist. */
static const char *usd_cell(double usd, char *buf, size_t n)
{
	if (usd > 0)
		snprintf(buf, n, "%.2f", usd);
	else
		snprintf(buf, n, "-");
	return buf;
}

/* One row per instance with the per-instance prices that exist ("-": not
 * sold so), then the UltraServer products of the kinds sold only as whole
 * UltraServers (models/purchase.h). */
static void text_instances(FILE *out, const struct catalog *cat)
{
	int n_us = 0;

	fprintf(out, "%-19s %-9s %4s %6s %9s %6s %7s %11s %11s  %-11s  %s\n", "instance", "gpu", "gpus",
		"nvl", "efa_Gbps", "vcpus", "mem_GiB", "usd_per_h", "cb_usd_h", "sold_as", "price_date");
	for (int i = 0; i < cat->n_instances; i++) {
		const struct instance_spec *in = &cat->instances[i];
		char od[16], cb[16];

		fprintf(out, "%-19s %-9s %4d %6d %9.0f %6d %7.0f %11s %11s  %-11s  %s\n", in->name,
			in->gpu, in->gpus_per_node, in->nvlink_domain_gpus,
			in->efa_nics * in->efa_nic_Gbps, in->vcpus, in->memory_GiB,
			usd_cell(in->price.on_demand_usd_per_h, od, sizeof(od)),
			usd_cell(in->price.capacity_block_usd_per_h, cb, sizeof(cb)),
			in->price.sold_as == SOLD_AS_ULTRASERVER ? "ultraserver" : "instance", in->price.date);
		n_us += in->price.n_ultraservers;
	}
	if (n_us > 0) {
		fprintf(out, "\nultraservers (capacity blocks only, whole UltraServers; plans buy the one "
			"spanning the NVLink domain)\n");
		fprintf(out, "%-16s %-19s %9s %5s %11s %13s  %-5s  %s\n", "ultraserver", "instance",
			"instances", "gpus", "cb_usd_h", "per_instance", "plans", "price_date");
	}
	for (int i = 0; i < cat->n_instances; i++) {
		const struct instance_spec *in = &cat->instances[i];
		const struct ultraserver_spec *unit = purchase_unit(in);

		for (int k = 0; k < in->price.n_ultraservers; k++) {
			const struct ultraserver_spec *u = &in->price.ultraservers[k];

			fprintf(out, "%-16s %-19s %9d %5d %11.2f %13.2f  %-5s  %s\n", u->name, in->name,
				u->instances, u->instances * in->gpus_per_node, u->capacity_block_usd_per_h,
				u->capacity_block_usd_per_h / u->instances, u == unit ? "yes" : "no", u->date);
		}
	}
	fprintf(out, "\nprices USD per hour (usd_per_h on-demand, cb_usd_h capacity block; \"-\": not "
		"sold so); savings plans and reserved instances are not modelled\n");
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

/* Failure profiles with each cause's rate, the recovery methods and the
 * host links (configs/resilience.json). */
static void text_failures(FILE *out, const struct catalog *cat)
{
	const struct resilience_catalog *rc = &cat->resilience;

	for (int p = 0; p < rc->n_profiles; p++) {
		const struct failure_profile_spec *pr = &rc->profiles[p];
		double hours = pr->observed_days * 24.0;
		double nodes = (double)pr->observed_gpus / pr->gpus_per_node;
		int total = 0;

		fprintf(out, "%sprofile %s: %d GPUs (%d per node) for %.4g days, %d planned interruptions\n",
			p ? "\n" : "", pr->name, pr->observed_gpus, pr->gpus_per_node, pr->observed_days,
			pr->planned_interruptions);
		fprintf(out, "  %-30s %-22s %5s %6s %14s\n", "cause", "category", "per", "count", "rate_per_h");
		for (int i = 0; i < rc->n_causes; i++) {
			const struct failure_cause_spec *c = &rc->causes[i];
			bool gpu = c->scales_with == FAIL_PER_GPU;

			if (strcmp(c->profile, pr->name) != 0)
				continue;
			total += c->interruptions;
			fprintf(out, "  %-30s %-22s %5s %6d %14.4g\n", c->name, c->category,
				gpu ? "gpu" : "node", c->interruptions,
				c->interruptions / ((gpu ? pr->observed_gpus : nodes) * hours));
		}
		fprintf(out, "  %-30s %-22s %5s %6d  (job MTBF %.3g h at the observed size)\n", "total",
			"", "", total, total > 0 ? hours / total : 0.0);
	}
	fprintf(out, "\n%-16s %10s %9s\n", "recovery", "restart_s", "replicas");
	for (int i = 0; i < rc->n_recovery; i++)
		fprintf(out, "%-16s %10.4g %9d\n", rc->recovery[i].name, rc->recovery[i].restart_s,
			rc->recovery[i].state_replicas);
	fprintf(out, "\n%-16s %9s %9s\n", "host link", "d2h_GBps", "h2d_GBps");
	for (int i = 0; i < rc->n_host_links; i++)
		fprintf(out, "%-16s %9.4g %9.4g\n", rc->host_links[i].gpu_family,
			rc->host_links[i].d2h_GBps, rc->host_links[i].h2d_GBps);
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
	else if (strcmp(kind, "failures") == 0)
		text_failures(out, cat);
}

cJSON *rpt_calibration_json(const struct calibration *c)
{
	return cfg_calibration_json(c);
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
	} else if (strcmp(kind, "failures") == 0) {
		/* one object holding the resilience catalogue's four lists */
		const struct resilience_catalog *rc = &cat->resilience;
		cJSON *o = cJSON_CreateObject(), *l;

		if (o) {
#define ADD_LIST(key, list, count, fields) \
			if ((l = cJSON_AddArrayToObject(o, key))) \
				for (int i = 0; i < rc->count; i++) \
					cJSON_AddItemToArray(l, cfg_to_json(fields, &rc->list[i]));
			ADD_LIST("profiles", profiles, n_profiles, cfg_failure_profile_fields)
			ADD_LIST("causes", causes, n_causes, cfg_failure_cause_fields)
			ADD_LIST("recovery", recovery, n_recovery, cfg_recovery_fields)
			ADD_LIST("host_links", host_links, n_host_links, cfg_host_link_fields)
#undef ADD_LIST
			cJSON_AddItemToArray(arr, o);
		}
	}
#undef ADD_ALL
	return arr;
}

bool rpt_catalog_json(FILE *out, const struct catalog *cat, const char *kind)
{
	cJSON *root = cJSON_CreateObject();

	if (!root)
		return false;
	for (int i = 0; rpt_catalog_kinds[i]; i++)
		if (!kind || strcmp(kind, rpt_catalog_kinds[i]) == 0)
			cJSON_AddItemToObject(root, rpt_catalog_kinds[i],
					      kind_json(cat, rpt_catalog_kinds[i]));
	return rpt_json_print(out, root);
}
