/* rpt_mem_validate.c: memory validation renderers (see rpt_mem_validate.h). */
#include "rpt_mem_validate.h"

#include <cjson/cJSON.h>

#include "rpt_util.h"
#include "../sim/validate/val_summary.h"
#include <stdlib.h>
#include <string.h>
#include "../models/units.h"


static const char *key_of(const struct mem_case *mc, const char *by)
{
	if (strcmp(by, "source_group") == 0)
		return mc->vc.source_group;
	if (strcmp(by, "framework") == 0)
		return mc->framework;
	return mem_statistic_name(mc->statistic);
}

void rpt_memval_summary(const struct mem_val_set *set, const char *by, const char *name,
			struct memval_summary *out)
{
	double *e = calloc((size_t)set->n_cases + 1, sizeof(*e));
	int *idx = calloc((size_t)set->n_cases + 1, sizeof(*idx));
	struct val_stats st;
	int n = 0;

	memset(out, 0, sizeof(*out));
	if (!e || !idx) {
		free(e);
		free(idx);
		return;
	}
	for (int i = 0; i < set->n_cases; i++) {
		const struct mem_case *mc = &set->cases[i];

		if (by && strcmp(key_of(mc, by), name) != 0)
			continue;
		out->cases++;
		if (!mc->vc.expressible)
			continue;
		out->expressed++;
		out->fits += mc->fits;
		e[n] = mc->err_rel;
		idx[n++] = i;
	}
	val_stats_of_errors(e, idx, n, &st);
	out->mape = st.mape;
	out->median_ape = st.median_ape;
	out->worst_ape = st.worst_ape;
	free(e);
	free(idx);
}

/* The distinct values of by, in file order. */
static int distinct(const struct mem_val_set *set, const char *by, const char **names, int max)
{
	int n = 0;

	for (int i = 0; i < set->n_cases; i++)
		n = val_distinct_add(names, n, max, key_of(&set->cases[i], by));
	return n;
}

static const char *const bys[] = { "source_group", "framework", "statistic", NULL };

static void text_summary_row(FILE *out, bool md, const char *by, const char *name,
			     const struct memval_summary *s)
{
	if (md)
		fprintf(out, "| %s | %s | %d | %d | %.1f | %.1f | %.1f | %d |\n", by, name, s->cases,
			s->expressed, 100 * s->mape, 100 * s->median_ape, 100 * s->worst_ape,
			s->expressed - s->fits);
	else
		fprintf(out, "  %-13s %-30s %5d %9d %7.1f %9.1f %8.1f %8d\n", by, name, s->cases,
			s->expressed, 100 * s->mape, 100 * s->median_ape, 100 * s->worst_ape,
			s->expressed - s->fits);
}

static void text_out(FILE *out, const void *vset, bool md, bool summary_only)
{
	const struct mem_val_set *set = vset;
	struct memval_summary s;
	const char *names[256];

	if (!summary_only) {
		if (md)
			fprintf(out, "| case | framework | statistic | layout | measured GiB | predicted GiB | error %% | fits |\n"
				"|---|---|---|---|---:|---:|---:|---|\n");
		else
			fprintf(out, "%-60s %-13s %-15s %-30s %9s %9s %7s %s\n", "case", "framework",
				"statistic", "layout", "meas GiB", "pred GiB", "err %", "fits");
		for (int i = 0; i < set->n_cases; i++) {
			const struct mem_case *mc = &set->cases[i];

			if (!mc->vc.expressible)
				continue;
			fprintf(out, md ? "| %s | %s | %s | %s | %.2f | %.2f | %+.1f | %s |\n"
				       : "%-60s %-13s %-15s %-30s %9.2f %9.2f %+7.1f %s\n",
				mc->vc.id, mc->framework, mem_statistic_name(mc->statistic), mc->vc.layout,
				mc->measured_bytes / SC_GiB_BYTES, mc->predicted_bytes / SC_GiB_BYTES, 100 * mc->err_rel,
				mc->fits ? "yes" : "NO");
		}
		fprintf(out, "\n");
		fprintf(out, md ? "Not expressed:\n\n" : "not expressed:\n");
		for (int i = 0; i < set->n_cases; i++) {
			const struct mem_case *mc = &set->cases[i];

			if (!mc->vc.expressible)
				fprintf(out, md ? "- %s: %s\n" : "  %s: %s\n", mc->vc.id, mc->vc.reason);
		}
		fprintf(out, "\n");
	}
	rpt_memval_summary(set, NULL, NULL, &s);
	if (md)
		fprintf(out, "| by | name | cases | expressed | MAPE %% | median %% | worst %% | predicted OOM |\n"
			"|---|---|---:|---:|---:|---:|---:|---:|\n");
	else
		fprintf(out, "summary (APE of the peak memory each case states)\n"
			"  %-13s %-30s %5s %9s %7s %9s %8s %8s\n", "by", "name", "cases", "expressed",
			"MAPE %", "median %", "worst %", "OOM");
	text_summary_row(out, md, "all", "all", &s);
	for (int b = 0; bys[b]; b++) {
		int n = distinct(set, bys[b], names, 256);

		for (int j = 0; j < n; j++) {
			rpt_memval_summary(set, bys[b], names[j], &s);
			text_summary_row(out, md, bys[b], names[j], &s);
		}
	}
}

static void csv_out(FILE *out, const void *vset)
{
	const struct mem_val_set *set = vset;

	fprintf(out, "id,source_group,framework,statistic,layout,expressible,measured_bytes,"
		"predicted_bytes,err_rel,device_bytes,usable_bytes,fits,assumptions,reason\n");
	for (int i = 0; i < set->n_cases; i++) {
		const struct mem_case *mc = &set->cases[i];

		fprintf(out, "%s,%s,%s,%s,%s,%s,%.0f,%.0f,%.6f,%.0f,%.0f,%s,\"%s\",\"%s\"\n", mc->vc.id,
			mc->vc.source_group, mc->framework, mem_statistic_name(mc->statistic),
			mc->vc.layout, mc->vc.expressible ? "true" : "false", mc->measured_bytes,
			mc->predicted_bytes, mc->err_rel, mc->device_bytes, mc->usable_bytes,
			mc->fits ? "true" : "false", mc->vc.assumptions, mc->vc.reason);
	}
}

static cJSON *summary_json(const char *by, const char *name, const struct memval_summary *s)
{
	cJSON *o = cJSON_CreateObject();

	cJSON_AddStringToObject(o, "by", by);
	cJSON_AddStringToObject(o, "name", name);
	cJSON_AddNumberToObject(o, "cases", s->cases);
	cJSON_AddNumberToObject(o, "expressed", s->expressed);
	cJSON_AddNumberToObject(o, "mape", s->mape);
	cJSON_AddNumberToObject(o, "median_ape", s->median_ape);
	cJSON_AddNumberToObject(o, "worst_ape", s->worst_ape);
	cJSON_AddNumberToObject(o, "predicted_oom", s->expressed - s->fits);
	return o;
}

static bool json_out(FILE *out, const void *vset, bool summary_only)
{
	const struct mem_val_set *set = vset;
	cJSON *root = cJSON_CreateObject(), *cases, *summary;
	struct memval_summary s;
	const char *names[256];

	if (!root)
		return false;
	cJSON_AddStringToObject(root, "cases_file", set->path);
	if (!summary_only) {
		cases = cJSON_AddArrayToObject(root, "cases");
		for (int i = 0; i < set->n_cases; i++) {
			const struct mem_case *mc = &set->cases[i];
			cJSON *o = cJSON_CreateObject();

			cJSON_AddStringToObject(o, "id", mc->vc.id);
			cJSON_AddStringToObject(o, "source_group", mc->vc.source_group);
			cJSON_AddStringToObject(o, "framework", mc->framework);
			cJSON_AddStringToObject(o, "statistic", mem_statistic_name(mc->statistic));
			cJSON_AddStringToObject(o, "layout", mc->vc.layout);
			cJSON_AddBoolToObject(o, "expressible", mc->vc.expressible);
			if (mc->vc.expressible) {
				cJSON_AddNumberToObject(o, "measured_bytes", mc->measured_bytes);
				cJSON_AddNumberToObject(o, "predicted_bytes", mc->predicted_bytes);
				cJSON_AddNumberToObject(o, "err_rel", mc->err_rel);
				cJSON_AddNumberToObject(o, "predicted_device_bytes", mc->device_bytes);
				cJSON_AddNumberToObject(o, "capacity_bytes", mc->usable_bytes);
				cJSON_AddBoolToObject(o, "fits", mc->fits);
				cJSON_AddStringToObject(o, "assumptions", mc->vc.assumptions);
			} else {
				cJSON_AddStringToObject(o, "reason", mc->vc.reason);
			}
			cJSON_AddItemToArray(cases, o);
		}
	}
	summary = cJSON_AddArrayToObject(root, "summary");
	rpt_memval_summary(set, NULL, NULL, &s);
	cJSON_AddItemToArray(summary, summary_json("all", "all", &s));
	for (int b = 0; bys[b]; b++) {
		int n = distinct(set, bys[b], names, 256);

		for (int j = 0; j < n; j++) {
			rpt_memval_summary(set, bys[b], names[j], &s);
			cJSON_AddItemToArray(summary, summary_json(bys[b], names[j], &s));
		}
	}
	return rpt_json_print(out, root);
}

bool rpt_mem_validate(FILE *out, const struct mem_val_set *set, enum rpt_validate_format fmt,
		      bool summary_only)
{
	static const struct rpt_val_parts parts = { json_out, csv_out, text_out };

	return rpt_validate_render(out, &parts, set, fmt, summary_only);
}
