/* rpt_validate.c: validation tables (see rpt_validate.h). */
#include "rpt_validate.h"

#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "rpt_util.h"

#include "../sim/analytic/step.h"
#include "../sim/validate/val_summary.h"
#include "../sim/config/rpt_num.h" /* after cJSON: output numbers checked */

static void text_cases(FILE *out, const struct val_set *set, bool md)
{
	if (md) {
		fprintf(out, "| case | gpu | gpus | layout | precision | measured s | predicted s | error %% |\n");
		fprintf(out, "|---|---|---:|---|---|---:|---:|---:|\n");
	} else {
		fprintf(out, "%-58s %-9s %6s %-30s %-6s %11s %11s %8s\n", "case", "gpu", "gpus",
			"layout", "prec", "measured_s", "predicted_s", "error_%");
	}
	for (int i = 0; i < set->n_cases; i++) {
		const struct val_case *vc = &set->cases[i];
		if (!vc->expressible)
			continue;
		if (md)
			fprintf(out, "| %s | %s | %d | %s | %s | %.4g | %.4g | %+.1f |\n", vc->id, vc->gpu,
				vc->gpu_count, vc->layout, vc->precision, vc->measured_step_s,
				vc->predicted_step_s, 100 * vc->err_rel);
		else
			fprintf(out, "%-58.58s %-9s %6d %-30s %-6s %11.4g %11.4g %+8.1f\n", vc->id, vc->gpu,
				vc->gpu_count, vc->layout, vc->precision, vc->measured_step_s,
				vc->predicted_step_s, 100 * vc->err_rel);
	}
}

void rpt_cases_unexpressed(FILE *out, bool md, int id_width, int n_cases,
			   const char *(*why)(const void *set, int i, const char **id), const void *set)
{
	const char *id, *reason;
	int n = 0;

	for (int i = 0; i < n_cases; i++)
		n += why(set, i, &id) != NULL;
	fprintf(out, md ? "\n### Cases not expressed (%d)\n\n" : "\ncases not expressed: %d\n", n);
	for (int i = 0; i < n_cases; i++) {
		if (!(reason = why(set, i, &id)))
			continue;
		if (md)
			fprintf(out, "- `%s`: %s\n", id, reason);
		else
			fprintf(out, "  %-*.*s %s\n", id_width, id_width, id, reason);
	}
}

static const char *unexpressed_why(const void *set, int i, const char **id)
{
	const struct val_case *vc = &((const struct val_set *)set)->cases[i];

	*id = vc->id;
	return vc->expressible ? NULL : vc->reason;
}

/* The summary with the out-of-sample MAPE first: leave-one-source-group-
 * out (validate --out-of-sample), the headline; in sample beside it. */
static void text_summary_oos(FILE *out, const struct val_set *set, const struct val_summary_row *rows,
			     int n, bool md)
{
	if (md) {
		fprintf(out, "\n### Summary\n\n| group | cases | expressed | MAPE %% out of sample | "
			"MAPE %% in sample | median APE %% | P90 APE %% | worst APE %% | bias %% | worst case |\n");
		fprintf(out, "|---|---:|---:|---:|---:|---:|---:|---:|---:|---|\n");
	} else {
		fprintf(out, "\nsummary (APE = |predicted - measured| / measured of step time; OOS: out of "
			"sample, each source group left out of the fit; in: in sample)\n");
		fprintf(out, "%-6s %-38s %5s %5s %6s %6s %8s %7s %8s %7s  %s\n", "by", "name", "cases",
			"expr", "OOS%", "in%", "median%", "P90%", "worst%", "bias%", "worst case");
	}
	for (int i = 0; i < n; i++) {
		const struct val_summary_row *r = &rows[i];
		const char *worst = r->st.worst_index >= 0 ? set->cases[r->st.worst_index].id : "-";
		char oos[16] = "-";

		if (r->oos.count > 0)
			snprintf(oos, sizeof(oos), "%.1f", 100 * r->oos.mape);
		if (r->st.count == 0) {
			if (md)
				fprintf(out, "| %s %s | %d | 0 | - | - | - | - | - | - | - |\n", r->kind,
					r->name, r->total);
			else
				fprintf(out, "%-6s %-38.38s %5d %5d %6s %6s %8s %7s %8s %7s  %s\n", r->kind,
					r->name, r->total, 0, "-", "-", "-", "-", "-", "-", "-");
			continue;
		}
		if (md)
			fprintf(out, "| %s %s | %d | %d | %s | %.1f | %.1f | %.1f | %.1f | %+.1f | %s |\n",
				r->kind, r->name, r->total, r->st.count, oos, 100 * r->st.mape,
				100 * r->st.median_ape, 100 * r->st.p90_ape, 100 * r->st.worst_ape,
				100 * r->st.mean_err, worst);
		else
			fprintf(out, "%-6s %-38.38s %5d %5d %6s %6.1f %8.1f %7.1f %8.1f %+7.1f  %s\n",
				r->kind, r->name, r->total, r->st.count, oos, 100 * r->st.mape,
				100 * r->st.median_ape, 100 * r->st.p90_ape, 100 * r->st.worst_ape,
				100 * r->st.mean_err, worst);
	}
}

static void text_summary(FILE *out, const struct val_set *set, bool md)
{
	struct val_summary_row rows[128];
	int n = val_summary_rows(set, rows, 128);

	if (val_any_oos(set)) {
		text_summary_oos(out, set, rows, n, md);
		return;
	}
	if (md) {
		fprintf(out, "\n### Summary\n\n| group | cases | expressed | MAPE %% | median APE %% | P90 APE %% | worst APE %% | bias %% | worst case |\n");
		fprintf(out, "|---|---:|---:|---:|---:|---:|---:|---:|---|\n");
	} else {
		fprintf(out, "\nsummary (APE = |predicted - measured| / measured of step time)\n");
		fprintf(out, "%-6s %-38s %5s %5s %7s %8s %7s %8s %7s  %s\n", "by", "name", "cases",
			"expr", "MAPE%", "median%", "P90%", "worst%", "bias%", "worst case");
	}
	for (int i = 0; i < n; i++) {
		const struct val_summary_row *r = &rows[i];
		const char *worst = r->st.worst_index >= 0 ? set->cases[r->st.worst_index].id : "-";
		if (r->st.count == 0) {
			if (md)
				fprintf(out, "| %s %s | %d | 0 | - | - | - | - | - | - |\n", r->kind,
					r->name, r->total);
			else
				fprintf(out, "%-6s %-38.38s %5d %5d %7s %8s %7s %8s %7s  %s\n", r->kind,
					r->name, r->total, 0, "-", "-", "-", "-", "-", "-");
			continue;
		}
		if (md)
			fprintf(out, "| %s %s | %d | %d | %.1f | %.1f | %.1f | %.1f | %+.1f | %s |\n",
				r->kind, r->name, r->total, r->st.count, 100 * r->st.mape,
				100 * r->st.median_ape, 100 * r->st.p90_ape, 100 * r->st.worst_ape,
				100 * r->st.mean_err, worst);
		else
			fprintf(out, "%-6s %-38.38s %5d %5d %7.1f %8.1f %7.1f %8.1f %+7.1f  %s\n", r->kind,
				r->name, r->total, r->st.count, 100 * r->st.mape, 100 * r->st.median_ape,
				100 * r->st.p90_ape, 100 * r->st.worst_ape, 100 * r->st.mean_err, worst);
	}
	{
		/* every case ran: a predicted OOM is a false one */
		struct val_oom_count oc;

		val_oom_count(set, &oc);
		fprintf(out, md ? "\nFalse OOM (runs that ran, predicted not to fit): %d of %d (%.1f %%); "
				  "at the defaults for unstated recompute and sharding: %d\n"
				: "\nfalse OOM (runs that ran, predicted not to fit): %d of %d (%.1f %%); "
				  "at the defaults for unstated recompute and sharding: %d\n",
			oc.predicted_oom, oc.expressed,
			oc.expressed ? 100.0 * oc.predicted_oom / oc.expressed : 0.0, oc.oom_at_defaults);
	}
}

static bool by_profile(const struct val_case *vc, const void *arg)
{
	return vc->scenario && strcmp(vc->scenario->calibration.name, (const char *)arg) == 0;
}

/* The band's coverage of the measurements, overall and per calibration
 * profile (val_band_coverage). */
static void text_band(FILE *out, const struct val_set *set, bool md)
{
	struct val_band_cover all;
	const char *names[32];
	int n = 0;

	val_band_coverage(set, NULL, NULL, &all);
	if (all.count == 0)
		return;
	for (int i = 0; i < set->n_cases && n < 32; i++) {
		const struct val_case *vc = &set->cases[i];
		bool seen = false;

		if (!vc->expressible || !vc->scenario)
			continue;
		for (int k = 0; k < n && !seen; k++)
			seen = strcmp(names[k], vc->scenario->calibration.name) == 0;
		if (!seen)
			names[n++] = vc->scenario->calibration.name;
	}
	if (md)
		fprintf(out, "\n### Uncertainty band\n\nMeasured step times against each prediction's P10-P90 "
			"band (models/uncertainty.h; a right band covers 80 %% out of sample, more in "
			"sample).\n\n| profile | cases | below P10 %% | inside %% | above P90 %% |\n"
			"|---|---:|---:|---:|---:|\n");
	else
		fprintf(out, "\nband (measured step time against the prediction's P10-P90 band; a right band "
			"covers 80 %% out of sample)\n%-38s %5s %8s %8s %8s\n", "profile", "cases", "<P10%",
			"inside%", ">P90%");
	for (int k = -1; k < n; k++) {
		struct val_band_cover c;

		if (k < 0)
			c = all;
		else
			val_band_coverage(set, by_profile, names[k], &c);
		fprintf(out, md ? "| %s | %d | %.1f | %.1f | %.1f |\n" : "%-38s %5d %8.1f %8.1f %8.1f\n",
			k < 0 ? "all" : names[k], c.count, 100 * c.below_p10, 100 * c.inside,
			100 * c.above_p90);
	}
}

static void csv_out(FILE *out, const void *vset)
{
	const struct val_set *set = vset;

	fprintf(out, "id,source_group,trust,model,gpu,gpu_count,layout,precision,expressible,"
		"measured_step_s,predicted_step_s,error_rel,predicted_mfu,oom,bottleneck,"
		"predicted_memory_bytes,memory_capacity_bytes,reason,assumptions\n");
	for (int i = 0; i < set->n_cases; i++) {
		const struct val_case *vc = &set->cases[i];
		fprintf(out, "\"%s\",%s,%s,%s,%s,%d,%s,%s,%s,%.6g,", vc->id, vc->source_group, vc->trust,
			vc->model, vc->gpu, vc->gpu_count, vc->layout, vc->precision,
			vc->expressible ? "true" : "false", vc->measured_step_s);
		if (vc->expressible)
			fprintf(out, "%.6g,%.6g,%.6g,%s,%s,%.0f,%.0f,", vc->predicted_step_s, vc->err_rel,
				vc->predicted_mfu, vc->predicted_oom ? "true" : "false",
				bottleneck_name((enum bottleneck)vc->bottleneck), vc->predicted_memory_bytes,
				vc->memory_capacity_bytes);
		else
			fprintf(out, ",,,,,,,");
		fprintf(out, "\"%s\",\"%s\"\n", vc->reason, vc->assumptions);
	}
}

static cJSON *stats_json(const struct val_set *set, const struct val_summary_row *r)
{
	cJSON *o = cJSON_CreateObject();
	if (!o)
		return NULL;
	cJSON_AddStringToObject(o, "by", r->kind);
	cJSON_AddStringToObject(o, "name", r->name);
	cJSON_AddNumberToObject(o, "cases", r->total);
	cJSON_AddNumberToObject(o, "expressed", r->st.count);
	cJSON_AddNumberToObject(o, "mape", r->st.mape);
	if (r->oos.count > 0)
		cJSON_AddNumberToObject(o, "mape_out_of_sample", r->oos.mape);
	else
		cJSON_AddNullToObject(o, "mape_out_of_sample");
	cJSON_AddNumberToObject(o, "median_ape", r->st.median_ape);
	cJSON_AddNumberToObject(o, "p90_ape", r->st.p90_ape);
	cJSON_AddNumberToObject(o, "worst_ape", r->st.worst_ape);
	cJSON_AddNumberToObject(o, "bias", r->st.mean_err);
	cJSON_AddStringToObject(o, "worst_case", r->st.worst_index >= 0 ? set->cases[r->st.worst_index].id : "");
	return o;
}

static bool json_out(FILE *out, const void *vset, bool summary_only)
{
	const struct val_set *set = vset;
	struct val_summary_row rows[128];
	int n = val_summary_rows(set, rows, 128);
	cJSON *root = cJSON_CreateObject(), *sum, *cases;

	if (!root)
		return false;
	cJSON_AddStringToObject(root, "file", set->path);
	sum = cJSON_AddArrayToObject(root, "summary");
	for (int i = 0; sum && i < n; i++)
		cJSON_AddItemToArray(sum, stats_json(set, &rows[i]));
	{
		struct val_band_cover c;
		cJSON *b = cJSON_AddObjectToObject(root, "band_coverage");

		val_band_coverage(set, NULL, NULL, &c);
		if (b) {
			cJSON_AddNumberToObject(b, "count", c.count);
			cJSON_AddNumberToObject(b, "below_p10", c.below_p10);
			cJSON_AddNumberToObject(b, "inside", c.inside);
			cJSON_AddNumberToObject(b, "above_p90", c.above_p90);
		}
	}
	{
		struct val_oom_count oc;
		cJSON *m = cJSON_AddObjectToObject(root, "memory");

		val_oom_count(set, &oc);
		if (m) {
			cJSON_AddNumberToObject(m, "expressed", oc.expressed);
			cJSON_AddNumberToObject(m, "predicted_oom", oc.predicted_oom);
			cJSON_AddNumberToObject(m, "oom_at_defaults", oc.oom_at_defaults);
			cJSON_AddNumberToObject(m, "false_oom_rate",
						oc.expressed ? (double)oc.predicted_oom / oc.expressed : 0.0);
		}
	}
	cases = summary_only ? NULL : cJSON_AddArrayToObject(root, "cases");
	for (int i = 0; cases && i < set->n_cases; i++) {
		const struct val_case *vc = &set->cases[i];
		cJSON *o = cJSON_CreateObject();
		if (!o)
			break;
		cJSON_AddStringToObject(o, "id", vc->id);
		cJSON_AddStringToObject(o, "source_group", vc->source_group);
		cJSON_AddStringToObject(o, "gpu", vc->gpu);
		cJSON_AddNumberToObject(o, "gpu_count", vc->gpu_count);
		cJSON_AddStringToObject(o, "layout", vc->layout);
		cJSON_AddBoolToObject(o, "expressible", vc->expressible);
		if (vc->expressible) {
			cJSON_AddNumberToObject(o, "measured_step_s", vc->measured_step_s);
			cJSON_AddNumberToObject(o, "predicted_step_s", vc->predicted_step_s);
			cJSON_AddNumberToObject(o, "error_rel", vc->err_rel);
			if (vc->has_oos) {
				cJSON_AddNumberToObject(o, "predicted_step_s_out_of_sample",
							vc->oos_predicted_step_s);
				cJSON_AddNumberToObject(o, "error_rel_out_of_sample", vc->oos_err_rel);
			}
			cJSON_AddStringToObject(o, "bottleneck", bottleneck_name((enum bottleneck)vc->bottleneck));
			cJSON_AddNumberToObject(o, "predicted_memory_bytes", vc->predicted_memory_bytes);
			cJSON_AddNumberToObject(o, "memory_capacity_bytes", vc->memory_capacity_bytes);
			cJSON_AddBoolToObject(o, "fits", !vc->predicted_oom);
		} else {
			cJSON_AddStringToObject(o, "reason", vc->reason);
		}
		if (vc->assumptions[0])
			cJSON_AddStringToObject(o, "assumptions", vc->assumptions);
		cJSON_AddItemToArray(cases, o);
	}
	return rpt_json_print(out, root);
}

static void text_out(FILE *out, const void *vset, bool md, bool summary_only)
{
	const struct val_set *set = vset;

	if (!summary_only)
		text_cases(out, set, md);
	rpt_cases_unexpressed(out, md, 58, set->n_cases, unexpressed_why, set);
	text_summary(out, set, md);
	text_band(out, set, md);
}

bool rpt_validate_render(FILE *out, const struct rpt_val_parts *p, const void *set,
			 enum rpt_validate_format fmt, bool summary_only)
{
	switch (fmt) {
	case RPT_VAL_JSON:
		return p->json(out, set, summary_only);
	case RPT_VAL_CSV:
		p->csv(out, set);
		return true;
	case RPT_VAL_MD:
	case RPT_VAL_TEXT:
		p->text(out, set, fmt == RPT_VAL_MD, summary_only);
		return true;
	}
	return true;
}

bool rpt_validate(FILE *out, const struct val_set *set, enum rpt_validate_format fmt,
		  bool summary_only)
{
	static const struct rpt_val_parts parts = { json_out, csv_out, text_out };

	return rpt_validate_render(out, &parts, set, fmt, summary_only);
}
