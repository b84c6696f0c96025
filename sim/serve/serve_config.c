/* serve_config.c: strict reading of engines, serving scenarios and traces
 * (see serve_config.h). */
#include "serve_config.h"
#include "serve_datasets.h"
#include "../../models/limits.h"
#include "../config/calibration_select.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "../../models/units.h"

#define REQ CFG_REQUIRED
#define POS CFG_POSITIVE
#define NONNEG CFG_NONNEG
/* kv_mem_fraction_of's values are srv_mem_basis_names (its list owns them;
 * a bad value's error lists them from it) */
#define KV_BASIS_DOC "what kv_mem_fraction is a fraction of (enum srv_mem_basis)"

static const char *const schedules[] = { "mixed", "prefill-first", "static", NULL };
static const char *const kv_policies[] = { "on-demand", "reserve", NULL };
static const char *const decode_attentions[] = { "grouped", "per-head", NULL };
static const char *const kv_dtype_rules[] = { "model", "checkpoint", NULL };
static const char *const arrivals[] = { "poisson", "concurrency", "burst", "trace", NULL };
static const char *const mlperfs[] = { "none", "offline", "server", NULL };
static const char *const dists[] = { "fixed", "uniform", "normal", "lognormal", NULL };
static const char *const routers[] = { "least-loaded", "round-robin", NULL };

const char *srv_schedule_name(enum srv_schedule s) { return schedules[s]; }
const char *srv_kv_policy_name(enum srv_kv_policy p) { return kv_policies[p]; }
const char *srv_arrival_name(enum srv_arrival a) { return arrivals[a]; }
const char *srv_dist_name(enum srv_dist d) { return dists[d]; }
const char *srv_router_name(enum srv_router r) { return routers[r]; }

int srv_scenario_gpus(const struct srv_scenario *sc)
{
	if (sc->disagg.prefill_replicas > 0)
		return sc->disagg.prefill_replicas * sc->disagg.prefill.tp * sc->disagg.prefill.pp +
		       sc->disagg.decode_replicas * sc->disagg.decode.tp * sc->disagg.decode.pp;
	return sc->replicas * sc->replica.tp * sc->replica.pp;
}

/* Replicas no larger than a node are packed whole into nodes; larger ones
 * take whole nodes each. */
static int pool_nodes(int replicas, const struct srv_layout *l, int gpn)
{
	int g = l->tp * l->pp;

	if (gpn <= 0)
		gpn = 1;
	if (g <= gpn) {
		int per = gpn / g;
		return (replicas + per - 1) / per;
	}
	return replicas * ((g + gpn - 1) / gpn);
}

int srv_scenario_nodes(const struct srv_scenario *sc)
{
	int gpn = sc->instance.gpus_per_node;

	if (sc->disagg.prefill_replicas > 0)
		return pool_nodes(sc->disagg.prefill_replicas, &sc->disagg.prefill, gpn) +
		       pool_nodes(sc->disagg.decode_replicas, &sc->disagg.decode, gpn);
	return pool_nodes(sc->replicas, &sc->replica, gpn);
}

/* ---- engines ------------------------------------------------------------------ */

const struct cfg_field cfg_engine_fields[] = {
	CFG_F_STR(struct srv_engine, name, REQ, "engine name, e.g. vllm"),
	CFG_F_INT_RANGE(struct srv_engine, max_num_seqs, REQ | POS, 1, SC_MAX_ENGINE_SEQS, "running sequences per replica, count"),
	CFG_F_INT_RANGE(struct srv_engine, max_num_batched_tokens, REQ | POS, 1, SC_MAX_ENGINE_TOKENS, "tokens per iteration, count"),
	CFG_F_BOOL(struct srv_engine, chunked_prefill, REQ, "prompts are split to fit the token budget"),
	CFG_F_ENUM(struct srv_engine, schedule, REQ, schedules, "mixed, prefill-first or static"),
	CFG_F_ENUM(struct srv_engine, kv_policy, REQ, kv_policies, "on-demand (preempt when full) or reserve (prompt and output reserved at admission)"),
	CFG_F_INT(struct srv_engine, kv_block_tokens, REQ | POS, "tokens per paged-KV block"),
	CFG_F_NUM_RANGE(struct srv_engine, kv_mem_fraction, REQ, 0.05, 1.0, "memory fraction, fraction"),
	CFG_F_ENUM(struct srv_engine, kv_mem_fraction_of, REQ, srv_mem_basis_names, KV_BASIS_DOC),
	CFG_F_STR(struct srv_engine, source, REQ, "where the defaults come from"),
	CFG_F_ENUM(struct srv_engine, decode_attention, REQ, decode_attentions, "grouped (one KV read per query-head group) or per-head (one per query head, shared only through L2)"),
	CFG_F_INT_RANGE(struct srv_engine, grouped_max_group, REQ | NONNEG, 0, 1024, "largest query-head group the grouped kernel covers (0: any), count"),
	CFG_F_BOOL(struct srv_engine, sliding_window_kv, REQ, "KV cache and attention keep only the window of a sliding-window model"),
	CFG_F_BOOL(struct srv_engine, full_window_kv_pool, 0, "attention keeps to the window but the KV pool holds every token of sliding-window layers (no sliding-window memory pool; default false)"),
	CFG_F_BOOL(struct srv_engine, context_pass_separate, 0, "new prompts run in a context pass of their own, their last token in the decode pass: two weight streams per iteration with prompts (default false)"),
	CFG_F_ENUM(struct srv_engine, kv_cache_dtype, REQ, kv_dtype_rules, "default KV format: model (the activations') or checkpoint (FP8 for FP8/NVFP4 checkpoints)"),
	CFG_F_STR(struct srv_engine, attention_source, REQ, "where the attention-kernel facts come from"),
	CFG_F_INT_RANGE(struct srv_engine, small_gpu_max_num_seqs, POS, 1, SC_MAX_ENGINE_SEQS, "max_num_seqs default on a smaller GPU, count"),
	CFG_F_INT_RANGE(struct srv_engine, small_gpu_max_num_batched_tokens, POS, 1, SC_MAX_ENGINE_TOKENS, "max_num_batched_tokens default on a smaller GPU, count"),
	CFG_F_NUM_RANGE(struct srv_engine, small_gpu_below_GiB, 0, 0.0, 1e4, "a GPU with less total memory than this takes the smaller defaults, GiB"),
	CFG_F_STR(struct srv_engine, small_gpu_names, 0, "comma-separated parts of GPU names that take the smaller defaults whatever their memory (e.g. a100)"),
	CFG_F_BOOL(struct srv_engine, attention_dp_per_rank_limits, 0, "with attention data parallelism max_num_seqs and max_num_batched_tokens are per attention rank (default false: per replica)"),
	CFG_END
};

/* A scenario's "engine" object: a catalogue name and any settings to change. */
const struct cfg_field cfg_engine_override_fields[] = {
	CFG_F_STR(struct srv_engine, name, REQ, "engine catalogue name"),
	CFG_F_INT_RANGE(struct srv_engine, max_num_seqs, POS, 1, SC_MAX_ENGINE_SEQS, "running sequences per replica, count"),
	CFG_F_INT_RANGE(struct srv_engine, max_num_batched_tokens, POS, 1, SC_MAX_ENGINE_TOKENS, "tokens per iteration, count"),
	CFG_F_BOOL(struct srv_engine, chunked_prefill, 0, "split prompts to fit the token budget"),
	CFG_F_ENUM(struct srv_engine, schedule, 0, schedules, "mixed, prefill-first or static"),
	CFG_F_ENUM(struct srv_engine, kv_policy, 0, kv_policies, "on-demand or reserve"),
	CFG_F_INT(struct srv_engine, kv_block_tokens, POS, "tokens per paged-KV block"),
	CFG_F_NUM_RANGE(struct srv_engine, kv_mem_fraction, 0, 0.05, 1.0, "memory fraction, fraction"),
	CFG_F_ENUM(struct srv_engine, kv_mem_fraction_of, 0, srv_mem_basis_names, KV_BASIS_DOC),
	CFG_F_INT_RANGE(struct srv_engine, kv_cache_tokens, NONNEG, 0, SC_MAX_KV_CACHE_TOKENS, "KV pool size per replica, tokens (0: sized by kv_mem_fraction)"),
	CFG_F_ENUM(struct srv_engine, decode_attention, 0, decode_attentions, "grouped or per-head"),
	CFG_F_INT_RANGE(struct srv_engine, grouped_max_group, NONNEG, 0, 1024, "largest query-head group the grouped kernel covers (0: any), count"),
	CFG_F_BOOL(struct srv_engine, sliding_window_kv, 0, "KV cache and attention keep only the window of a sliding-window model"),
	CFG_F_BOOL(struct srv_engine, full_window_kv_pool, 0, "attention keeps to the window but the KV pool holds every token of sliding-window layers"),
	CFG_END
};

/* A wrapper entry (NVIDIA NIM and the like): a name, the engine above it
 * in the catalogue that it runs, a source, and any settings it changes. */
const struct cfg_field cfg_engine_wrapper_fields[] = {
	CFG_F_STR(struct srv_engine, name, REQ, "engine name, e.g. nim-vllm"),
	CFG_F_STR(struct srv_engine, wraps, REQ, "the engine entry (above this one) whose defaults it runs"),
	CFG_F_STR(struct srv_engine, source, REQ, "where the wrapper's engine and defaults come from"),
	CFG_F_INT_RANGE(struct srv_engine, max_num_seqs, POS, 1, SC_MAX_ENGINE_SEQS, "running sequences per replica, count"),
	CFG_F_INT_RANGE(struct srv_engine, max_num_batched_tokens, POS, 1, SC_MAX_ENGINE_TOKENS, "tokens per iteration, count"),
	CFG_F_NUM_RANGE(struct srv_engine, kv_mem_fraction, 0, 0.05, 1.0, "memory fraction, fraction"),
	CFG_F_ENUM(struct srv_engine, kv_mem_fraction_of, 0, srv_mem_basis_names, KV_BASIS_DOC),
	CFG_END
};

/* Entry i of the catalogue; a wrapper copies the entry it names, which
 * must come before it, then reads its own fields over the copy. */
static enum sc_status read_engine_fields(struct cfg_reader *rd, const cJSON *obj,
					 struct srv_engine *above, int i, const char *where)
{
	struct srv_engine *e = &above[i];
	const cJSON *wraps = cJSON_IsObject(obj) ? cJSON_GetObjectItemCaseSensitive(obj, "wraps") : NULL;
	char wwhere[SC_ERROR_PTR_MAX];

	memset(e, 0, sizeof(*e));
	if (!wraps)
		return cfg_read_object(rd, obj, cfg_engine_fields, e, where);
	cfg_pointer_key(wwhere, sizeof(wwhere), where, "wraps");
	if (!cJSON_IsString(wraps))
		return sc_error_set(rd->err, SC_EINVAL, rd->file, wwhere, "expected a string, got %s",
				    cfg_json_type_name(wraps));
	for (int j = 0; j < i; j++)
		if (strcmp(above[j].name, wraps->valuestring) == 0 && !above[j].wraps[0]) {
			*e = above[j];
			e->source[0] = '\0';
			return cfg_read_object(rd, obj, cfg_engine_wrapper_fields, e, where);
		}
	return sc_error_set(rd->err, SC_ENOTFOUND, rd->file, wwhere,
			    "\"%s\" is not an engine entry above this one (a wrapper names the engine it runs)",
			    wraps->valuestring);
}

/* cfg_item_reader for /engines/i: its fields, and a name no entry above has. */
static enum sc_status read_engine_entry(struct cfg_reader *rd, const cJSON *item, int i,
					const char *where, void *ctx)
{
	struct srv_engines *out = ctx;
	char nwhere[SC_ERROR_PTR_MAX];
	enum sc_status st;

	if ((st = read_engine_fields(rd, item, out->engines, i, where)) != SC_OK)
		return st;
	if (out->engines[i].context_pass_separate && out->engines[i].chunked_prefill) {
		cfg_pointer_key(nwhere, sizeof(nwhere), where, "chunked_prefill");
		return sc_error_set(rd->err, SC_EINVAL, rd->file, nwhere,
				    "a separate context pass (context_pass_separate) runs prompts whole: chunked_prefill cannot be true");
	}
	for (int j = 0; j < i; j++)
		if (strcmp(out->engines[j].name, out->engines[i].name) == 0) {
			cfg_pointer_key(nwhere, sizeof(nwhere), where, "name");
			return sc_error_set(rd->err, SC_EINVAL, rd->file, nwhere,
					    "duplicate name \"%s\" (also at /engines/%d)",
					    out->engines[i].name, j);
		}
	return SC_OK;
}

enum sc_status srv_engines_load(const char *dir, struct srv_engines *out, struct sc_error *err)
{
	static const char *const top[] = { "schema_version", "engines", NULL };

	return cfg_list_file(dir, "engines.json", top, "engines", sizeof(*out->engines),
			     (void **)&out->engines, &out->n, read_engine_entry, out, err);
}

void srv_engines_free(struct srv_engines *e)
{
	free(e->engines);
	memset(e, 0, sizeof(*e));
}

/* Whether gpu takes the engine's smaller-GPU defaults: less total memory
 * than small_gpu_below_GiB, or a name containing one of small_gpu_names
 * (vLLM matches "a100" in the lowercased device name). */
static bool small_gpu(const struct srv_engine *e, const struct gpu_spec *gpu)
{
	char names[SC_NAME_MAX], *save = NULL;

	if (e->small_gpu_below_GiB > 0 && gpu->hbm_bytes < e->small_gpu_below_GiB * SC_GiB_BYTES)
		return true;
	snprintf(names, sizeof(names), "%s", e->small_gpu_names);
	for (char *t = strtok_r(names, ", ", &save); t; t = strtok_r(NULL, ", ", &save))
		if (strstr(gpu->name, t))
			return true;
	return false;
}

bool srv_engine_gpu_defaults(struct srv_engine *e, const struct gpu_spec *gpu, bool seqs_set,
			     bool tokens_set)
{
	bool changed = false;

	if (!(e->small_gpu_max_num_seqs > 0 || e->small_gpu_max_num_batched_tokens > 0) ||
	    !small_gpu(e, gpu))
		return false;
	if (!seqs_set && e->small_gpu_max_num_seqs > 0) {
		changed = changed || e->max_num_seqs != e->small_gpu_max_num_seqs;
		e->max_num_seqs = e->small_gpu_max_num_seqs;
	}
	if (!tokens_set && e->small_gpu_max_num_batched_tokens > 0) {
		changed = changed || e->max_num_batched_tokens != e->small_gpu_max_num_batched_tokens;
		e->max_num_batched_tokens = e->small_gpu_max_num_batched_tokens;
	}
	return changed;
}

int srv_engine_attention_dp_limits(struct srv_engine *e, int attention_dp)
{
	long long seqs, tokens;

	e->rank_max_num_seqs = e->max_num_seqs;
	e->rank_max_num_batched_tokens = e->max_num_batched_tokens;
	if (attention_dp <= 1 || !e->attention_dp_per_rank_limits)
		return 1;
	seqs = (long long)e->max_num_seqs * attention_dp;
	tokens = (long long)e->max_num_batched_tokens * attention_dp;
	e->max_num_seqs = seqs < SC_MAX_ENGINE_SEQS ? (int)seqs : SC_MAX_ENGINE_SEQS;
	e->max_num_batched_tokens = tokens < SC_MAX_ENGINE_TOKENS ? (int)tokens : SC_MAX_ENGINE_TOKENS;
	return attention_dp;
}

void srv_engine_pool_limits(const struct srv_engine *e, const struct srv_layout *lay, int *max_num_seqs,
			    int *max_num_batched_tokens)
{
	struct srv_engine pool = *e;

	*max_num_seqs = e->max_num_seqs;
	*max_num_batched_tokens = e->max_num_batched_tokens;
	if (!e->attention_dp_per_rank_limits || e->rank_max_num_seqs <= 0 || e->rank_max_num_batched_tokens <= 0)
		return;
	pool.max_num_seqs = e->rank_max_num_seqs;
	pool.max_num_batched_tokens = e->rank_max_num_batched_tokens;
	srv_engine_attention_dp_limits(&pool, lay->attention_dp);
	*max_num_seqs = pool.max_num_seqs;
	*max_num_batched_tokens = pool.max_num_batched_tokens;
}

const struct srv_engine *srv_engine_find(const struct srv_engines *e, const char *name)
{
	for (int i = 0; i < e->n; i++)
		if (strcmp(e->engines[i].name, name) == 0)
			return &e->engines[i];
	return NULL;
}

/* ---- scenario ------------------------------------------------------------------- */

struct read_ctx {
	const struct catalog *cat;
	const struct srv_engines *engines;
};

static enum sc_status read_model_ref(struct cfg_reader *rd, const cJSON *item, void *slot,
				     const char *where)
{
	const struct read_ctx *x = rd->ctx;
	struct srv_arch *a = slot;

	memset(a, 0, sizeof(*a));
	return cfg_ref_model(rd, x->cat, item, &a->m, where);
}

static enum sc_status read_instance_ref(struct cfg_reader *rd, const cJSON *item, void *slot,
					const char *where)
{
	const struct read_ctx *x = rd->ctx;

	return cfg_ref_instance(rd, x->cat, item, slot, where);
}

static enum sc_status read_fabric_ref(struct cfg_reader *rd, const cJSON *item, void *slot,
				      const char *where)
{
	const struct read_ctx *x = rd->ctx;

	return cfg_ref_fabric(rd, x->cat, item, slot, where);
}

static enum sc_status unknown_engine(struct cfg_reader *rd, const char *name, const char *where)
{
	const struct read_ctx *x = rd->ctx;
	const char *names[64];
	const char *hint;
	int n = 0;

	for (int i = 0; i < x->engines->n && n < 63; i++)
		names[n++] = x->engines->engines[i].name;
	names[n] = NULL;
	hint = cfg_did_you_mean(name, names);
	if (hint)
		return sc_error_set(rd->err, SC_ENOTFOUND, rd->file, where,
				    "unknown engine \"%s\" (did you mean \"%s\"?)", name, hint);
	return sc_error_set(rd->err, SC_ENOTFOUND, rd->file, where,
			    "unknown engine \"%s\" (see configs/engines.json)", name);
}

/* "engine": a catalogue name, or an object naming one with settings to change. */
static enum sc_status read_engine_ref(struct cfg_reader *rd, const cJSON *item, void *slot,
				      const char *where)
{
	const struct read_ctx *x = rd->ctx;
	struct srv_engine *e = slot;
	const struct srv_engine *base;
	const cJSON *name;
	char nwhere[SC_ERROR_PTR_MAX];

	if (cJSON_IsString(item)) {
		if (!(base = srv_engine_find(x->engines, item->valuestring)))
			return unknown_engine(rd, item->valuestring, where);
		*e = *base;
		return SC_OK;
	}
	if (!cJSON_IsObject(item))
		return sc_error_set(rd->err, SC_EINVAL, rd->file, where,
				    "expected an engine name or an engine object, got %s",
				    cfg_json_type_name(item));
	name = cJSON_GetObjectItemCaseSensitive(item, "name");
	if (!cJSON_IsString(name)) {
		/* let the table report the missing or mistyped name */
		memset(e, 0, sizeof(*e));
		return cfg_read_object(rd, item, cfg_engine_override_fields, e, where);
	}
	cfg_pointer_key(nwhere, sizeof(nwhere), where, "name");
	if (!(base = srv_engine_find(x->engines, name->valuestring)))
		return unknown_engine(rd, name->valuestring, nwhere);
	*e = *base;
	return cfg_read_object(rd, item, cfg_engine_override_fields, e, where);
}

const struct cfg_field cfg_serve_replica_fields[] = {
	CFG_F_INT_RANGE(struct srv_layout, tp, POS | CFG_NULLABLE, 1, SC_MAX_GPUS_PER_NODE, "tensor parallel size, GPUs (null or absent in \"replica\": not stated, with \"gpus\": the best layout is chosen)"),
	CFG_F_INT_RANGE(struct srv_layout, pp, POS, 1, SC_MAX_GPUS_PER_NODE, "pipeline parallel size, GPUs (default 1)"),
	CFG_F_INT_RANGE(struct srv_layout, ep, POS, 1, SC_MAX_GPUS_PER_NODE, "expert parallel size within tp, GPUs (default 1)"),
	CFG_F_INT_RANGE(struct srv_layout, attention_dp, POS, 1, SC_MAX_GPUS_PER_NODE, "attention data-parallel ranks within tp, MoE models (DeepSeek-style DP attention; default 1: off)"),
	CFG_END
};

const struct cfg_field cfg_serve_precision_fields[] = {
	CFG_F_ENUM(struct srv_precision, weights, REQ, srv_format_names, "weight format"),
	CFG_F_ENUM(struct srv_precision, activations, 0, srv_format_names, "activation (GEMM) format"),
	CFG_F_ENUM(struct srv_precision, kv_cache, 0, srv_format_names, "KV-cache format"),
	CFG_END
};

const struct cfg_field cfg_serve_length_fields[] = {
	CFG_F_ENUM(struct srv_length, dist, REQ, dists, "fixed, uniform, normal or lognormal"),
	CFG_F_NUM(struct srv_length, mean, REQ | POS, "mean, tokens"),
	CFG_F_NUM(struct srv_length, sd, NONNEG, "standard deviation, tokens"),
	CFG_F_INT_RANGE(struct srv_length, min, POS, 1, SC_MAX_SEQ_LEN, "smallest length, tokens"),
	CFG_F_INT_RANGE(struct srv_length, max, POS, 1, SC_MAX_SEQ_LEN, "largest length, tokens"),
	CFG_END
};

const struct cfg_field cfg_serve_workload_fields[] = {
	CFG_F_ENUM(struct srv_workload, arrival, REQ, arrivals, "poisson, concurrency, burst or trace"),
	CFG_F_ENUM(struct srv_workload, mlperf, 0, mlperfs, "MLPerf Inference scenario: offline (arrival burst) or server (arrival poisson; SLOs default to the dataset's limits)"),
	CFG_F_STR(struct srv_workload, dataset, 0, "named workload of configs/datasets.json: its published lengths where input_tokens or output_tokens are not given"),
	CFG_F_STR(struct srv_workload, tokenizer, 0, "which of the dataset's tokenizers' statistics (default: its first)"),
	CFG_F_NUM(struct srv_workload, rate_rps, POS, "Poisson arrival rate, requests/s"),
	CFG_F_INT_RANGE(struct srv_workload, concurrency, POS, 1, SC_MAX_REQUESTS, "closed-loop clients, count"),
	CFG_F_STR(struct srv_workload, trace, 0, "CSV trace path"),
	CFG_F_INT_RANGE(struct srv_workload, requests, POS, 1, SC_MAX_REQUESTS, "requests to simulate, count"),
	CFG_F_INT_RANGE(struct srv_workload, warmup_requests, NONNEG, 0, SC_MAX_REQUESTS, "first requests left out of the statistics, count"),
	CFG_F_OBJ(struct srv_workload, input_tokens, 0, cfg_serve_length_fields, "prompt length distribution"),
	CFG_F_OBJ(struct srv_workload, output_tokens, 0, cfg_serve_length_fields, "output length distribution"),
	CFG_F_NUM_RANGE(struct srv_workload, prefix_cache_hit_rate, 0, 0.0, 1.0, "fraction of prompt tokens found in the prefix cache"),
	CFG_F_INT(struct srv_workload, seed, NONNEG, "random seed"),
	CFG_F_BOOL(struct srv_workload, front_end, 0, "requests pass an HTTP front end (default true; false for offline benchmarks that call the engine directly)"),
	CFG_END
};

const struct cfg_field cfg_serve_slo_fields[] = {
	CFG_F_NUM(struct srv_slo, ttft_p50_ms, POS, "median time to first token, ms"),
	CFG_F_NUM(struct srv_slo, ttft_p99_ms, POS, "99th percentile time to first token, ms"),
	CFG_F_NUM(struct srv_slo, tpot_p50_ms, POS, "median time per output token, ms"),
	CFG_F_NUM(struct srv_slo, tpot_p99_ms, POS, "99th percentile time per output token, ms"),
	CFG_END
};

const struct cfg_field cfg_serve_speculative_fields[] = {
	CFG_F_INT_RANGE(struct srv_speculative, draft_tokens, REQ | POS, 1, SC_MAX_DRAFT_TOKENS, "draft tokens per step, count"),
	CFG_F_NUM_RANGE(struct srv_speculative, acceptance_rate, REQ, 0.0, 1.0, "probability each draft token is accepted"),
	CFG_END
};

const struct cfg_field cfg_serve_disagg_fields[] = {
	CFG_F_INT_RANGE(struct srv_disagg, prefill_replicas, REQ | POS, 1, SC_MAX_REPLICAS, "prefill replicas, count"),
	CFG_F_INT_RANGE(struct srv_disagg, decode_replicas, REQ | POS, 1, SC_MAX_REPLICAS, "decode replicas, count"),
	CFG_F_OBJ(struct srv_disagg, prefill, 0, cfg_serve_replica_fields, "prefill replica layout (default: replica)"),
	CFG_F_OBJ(struct srv_disagg, decode, 0, cfg_serve_replica_fields, "decode replica layout (default: replica)"),
	CFG_END
};

#define SRV_F(K, M, T, FL, SUB, FN, D) \
	{ K, T, (FL), offsetof(struct srv_scenario, M), 0, NULL, SUB, FN, 0, 0, D }

const struct cfg_field cfg_serve_scenario_fields[] = {
	CFG_F_STR(struct srv_scenario, name, REQ, "what the scenario is"),
	SRV_F("model", arch, CFG_CUSTOM, REQ, cfg_model_fields, read_model_ref,
	      "model name, or an inline model object"),
	SRV_F("instance", instance, CFG_CUSTOM, REQ, cfg_instance_fields, read_instance_ref,
	      "instance type name, or an inline instance object"),
	SRV_F("fabric", fabric, CFG_CUSTOM, 0, NULL, read_fabric_ref, "fabric name (default ultracluster)"),
	CFG_F_OBJ(struct srv_scenario, replica, REQ, cfg_serve_replica_fields, "one replica's layout"),
	CFG_F_INT_RANGE(struct srv_scenario, replicas, POS, 1, SC_MAX_REPLICAS, "replicas, count"),
	{ "gpus", CFG_INT, POS | CFG_BOUNDED, offsetof(struct srv_scenario, layout_gpus), 0, NULL, NULL,
	  NULL, 1, SC_MAX_GPUS, "GPUs of the deployment when replica.tp is not stated: the best layout of them is chosen", 0, 0 },
	CFG_F_OBJ(struct srv_scenario, precision, REQ, cfg_serve_precision_fields, "number formats"),
	SRV_F("engine", engine, CFG_CUSTOM, REQ, cfg_engine_override_fields, read_engine_ref,
	      "engine name, or an object naming one with settings to change"),
	CFG_F_OBJ(struct srv_scenario, speculative, 0, cfg_serve_speculative_fields, "speculative decoding"),
	CFG_F_OBJ(struct srv_scenario, workload, REQ, cfg_serve_workload_fields, "the requests"),
	CFG_F_OBJ(struct srv_scenario, slo, 0, cfg_serve_slo_fields, "latency objectives"),
	SRV_F("disaggregated", disagg, CFG_OBJECT, 0, cfg_serve_disagg_fields, NULL,
	      "separate prefill and decode pools"),
	CFG_F_ENUM(struct srv_scenario, router, 0, routers, "least-loaded or round-robin"),
	SRV_F("calibration", calibration, CFG_CUSTOM, 0, NULL, cfg_ref_calibration,
	      "calibration profile name, or a profile file relative to the scenario (default: the GPU's)"),
	CFG_END
};

static enum sc_status bad(struct sc_error *err, const char *file, const char *ptr,
			  const char *msg)
{
	return sc_error_set(err, SC_EINVAL, file, ptr, "%s", msg);
}

static enum sc_status check_length(const char *file, const char *ptr, const struct srv_length *l,
				   bool sd_given, struct sc_error *err)
{
	char where[SC_ERROR_PTR_MAX];

	if (l->min > 0 && l->max > 0 && l->min > l->max) {
		cfg_pointer_key(where, sizeof(where), ptr, "min");
		return sc_error_set(err, SC_EINVAL, file, where, "min (%d) is larger than max (%d)",
				    l->min, l->max);
	}
	if ((l->min > 0 && l->mean < l->min) || (l->max > 0 && l->mean > l->max)) {
		cfg_pointer_key(where, sizeof(where), ptr, "mean");
		return sc_error_set(err, SC_EINVAL, file, where,
				    "mean (%g) lies outside [min, max]", l->mean);
	}
	switch (l->dist) {
	case SRV_DIST_FIXED:
		if (sd_given || l->min > 0 || l->max > 0)
			return bad(err, file, ptr, "a fixed length takes only \"mean\"");
		break;
	case SRV_DIST_UNIFORM:
		if (!(l->min > 0 && l->max > 0) || sd_given)
			return bad(err, file, ptr, "a uniform length needs \"min\" and \"max\" (and no \"sd\")");
		if (fabs(l->mean - 0.5 * (l->min + l->max)) > 0.5) {
			cfg_pointer_key(where, sizeof(where), ptr, "mean");
			return sc_error_set(err, SC_EINVAL, file, where,
					    "the mean of a uniform length is (min + max) / 2 = %g, got %g",
					    0.5 * (l->min + l->max), l->mean);
		}
		break;
	case SRV_DIST_NORMAL:
	case SRV_DIST_LOGNORMAL:
		if (!sd_given)
			return bad(err, file, ptr, "a normal or lognormal length needs \"sd\"");
		break;
	}
	return SC_OK;
}

static bool has(const cJSON *obj, const char *key)
{
	return obj && cJSON_GetObjectItemCaseSensitive(obj, key) != NULL &&
	       !cJSON_IsNull(cJSON_GetObjectItemCaseSensitive(obj, key));
}

/* workload.dataset: its lengths where the scenario gives none, its MLPerf
 * Server limits as SLOs where the scenario sets none. */
static enum sc_status apply_dataset(const char *file, const char *dir, const cJSON *w,
				    struct srv_workload *wl, struct srv_slo *slo, struct sc_error *err)
{
	struct srv_datasets ds;
	const struct srv_dataset *d;
	const struct srv_dataset_tok *used = NULL;
	struct srv_length in, out;
	enum sc_status st;

	if ((st = srv_datasets_load(dir, &ds, err)) != SC_OK)
		return st;
	if (!(d = srv_dataset_find(&ds, wl->dataset))) {
		st = sc_error_set(err, SC_EINVAL, file, "/workload/dataset",
				  "unknown dataset \"%s\" (see configs/datasets.json)", wl->dataset);
		goto out;
	}
	if (wl->tokenizer[0]) {
		bool found = false;
		for (int k = 0; k < d->n_tokenizers; k++)
			found |= strcmp(d->tokenizers[k].tokenizer, wl->tokenizer) == 0;
		if (!found) {
			st = sc_error_set(err, SC_EINVAL, file, "/workload/tokenizer",
					  "dataset \"%s\" has no statistics for tokenizer \"%s\"", d->name,
					  wl->tokenizer);
			goto out;
		}
	}
	if ((st = srv_dataset_lengths(d, wl->tokenizer, &in, &out, &used, err)) != SC_OK &&
	    !(has(w, "input_tokens") && has(w, "output_tokens"))) {
		if (err)
			snprintf(err->file, sizeof(err->file), "%s", file);
		goto out;
	}
	st = SC_OK;
	snprintf(wl->tokenizer, sizeof(wl->tokenizer), "%s", used->tokenizer);
	if (!has(w, "input_tokens"))
		wl->input_tokens = in;
	if (!has(w, "output_tokens"))
		wl->output_tokens = out;
	if (wl->mlperf == SRV_MLPERF_SERVER && d->has_mlperf_server && !(slo->ttft_p99_ms > 0) &&
	    !(slo->tpot_p99_ms > 0)) {
		slo->ttft_p99_ms = d->mlperf_server.ttft_p99_ms;
		slo->tpot_p99_ms = d->mlperf_server.tpot_p99_ms;
	}
out:
	srv_datasets_free(&ds);
	return st;
}

static enum sc_status check_workload(const char *file, const cJSON *w, struct srv_workload *wl,
				     struct sc_error *err)
{
	enum sc_status st;
	const char *need = NULL;
	static const char *const params[] = { "rate_rps", "concurrency", "trace" };
	static const enum srv_arrival uses[] = { SRV_ARRIVAL_POISSON, SRV_ARRIVAL_CONCURRENCY,
						 SRV_ARRIVAL_TRACE };

	for (int i = 0; i < 3; i++) {
		char where[SC_ERROR_PTR_MAX];

		cfg_pointer_key(where, sizeof(where), "/workload", params[i]);
		if (wl->arrival == uses[i] && !has(w, params[i]))
			need = params[i];
		if (wl->arrival != uses[i] && has(w, params[i]))
			return sc_error_set(err, SC_EINVAL, file, where,
					    "\"%s\" is only used with arrival \"%s\", not \"%s\"",
					    params[i], srv_arrival_name(uses[i]),
					    srv_arrival_name(wl->arrival));
	}
	if (need)
		return sc_error_set(err, SC_EINVAL, file, "/workload",
				    "arrival \"%s\" needs \"%s\"", srv_arrival_name(wl->arrival), need);
	if (wl->arrival == SRV_ARRIVAL_TRACE) {
		if (has(w, "input_tokens") || has(w, "output_tokens"))
			return bad(err, file, "/workload",
				   "a trace gives the lengths: \"input_tokens\" and \"output_tokens\" are not used");
		if (!wl->trace[0])
			return bad(err, file, "/workload/trace", "expected a non-empty path");
	} else {
		if (!wl->dataset[0] && (!has(w, "input_tokens") || !has(w, "output_tokens")))
			return bad(err, file, "/workload",
				   "arrival needs \"input_tokens\" and \"output_tokens\" distributions, or a \"dataset\"");
		if ((has(w, "input_tokens") &&
		     (st = check_length(file, "/workload/input_tokens", &wl->input_tokens,
					has(cJSON_GetObjectItemCaseSensitive(w, "input_tokens"), "sd"),
					err)) != SC_OK) ||
		    (has(w, "output_tokens") &&
		     (st = check_length(file, "/workload/output_tokens", &wl->output_tokens,
					has(cJSON_GetObjectItemCaseSensitive(w, "output_tokens"), "sd"),
					err)) != SC_OK))
			return st;
	}
	if (wl->mlperf == SRV_MLPERF_OFFLINE && wl->arrival != SRV_ARRIVAL_BURST)
		return bad(err, file, "/workload/mlperf",
			   "the MLPerf Offline scenario sends every query at once: arrival \"burst\"");
	if (wl->mlperf == SRV_MLPERF_SERVER && wl->arrival != SRV_ARRIVAL_POISSON)
		return bad(err, file, "/workload/mlperf",
			   "the MLPerf Server scenario sends Poisson queries: arrival \"poisson\"");
	if (wl->tokenizer[0] && !wl->dataset[0])
		return bad(err, file, "/workload/tokenizer", "a tokenizer is only used with a \"dataset\"");
	if (!has(w, "requests"))
		wl->requests = wl->arrival == SRV_ARRIVAL_TRACE ? 0 : 1000;   /* 0: the whole trace */
	if (!has(w, "warmup_requests"))
		wl->warmup_requests = wl->arrival == SRV_ARRIVAL_BURST || wl->arrival == SRV_ARRIVAL_TRACE
				      ? 0 : wl->requests / 10;
	if (wl->requests > 0 && wl->warmup_requests >= wl->requests)
		return sc_error_set(err, SC_EINVAL, file, "/workload/warmup_requests",
				    "warmup_requests (%d) must be fewer than requests (%d)",
				    wl->warmup_requests, wl->requests);
	if (!has(w, "seed"))
		wl->seed = 1;
	if (!has(w, "front_end"))
		wl->front_end = true;
	return SC_OK;
}

enum sc_status srv_scenario_read(const char *file, const cJSON *root, const struct catalog *cat,
				 const struct srv_engines *engines, struct srv_scenario *sc,
				 struct sc_error *err)
{
	struct read_ctx x = { cat, engines };
	struct cfg_reader rd = { file, err, &x };
	const struct gpu_spec *gpu;
	const cJSON *prec, *dis, *calib;
	enum sc_status st;

	memset(sc, 0, sizeof(*sc));
	snprintf(sc->file, sizeof(sc->file), "%s", file ? file : "");
	sc->replica.pp = sc->replica.ep = sc->replica.attention_dp = 1;
	sc->disagg.prefill.pp = sc->disagg.prefill.ep = sc->disagg.prefill.attention_dp = 1;
	sc->disagg.decode.pp = sc->disagg.decode.ep = sc->disagg.decode.attention_dp = 1;
	sc->router = SRV_ROUTER_LEAST_LOADED;
	if ((st = cfg_read_object(&rd, root, cfg_serve_scenario_fields, sc, "")) != SC_OK)
		return st;

	if (!cJSON_GetObjectItemCaseSensitive(root, "fabric")) {
		const struct fabric_spec *f = catalog_fabric(cat, "ultracluster");
		if (!f)
			return catalog_unknown(cat, "fabric", "ultracluster", file, "/fabric", err);
		sc->fabric = *f;
	}
	if (!(gpu = catalog_gpu(cat, sc->instance.gpu)))
		return catalog_unknown(cat, "gpu", sc->instance.gpu, file, "/instance/gpu", err);
	sc->gpu = *gpu;
	{
		/* the engine's defaults for this GPU, where the scenario does not set them */
		const cJSON *eng = cJSON_GetObjectItemCaseSensitive(root, "engine");

		srv_engine_gpu_defaults(&sc->engine, gpu, has(eng, "max_num_seqs"),
					has(eng, "max_num_batched_tokens"));
		srv_engine_attention_dp_limits(&sc->engine, sc->replica.attention_dp);
	}
	calib = cJSON_GetObjectItemCaseSensitive(root, "calibration");
	if ((st = calibration_select(cat, gpu, calib ? calib->valuestring : NULL, file, file,
				     "/calibration", &sc->calibration, err)) != SC_OK)
		return st;

	/* precision defaults: activations follow the weights (BF16 under a
	 * weight-only format); the KV cache is BF16 (vLLM's and SGLang's
	 * kv_cache_dtype "auto" keeps the model dtype) or FP16 for FP16 models */
	prec = cJSON_GetObjectItemCaseSensitive(root, "precision");
	if (!has(prec, "activations"))
		sc->precision.activations = (sc->precision.weights == SRV_FMT_MXFP4 ||
					     sc->precision.weights == SRV_FMT_INT4_AWQ)
					    ? SRV_FMT_BF16 : sc->precision.weights;
	if (!has(prec, "kv_cache"))
		sc->precision.kv_cache = sc->precision.weights == SRV_FMT_FP16 ? SRV_FMT_FP16
									       : SRV_FMT_BF16;

	/* a separate context pass runs prompts whole (TurboMind v0.1's context
	 * decoder); srv_split_context_pass counts on every chunk finishing */
	if (sc->engine.context_pass_separate && sc->engine.chunked_prefill)
		return sc_error_set(err, SC_EINVAL, file, "/engine/chunked_prefill",
				    "engine \"%s\" runs prompts whole in a separate context pass (context_pass_separate): chunked_prefill cannot be true",
				    sc->engine.name);
	dis = cJSON_GetObjectItemCaseSensitive(root, "disaggregated");
	if (dis) {
		if (cJSON_GetObjectItemCaseSensitive(root, "replicas"))
			return bad(err, file, "/replicas",
				   "with \"disaggregated\" the pools give the replica counts; \"replicas\" is not used");
		if (!has(dis, "prefill"))
			sc->disagg.prefill = sc->replica;
		if (!has(dis, "decode"))
			sc->disagg.decode = sc->replica;
		if (sc->engine.schedule == SRV_SCHED_STATIC)
			return bad(err, file, "/engine",
				   "static batching cannot serve disaggregated pools");
		if (sc->disagg.prefill.tp <= 0 || sc->disagg.decode.tp <= 0 || sc->layout_gpus > 0)
			return bad(err, file, "/disaggregated",
				   "disaggregated pools need their layouts stated (\"tp\"), and no \"gpus\"");
	} else if (sc->replica.tp <= 0) {
		/* layout not stated: the best of the GPUs' layouts (srv_pick_layout) */
		if (!(sc->layout_gpus > 0))
			return bad(err, file, "/replica/tp",
				   "without \"tp\" the deployment's \"gpus\" must be given (the best layout of them is chosen)");
		if (cJSON_GetObjectItemCaseSensitive(root, "replicas"))
			return bad(err, file, "/replicas",
				   "with the layout not stated the replicas follow from \"gpus\"; \"replicas\" is not used");
		sc->replica.tp = 1;      /* placeholder until the layout is chosen */
		sc->replicas = sc->layout_gpus / (sc->replica.pp > 0 ? sc->replica.pp : 1);
		if (sc->replicas < 1 || sc->layout_gpus % sc->replica.pp != 0)
			return bad(err, file, "/gpus", "the GPUs are not a multiple of the pipeline stages");
	} else if (cJSON_GetObjectItemCaseSensitive(root, "gpus")) {
		return bad(err, file, "/gpus", "\"gpus\" is only used when replica.tp is not stated");
	} else if (!cJSON_GetObjectItemCaseSensitive(root, "replicas")) {
		return bad(err, file, "/", "missing required key \"replicas\" (or \"disaggregated\")");
	}
	{
		/* 64-bit: each factor is bounded by its field (<= 4096), the product is not */
		long long g = sc->disagg.prefill_replicas > 0
			      ? (long long)sc->disagg.prefill_replicas * sc->disagg.prefill.tp * sc->disagg.prefill.pp +
				(long long)sc->disagg.decode_replicas * sc->disagg.decode.tp * sc->disagg.decode.pp
			      : (long long)sc->replicas * sc->replica.tp * sc->replica.pp;

		if (g > SC_MAX_GPUS)
			return sc_error_set(err, SC_EINVAL, file, dis ? "/disaggregated" : "/replicas",
					    "the replicas take %lld GPUs; at most %d", g, SC_MAX_GPUS);
	}
	if (sc->speculative.draft_tokens > 0 && sc->engine.schedule == SRV_SCHED_STATIC)
		return bad(err, file, "/speculative",
			   "speculative decoding is not modelled with static batching");
	if ((st = check_workload(file, cJSON_GetObjectItemCaseSensitive(root, "workload"), &sc->workload,
				 err)) != SC_OK)
		return st;
	if (sc->workload.dataset[0]) {
		if (sc->workload.arrival == SRV_ARRIVAL_TRACE)
			return bad(err, file, "/workload/dataset", "a trace gives the lengths: \"dataset\" is not used");
		return apply_dataset(file, cat->dir[0] ? cat->dir : catalog_default_dir(),
				     cJSON_GetObjectItemCaseSensitive(root, "workload"), &sc->workload,
				     &sc->slo, err);
	}
	return SC_OK;
}

enum sc_status srv_scenario_load(const char *path, const struct catalog *cat,
				 const struct srv_engines *engines, struct srv_scenario *sc,
				 struct sc_error *err)
{
	cJSON *root = cfg_parse_file(path, err);
	enum sc_status st;

	if (!root)
		return err ? err->status : SC_EINVAL;
	st = srv_scenario_read(path, root, cat, engines, sc, err);
	cJSON_Delete(root);
	return st;
}

/* ---- traces ---------------------------------------------------------------------- */

void srv_trace_path(const struct srv_scenario *sc, char *out, size_t n)
{
	const char *slash = strrchr(sc->file, '/');

	if (sc->workload.trace[0] == '/' || !slash)
		snprintf(out, n, "%s", sc->workload.trace);
	else
		snprintf(out, n, "%.*s/%s", (int)(slash - sc->file), sc->file, sc->workload.trace);
}

static enum sc_status trace_error(struct sc_error *err, const char *path, int line,
				  const char *msg)
{
	return sc_error_set(err, SC_EINVAL, path, NULL, "line %d: %s", line, msg);
}

enum sc_status srv_trace_load(const char *path, struct srv_trace *out, struct sc_error *err)
{
	FILE *f;
	char buf[512];
	int line = 0, cap = 0;
	double last = 0;
	enum sc_status st = SC_OK;

	memset(out, 0, sizeof(*out));
	if (!(f = fopen(path, "r")))
		return sc_error_set(err, SC_EIO, path, NULL, "cannot open the trace: %s",
				    strerror(errno));
	while (fgets(buf, sizeof(buf), f)) {
		char *end, *p = buf;
		double t, in, o;
		size_t len = strlen(buf);

		line++;
		if (len == sizeof(buf) - 1 && buf[len - 1] != '\n') {
			st = trace_error(err, path, line, "line too long");
			break;
		}
		while (len > 0 && (buf[len - 1] == '\n' || buf[len - 1] == '\r'))
			buf[--len] = '\0';
		if (line == 1) {
			if (strcmp(buf, "arrival_s,input_tokens,output_tokens") != 0) {
				st = trace_error(err, path, line,
						 "expected the header \"arrival_s,input_tokens,output_tokens\"");
				break;
			}
			continue;
		}
		if (len == 0) {
			st = trace_error(err, path, line, "empty line");
			break;
		}
		errno = 0;
		t = strtod(p, &end);
		if (end == p || *end != ',' || !isfinite(t) || t < 0) {
			st = trace_error(err, path, line, "arrival_s: expected a non-negative number");
			break;
		}
		p = end + 1;
		in = strtod(p, &end);
		if (end == p || *end != ',' || in != floor(in) || in < 1 || in > 1e8) {
			st = trace_error(err, path, line, "input_tokens: expected a positive integer");
			break;
		}
		p = end + 1;
		o = strtod(p, &end);
		if (end == p || *end != '\0' || o != floor(o) || o < 1 || o > 1e8) {
			st = trace_error(err, path, line, "output_tokens: expected a positive integer");
			break;
		}
		if (t < last) {
			st = trace_error(err, path, line, "arrival times must not decrease");
			break;
		}
		last = t;
		if (out->n == cap) {
			int ncap = cap ? 2 * cap : 256;
			struct srv_trace_req *r = realloc(out->reqs, (size_t)ncap * sizeof(*r));
			if (!r) {
				st = sc_error_set(err, SC_ENOMEM, path, NULL, "out of memory");
				break;
			}
			out->reqs = r;
			cap = ncap;
		}
		out->reqs[out->n].arrival_s = t;
		out->reqs[out->n].input_tokens = (int)in;
		out->reqs[out->n].output_tokens = (int)o;
		out->n++;
	}
	if (st == SC_OK && ferror(f))
		st = sc_error_set(err, SC_EIO, path, NULL, "read error");
	if (st == SC_OK && line == 0)
		st = trace_error(err, path, 1, "empty file (expected the header)");
	if (st == SC_OK && out->n == 0)
		st = trace_error(err, path, line + 1, "no requests after the header");
	fclose(f);
	if (st != SC_OK)
		srv_trace_free(out);
	return st;
}

void srv_trace_free(struct srv_trace *t)
{
	free(t->reqs);
	memset(t, 0, sizeof(*t));
}
