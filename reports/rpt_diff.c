/* rpt_diff.c: two predictions side by side (see rpt_diff.h). */
#include "rpt_diff.h"
#include "../sim/config/cfg_json.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

static const char *const step_keys[] = { "step_time_s", "step_time_p10_s", "step_time_p90_s",
					 "tokens_per_s", "tokens_per_s_per_gpu", "model_tflops_per_gpu",
					 "mfu", "hfu", "bubble_fraction", "micro_batches", "nodes", "gpus",
					 NULL };
static const char *const string_keys[] = { "scenario", "model", "instance", "calibration",
					   "bottleneck", NULL };
static const char *const coll_numbers[] = { "total_time_s", "time_s", "busbw_GBps", "bytes", "ranks",
					    NULL };
static const char *const coll_strings[] = { "op", "algorithm", "tier", NULL };

static struct rpt_diff_row *row(struct rpt_diff *d, const char *section, const char *metric)
{
	for (int i = 0; i < d->n_rows; i++)
		if (strcmp(d->rows[i].section, section) == 0 && strcmp(d->rows[i].metric, metric) == 0)
			return &d->rows[i];
	if (d->n_rows >= RPT_DIFF_MAX_ROWS)
		return NULL;
	struct rpt_diff_row *r = &d->rows[d->n_rows++];
	memset(r, 0, sizeof(*r));
	snprintf(r->section, sizeof(r->section), "%s", section);
	snprintf(r->metric, sizeof(r->metric), "%s", metric);
	return r;
}

static void put(struct rpt_diff *d, const char *section, const char *metric, const cJSON *v,
		bool side_b)
{
	struct rpt_diff_row *r;
	double x;

	if (cJSON_IsNumber(v))
		x = v->valuedouble;
	else if (cJSON_IsBool(v))
		x = cJSON_IsTrue(v) ? 1 : 0;
	else
		return;
	if (!(r = row(d, section, metric)))
		return;
	if (side_b) {
		r->b = x;
		r->has_b = true;
	} else {
		r->a = x;
		r->has_a = true;
	}
}

static void change(struct rpt_diff *d, const char *key, const cJSON *a, const cJSON *b)
{
	char sa[96] = "-", sb[96] = "-";
	struct rpt_diff_change *c;

	if (cJSON_IsString(a))
		snprintf(sa, sizeof(sa), "%s", a->valuestring);
	else if (cJSON_IsBool(a))
		snprintf(sa, sizeof(sa), "%s", cJSON_IsTrue(a) ? "true" : "false");
	if (cJSON_IsString(b))
		snprintf(sb, sizeof(sb), "%s", b->valuestring);
	else if (cJSON_IsBool(b))
		snprintf(sb, sizeof(sb), "%s", cJSON_IsTrue(b) ? "true" : "false");
	if (strcmp(sa, sb) == 0 || d->n_changes >= RPT_DIFF_MAX_CHANGES)
		return;
	c = &d->changes[d->n_changes++];
	snprintf(c->key, sizeof(c->key), "%s", key);
	snprintf(c->a, sizeof(c->a), "%s", sa);
	snprintf(c->b, sizeof(c->b), "%s", sb);
}

/* The numbers of an object (breakdown_s, memory_bytes, layout, cost) as
 * rows of section; its strings and booleans as changes. */
static void object_rows(struct rpt_diff *d, const char *section, const cJSON *a, const cJSON *b,
			const char *prefix)
{
	const cJSON *e;

	for (int side = 0; side < 2; side++) {
		const cJSON *obj = side ? b : a;

		cJSON_ArrayForEach(e, obj) {
			if (cJSON_IsNumber(e))
				put(d, section, e->string, e, side);
		}
	}
	for (int side = 0; side < 2; side++) {
		const cJSON *obj = side ? b : a;

		cJSON_ArrayForEach(e, obj) {
			char key[64];

			if (!cJSON_IsString(e) && !cJSON_IsBool(e))
				continue;
			if (side && cJSON_GetObjectItemCaseSensitive(a, e->string))
				continue; /* seen from a */
			snprintf(key, sizeof(key), "%s%s", prefix, e->string);
			change(d, key, cJSON_GetObjectItemCaseSensitive(a, e->string),
			       cJSON_GetObjectItemCaseSensitive(b, e->string));
		}
	}
}

/* The name of collective i of list: its group ("dp"), with "#k" for the
 * k-th of that group when k > 1. */
static void coll_name(const cJSON *list, int i, char *out, size_t n)
{
	const cJSON *c = cJSON_GetArrayItem(list, i);
	const cJSON *w = cJSON_GetObjectItemCaseSensitive(c, "what");
	const char *what = cJSON_IsString(w) ? w->valuestring : "?";
	int k = 1;

	for (int j = 0; j < i; j++) {
		const cJSON *wj = cJSON_GetObjectItemCaseSensitive(cJSON_GetArrayItem(list, j), "what");

		if (cJSON_IsString(wj) && strcmp(wj->valuestring, what) == 0)
			k++;
	}
	if (k > 1)
		snprintf(out, n, "%s#%d", what, k);
	else
		snprintf(out, n, "%s", what);
}

static const cJSON *coll_find(const cJSON *list, const char *name)
{
	char n[48];

	for (int i = 0; i < cJSON_GetArraySize(list); i++) {
		coll_name(list, i, n, sizeof(n));
		if (strcmp(n, name) == 0)
			return cJSON_GetArrayItem(list, i);
	}
	return NULL;
}

static void collective_rows(struct rpt_diff *d, const cJSON *la, const cJSON *lb)
{
	for (int side = 0; side < 2; side++) {
		const cJSON *list = side ? lb : la;

		for (int i = 0; i < cJSON_GetArraySize(list); i++) {
			char name[48], metric[64];
			const cJSON *c = cJSON_GetArrayItem(list, i);

			coll_name(list, i, name, sizeof(name));
			for (int k = 0; coll_numbers[k]; k++) {
				snprintf(metric, sizeof(metric), "%s %s", name, coll_numbers[k]);
				put(d, "collectives", metric, cJSON_GetObjectItemCaseSensitive(c, coll_numbers[k]),
				    side);
			}
			if (side && coll_find(la, name))
				continue;
			for (int k = 0; coll_strings[k]; k++) {
				const cJSON *other = coll_find(side ? la : lb, name);

				snprintf(metric, sizeof(metric), "%s %s", name, coll_strings[k]);
				change(d, metric, cJSON_GetObjectItemCaseSensitive(side ? other : c, coll_strings[k]),
				       cJSON_GetObjectItemCaseSensitive(side ? c : other, coll_strings[k]));
			}
		}
	}
}

/* The step-time band a prediction object carries: what predict printed
 * (step_time_p50_s and step_time_log_sigma; older files: P10 and P90
 * through the regime-band form).  false without a step time; *banded
 * false (the zero band) when it has no band. */
static bool band_of(const cJSON *o, double *point, struct model_band *b, bool *banded)
{
	const cJSON *st = cJSON_GetObjectItemCaseSensitive(o, "step_time_s");
	const cJSON *p10 = cJSON_GetObjectItemCaseSensitive(o, "step_time_p10_s");
	const cJSON *p50 = cJSON_GetObjectItemCaseSensitive(o, "step_time_p50_s");
	const cJSON *p90 = cJSON_GetObjectItemCaseSensitive(o, "step_time_p90_s");
	const cJSON *sig = cJSON_GetObjectItemCaseSensitive(o, "step_time_log_sigma");

	b->log_bias = b->log_sigma = 0;
	*banded = false;
	if (!cJSON_IsNumber(st) || !(st->valuedouble > 0))
		return false;
	*point = st->valuedouble;
	if (cJSON_IsNumber(sig) && sig->valuedouble >= 0 && cJSON_IsNumber(p50) && p50->valuedouble > 0) {
		b->log_sigma = sig->valuedouble;
		b->log_bias = log(p50->valuedouble / *point);
		*banded = true;
	} else if (cJSON_IsNumber(p10) && cJSON_IsNumber(p90) && p10->valuedouble > 0) {
		struct model_regime_band rb = { .present = true, .p10 = p10->valuedouble / *point,
						.p50 = cJSON_IsNumber(p50) ? p50->valuedouble / *point : 1.0,
						.p90 = p90->valuedouble / *point };

		*b = model_band_of_regime_band(&rb);
		*banded = true;
	}
	return true;
}

static void verdict_of(const cJSON *a, const cJSON *b, double confidence, struct rpt_diff *d)
{
	struct model_band ba, bb;
	double pa, pb;
	bool ka, kb;

	d->confidence = confidence > 0 && confidence < 1 ? confidence : MODEL_DECISION_CONFIDENCE;
	d->has_verdict = band_of(a, &pa, &ba, &ka) && band_of(b, &pb, &bb, &kb);
	if (!d->has_verdict)
		return;
	d->banded = ka && kb;
	d->order = model_band_order(&bb, pb, &ba, pa, 0.0, d->confidence);
	d->prob_b_faster = model_band_prob_less(&bb, pb, &ba, pa, 0.0);
}

void rpt_diff_build(const cJSON *a, const cJSON *b, const char *label_a, const char *label_b,
		    double confidence, struct rpt_diff *d)
{
	double best = -1;

	memset(d, 0, sizeof(*d));
	snprintf(d->label_a, sizeof(d->label_a), "%s", label_a);
	snprintf(d->label_b, sizeof(d->label_b), "%s", label_b);
	for (int i = 0; string_keys[i]; i++)
		change(d, string_keys[i], cJSON_GetObjectItemCaseSensitive(a, string_keys[i]),
		       cJSON_GetObjectItemCaseSensitive(b, string_keys[i]));
	change(d, "oom", cJSON_GetObjectItemCaseSensitive(a, "oom"), cJSON_GetObjectItemCaseSensitive(b, "oom"));
	for (int i = 0; step_keys[i]; i++) {
		put(d, "step", step_keys[i], cJSON_GetObjectItemCaseSensitive(a, step_keys[i]), false);
		put(d, "step", step_keys[i], cJSON_GetObjectItemCaseSensitive(b, step_keys[i]), true);
	}
	object_rows(d, "layout", cJSON_GetObjectItemCaseSensitive(a, "layout"),
		    cJSON_GetObjectItemCaseSensitive(b, "layout"), "layout.");
	object_rows(d, "breakdown", cJSON_GetObjectItemCaseSensitive(a, "breakdown_s"),
		    cJSON_GetObjectItemCaseSensitive(b, "breakdown_s"), "breakdown.");
	object_rows(d, "memory", cJSON_GetObjectItemCaseSensitive(a, "memory_bytes"),
		    cJSON_GetObjectItemCaseSensitive(b, "memory_bytes"), "memory.");
	put(d, "memory", "total", cJSON_GetObjectItemCaseSensitive(a, "memory_total_bytes"), false);
	put(d, "memory", "total", cJSON_GetObjectItemCaseSensitive(b, "memory_total_bytes"), true);
	put(d, "memory", "capacity", cJSON_GetObjectItemCaseSensitive(a, "memory_capacity_bytes"), false);
	put(d, "memory", "capacity", cJSON_GetObjectItemCaseSensitive(b, "memory_capacity_bytes"), true);
	collective_rows(d, cJSON_GetObjectItemCaseSensitive(a, "collectives"),
			cJSON_GetObjectItemCaseSensitive(b, "collectives"));
	object_rows(d, "cost", cJSON_GetObjectItemCaseSensitive(a, "cost"),
		    cJSON_GetObjectItemCaseSensitive(b, "cost"), "cost.");
	d->moved_most = -1;
	d->step_row = -1;
	for (int i = 0; i < d->n_rows; i++) {
		const struct rpt_diff_row *r = &d->rows[i];
		double x = fabs((r->has_b ? r->b : 0) - (r->has_a ? r->a : 0));

		if (strcmp(r->section, "step") == 0 && strcmp(r->metric, "step_time_s") == 0)
			d->step_row = i;
		if (strcmp(r->section, "breakdown") == 0 && x > best && x > 0) {
			best = x;
			d->moved_most = i;
		}
	}
	verdict_of(a, b, confidence, d);
}

/* A row is shown when either side is non-zero (a part that is 0 in both,
 * cp_comm without CP, says nothing). */
static bool shown(const struct rpt_diff_row *r)
{
	return (r->has_a && r->a != 0) || (r->has_b && r->b != 0);
}

static void num(char *out, size_t n, bool has, double v)
{
	if (!has)
		snprintf(out, n, "-");
	else
		snprintf(out, n, "%.5g", v);
}

static void rel(char *out, size_t n, const struct rpt_diff_row *r)
{
	if (!r->has_a || !r->has_b)
		snprintf(out, n, "%s", r->has_b ? "new" : "gone");
	else if (r->a == 0)
		snprintf(out, n, "%s", r->b == 0 ? "0 %" : "n/a");
	else
		snprintf(out, n, "%+.1f %%", 100.0 * (r->b - r->a) / fabs(r->a));
}

static void delta(char *out, size_t n, const struct rpt_diff_row *r)
{
	if (!r->has_a || !r->has_b)
		snprintf(out, n, "-");
	else
		snprintf(out, n, "%+.5g", r->b - r->a);
}

/* A walk over the shown rows: the current row's cells, formatted; fresh
 * when it opens a new section. */
struct row_walk {
	const char *section;
	int next;
	bool fresh;
	char a[32], b[32], delta[32], rel[32];
};

/* The next shown row (NULL at the end), its cells in w. */
static const struct rpt_diff_row *next_row(const struct rpt_diff *d, struct row_walk *w)
{
	for (; w->next < d->n_rows; w->next++) {
		const struct rpt_diff_row *r = &d->rows[w->next];

		if (!shown(r))
			continue;
		w->fresh = strcmp(w->section, r->section) != 0;
		w->section = r->section;
		num(w->a, sizeof(w->a), r->has_a, r->a);
		num(w->b, sizeof(w->b), r->has_b, r->b);
		delta(w->delta, sizeof(w->delta), r);
		rel(w->rel, sizeof(w->rel), r);
		w->next++;
		return r;
	}
	return NULL;
}

/* B against A in words: faster, slower, or a tie inside the band. */
static void verdict_line(FILE *out, const struct rpt_diff *d, const char *lead)
{
	if (!d->has_verdict)
		return;
	if (d->order == MODEL_ORDER_TIE)
		fprintf(out, "%sa tie: B - A is inside the step band at P%.0f (P(B faster) %.2f)%s\n", lead,
			100 * d->confidence, d->prob_b_faster,
			d->banded ? "; neither is faster that the model can tell" : "");
	else
		fprintf(out, "%sB is %s than A at P%.0f (P(B faster) %.2f)%s\n", lead,
			d->order == MODEL_ORDER_LESS ? "faster" : "slower", 100 * d->confidence,
			d->prob_b_faster, d->banded ? "" : "; no band on a side: the point predictions decide");
}

static void moved_most_line(FILE *out, const struct rpt_diff *d, const char *lead)
{
	const struct rpt_diff_row *m, *s;
	char rl[32];

	if (d->moved_most < 0) {
		fprintf(out, "%sno part of the breakdown moved\n", lead);
		return;
	}
	m = &d->rows[d->moved_most];
	rel(rl, sizeof(rl), m);
	fprintf(out, "%s%s %+.4g s (%s)", lead, m->metric, m->b - m->a, rl);
	if (d->step_row >= 0 && (s = &d->rows[d->step_row])->has_a && s->has_b && s->b != s->a) {
		rel(rl, sizeof(rl), s);
		fprintf(out, " of the step's %+.4g s (%s)", s->b - s->a, rl);
	}
	fputc('\n', out);
}

void rpt_diff_text(FILE *out, const struct rpt_diff *d)
{
	struct row_walk w = { "", 0, false, "", "", "", "" };
	const struct rpt_diff_row *r;

	fprintf(out, "A           %s\n", d->label_a);
	fprintf(out, "B           %s\n", d->label_b);
	for (int i = 0; i < d->n_changes; i++)
		fprintf(out, "%-11s %s: %s -> %s\n", i ? "" : "changed", d->changes[i].key, d->changes[i].a,
			d->changes[i].b);
	moved_most_line(out, d, "moved most  ");
	verdict_line(out, d, "verdict     ");
	fprintf(out, "\n%-28s %14s %14s %14s %9s\n", "", "A", "B", "B - A", "rel");
	while ((r = next_row(d, &w))) {
		if (w.fresh)
			fprintf(out, "%s%s\n", strcmp(w.section, "step") ? "\n" : "",
				strcmp(w.section, "breakdown") == 0 ? "breakdown (s)" :
				strcmp(w.section, "memory") == 0 ? "memory per GPU (bytes)" : w.section);
		fprintf(out, "  %-26s %14s %14s %14s %9s\n", r->metric, w.a, w.b, w.delta, w.rel);
	}
}

void rpt_diff_md(FILE *out, const struct rpt_diff *d)
{
	struct row_walk w = { "", 0, false, "", "", "", "" };
	const struct rpt_diff_row *r;

	fprintf(out, "# stepcast diff\n\n- A: `%s`\n- B: `%s`\n", d->label_a, d->label_b);
	for (int i = 0; i < d->n_changes; i++)
		fprintf(out, "- changed: %s: `%s` → `%s`\n", d->changes[i].key, d->changes[i].a, d->changes[i].b);
	moved_most_line(out, d, "- moved most: ");
	verdict_line(out, d, "- verdict: ");
	while ((r = next_row(d, &w))) {
		if (w.fresh)
			fprintf(out, "\n## %s\n\n| metric | A | B | B - A | rel |\n|---|---:|---:|---:|---:|\n",
				w.section);
		fprintf(out, "| %s | %s | %s | %s | %s |\n", r->metric, w.a, w.b, w.delta, w.rel);
	}
}

cJSON *rpt_diff_json(const struct rpt_diff *d)
{
	cJSON *root = cJSON_CreateObject(), *rows, *ch, *mm;

	if (!root)
		return NULL;
	cJSON_AddStringToObject(root, "a", d->label_a);
	cJSON_AddStringToObject(root, "b", d->label_b);
	ch = cJSON_AddArrayToObject(root, "changed");
	for (int i = 0; ch && i < d->n_changes; i++) {
		cJSON *o = cfg_json_push(ch, cJSON_CreateObject());

		if (!o) {
			cJSON_Delete(root);
			return NULL;
		}
		cJSON_AddStringToObject(o, "key", d->changes[i].key);
		cJSON_AddStringToObject(o, "a", d->changes[i].a);
		cJSON_AddStringToObject(o, "b", d->changes[i].b);
	}
	if (d->moved_most >= 0 && (mm = cJSON_AddObjectToObject(root, "moved_most"))) {
		const struct rpt_diff_row *m = &d->rows[d->moved_most];

		cJSON_AddStringToObject(mm, "part", m->metric);
		cJSON_AddNumberToObject(mm, "delta_s", m->b - m->a);
		if (m->a != 0)
			cJSON_AddNumberToObject(mm, "rel", (m->b - m->a) / fabs(m->a));
	}
	if (d->has_verdict && (mm = cJSON_AddObjectToObject(root, "verdict"))) {
		cJSON_AddStringToObject(mm, "b_against_a", d->order == MODEL_ORDER_LESS ? "faster"
						       : d->order == MODEL_ORDER_GREATER ? "slower" : "tie");
		cJSON_AddBoolToObject(mm, "tie", d->order == MODEL_ORDER_TIE);
		cJSON_AddNumberToObject(mm, "prob_b_faster", d->prob_b_faster);
		cJSON_AddNumberToObject(mm, "confidence", d->confidence);
		cJSON_AddBoolToObject(mm, "banded", d->banded);
	}
	rows = cJSON_AddArrayToObject(root, "rows");
	for (int i = 0; rows && i < d->n_rows; i++) {
		const struct rpt_diff_row *r = &d->rows[i];
		cJSON *o;

		if (!shown(r))
			continue;
		if (!(o = cfg_json_push(rows, cJSON_CreateObject()))) {
			cJSON_Delete(root);
			return NULL;
		}
		cJSON_AddStringToObject(o, "section", r->section);
		cJSON_AddStringToObject(o, "metric", r->metric);
		if (r->has_a)
			cJSON_AddNumberToObject(o, "a", r->a);
		else
			cJSON_AddNullToObject(o, "a");
		if (r->has_b)
			cJSON_AddNumberToObject(o, "b", r->b);
		else
			cJSON_AddNullToObject(o, "b");
		if (r->has_a && r->has_b) {
			cJSON_AddNumberToObject(o, "delta", r->b - r->a);
			if (r->a != 0)
				cJSON_AddNumberToObject(o, "rel", (r->b - r->a) / fabs(r->a));
			else
				cJSON_AddNullToObject(o, "rel");
		}
	}
	if (!rows || !ch) {
		cJSON_Delete(root);
		return NULL;
	}
	return root;
}
