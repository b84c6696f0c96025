/* cal_regress.c: scenarios x profiles against baselines (see cal_regress.h). */
#include "cal_regress.h"

#include <dirent.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "../sim/config/calibration_select.h"
#include "../sim/config/cfg_json.h"
#include "../sim/config/scenario_load.h"
#include "../sim/config/rpt_num.h" /* after cJSON: output numbers checked */

const char *reg_metric_name(int i)
{
	static const char *const head[] = { "step_time_s", "tokens_per_s", "mfu", "hfu",
					    "mem_total_bytes" };
	static char parts[PART_COUNT][48];

	if (i < 5)
		return head[i];
	if (i < REG_N_METRICS) {
		/* "<part>_s", built once from step_part_name() */
		char *p = parts[i - 5];
		if (!p[0])
			snprintf(p, sizeof(parts[0]), "%s_s", step_part_name((enum step_part)(i - 5)));
		return p;
	}
	return "?";
}

static void metrics_of(const struct step_result *r, double *m)
{
	m[0] = r->step_time_s;
	m[1] = r->tokens_per_s;
	m[2] = r->mfu;
	m[3] = r->hfu;
	m[4] = r->mem_total_bytes;
	for (int k = 0; k < PART_COUNT; k++)
		m[5 + k] = r->part_s[k];
}

static int name_cmp(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + 1e-9 * ts.tv_nsec;
}

static enum sc_status add_case(struct reg_run *run, int *cap, const struct reg_case *c,
			       struct sc_error *err)
{
	if (run->n_cases == *cap) {
		int n = *cap ? *cap * 2 : 32;
		struct reg_case *p = realloc(run->cases, (size_t)n * sizeof(*p));
		if (!p)
			return sc_error_set(err, SC_ENOMEM, NULL, NULL, "out of memory");
		run->cases = p;
		*cap = n;
	}
	run->cases[run->n_cases++] = *c;
	return SC_OK;
}

enum sc_status reg_run(const struct catalog *cat, const char *dir, struct reg_run *run,
		       struct sc_error *err)
{
	return reg_run_ov(cat, dir, NULL, NULL, run, err);
}

enum sc_status reg_run_ov(const struct catalog *cat, const char *dir, struct cfg_overrides *ov,
			  const struct sc_progress *progress, struct reg_run *run, struct sc_error *err)
{
	char sdir[1024];
	char *names[512];
	int n = 0, cap = 0;
	DIR *d;
	struct dirent *e;
	enum sc_status st = SC_OK;
	struct scenario *sc = malloc(sizeof(*sc)), *one = malloc(sizeof(*one));

	memset(run, 0, sizeof(*run));
	if (!sc || !one) {
		free(sc);
		free(one);
		return sc_error_set(err, SC_ENOMEM, NULL, NULL, "out of memory");
	}
	snprintf(sdir, sizeof(sdir), "%s/scenarios", dir);
	if (!(d = opendir(sdir))) {
		free(sc);
		free(one);
		return sc_error_set(err, SC_EIO, sdir, NULL, "cannot open the scenario directory: %s",
				    strerror(errno));
	}
	while ((e = readdir(d)) && n < 512) {
		size_t len = strlen(e->d_name);
		if (len > 5 && strcmp(e->d_name + len - 5, ".json") == 0 && (names[n] = strdup(e->d_name)))
			n++;
	}
	closedir(d);
	qsort(names, (size_t)n, sizeof(names[0]), name_cmp);
	if (n == 0)
		st = sc_error_set(err, SC_EINVAL, sdir, NULL, "no scenarios (*.json) to run");
	for (int i = 0; i < n && st == SC_OK; i++) {
		char path[1536];

		snprintf(path, sizeof(path), "%s/%s", sdir, names[i]);
		sc_progress_report(progress, i, n);
		{
			cJSON *root = cfg_parse_scenario_file(path, ov, err);

			st = root ? scenario_read(path, root, cat, sc, err) : err->status;
			cJSON_Delete(root);
			if (st != SC_OK) {
				cfg_overrides_blame(ov, err);
				break;
			}
		}
		for (int k = 0; k < cat->n_calibrations && st == SC_OK; k++) {
			const struct calibration *cal = &cat->calibrations[k];
			struct reg_case c;
			struct step_result r;
			struct sc_error perr;
			double t0;

			if (!calibration_fits_gpu(cal, &sc->cluster.gpu))
				continue;
			memset(&c, 0, sizeof(c));
			snprintf(c.scenario, sizeof(c.scenario), "scenarios/%s", names[i]);
			snprintf(c.calibration, sizeof(c.calibration), "%s", cal->name);
			*one = *sc;
			one->calibration = *cal;
			sc_error_clear(&perr);
			t0 = now_s();
			if (sim_step_predict(one, &r, &perr) != SC_OK) {
				c.failed = true;
				snprintf(c.error, sizeof(c.error), "%s%s%s", perr.pointer,
					 perr.pointer[0] ? ": " : "", perr.message);
			} else {
				metrics_of(&r, c.metric);
			}
			c.seconds = now_s() - t0;
			st = add_case(run, &cap, &c, err);
		}
	}
	for (int i = 0; i < n; i++)
		free(names[i]);
	free(sc);
	free(one);
	if (st != SC_OK)
		reg_run_free(run);
	return st;
}

void reg_run_free(struct reg_run *run)
{
	free(run->cases);
	memset(run, 0, sizeof(*run));
}

void reg_baselines_free(struct reg_baselines *b)
{
	free(b->cases);
	memset(b, 0, sizeof(*b));
}

static enum sc_status read_case(struct cfg_reader *rd, const cJSON *o, struct reg_case *c,
				const char *where)
{
	static const char *const keys[] = { "scenario", "calibration", "metrics", "error", NULL };
	const cJSON *s = cJSON_GetObjectItemCaseSensitive(o, "scenario");
	const cJSON *k = cJSON_GetObjectItemCaseSensitive(o, "calibration");
	const cJSON *m = cJSON_GetObjectItemCaseSensitive(o, "metrics");
	const cJSON *e = cJSON_GetObjectItemCaseSensitive(o, "error");
	const char *mnames[REG_N_METRICS + 1];
	char w[SC_ERROR_PTR_MAX], mw[SC_ERROR_PTR_MAX];
	enum sc_status st;

	memset(c, 0, sizeof(*c));
	if ((st = cfg_check_keys(rd, o, keys, where)) != SC_OK)
		return st;
	if (!cJSON_IsString(s) || !s->valuestring[0] || strlen(s->valuestring) >= sizeof(c->scenario)) {
		cfg_pointer_key(w, sizeof(w), where, "scenario");
		return sc_error_set(rd->err, SC_EINVAL, rd->file, s ? w : where,
				    "expected the scenario's path (a non-empty string)");
	}
	if (!cJSON_IsString(k) || !k->valuestring[0] || strlen(k->valuestring) >= sizeof(c->calibration)) {
		cfg_pointer_key(w, sizeof(w), where, "calibration");
		return sc_error_set(rd->err, SC_EINVAL, rd->file, k ? w : where,
				    "expected a calibration profile name");
	}
	snprintf(c->scenario, sizeof(c->scenario), "%s", s->valuestring);
	snprintf(c->calibration, sizeof(c->calibration), "%s", k->valuestring);
	if ((m != NULL) == (e != NULL))
		return sc_error_set(rd->err, SC_EINVAL, rd->file, where,
				    "expected exactly one of \"metrics\" and \"error\"");
	if (e) {
		cfg_pointer_key(w, sizeof(w), where, "error");
		if (!cJSON_IsString(e))
			return sc_error_set(rd->err, SC_EINVAL, rd->file, w, "expected a string");
		c->failed = true;
		snprintf(c->error, sizeof(c->error), "%s", e->valuestring);
		return SC_OK;
	}
	cfg_pointer_key(w, sizeof(w), where, "metrics");
	for (int i = 0; i < REG_N_METRICS; i++)
		mnames[i] = reg_metric_name(i);
	mnames[REG_N_METRICS] = NULL;
	if ((st = cfg_check_keys(rd, m, mnames, w)) != SC_OK)
		return st;
	for (int i = 0; i < REG_N_METRICS; i++) {
		const cJSON *v = cJSON_GetObjectItemCaseSensitive(m, mnames[i]);
		cfg_pointer_key(mw, sizeof(mw), w, mnames[i]);
		if (!v)
			return sc_error_set(rd->err, SC_EINVAL, rd->file, w,
					    "missing metric \"%s\"", mnames[i]);
		if (!cJSON_IsNumber(v) || !isfinite(v->valuedouble))
			return sc_error_set(rd->err, SC_EINVAL, rd->file, mw,
					    "expected a finite number, got %s", cfg_json_type_name(v));
		c->metric[i] = v->valuedouble;
	}
	return SC_OK;
}

enum sc_status reg_read_baselines(const char *path, bool allow_missing,
				  struct reg_baselines *b, struct sc_error *err)
{
	static const char *const keys[] = { "schema_version", "description", "cases", NULL };
	struct cfg_reader rd = { path, err, NULL };
	const cJSON *v, *cases, *it;
	cJSON *root;
	enum sc_status st;
	FILE *probe;
	int i = 0;

	memset(b, 0, sizeof(*b));
	if (!(probe = fopen(path, "r"))) {
		if (allow_missing && errno == ENOENT)
			return SC_OK;
		return sc_error_set(err, SC_EIO, path, NULL, "cannot read: %s (run with --update to "
				    "create it)", strerror(errno));
	}
	fclose(probe);
	if (!(root = cfg_parse_file(path, err)))
		return err->status;
	if ((st = cfg_check_keys(&rd, root, keys, "")) != SC_OK)
		goto out;
	v = cJSON_GetObjectItemCaseSensitive(root, "schema_version");
	if (!cJSON_IsNumber(v) || v->valuedouble != 1) {
		st = sc_error_set(err, SC_EINVAL, path, "/schema_version", "expected schema_version 1");
		goto out;
	}
	cases = cJSON_GetObjectItemCaseSensitive(root, "cases");
	if (!cJSON_IsArray(cases)) {
		st = sc_error_set(err, SC_EINVAL, path, cases ? "/cases" : "/",
				  cases ? "expected an array" : "missing required key \"cases\"");
		goto out;
	}
	b->cases = calloc((size_t)cJSON_GetArraySize(cases) + 1, sizeof(*b->cases));
	if (!b->cases) {
		st = sc_error_set(err, SC_ENOMEM, path, NULL, "out of memory");
		goto out;
	}
	cJSON_ArrayForEach(it, cases) {
		char where[SC_ERROR_PTR_MAX];
		cfg_pointer_index(where, sizeof(where), "/cases", i);
		if ((st = read_case(&rd, it, &b->cases[i], where)) != SC_OK)
			goto out;
		for (int j = 0; j < i; j++)
			if (!strcmp(b->cases[j].scenario, b->cases[i].scenario) &&
			    !strcmp(b->cases[j].calibration, b->cases[i].calibration)) {
				st = sc_error_set(err, SC_EINVAL, path, where,
						  "a second baseline for %s with %s", b->cases[i].scenario,
						  b->cases[i].calibration);
				goto out;
			}
		b->n_cases = ++i;
	}
out:
	cJSON_Delete(root);
	if (st != SC_OK)
		reg_baselines_free(b);
	return st;
}

cJSON *reg_baselines_json(const struct reg_run *run)
{
	cJSON *root = cJSON_CreateObject(), *cases = cJSON_CreateArray();

	if (!root || !cases) {
		cJSON_Delete(root);
		cJSON_Delete(cases);
		return NULL;
	}
	cJSON_AddNumberToObject(root, "schema_version", 1);
	cJSON_AddStringToObject(root, "description",
				"stepcast regress baselines: each pinned scenario (scenarios/) predicted "
				"with each committed calibration profile of its GPU family. Written by "
				"`stepcast regress --update`; review the diff before committing it.");
	cJSON_AddItemToObject(root, "cases", cases);
	for (int i = 0; i < run->n_cases; i++) {
		const struct reg_case *c = &run->cases[i];
		cJSON *o = cfg_json_push(cases, cJSON_CreateObject()), *m;

		if (!o) {
			cJSON_Delete(root);
			return NULL;
		}
		cJSON_AddStringToObject(o, "scenario", c->scenario);
		cJSON_AddStringToObject(o, "calibration", c->calibration);
		if (c->failed) {
			cJSON_AddStringToObject(o, "error", c->error);
			continue;
		}
		if (!(m = cJSON_AddObjectToObject(o, "metrics"))) {
			cJSON_Delete(root);
			return NULL;
		}
		for (int k = 0; k < REG_N_METRICS; k++)
			cJSON_AddNumberToObject(m, reg_metric_name(k), c->metric[k]);
	}
	return root;
}

static const struct reg_case *find(const struct reg_case *cases, int n, const struct reg_case *c)
{
	for (int i = 0; i < n; i++)
		if (!strcmp(cases[i].scenario, c->scenario) && !strcmp(cases[i].calibration, c->calibration))
			return &cases[i];
	return NULL;
}

enum sc_status reg_compare(const struct reg_run *run, const struct reg_baselines *b,
			   double tol, struct reg_report *rep, struct sc_error *err)
{
	memset(rep, 0, sizeof(*rep));
	rep->tolerance_rel = tol;
	rep->results = calloc((size_t)(run->n_cases + b->n_cases) + 1, sizeof(*rep->results));
	if (!rep->results)
		return sc_error_set(err, SC_ENOMEM, NULL, NULL, "out of memory");
	for (int i = 0; i < run->n_cases; i++) {
		struct reg_result *r = &rep->results[rep->n_results++];
		const struct reg_case *c = &run->cases[i];

		r->now = c;
		r->baseline = find(b->cases, b->n_cases, c);
		if (!r->baseline) {
			r->status = REG_NEW;
		} else if (c->failed || r->baseline->failed) {
			r->status = c->failed == r->baseline->failed && !strcmp(c->error, r->baseline->error)
					    ? REG_HELD : REG_CHANGED;
		} else {
			for (int k = 0; k < REG_N_METRICS; k++) {
				double was = r->baseline->metric[k], is = c->metric[k];
				double d = fabs(is - was);
				if (d > tol * fabs(was) && d > 1e-12 * fmax(1.0, fabs(was))) {
					struct reg_move *mv = &r->moves[r->n_moves++];
					mv->metric = k;
					mv->baseline = was;
					mv->now = is;
				}
			}
			r->status = r->n_moves ? REG_MOVED : REG_HELD;
		}
		rep->n_failed += r->status != REG_HELD;
	}
	for (int i = 0; i < b->n_cases; i++) {
		if (find(run->cases, run->n_cases, &b->cases[i]))
			continue;
		rep->results[rep->n_results].baseline = &b->cases[i];
		rep->results[rep->n_results++].status = REG_STALE;
		rep->n_failed++;
	}
	return SC_OK;
}

void reg_report_free(struct reg_report *rep)
{
	free(rep->results);
	memset(rep, 0, sizeof(*rep));
}

const char *reg_status_name(enum reg_status s)
{
	switch (s) {
	case REG_HELD: return "held";
	case REG_MOVED: return "moved";
	case REG_NEW: return "new";
	case REG_STALE: return "stale";
	case REG_CHANGED: return "changed";
	}
	return "?";
}
