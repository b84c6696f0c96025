/* serve_datasets.c: the dataset catalogue (see serve_datasets.h). */
#include "serve_datasets.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../models/limits.h"

#define REQ CFG_REQUIRED
#define NUL CFG_NULLABLE
#define POS CFG_POSITIVE
#define NONNEG CFG_NONNEG

static const char *const kinds[] = { "sampled", "synthetic", "mlperf", NULL };

const struct cfg_field cfg_dataset_length_fields[] = {
	CFG_F_NUM_RANGE(struct srv_length_stat, mean, NUL | POS, 0, SC_MAX_SEQ_LEN, "published mean, tokens (null: not published)"),
	CFG_F_NUM_RANGE(struct srv_length_stat, sd, NUL | NONNEG, 0, SC_MAX_SEQ_LEN, "published standard deviation, tokens (null: not published)"),
	CFG_F_INT_RANGE(struct srv_length_stat, min, REQ | POS, 1, SC_MAX_SEQ_LEN, "smallest length, tokens"),
	CFG_F_INT_RANGE(struct srv_length_stat, max, NUL | POS, 1, SC_MAX_SEQ_LEN, "largest length, tokens (null: no bound published)"),
	CFG_END
};

const struct cfg_field cfg_dataset_tok_fields[] = {
	CFG_F_STR(struct srv_dataset_tok, tokenizer, REQ, "tokenizer the lengths are counted in (\"any\" for synthetic token ids)"),
	CFG_F_OBJ(struct srv_dataset_tok, input_tokens, REQ, cfg_dataset_length_fields, "prompt lengths"),
	CFG_F_OBJ(struct srv_dataset_tok, output_tokens, REQ, cfg_dataset_length_fields, "output lengths"),
	CFG_F_STR(struct srv_dataset_tok, source, REQ, "where the statistics come from"),
	CFG_END
};

const struct cfg_field cfg_dataset_server_fields[] = {
	CFG_F_NUM(struct srv_mlperf_server, ttft_p99_ms, NUL | POS, "MLPerf Server p99 time-to-first-token limit, ms (null: none)"),
	CFG_F_NUM(struct srv_mlperf_server, tpot_p99_ms, NUL | POS, "MLPerf Server p99 time-per-output-token limit, ms (null: none)"),
	CFG_F_NUM(struct srv_mlperf_server, latency_p99_s, REQ | POS, "MLPerf Server latency constraint, s"),
	CFG_F_STR(struct srv_mlperf_server, source, REQ, "where the limits come from"),
	CFG_END
};

const struct cfg_field cfg_dataset_fields[] = {
	CFG_F_STR(struct srv_dataset, name, REQ, "dataset name, e.g. sharegpt"),
	CFG_F_STR(struct srv_dataset, description, REQ, "what the workload is"),
	CFG_F_INT_RANGE(struct srv_dataset, samples, NUL | POS, 1, SC_MAX_REQUESTS * 100, "prompts in the dataset, count (null: not stated)"),
	CFG_F_ENUM(struct srv_dataset, kind, REQ, kinds, "sampled, synthetic or mlperf"),
	CFG_F_ARRAY(struct srv_dataset, tokenizers, n_tokenizers, REQ, cfg_dataset_tok_fields, "length statistics per tokenizer; the first is the default"),
	{ "mlperf_server", CFG_OBJECT, 0, offsetof(struct srv_dataset, mlperf_server), 0, NULL,
	  cfg_dataset_server_fields, NULL, 0, 0, "MLPerf Server scenario limits", 0, 0 },
	CFG_END
};

static bool given(const cJSON *obj, const char *key)
{
	const cJSON *v = obj ? cJSON_GetObjectItemCaseSensitive(obj, key) : NULL;

	return v && !cJSON_IsNull(v);
}

static void unset(struct srv_length_stat *s)
{
	s->mean = 0;
	s->sd = -1;
	s->min = 1;
	s->max = 0;
}

static enum sc_status check_stat(const char *path, const char *where, const struct srv_length_stat *s,
				 struct sc_error *err)
{
	if (s->max > 0 && s->min > s->max)
		return sc_error_set(err, SC_EINVAL, path, where, "min %d is above max %d", s->min, s->max);
	if (s->max > 0 && s->mean > 0 && (s->mean < s->min || s->mean > s->max))
		return sc_error_set(err, SC_EINVAL, path, where, "the mean %g is outside [%d, %d]", s->mean,
				    s->min, s->max);
	return SC_OK;
}

/* cfg_item_reader for /datasets/i: its fields, the statistics not
 * published told apart from 0, a name no entry above has, and each
 * tokenizer's statistics consistent and named once. */
static enum sc_status read_dataset_entry(struct cfg_reader *rd, const cJSON *item, int i,
					 const char *where, void *ctx)
{
	struct srv_datasets *out = ctx;
	struct srv_dataset *d = &out->d[i];
	const char *path = rd->file;
	char sub[SC_ERROR_PTR_MAX];
	enum sc_status st;

	for (int k = 0; k < SRV_DATASET_TOKENIZERS; k++) {
		unset(&d->tokenizers[k].input_tokens);
		unset(&d->tokenizers[k].output_tokens);
	}
	if ((st = cfg_read_object(rd, item, cfg_dataset_fields, d, where)) != SC_OK)
		return st;
	d->has_mlperf_server = cJSON_GetObjectItemCaseSensitive(item, "mlperf_server") != NULL;
	/* null and absent both mean "not published": the reader leaves
	 * 0, which for sd would mean fixed lengths */
	{
		const cJSON *toks = cJSON_GetObjectItemCaseSensitive(item, "tokenizers"), *t;
		int k = 0;

		cJSON_ArrayForEach(t, toks) {
			if (k >= d->n_tokenizers)
				break;
			if (!given(cJSON_GetObjectItemCaseSensitive(t, "input_tokens"), "sd"))
				d->tokenizers[k].input_tokens.sd = -1;
			if (!given(cJSON_GetObjectItemCaseSensitive(t, "output_tokens"), "sd"))
				d->tokenizers[k].output_tokens.sd = -1;
			k++;
		}
	}
	for (int j = 0; j < i; j++)
		if (strcmp(out->d[j].name, d->name) == 0) {
			cfg_pointer_key(sub, sizeof(sub), where, "name");
			return sc_error_set(rd->err, SC_EINVAL, path, sub, "duplicate dataset \"%s\"", d->name);
		}
	for (int k = 0; k < d->n_tokenizers; k++) {
		snprintf(sub, sizeof(sub), "%s/tokenizers/%d/input_tokens", where, k);
		if ((st = check_stat(path, sub, &d->tokenizers[k].input_tokens, rd->err)) != SC_OK)
			return st;
		snprintf(sub, sizeof(sub), "%s/tokenizers/%d/output_tokens", where, k);
		if ((st = check_stat(path, sub, &d->tokenizers[k].output_tokens, rd->err)) != SC_OK)
			return st;
		for (int j = 0; j < k; j++)
			if (strcmp(d->tokenizers[j].tokenizer, d->tokenizers[k].tokenizer) == 0) {
				snprintf(sub, sizeof(sub), "%s/tokenizers/%d/tokenizer", where, k);
				return sc_error_set(rd->err, SC_EINVAL, path, sub, "duplicate tokenizer \"%s\"",
						    d->tokenizers[k].tokenizer);
			}
	}
	return SC_OK;
}

enum sc_status srv_datasets_load(const char *dir, struct srv_datasets *out, struct sc_error *err)
{
	static const char *const top[] = { "schema_version", "datasets", NULL };

	return cfg_list_file(dir, "datasets.json", top, "datasets", sizeof(*out->d), (void **)&out->d,
			     &out->n, read_dataset_entry, out, err);
}

void srv_datasets_free(struct srv_datasets *d)
{
	free(d->d);
	d->d = NULL;
	d->n = 0;
}

const struct srv_dataset *srv_dataset_find(const struct srv_datasets *d, const char *name)
{
	for (int i = 0; i < d->n; i++)
		if (strcmp(d->d[i].name, name) == 0)
			return &d->d[i];
	return NULL;
}

double srv_capped_lognormal_mean(double mean, double cv, double c)
{
	double s2 = log(1 + cv * cv), s = sqrt(s2), mu = log(mean) - 0.5 * s2;

	/* E[min(X, c)] = E[X] Phi((ln c - mu - s^2) / s) + c (1 - Phi((ln c - mu) / s)) */
	return mean * 0.5 * erfc(-(log(c) - mu - s2) / (s * 1.4142135623730951)) +
	       c * 0.5 * erfc((log(c) - mu) / (s * 1.4142135623730951));
}

double srv_lognormal_mean_for_capped(double capped, double cv, double c)
{
	double lo = capped, hi = 64 * capped;

	for (int i = 0; i < 100; i++) {
		double mid = 0.5 * (lo + hi);
		if (srv_capped_lognormal_mean(mid, cv, c) < capped)
			lo = mid;
		else
			hi = mid;
	}
	return 0.5 * (lo + hi);
}

/* E[clip(X, lo, hi)] for X normal (mu, sd). */
static double clipped_normal_mean(double mu, double sd, double lo, double hi)
{
	double a = (lo - mu) / sd, b = (hi - mu) / sd;
	double Pa = 0.5 * erfc(-a / 1.4142135623730951), Pb = 0.5 * erfc(-b / 1.4142135623730951);
	double pa = exp(-0.5 * a * a) / 2.5066282746310002, pb = exp(-0.5 * b * b) / 2.5066282746310002;

	return lo * Pa + hi * (1.0 - Pb) + mu * (Pb - Pa) + sd * (pa - pb);
}

double srv_length_mean(const struct srv_length *l)
{
	double lo = l->min > 0 ? l->min : 1, hi = l->max > 0 ? l->max : 1e9, m;

	switch (l->dist) {
	case SRV_DIST_UNIFORM:
		return 0.5 * (l->min + l->max);
	case SRV_DIST_NORMAL:
		if (!(l->sd > 0))
			break;
		return clipped_normal_mean(l->mean, l->sd, lo, hi);
	case SRV_DIST_LOGNORMAL:
		if (!(l->sd > 0) || !(l->mean > 0))
			break;
		/* the lower clip (at least one token) moves the mean by far
		 * less than a token for the lengths the catalogue holds */
		m = l->max > 0 ? srv_capped_lognormal_mean(l->mean, l->sd / l->mean, hi) : l->mean;
		return m > lo ? m : lo;
	default:
		break;
	}
	m = l->mean;
	return m < lo ? lo : m > hi ? hi : m;
}

bool srv_length_of_stat(const struct srv_length_stat *s, struct srv_length *out)
{
	memset(out, 0, sizeof(*out));
	if (s->max > 0 && s->min == s->max) {
		out->dist = SRV_DIST_FIXED;
		out->mean = s->max;
		return true;
	}
	if (s->mean > 0) {
		double cv = s->sd >= 0 ? s->sd / s->mean : 1.0;
		int cap = s->max > 0 ? s->max : (int)ceil(8 * s->mean);

		if (s->sd == 0 || s->mean >= 0.999 * cap) {
			out->dist = SRV_DIST_FIXED;
			out->mean = s->mean;
			return true;
		}
		out->dist = SRV_DIST_LOGNORMAL;
		out->min = s->min > 0 ? s->min : 1;
		out->max = cap;
		out->mean = srv_lognormal_mean_for_capped(s->mean, cv, cap);
		out->sd = cv * out->mean;
		return true;
	}
	if (s->max > 0) {
		out->dist = SRV_DIST_UNIFORM;
		out->min = s->min > 0 ? s->min : 1;
		out->max = s->max;
		out->mean = 0.5 * (out->min + out->max);
		return true;
	}
	return false;
}

enum sc_status srv_dataset_lengths(const struct srv_dataset *ds, const char *tok,
				   struct srv_length *in, struct srv_length *out,
				   const struct srv_dataset_tok **used, struct sc_error *err)
{
	const struct srv_dataset_tok *t = &ds->tokenizers[0];

	for (int k = 0; tok && tok[0] && k < ds->n_tokenizers; k++)
		if (strcmp(ds->tokenizers[k].tokenizer, tok) == 0)
			t = &ds->tokenizers[k];
	if (used)
		*used = t;
	if (!srv_length_of_stat(&t->input_tokens, in))
		return sc_error_set(err, SC_EINVAL, NULL, "/workload/dataset",
				    "dataset \"%s\" publishes neither a mean nor a bound of its prompt lengths (tokenizer %s): give workload.input_tokens",
				    ds->name, t->tokenizer);
	if (!srv_length_of_stat(&t->output_tokens, out))
		return sc_error_set(err, SC_EINVAL, NULL, "/workload/dataset",
				    "dataset \"%s\" publishes neither a mean nor a bound of its output lengths (tokenizer %s): give workload.output_tokens",
				    ds->name, t->tokenizer);
	return SC_OK;
}
