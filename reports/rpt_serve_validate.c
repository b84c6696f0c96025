/* rpt_serve_validate.c: serving validation tables (see rpt_serve_validate.h). */
#include "rpt_serve_validate.h"

#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "rpt_util.h"
#include "../sim/validate/val_summary.h"
#include "../sim/config/rpt_num.h" /* after cJSON: output numbers checked */

static bool by_group(const struct sval_case *vc, const void *arg)
{
	return strcmp(vc->source_group, arg) == 0;
}

static bool by_gpu(const struct sval_case *vc, const void *arg)
{
	return strcmp(vc->gpu, arg) == 0;
}

static bool by_engine(const struct sval_case *vc, const void *arg)
{
	return strcmp(vc->engine_version, arg) == 0;
}

static bool by_regime(const struct sval_case *vc, const void *arg)
{
	return strcmp(vc->regime, arg) == 0;
}

enum by_kind { BY_GROUP, BY_GPU, BY_ENGINE, BY_REGIME };

static const char *key_of(const struct sval_case *vc, enum by_kind k)
{
	switch (k) {
	case BY_GROUP: return vc->source_group;
	case BY_GPU: return vc->gpu;
	case BY_ENGINE: return vc->engine_version;
	case BY_REGIME: return vc->regime;
	}
	return "";
}

static int distinct(const struct sval_set *set, enum by_kind kind, const char **out, int max)
{
	int n = 0;

	for (int i = 0; i < set->n_cases; i++)
		n = val_distinct_add(out, n, max, key_of(&set->cases[i], kind));
	return n;
}

/* Cases of the selection that publish the metric (expressible or not). */
static int count_with(const struct sval_set *set, enum sval_metric m,
		      bool (*f)(const struct sval_case *, const void *), const void *arg)
{
	int n = 0;

	for (int i = 0; i < set->n_cases; i++)
		if (set->cases[i].m[m].have && (!f || f(&set->cases[i], arg)))
			n++;
	return n;
}

struct row {
	enum sval_metric metric;
	const char *kind;
	const char *name;
	int total;
	struct val_stats st;
	double oos_mape;   /* out of sample (sval_cross_validate), fraction */
	int oos_count;
};

static int summary_rows(const struct sval_set *set, struct row *rows, int max)
{
	static const struct {
		enum by_kind kind;
		const char *name;
		bool (*filter)(const struct sval_case *, const void *);
	} bys[] = { { BY_GROUP, "group", by_group }, { BY_GPU, "gpu", by_gpu },
		    { BY_ENGINE, "engine", by_engine }, { BY_REGIME, "regime", by_regime } };
	const char *keys[4][64];
	int nk[4], n = 0;

	for (int b = 0; b < 4; b++)
		nk[b] = distinct(set, bys[b].kind, keys[b], 64);
	for (int m = 0; m < SVAL_METRICS && n < max; m++) {
		rows[n].metric = (enum sval_metric)m;
		rows[n].kind = "all";
		rows[n].name = "all";
		rows[n].total = count_with(set, (enum sval_metric)m, NULL, NULL);
		sval_stats(set, (enum sval_metric)m, NULL, NULL, &rows[n].st);
		rows[n].oos_mape = sval_oos_mape(set, (enum sval_metric)m, NULL, NULL, &rows[n].oos_count);
		n++;
		for (int b = 0; b < 4; b++)
			for (int i = 0; i < nk[b] && n < max; i++) {
				rows[n].metric = (enum sval_metric)m;
				rows[n].kind = bys[b].name;
				rows[n].name = keys[b][i];
				rows[n].total = count_with(set, (enum sval_metric)m, bys[b].filter, keys[b][i]);
				sval_stats(set, (enum sval_metric)m, bys[b].filter, keys[b][i], &rows[n].st);
				rows[n].oos_mape = sval_oos_mape(set, (enum sval_metric)m, bys[b].filter,
								 keys[b][i], &rows[n].oos_count);
				if (rows[n].total > 0)
					n++;
			}
	}
	return n;
}

static void value_text(char *buf, size_t n, const struct sval_value *v, bool md)
{
	if (!v->have)
		snprintf(buf, n, md ? "- | - | -" : "%10s %10s %7s", "-", "-", "-");
	else
		snprintf(buf, n, md ? "%.4g | %.4g | %+.1f" : "%10.4g %10.4g %+7.1f", v->measured,
			 v->predicted, 100 * v->err_rel);
}

static void text_cases(FILE *out, const struct sval_set *set, bool md)
{
	if (md) {
		fprintf(out, "| case | gpu | engine | layout | tok/s measured | predicted | err %% | TTFT ms measured | predicted | err %% | TPOT ms measured | predicted | err %% |\n");
		fprintf(out, "|---|---|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n");
	} else {
		fprintf(out, "%-60s %-9s %-12s %-16s %10s %10s %7s %10s %10s %7s %10s %10s %7s\n", "case",
			"gpu", "engine", "layout", "tok/s", "pred", "err%", "ttft_ms", "pred", "err%",
			"tpot_ms", "pred", "err%");
	}
	for (int i = 0; i < set->n_cases; i++) {
		const struct sval_case *vc = &set->cases[i];
		char a[64], b[64], c[64];

		if (!vc->expressible)
			continue;
		value_text(a, sizeof(a), &vc->m[SVAL_THROUGHPUT], md);
		value_text(b, sizeof(b), &vc->m[SVAL_TTFT], md);
		value_text(c, sizeof(c), &vc->m[SVAL_TPOT], md);
		if (md)
			fprintf(out, "| %s | %s | %s | %s | %s | %s | %s |\n", vc->id, vc->gpu, vc->engine,
				vc->layout, a, b, c);
		else
			fprintf(out, "%-60.60s %-9s %-12.12s %-16s %s %s %s\n", vc->id, vc->gpu, vc->engine,
				vc->layout, a, b, c);
	}
}

static const char *unexpressed_why(const void *set, int i, const char **id)
{
	const struct sval_case *vc = &((const struct sval_set *)set)->cases[i];

	*id = vc->id;
	return vc->expressible ? NULL : vc->reason;
}

/* The cases not expressed, then the unstable ones. */
static void text_unexpressed(FILE *out, const struct sval_set *set, bool md)
{
	int n = 0;

	rpt_cases_unexpressed(out, md, 60, set->n_cases, unexpressed_why, set);
	/* above the sustainable rate: throughput compared, latency not */
	for (int i = 0; i < set->n_cases; i++)
		if (set->cases[i].expressible && set->cases[i].unstable)
			n++;
	fprintf(out, md ? "\n### Unstable cases: throughput only (%d)\n\n"
		       : "\nunstable cases (arrivals above the simulated sustainable rate; latency not compared): %d\n", n);
	for (int i = 0; i < set->n_cases; i++) {
		const struct sval_case *vc = &set->cases[i];

		if (vc->expressible && vc->unstable)
			fprintf(out, md ? "- `%s`: %.4g requests/s offered, %.4g sustainable\n"
				       : "  %-60.60s %.4g requests/s offered, %.4g sustainable\n", vc->id,
				vc->sc ? vc->sc->workload.rate_rps : 0, vc->sustainable_rps);
	}
}

static void text_summary(FILE *out, const struct sval_set *set, bool md)
{
	struct row rows[3 * 160];
	int n = summary_rows(set, rows, 3 * 160);

	if (md) {
		fprintf(out, "\n### Summary\n\n| metric | by | name | cases | expressed | MAPE %% | median APE %% | P90 APE %% | worst APE %% | bias %% | worst case |\n");
		fprintf(out, "|---|---|---|---:|---:|---:|---:|---:|---:|---:|---|\n");
	} else {
		fprintf(out, "\nsummary (APE = |predicted - measured| / measured; throughput = output tokens/s, TTFT and TPOT = the published statistic)\n");
		fprintf(out, "%-10s %-6s %-34s %5s %5s %7s %8s %7s %8s %7s  %s%s\n", "metric", "by", "name",
			"cases", "expr", "MAPE%", "median%", "P90%", "worst%", "bias%",
			set->oos ? " oos%   " : "", "worst case");
	}
	for (int i = 0; i < n; i++) {
		const struct row *r = &rows[i];
		const char *metric = sval_metric_name(r->metric);
		const char *worst = r->st.worst_index >= 0 ? set->cases[r->st.worst_index].id : "-";

		char oos[16] = "";

		if (set->oos) {
			if (r->oos_count > 0)
				snprintf(oos, sizeof(oos), " %6.1f ", 100 * r->oos_mape);
			else
				snprintf(oos, sizeof(oos), " %6s ", "-");
		}
		if (r->st.count == 0) {
			if (md)
				fprintf(out, "| %s | %s | %s | %d | 0 | - | - | - | - | - | - |\n", metric,
					r->kind, r->name, r->total);
			else
				fprintf(out, "%-10s %-6s %-34.34s %5d %5d %7s %8s %7s %8s %7s  %s%s\n", metric,
					r->kind, r->name, r->total, 0, "-", "-", "-", "-", "-", oos, "-");
			continue;
		}
		if (md)
			fprintf(out, "| %s | %s | %s | %d | %d | %.1f | %.1f | %.1f | %.1f | %+.1f | %s |\n",
				metric, r->kind, r->name, r->total, r->st.count, 100 * r->st.mape,
				100 * r->st.median_ape, 100 * r->st.p90_ape, 100 * r->st.worst_ape,
				100 * r->st.mean_err, worst);
		else
			fprintf(out, "%-10s %-6s %-34.34s %5d %5d %7.1f %8.1f %7.1f %8.1f %+7.1f  %s%s\n",
				metric, r->kind, r->name, r->total, r->st.count, 100 * r->st.mape,
				100 * r->st.median_ape, 100 * r->st.p90_ape, 100 * r->st.worst_ape,
				100 * r->st.mean_err, oos, worst);
	}
}

static cJSON *value_json(const struct sval_value *v)
{
	cJSON *o;

	if (!v->have)
		return cJSON_CreateNull();
	if (!(o = cJSON_CreateObject()))
		return NULL;
	cJSON_AddStringToObject(o, "statistic", v->stat);
	cJSON_AddNumberToObject(o, "measured", v->measured);
	cJSON_AddNumberToObject(o, "predicted", v->predicted);
	cJSON_AddNumberToObject(o, "error", v->err_rel);
	if (v->has_oos) {
		cJSON_AddNumberToObject(o, "predicted_out_of_sample", v->oos_predicted);
		cJSON_AddNumberToObject(o, "error_out_of_sample", v->oos_err_rel);
	}
	return o;
}

static bool json_report(FILE *out, const void *vset, bool summary_only)
{
	const struct sval_set *set = vset;
	struct row rows[3 * 160];
	cJSON *o = cJSON_CreateObject(), *cases, *sum;
	int n = summary_rows(set, rows, 3 * 160);

	if (!o)
		return false;
	cJSON_AddStringToObject(o, "file", set->path);
	cases = cJSON_AddArrayToObject(o, "cases");
	for (int i = 0; cases && i < set->n_cases; i++) {
		const struct sval_case *vc = &set->cases[i];
		cJSON *c;

		if (summary_only && vc->expressible)
			continue;
		if (!(c = cJSON_CreateObject()))
			break;
		cJSON_AddStringToObject(c, "id", vc->id);
		cJSON_AddStringToObject(c, "source_group", vc->source_group);
		cJSON_AddStringToObject(c, "gpu", vc->gpu);
		cJSON_AddStringToObject(c, "engine", vc->engine);
		cJSON_AddStringToObject(c, "layout", vc->layout);
		cJSON_AddStringToObject(c, "precision", vc->precision);
		cJSON_AddBoolToObject(c, "expressible", vc->expressible);
		if (!vc->expressible) {
			cJSON_AddStringToObject(c, "reason", vc->reason);
		} else {
			cJSON_AddItemToObject(c, "throughput_tokens_per_s", value_json(&vc->m[SVAL_THROUGHPUT]));
			cJSON_AddItemToObject(c, "ttft_ms", value_json(&vc->m[SVAL_TTFT]));
			cJSON_AddItemToObject(c, "tpot_ms", value_json(&vc->m[SVAL_TPOT]));
			cJSON_AddStringToObject(c, "assumptions", vc->assumptions);
		}
		cJSON_AddItemToArray(cases, c);
	}
	sum = cJSON_AddArrayToObject(o, "summary");
	for (int i = 0; sum && i < n; i++) {
		cJSON *s = cJSON_CreateObject();

		if (!s)
			break;
		cJSON_AddStringToObject(s, "metric", sval_metric_name(rows[i].metric));
		cJSON_AddStringToObject(s, "by", rows[i].kind);
		cJSON_AddStringToObject(s, "name", rows[i].name);
		cJSON_AddNumberToObject(s, "cases", rows[i].total);
		cJSON_AddNumberToObject(s, "expressed", rows[i].st.count);
		if (rows[i].st.count > 0) {
			cJSON_AddNumberToObject(s, "mape", rows[i].st.mape);
			cJSON_AddNumberToObject(s, "median_ape", rows[i].st.median_ape);
			cJSON_AddNumberToObject(s, "p90_ape", rows[i].st.p90_ape);
			cJSON_AddNumberToObject(s, "worst_ape", rows[i].st.worst_ape);
			cJSON_AddNumberToObject(s, "bias", rows[i].st.mean_err);
			cJSON_AddStringToObject(s, "worst_case", set->cases[rows[i].st.worst_index].id);
		}
		if (rows[i].oos_count > 0) {
			cJSON_AddNumberToObject(s, "mape_out_of_sample", rows[i].oos_mape);
			cJSON_AddNumberToObject(s, "expressed_out_of_sample", rows[i].oos_count);
		}
		cJSON_AddItemToArray(sum, s);
	}
	return rpt_json_print(out, o);
}

static void csv_report(FILE *out, const void *vset)
{
	const struct sval_set *set = vset;

	fprintf(out, "id,source_group,gpu,engine,layout,precision,expressible,"
		"throughput_measured,throughput_predicted,throughput_error,ttft_statistic,ttft_measured_ms,"
		"ttft_predicted_ms,ttft_error,tpot_statistic,tpot_measured_ms,tpot_predicted_ms,tpot_error,reason%s\n",
		set->oos ? ",throughput_error_out_of_sample,ttft_error_out_of_sample,tpot_error_out_of_sample" : "");
	for (int i = 0; i < set->n_cases; i++) {
		const struct sval_case *vc = &set->cases[i];

		fprintf(out, "%s,%s,%s,%s,%s,%s,%s", vc->id, vc->source_group, vc->gpu, vc->engine,
			vc->layout, vc->precision, vc->expressible ? "true" : "false");
		for (int k = 0; k < SVAL_METRICS; k++) {
			const struct sval_value *v = &vc->m[k];

			if (k > 0)
				fprintf(out, ",%s", v->have ? v->stat : "");
			if (vc->expressible && v->have)
				fprintf(out, ",%.6g,%.6g,%.6g", v->measured, v->predicted, v->err_rel);
			else
				fprintf(out, ",,,");
		}
		fprintf(out, ",\"%s\"", vc->expressible ? "" : vc->reason);
		for (int k = 0; set->oos && k < SVAL_METRICS; k++) {
			const struct sval_value *v = &vc->m[k];

			if (vc->expressible && v->have && v->has_oos)
				fprintf(out, ",%.6g", v->oos_err_rel);
			else
				fprintf(out, ",");
		}
		fprintf(out, "\n");
	}
}

static void text_report(FILE *out, const void *vset, bool md, bool summary_only)
{
	const struct sval_set *set = vset;

	if (!summary_only)
		text_cases(out, set, md);
	text_unexpressed(out, set, md);
	text_summary(out, set, md);
}

bool rpt_serve_validate(FILE *out, const struct sval_set *set, enum rpt_validate_format fmt,
			bool summary_only)
{
	static const struct rpt_val_parts parts = { json_report, csv_report, text_report };

	return rpt_validate_render(out, &parts, set, fmt, summary_only);
}
