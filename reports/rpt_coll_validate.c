/* rpt_coll_validate.c: collective validation tables (see rpt_coll_validate.h). */
#include "rpt_coll_validate.h"
#include "rpt_util.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "../sim/validate/validate.h"

enum { BY_ALL, BY_GROUP, BY_SYSTEM, BY_COLLECTIVE, BY_NODES, BY_COLL_NODES, BY_N };
static const char *const by_names[BY_N] = { "all", "group", "system", "collective", "nodes",
					    "collective_nodes" };

static void key_of(const struct cv_curve *c, int by, char *out, size_t size)
{
	switch (by) {
	case BY_ALL: snprintf(out, size, "all"); break;
	case BY_GROUP: snprintf(out, size, "%s", c->source_group[0] ? c->source_group : "-"); break;
	case BY_SYSTEM:
		snprintf(out, size, "%s", c->system[0] ? c->system : c->gpu[0] ? c->gpu : "not stated");
		break;
	case BY_COLLECTIVE: snprintf(out, size, "%s", c->collective); break;
	case BY_NODES: snprintf(out, size, "%d", c->nodes); break;
	default: snprintf(out, size, "%s x %d nodes", c->collective, c->nodes); break;
	}
}

static int curve_counted(const struct cv_curve *c, double min_bytes)
{
	int n = 0;

	if (!c->expressible)
		return 0;
	for (int i = 0; i < c->n_points; i++)
		n += cv_point_counts(&c->points[i], min_bytes);
	return n;
}

static void row_stats(const struct cv_set *set, int by, const char *name, double min_bytes,
		      struct cv_summary_row *r)
{
	int total = 0, n = 0;
	double *err;
	int *idx;
	struct val_stats st;

	memset(r, 0, sizeof(*r));
	snprintf(r->by, sizeof(r->by), "%s", by_names[by]);
	snprintf(r->name, sizeof(r->name), "%s", name);
	for (int i = 0; i < set->n_curves; i++)
		total += set->curves[i].n_points;
	err = malloc(sizeof(double) * (size_t)(total + 1));
	idx = malloc(sizeof(int) * (size_t)(total + 1));
	if (!err || !idx) {
		free(err);
		free(idx);
		return;
	}
	for (int i = 0; i < set->n_curves; i++) {
		const struct cv_curve *c = &set->curves[i];
		char k[160];
		int m;

		key_of(c, by, k, sizeof(k));
		if (strcmp(k, name) != 0)
			continue;
		r->cases++;
		m = curve_counted(c, min_bytes);
		r->expressed += m > 0;
		for (int j = 0; m > 0 && j < c->n_points; j++)
			if (cv_point_counts(&c->points[j], min_bytes)) {
				err[n] = c->points[j].err_rel;
				idx[n++] = i;
			}
	}
	val_stats_of_errors(err, idx, n, &st);
	r->points = n;
	r->mape = st.mape;
	r->median_ape = st.median_ape;
	r->worst_ape = st.worst_ape;
	r->bias = st.mean_err;
	free(err);
	free(idx);
}

int rpt_cv_summary(const struct cv_set *set, double min_bytes, struct cv_summary_row *rows, int max)
{
	int n = 0;

	for (int by = 0; by < BY_N; by++) {
		char seen[256][160];
		int n_seen = 0;

		for (int i = 0; i < set->n_curves && n < max; i++) {
			char k[160];
			bool dup = false;

			key_of(&set->curves[i], by, k, sizeof(k));
			for (int j = 0; j < n_seen; j++)
				dup |= strcmp(seen[j], k) == 0;
			if (dup || n_seen >= 256)
				continue;
			snprintf(seen[n_seen++], sizeof(seen[0]), "%s", k);
			row_stats(set, by, k, min_bytes, &rows[n++]);
		}
	}
	return n;
}

static const char *metric_name(enum cv_metric m)
{
	switch (m) {
	case CV_TIME: return "time_s";
	case CV_BUSBW: return "busbw_GBps";
	case CV_ALGBW: return "algbw_GBps";
	case CV_THROUGHPUT: return "GBps";
	}
	return "?";
}

static void curve_stats(const struct cv_curve *c, double min_bytes, struct val_stats *st)
{
	double err[CV_POINTS_MAX];
	int idx[CV_POINTS_MAX], n = 0;

	for (int j = 0; j < c->n_points; j++)
		if (c->expressible && cv_point_counts(&c->points[j], min_bytes)) {
			err[n] = c->points[j].err_rel;
			idx[n++] = j;
		}
	val_stats_of_errors(err, idx, n, st);
}

static void text_out(FILE *out, const struct cv_set *set, bool md, bool summary_only,
		     double min_bytes)
{
	static struct cv_summary_row rows[512];
	int n = rpt_cv_summary(set, min_bytes, rows, 512), skipped = 0;

	if (!summary_only) {
		if (md)
			fprintf(out, "| curve | group | system | collective | nodes | points | metric | MAPE %% | worst %% |\n"
				     "|---|---|---|---|---:|---:|---|---:|---:|\n");
		else
			fprintf(out, "%-48s %-10s %-18s %5s %6s %-10s %7s %7s\n", "curve", "collective",
				"system", "nodes", "points", "metric", "MAPE%", "worst%");
		for (int i = 0; i < set->n_curves; i++) {
			const struct cv_curve *c = &set->curves[i];
			struct val_stats st;

			if (!c->expressible || curve_counted(c, min_bytes) == 0)
				continue;
			curve_stats(c, min_bytes, &st);
			if (md)
				fprintf(out, "| %s | %s | %s | %s | %d | %d | %s | %.1f | %.1f |\n", c->id,
					c->source_group, c->system[0] ? c->system : c->gpu, c->collective,
					c->nodes, st.count, metric_name(c->points[0].metric),
					100 * st.mape, 100 * st.worst_ape);
			else
				fprintf(out, "%-48.48s %-10.10s %-18.18s %5d %6d %-10s %7.1f %7.1f\n", c->id,
					c->collective, c->system[0] ? c->system : c->gpu, c->nodes, st.count,
					metric_name(c->points[0].metric), 100 * st.mape, 100 * st.worst_ape);
		}
	}
	for (int i = 0; i < set->n_curves; i++)
		skipped += !set->curves[i].expressible;
	if (skipped) {
		fprintf(out, "\ncurves not expressed: %d\n", skipped);
		for (int i = 0; i < set->n_curves; i++)
			if (!set->curves[i].expressible)
				fprintf(out, md ? "* `%s`: %s\n" : "  %-48s %s\n", set->curves[i].id,
					set->curves[i].reason);
	}
	fprintf(out, "\nsummary (APE = |predicted - measured| / measured per point: time where "
		"published, else bus bandwidth; points >= %.0f bytes)\n", min_bytes);
	if (md)
		fprintf(out, "| by | name | cases | expressed | points | MAPE %% | median %% | worst %% | bias %% |\n"
			     "|---|---|---:|---:|---:|---:|---:|---:|---:|\n");
	else
		fprintf(out, "%-16s %-44s %5s %5s %6s %7s %8s %7s %7s\n", "by", "name", "cases", "expr",
			"points", "MAPE%", "median%", "worst%", "bias%");
	for (int i = 0; i < n; i++) {
		const struct cv_summary_row *r = &rows[i];

		if (r->points == 0) {
			if (md)
				fprintf(out, "| %s | %s | %d | %d | 0 | - | - | - | - |\n", r->by, r->name,
					r->cases, r->expressed);
			else
				fprintf(out, "%-16s %-44.44s %5d %5d %6d %7s %8s %7s %7s\n", r->by, r->name,
					r->cases, r->expressed, 0, "-", "-", "-", "-");
		} else if (md) {
			fprintf(out, "| %s | %s | %d | %d | %d | %.1f | %.1f | %.1f | %+.1f |\n", r->by, r->name,
				r->cases, r->expressed, r->points, 100 * r->mape, 100 * r->median_ape,
				100 * r->worst_ape, 100 * r->bias);
		} else {
			fprintf(out, "%-16s %-44.44s %5d %5d %6d %7.1f %8.1f %7.1f %+7.1f\n", r->by, r->name,
				r->cases, r->expressed, r->points, 100 * r->mape, 100 * r->median_ape,
				100 * r->worst_ape, 100 * r->bias);
		}
	}
}

static void csv_out(FILE *out, const struct cv_set *set, double min_bytes)
{
	fprintf(out, "curve,source_group,system,collective,nodes,bytes,metric,measured,predicted,ape,algorithm\n");
	for (int i = 0; i < set->n_curves; i++) {
		const struct cv_curve *c = &set->curves[i];

		if (!c->expressible) {
			char why[sizeof(c->reason) + 16];

			fprintf(out, "%s,%s,%s,%s,%d,,,,,,", c->id, c->source_group, c->system, c->collective,
				c->nodes);
			snprintf(why, sizeof(why), "not expressed: %s", c->reason);
			rpt_csv_str(out, why);
			fputc('\n', out);
			continue;
		}
		for (int j = 0; j < c->n_points; j++) {
			const struct cv_point *p = &c->points[j];

			if (!cv_point_counts(p, min_bytes))
				continue;
			fprintf(out, "%s,%s,%s,%s,%d,%.0f,%s,%.6g,%.6g,%.4f,%s\n", c->id, c->source_group,
				c->system[0] ? c->system : c->gpu, c->collective, c->nodes, p->bytes,
				metric_name(p->metric), p->measured, p->predicted, fabs(p->err_rel),
				p->algorithm);
		}
	}
}

static bool json_out(FILE *out, const struct cv_set *set, bool summary_only, double min_bytes)
{
	static struct cv_summary_row rows[512];
	int n = rpt_cv_summary(set, min_bytes, rows, 512);
	cJSON *root = cJSON_CreateObject(), *sum, *curves = NULL, *ne;

	if (!root)
		return false;
	cJSON_AddStringToObject(root, "file", set->path);
	cJSON_AddNumberToObject(root, "min_bytes", min_bytes);
	sum = cJSON_AddArrayToObject(root, "summary");
	for (int i = 0; i < n; i++) {
		cJSON *o = cJSON_CreateObject();

		cJSON_AddItemToArray(sum, o);
		cJSON_AddStringToObject(o, "by", rows[i].by);
		cJSON_AddStringToObject(o, "name", rows[i].name);
		cJSON_AddNumberToObject(o, "cases", rows[i].cases);
		cJSON_AddNumberToObject(o, "expressed", rows[i].expressed);
		cJSON_AddNumberToObject(o, "points", rows[i].points);
		if (rows[i].points > 0) {
			cJSON_AddNumberToObject(o, "mape", rows[i].mape);
			cJSON_AddNumberToObject(o, "median_ape", rows[i].median_ape);
			cJSON_AddNumberToObject(o, "worst_ape", rows[i].worst_ape);
			cJSON_AddNumberToObject(o, "bias", rows[i].bias);
		} else {
			cJSON_AddNullToObject(o, "mape");
			cJSON_AddNullToObject(o, "median_ape");
			cJSON_AddNullToObject(o, "worst_ape");
			cJSON_AddNullToObject(o, "bias");
		}
	}
	ne = cJSON_AddArrayToObject(root, "not_expressed");
	if (!summary_only)
		curves = cJSON_AddArrayToObject(root, "curves");
	for (int i = 0; i < set->n_curves; i++) {
		const struct cv_curve *c = &set->curves[i];
		cJSON *o, *pts;
		struct val_stats st;

		if (!c->expressible) {
			o = cJSON_CreateObject();
			cJSON_AddItemToArray(ne, o);
			cJSON_AddStringToObject(o, "id", c->id);
			cJSON_AddStringToObject(o, "reason", c->reason);
			continue;
		}
		if (!curves)
			continue;
		curve_stats(c, min_bytes, &st);
		o = cJSON_CreateObject();
		cJSON_AddItemToArray(curves, o);
		cJSON_AddStringToObject(o, "id", c->id);
		cJSON_AddStringToObject(o, "source_group", c->source_group);
		cJSON_AddStringToObject(o, "system", c->system[0] ? c->system : c->gpu);
		cJSON_AddStringToObject(o, "collective", c->collective);
		cJSON_AddNumberToObject(o, "nodes", c->nodes);
		cJSON_AddStringToObject(o, "calibration", c->cal.name);
		cJSON_AddNumberToObject(o, "points_counted", st.count);
		if (st.count > 0) {
			cJSON_AddNumberToObject(o, "mape", st.mape);
			cJSON_AddNumberToObject(o, "worst_ape", st.worst_ape);
		} else {
			cJSON_AddNullToObject(o, "mape");
			cJSON_AddNullToObject(o, "worst_ape");
		}
		pts = cJSON_AddArrayToObject(o, "points");
		for (int j = 0; j < c->n_points; j++) {
			const struct cv_point *p = &c->points[j];
			cJSON *q;

			if (!p->used)
				continue;
			q = cJSON_CreateObject();
			cJSON_AddItemToArray(pts, q);
			cJSON_AddNumberToObject(q, "bytes", p->bytes);
			cJSON_AddStringToObject(q, "metric", metric_name(p->metric));
			cJSON_AddNumberToObject(q, "measured", p->measured);
			if (isfinite(p->predicted)) {
				cJSON_AddNumberToObject(q, "predicted", p->predicted);
				cJSON_AddNumberToObject(q, "ape", fabs(p->err_rel));
			} else {
				cJSON_AddNullToObject(q, "predicted");
				cJSON_AddNullToObject(q, "ape");
			}
			cJSON_AddBoolToObject(q, "counted", cv_point_counts(p, min_bytes));
			cJSON_AddStringToObject(q, "algorithm", p->algorithm);
		}
	}
	return rpt_json_print(out, root);
}

bool rpt_coll_validate(FILE *out, const struct cv_set *set, enum rpt_validate_format fmt,
		       bool summary_only, double min_bytes)
{
	switch (fmt) {
	case RPT_VAL_JSON: return json_out(out, set, summary_only, min_bytes);
	case RPT_VAL_CSV: csv_out(out, set, min_bytes); return true;
	case RPT_VAL_MD: text_out(out, set, true, summary_only, min_bytes); return true;
	case RPT_VAL_TEXT: text_out(out, set, false, summary_only, min_bytes); return true;
	}
	return true;
}
