/* part.c: search metadata, the JSONL form of a search result and the merge
 * of shards (see part.h). */
#include "part.h"

#include <errno.h>
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "../config/catalog_load.h"
#include "../config/scenario_load.h"
#include "../config/rpt_num.h" /* after cJSON: output numbers checked */

#define REQ CFG_REQUIRED
#define POS CFG_POSITIVE
#define NONNEG CFG_NONNEG

static const struct cfg_field space_fields[] = {
	CFG_F_INT(struct search_space, max_tp, REQ | POS, "largest tp"),
	CFG_F_INT(struct search_space, max_cp, REQ | POS, "largest cp"),
	CFG_F_INT(struct search_space, max_pp, REQ | POS, "largest pp"),
	CFG_F_INT(struct search_space, max_vpp, REQ | POS, "largest vpp"),
	CFG_F_INT(struct search_space, max_ep, REQ | POS, "largest ep"),
	CFG_F_INT(struct search_space, max_micro_batch, REQ | POS, "largest micro-batch"),
	CFG_F_INT_RANGE(struct search_space, recompute_mask, REQ, 1, 7, "recompute modes searched (bit mask)"),
	CFG_F_INT_RANGE(struct search_space, zero_mask, REQ, 1, 15, "ZeRO stages searched (bit mask)"),
	CFG_F_INT_RANGE(struct search_space, schedule_mask, REQ, 1, 63, "pipeline schedules searched (bit mask of enum sc_schedule)"),
	CFG_END
};

const struct cfg_field cfg_search_meta_fields[] = {
	CFG_F_STR(struct search_meta, stepcast_version, REQ, "version of stepcast that searched"),
	CFG_F_STR(struct search_meta, scenario, REQ, "the scenario's name"),
	CFG_F_STR(struct search_meta, model, REQ, "model name"),
	CFG_F_INT(struct search_meta, layers, REQ | POS, "decoder layers"),
	CFG_F_INT(struct search_meta, hidden, REQ | POS, "hidden size"),
	CFG_F_BOOL(struct search_meta, moe, REQ, "mixture of experts"),
	CFG_F_STR(struct search_meta, instance, REQ, "instance type"),
	CFG_F_STR(struct search_meta, gpu, REQ, "GPU"),
	CFG_F_INT(struct search_meta, gpus_per_node, REQ | POS, "GPUs per instance"),
	CFG_F_INT(struct search_meta, nvlink_domain_gpus, REQ | POS, "GPUs per NVLink domain"),
	CFG_F_INT(struct search_meta, nodes, REQ | POS, "instances"),
	CFG_F_INT(struct search_meta, gpus, REQ | POS, "GPUs"),
	CFG_F_STR(struct search_meta, fabric, REQ, "fabric"),
	CFG_F_STR(struct search_meta, calibration, REQ, "calibration profile"),
	CFG_F_INT(struct search_meta, seq_len, REQ | POS, "tokens per sequence"),
	CFG_F_INT(struct search_meta, global_batch_seqs, REQ | POS, "sequences per step"),
	CFG_F_ENUM(struct search_meta, precision, REQ, sc_precision_names, "training precision"),
	CFG_F_NUM(struct search_meta, tokens, REQ | NONNEG, "token budget (0: none)"),
	CFG_F_ENUM(struct search_meta, objective, REQ, search_objective_names, "ranking objective"),
	CFG_F_INT(struct search_meta, top, REQ | POS, "rows kept"),
	CFG_F_ENUM(struct search_meta, pricing, REQ, plan_pricing_names, "pricing model"),
	CFG_F_NUM(struct search_meta, usd_per_h, REQ | POS, "the cluster's price per hour, USD"),
	CFG_F_OBJ(struct search_meta, price, REQ, cfg_price_fields, "the instance's price with its date and source"),
	CFG_F_OBJ(struct search_meta, space, REQ, space_fields, "the layouts enumerated"),
	CFG_F_NUM_RANGE(struct search_meta, confidence, REQ, 0.0, 1.0, "confidence of the tie marks (model_band_order)"),
	CFG_F_INT(struct search_meta, shard, REQ | NONNEG, "this part's shard K"),
	CFG_F_INT(struct search_meta, shards, REQ | POS, "number of shards N"),
	CFG_END
};

static const struct cfg_field train_fields[] = {
	CFG_F_NUM(struct plan_train, tokens, REQ | NONNEG, "token budget"),
	CFG_F_NUM(struct plan_train, time_s, REQ | NONNEG, "wall-clock time to train"),
	CFG_F_NUM(struct plan_train, productive_s, REQ | NONNEG, "productive part of it"),
	CFG_F_NUM(struct plan_train, goodput, REQ | NONNEG, "productive / wall-clock"),
	CFG_F_NUM(struct plan_train, steps, REQ | NONNEG, "optimizer steps"),
	CFG_F_NUM(struct plan_train, gpu_hours, REQ | NONNEG, "GPU-hours"),
	CFG_F_NUM(struct plan_train, usd_per_h, REQ | NONNEG, "cluster price per hour, USD"),
	CFG_F_NUM(struct plan_train, usd_total, REQ | NONNEG, "cost to train, USD"),
	CFG_F_NUM(struct plan_train, usd_per_mtoken, REQ | NONNEG, "USD per million tokens"),
	CFG_END
};

static const struct cfg_field band_fields[] = {
	CFG_F_NUM(struct model_band, log_bias, REQ, "mean of ln(measured / predicted)"),
	CFG_F_NUM(struct model_band, log_sigma, REQ | NONNEG, "standard deviation of ln(measured / predicted)"),
	CFG_END
};

const struct cfg_field cfg_search_row_fields[] = {
	CFG_F_OBJ(struct search_row, layout, REQ, cfg_layout_fields, "the layout (a scenario layout object)"),
	CFG_F_INT(struct search_row, micro_batch_seqs, REQ | POS, "sequences per micro-batch"),
	CFG_F_ENUM(struct search_row, recompute, REQ, sc_recompute_names, "activation recompute"),
	CFG_F_NUM(struct search_row, step_time_s, REQ | POS, "step time"),
	CFG_F_NUM(struct search_row, tokens_per_s, REQ | POS, "throughput"),
	CFG_F_NUM(struct search_row, mfu, REQ | NONNEG, "model FLOPs utilisation"),
	CFG_F_NUM(struct search_row, mem_total_bytes, REQ | NONNEG, "memory per GPU"),
	CFG_F_NUM(struct search_row, mem_capacity_bytes, REQ | NONNEG, "GPU memory"),
	CFG_F_INT(struct search_row, micro_batches, REQ | POS, "micro-batches per step"),
	CFG_F_NUM(struct search_row, bubble_fraction, REQ | NONNEG, "pipeline bubble over busy time"),
	CFG_F_OBJ(struct search_row, train, REQ, train_fields, "time and cost to train the budget"),
	CFG_F_NUM(struct search_row, usd_per_mtoken, REQ | NONNEG, "USD per million tokens at this throughput"),
	CFG_F_NUM(struct search_row, score, REQ, "the objective (lower is better)"),
	CFG_F_OBJ(struct search_row, band, REQ, band_fields, "the band of the step time (sim_step_band), for the tie marks"),
	CFG_END
};

/* Stats are counts that may pass 2^31: read by hand as integers. */
/* "shapes" is left out: shards prepare shapes more than once, so it does
 * not add up to the unsharded run's. */
static const char *const stats_keys[] = { "layouts", "oom", "predicted", "rejected", NULL };

static long long *stats_slot(struct search_stats *st, int i)
{
	switch (i) {
	case 0: return &st->layouts;
	case 1: return &st->oom;
	case 2: return &st->predicted;
	default: return &st->rejected;
	}
}

void search_meta_of(const struct scenario *sc, const struct search_opts *o,
		    struct search_meta *out)
{
	const struct instance_spec *inst = &sc->cluster.instance;
	int domain = inst->nvlink_domain_gpus > 0 ? inst->nvlink_domain_gpus : inst->gpus_per_node;

	memset(out, 0, sizeof(*out));
	snprintf(out->stepcast_version, sizeof(out->stepcast_version), "%s", STEPCAST_VERSION);
	snprintf(out->scenario, sizeof(out->scenario), "%s", sc->name);
	snprintf(out->model, sizeof(out->model), "%s", sc->model.name);
	out->layers = sc->model.layers;
	out->hidden = sc->model.hidden;
	out->moe = model_is_moe(&sc->model);
	snprintf(out->instance, sizeof(out->instance), "%s", inst->name);
	snprintf(out->gpu, sizeof(out->gpu), "%s", sc->cluster.gpu.name);
	out->gpus_per_node = inst->gpus_per_node;
	out->nvlink_domain_gpus = domain;
	out->nodes = sc->cluster.nodes;
	out->gpus = scenario_gpus(sc);
	snprintf(out->fabric, sizeof(out->fabric), "%s", sc->cluster.fabric.name);
	snprintf(out->calibration, sizeof(out->calibration), "%s", sc->calibration.name);
	out->seq_len = sc->training.seq_len;
	out->global_batch_seqs = sc->training.global_batch_seqs;
	out->precision = sc->training.precision;
	out->tokens = o->tokens;
	out->objective = o->objective;
	out->top = o->top;
	out->pricing = o->pricing;
	out->usd_per_h = plan_cluster_usd_per_h(inst, sc->cluster.nodes, o->pricing);
	out->price = inst->price;
	search_space_resolve(sc, &o->space, &out->space);
	out->confidence = o->confidence > 0 && o->confidence < 1 ? o->confidence : MODEL_DECISION_CONFIDENCE;
	out->shard = o->shard;
	out->shards = o->shards;
}

/* ---- writing ---------------------------------------------------------------------- */

/* cJSON prints a double with 15 significant digits when that reads back
 * within an epsilon, which is not always the same double; a merge must see
 * the very numbers the shards computed.  So every number is turned into raw
 * text: the shortest of %.15g, %.16g, %.17g that strtod turns back into the
 * same bits. */
static bool exact_numbers(cJSON *node)
{
	for (cJSON *c = node ? node->child : NULL; c; c = c->next) {
		if (cJSON_IsNumber(c)) {
			char buf[40];
			double v = c->valuedouble;
			char *raw;

			if (!isfinite(v)) {
				/* as cJSON prints them; the reader refuses them */
				snprintf(buf, sizeof(buf), "null");
			} else {
				for (int prec = 15; prec <= 17; prec++) {
					snprintf(buf, sizeof(buf), "%.*g", prec, v);
					if (strtod(buf, NULL) == v)
						break;
				}
			}
			raw = cJSON_malloc(strlen(buf) + 1);
			if (!raw)
				return false;
			memcpy(raw, buf, strlen(buf) + 1);
			c->type = cJSON_Raw;
			c->valuestring = raw;
		} else if (!exact_numbers(c)) {
			return false;
		}
	}
	return true;
}

static cJSON *exact(cJSON *o)
{
	if (o && !exact_numbers(o)) {
		cJSON_Delete(o);
		return NULL;
	}
	return o;
}

cJSON *search_row_to_json(const struct search_row *row)
{
	cJSON *o = cfg_to_json(cfg_search_row_fields, row), *parts;

	if (!o)
		return NULL;
	if (!cJSON_AddNumberToObject(o, "index", (double)row->index) ||
	    !cJSON_AddStringToObject(o, "bottleneck", bottleneck_name(row->bottleneck)) ||
	    !(parts = cJSON_AddObjectToObject(o, "breakdown_s"))) {
		cJSON_Delete(o);
		return NULL;
	}
	for (int i = 0; i < PART_COUNT; i++) {
		if (!cJSON_AddNumberToObject(parts, step_part_name((enum step_part)i), row->part_s[i])) {
			cJSON_Delete(o);
			return NULL;
		}
	}
	return exact(o);
}

cJSON *search_meta_to_json(const struct search_meta *meta)
{
	return exact(cfg_to_json(cfg_search_meta_fields, meta));
}

cJSON *search_stats_to_json(const struct search_stats *st)
{
	cJSON *o = cJSON_CreateObject();
	struct search_stats copy = *st;

	if (!o)
		return NULL;
	for (int i = 0; stats_keys[i]; i++) {
		if (!cJSON_AddNumberToObject(o, stats_keys[i], (double)*stats_slot(&copy, i))) {
			cJSON_Delete(o);
			return NULL;
		}
	}
	return exact(o);
}

/* ---- reading ---------------------------------------------------------------------- */

/* An integer 0 <= v <= 2^53 (exact in a double) at item. */
static enum sc_status read_count(struct cfg_reader *rd, const cJSON *item, const char *where,
				 long long *out)
{
	double v;

	if (!cJSON_IsNumber(item))
		return sc_error_set(rd->err, SC_EINVAL, rd->file, where,
				    "expected a number, got %s", cfg_json_type_name(item));
	v = item->valuedouble;
	if (!isfinite(v) || v < 0 || v != floor(v) || v > 9007199254740992.0)
		return sc_error_set(rd->err, SC_EINVAL, rd->file, where,
				    "expected a non-negative integer, got %.17g", v);
	*out = (long long)v;
	return SC_OK;
}

static enum sc_status read_row(struct cfg_reader *rd, cJSON *obj, struct search_row *row)
{
	cJSON *index, *bneck, *parts;
	const char *part_names[PART_COUNT + 1];
	enum sc_status st = SC_OK;
	bool found = false;

	memset(row, 0, sizeof(*row));
	if (!cJSON_IsObject(obj))
		return sc_error_set(rd->err, SC_EINVAL, rd->file, "/",
				    "expected an object, got %s", cfg_json_type_name(obj));
	/* the three keys outside the table */
	index = cJSON_DetachItemFromObjectCaseSensitive(obj, "index");
	bneck = cJSON_DetachItemFromObjectCaseSensitive(obj, "bottleneck");
	parts = cJSON_DetachItemFromObjectCaseSensitive(obj, "breakdown_s");
	if (!index)
		st = sc_error_set(rd->err, SC_EINVAL, rd->file, "/index", "missing key \"index\"");
	else if (!bneck)
		st = sc_error_set(rd->err, SC_EINVAL, rd->file, "/bottleneck",
				  "missing key \"bottleneck\"");
	else if (!parts)
		st = sc_error_set(rd->err, SC_EINVAL, rd->file, "/breakdown_s",
				  "missing key \"breakdown_s\"");
	if (st == SC_OK)
		st = read_count(rd, index, "/index", &row->index);
	if (st == SC_OK && !cJSON_IsString(bneck))
		st = sc_error_set(rd->err, SC_EINVAL, rd->file, "/bottleneck",
				  "expected a string, got %s", cfg_json_type_name(bneck));
	if (st == SC_OK) {
		for (int i = 0; i < BOTTLENECK_COUNT; i++) {
			if (strcmp(bneck->valuestring, bottleneck_name((enum bottleneck)i)) == 0) {
				row->bottleneck = (enum bottleneck)i;
				found = true;
			}
		}
		if (!found)
			st = sc_error_set(rd->err, SC_EINVAL, rd->file, "/bottleneck",
					  "unknown bottleneck \"%s\"", bneck->valuestring);
	}
	if (st == SC_OK) {
		for (int i = 0; i < PART_COUNT; i++)
			part_names[i] = step_part_name((enum step_part)i);
		part_names[PART_COUNT] = NULL;
		st = cfg_check_keys(rd, parts, part_names, "/breakdown_s");
	}
	for (int i = 0; st == SC_OK && i < PART_COUNT; i++) {
		const cJSON *v = cJSON_GetObjectItemCaseSensitive(parts, part_names[i]);
		char where[SC_ERROR_PTR_MAX];

		cfg_pointer_key(where, sizeof(where), "/breakdown_s", part_names[i]);
		if (!v)
			st = sc_error_set(rd->err, SC_EINVAL, rd->file, where,
					  "missing key \"%s\"", part_names[i]);
		else if (!cJSON_IsNumber(v) || !isfinite(v->valuedouble) || v->valuedouble < 0)
			st = sc_error_set(rd->err, SC_EINVAL, rd->file, where,
					  "expected a non-negative number, got %s",
					  cfg_json_type_name(v));
		else
			row->part_s[i] = v->valuedouble;
	}
	cJSON_Delete(index);
	cJSON_Delete(bneck);
	cJSON_Delete(parts);
	if (st != SC_OK)
		return st;
	return cfg_read_object(rd, obj, cfg_search_row_fields, row, "");
}

static enum sc_status read_stats(struct cfg_reader *rd, const cJSON *obj, struct search_stats *st)
{
	enum sc_status s = cfg_check_keys(rd, obj, stats_keys, "/stats");

	memset(st, 0, sizeof(*st));
	for (int i = 0; s == SC_OK && stats_keys[i]; i++) {
		const cJSON *v = cJSON_GetObjectItemCaseSensitive(obj, stats_keys[i]);
		char where[SC_ERROR_PTR_MAX];

		cfg_pointer_key(where, sizeof(where), "/stats", stats_keys[i]);
		if (!v)
			s = sc_error_set(rd->err, SC_EINVAL, rd->file, where,
					 "missing key \"%s\"", stats_keys[i]);
		else
			s = read_count(rd, v, where, stats_slot(st, i));
	}
	return s;
}

enum sc_status search_part_read(const char *path, struct search_meta *meta,
				struct search_result *res, struct sc_error *err)
{
	size_t len = 0;
	char *buf;
	enum sc_status st;

	memset(res, 0, sizeof(*res));
	memset(meta, 0, sizeof(*meta));
	sc_error_clear(err);
	buf = cfg_read_file(path, &len, err);
	if (!buf)
		return err ? err->status : SC_EIO;
	st = search_part_parse(path, buf, len, meta, res, err);
	free(buf);
	return st;
}

enum sc_status search_part_parse(const char *path, const char *buf, size_t len,
				 struct search_meta *meta, struct search_result *res,
				 struct sc_error *err)
{
	char name[SC_ERROR_FILE_MAX];
	size_t pos = 0;
	int line = 0;
	bool have_meta = false, have_stats = false;
	enum sc_status st = SC_OK;
	struct cfg_reader rd = { name, err, NULL };

	memset(res, 0, sizeof(*res));
	memset(meta, 0, sizeof(*meta));
	sc_error_clear(err);
	if (len > (size_t)CFG_MAX_FILE_BYTES)
		return sc_error_set(err, SC_EINVAL, path, NULL, "file is %zu bytes, more than the %ld-byte limit",
				    len, CFG_MAX_FILE_BYTES);
	while (st == SC_OK && pos < len) {
		size_t end = pos;
		cJSON *obj;

		while (end < len && buf[end] != '\n')
			end++;
		line++;
		snprintf(name, sizeof(name), "%s:%d", path, line);
		if (end == pos) {
			st = sc_error_set(err, SC_EINVAL, name, NULL, "empty line (a JSONL file has one object per line)");
			break;
		}
		if (have_stats) {
			st = sc_error_set(err, SC_EINVAL, name, NULL, "a line after the \"stats\" line");
			break;
		}
		obj = cfg_parse_buffer(name, buf + pos, end - pos, err);
		pos = end + 1;
		if (!obj) {
			st = err ? err->status : SC_EINVAL;
			break;
		}
		if (!cJSON_IsObject(obj)) {
			st = sc_error_set(err, SC_EINVAL, name, "/", "expected an object, got %s",
					  cfg_json_type_name(obj));
		} else if (!have_meta) {
			static const char *const keys[] = { "stepcast_search", "meta", NULL };
			const cJSON *v = cJSON_GetObjectItemCaseSensitive(obj, "stepcast_search");
			const cJSON *m = cJSON_GetObjectItemCaseSensitive(obj, "meta");

			st = cfg_check_keys(&rd, obj, keys, "");
			if (st == SC_OK && !cJSON_IsNumber(v))
				st = sc_error_set(err, SC_EINVAL, name, "/stepcast_search",
						  "not a stepcast search result (version %d expected on the first line)",
						  SEARCH_PART_VERSION);
			else if (st == SC_OK && v->valuedouble != SEARCH_PART_VERSION)
				st = sc_error_set(err, SC_EINVAL, name, "/stepcast_search",
						  "search part version %.10g; this stepcast reads version %d (run the search again)",
						  v->valuedouble, SEARCH_PART_VERSION);
			if (st == SC_OK && !m)
				st = sc_error_set(err, SC_EINVAL, name, "/meta", "missing key \"meta\"");
			if (st == SC_OK)
				st = cfg_read_object(&rd, m, cfg_search_meta_fields, meta, "/meta");
			if (st == SC_OK && (meta->shard >= meta->shards))
				st = sc_error_set(err, SC_EINVAL, name, "/meta/shard",
						  "shard %d is not below shards %d", meta->shard, meta->shards);
			if (st == SC_OK)
				st = search_result_init(res, meta->top, err);
			have_meta = st == SC_OK;
		} else if (cJSON_GetObjectItemCaseSensitive(obj, "stats")) {
			static const char *const keys[] = { "stats", NULL };

			st = cfg_check_keys(&rd, obj, keys, "");
			if (st == SC_OK)
				st = read_stats(&rd, cJSON_GetObjectItemCaseSensitive(obj, "stats"),
						&res->stats);
			have_stats = st == SC_OK;
		} else {
			struct search_row row;

			st = read_row(&rd, obj, &row);
			if (st == SC_OK && res->n_rows >= res->cap)
				st = sc_error_set(err, SC_EINVAL, name, NULL,
						  "more rows than the search's top %d", res->cap);
			if (st == SC_OK && row.index % meta->shards != meta->shard)
				st = sc_error_set(err, SC_EINVAL, name, "/index",
						  "layout %lld does not belong to shard %d of %d",
						  row.index, meta->shard, meta->shards);
			if (st == SC_OK && res->n_rows > 0) {
				const struct search_row *prev = &res->rows[res->n_rows - 1];

				if (row.score < prev->score ||
				    (row.score == prev->score && row.index <= prev->index))
					st = sc_error_set(err, SC_EINVAL, name, NULL,
							  "rows are not in rank order (best first)");
			}
			if (st == SC_OK)
				res->rows[res->n_rows++] = row;
		}
		cJSON_Delete(obj);
	}
	if (st == SC_OK && !have_meta)
		st = sc_error_set(err, SC_EINVAL, path, NULL, "empty file: expected a stepcast search result");
	else if (st == SC_OK && !have_stats)
		st = sc_error_set(err, SC_EINVAL, path, NULL,
				  "no \"stats\" line at the end (was the search interrupted?)");
	return st;
}

/* Two metas describe the same search (all but the shard). */
static bool same_search(const struct search_meta *a, const struct search_meta *b)
{
	struct search_meta x = *a, y = *b;

	x.shard = y.shard = 0;
	/* compare field by field through the JSON form: padding-free */
	cJSON *ja = search_meta_to_json(&x), *jb = search_meta_to_json(&y);
	bool same = ja && jb && cJSON_Compare(ja, jb, true);

	cJSON_Delete(ja);
	cJSON_Delete(jb);
	return same;
}

enum sc_status search_merge(const char *const *paths, int n, struct search_meta *meta,
			    struct search_result *res, struct sc_error *err)
{
	struct search_meta pm;
	struct search_result part;
	char *seen = NULL;
	enum sc_status st = SC_OK;

	memset(res, 0, sizeof(*res));
	sc_error_clear(err);
	if (n < 1)
		return sc_error_set(err, SC_EINVAL, NULL, NULL, "no parts to merge");
	for (int i = 0; i < n && st == SC_OK; i++) {
		st = search_part_read(paths[i], &pm, &part, err);
		if (st != SC_OK) {
			search_result_free(&part);
			break;
		}
		if (i == 0) {
			*meta = pm;
			st = search_result_init(res, pm.top, err);
			if (st == SC_OK && !(seen = calloc((size_t)pm.shards, 1)))
				st = sc_error_set(err, SC_ENOMEM, NULL, NULL, "out of memory");
		} else if (!same_search(meta, &pm)) {
			st = sc_error_set(err, SC_EINVAL, paths[i], "/meta",
					  "not a shard of the same search as %s (scenario, options, version or shard count differ)",
					  paths[0]);
		}
		if (st == SC_OK && seen[pm.shard])
			st = sc_error_set(err, SC_EINVAL, paths[i], "/meta/shard",
					  "shard %d of %d is given twice", pm.shard, pm.shards);
		if (st == SC_OK) {
			seen[pm.shard] = 1;
			for (int r = 0; r < part.n_rows; r++)
				search_offer(res, &part.rows[r]);
			res->stats.layouts += part.stats.layouts;
			res->stats.oom += part.stats.oom;
			res->stats.predicted += part.stats.predicted;
			res->stats.rejected += part.stats.rejected;
		}
		search_result_free(&part);
	}
	for (int k = 0; st == SC_OK && k < meta->shards; k++)
		if (!seen[k])
			st = sc_error_set(err, SC_EINVAL, NULL, NULL,
					  "shard %d of %d is missing", k, meta->shards);
	free(seen);
	if (st == SC_OK) {
		meta->shard = 0;
		meta->shards = 1;
		/* against the whole search's best, as the unsharded run marks them */
		search_mark_ties(res, meta->objective, meta->confidence);
	}
	return st;
}
