/* serve_validate.c: published serving measurements as serving scenarios
 * (see serve_validate.h).
 *
 * One rule per unstated setting, the same for every case (never per source
 * or per model), each listed in the case's assumptions when it applies:
 *   GPU "a100" (memory not stated) -> a100-80gb; "h100" -> h100-sxm;
 *   the node: 8 GPUs on one NVLink domain (4 per node in a 72-GPU domain
 *   for gb200 and gb300), 400 Gb/s of scale-out per GPU on the
 *   dgx-infiniband fabric (only pipeline sends across nodes would use it);
 *   tp null -> gpu_count / (pp x dp), the one layout of the published GPU
 *   count (serve itself picks among layouts when a scenario leaves tp out);
 *   open loops above the simulated sustainable rate: throughput compared,
 *   TTFT and TPOT not (their latencies depend on the request count);
 *   ep null -> 1 (the engines shard experts with TP unless an expert-
 *   parallel flag is given);
 *   attention DP on without its degree under SGLang with dp 1 -> off
 *   (SGLang's DP-attention degree is --dp; at 1 it disables the flag);
 *   activations null -> the weights' format where the GPU has those tensor
 *   cores, else BF16 (a weight-only kernel); KV cache null -> BF16 (FP16
 *   for FP16 weights), the engines' "auto" KV dtype;
 *   engine settings not printed -> configs/engines.json's defaults of that
 *   engine and version (vLLM before 0.7 -> "vllm-v0", TensorRT-LLM before
 *   0.7 -> "tensorrt-llm-v0.6", 1.x -> "tensorrt-llm-pytorch", LMDeploy
 *   0.1 -> "lmdeploy-v0.1", 0.2.0-0.2.1 -> "lmdeploy-v0.2.0"), the KV
 *   dtype from the checkpoint where that entry says so; a static-batching case runs one
 *   batch of batch_size;
 *   lengths: a stated fixed length when the realised mean matches it; else
 *   a lognormal with the realised mean and a coefficient of variation of 1
 *   (sampled datasets: ShareGPT, or outputs cut short by EOS, capped at the
 *   stated maximum); else means derived from published token totals;
 *   arrivals: "inf" or a static batch -> all at once, a number -> Poisson
 *   at that rate, a client concurrency -> a closed loop of that many;
 *   no warm-up is dropped (the benchmarks count every request).
 */
#include "serve_validate.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../models/enum_names.h"
#include "../config/calibration_select.h"
#include "../config/datadir.h"
#include "../serve/serve_datasets.h"
#include "../serve/serve_sim.h"
#include "bands.h"

#define REQ CFG_REQUIRED
#define NUL CFG_NULLABLE
#define POS CFG_POSITIVE
#define NONNEG CFG_NONNEG
#define NOT_GIVEN (-1)
#define BIG 1024

const char *sval_metric_name(enum sval_metric m)
{
	switch (m) {
	case SVAL_THROUGHPUT: return "throughput";
	case SVAL_TTFT: return "ttft";
	case SVAL_TPOT: return "tpot";
	case SVAL_METRICS: break;
	}
	return "unknown";
}

const char *sval_default_cases_path(void)
{
	static char path[1024];

	return cfg_validation_file("serving-cases.json", path, sizeof(path));
}

const char *sval_default_supplement_path(void)
{
	static char path[1024];

	return cfg_validation_file("serving-models-supplement.json", path, sizeof(path));
}

/* ---- readers for the file's loose spots ------------------------------------------------ */

static enum sc_status read_ignored(struct cfg_reader *rd, const cJSON *item, void *slot,
				   const char *where)
{
	(void)rd;
	(void)item;
	(void)slot;
	(void)where;
	return SC_OK;
}

static enum sc_status read_tristate(struct cfg_reader *rd, const cJSON *item, void *slot,
				    const char *where)
{
	if (cJSON_IsNull(item))
		return SC_OK;
	if (!cJSON_IsBool(item))
		return sc_error_set(rd->err, SC_EINVAL, rd->file, where,
				    "expected true, false or null, got %s", cfg_json_type_name(item));
	*(int *)slot = cJSON_IsTrue(item) ? 1 : 0;
	return SC_OK;
}

/* request_rate_rps: a number, "inf" or null. */
static enum sc_status read_rate(struct cfg_reader *rd, const cJSON *item, void *slot,
				const char *where)
{
	double *v = slot;

	if (cJSON_IsNull(item))
		return SC_OK;
	if (cJSON_IsString(item) && strcmp(item->valuestring, "inf") == 0) {
		*v = INFINITY;
		return SC_OK;
	}
	if (cJSON_IsNumber(item) && isfinite(item->valuedouble) && item->valuedouble > 0) {
		*v = item->valuedouble;
		return SC_OK;
	}
	return sc_error_set(rd->err, SC_EINVAL, rd->file, where,
			    "expected a positive number, \"inf\" or null, got %s",
			    cfg_json_type_name(item));
}

#define FLAGS_MAX 512

static enum sc_status read_flags(struct cfg_reader *rd, const cJSON *item, void *slot,
				 const char *where)
{
	char *out = slot;
	const cJSON *e;
	size_t len = 0;

	if (!cJSON_IsArray(item))
		return sc_error_set(rd->err, SC_EINVAL, rd->file, where,
				    "expected an array of strings, got %s", cfg_json_type_name(item));
	out[0] = '\0';
	cJSON_ArrayForEach(e, item) {
		if (!cJSON_IsString(e))
			return sc_error_set(rd->err, SC_EINVAL, rd->file, where,
					    "expected an array of strings, found %s", cfg_json_type_name(e));
		if (len + strlen(e->valuestring) + 3 >= FLAGS_MAX)
			return sc_error_set(rd->err, SC_EINVAL, rd->file, where, "too many flags");
		len += (size_t)snprintf(out + len, FLAGS_MAX - len, ",%s", e->valuestring);
	}
	if (len)
		snprintf(out + len, FLAGS_MAX - len, ",");
	return SC_OK;
}

static bool has_flag(const char *flags, const char *f)
{
	char pat[64];

	snprintf(pat, sizeof(pat), ",%s,", f);
	return strstr(flags, pat) != NULL;
}

/* ---- models ------------------------------------------------------------------------------- */

static const char *const activations[] = { "gelu", "swiglu", "geglu", "squared-relu", NULL };

struct raw_model {
	int layers, hidden, ffn_hidden, heads, kv_heads, head_dim, vocab;
	bool gated_mlp;
	int activation;
	int tied_embeddings;     /* NOT_GIVEN, 0, 1 */
	double params_billion, active_params_billion;
	int experts, top_k, moe_ffn_hidden, shared_experts, shared_expert_ffn_hidden;
	int first_dense_layers, moe_layer_freq;
	int q_lora_rank, kv_lora_rank, qk_rope_head_dim, qk_nope_head_dim, v_head_dim;
	int mtp_layers, sliding_window, sliding_window_layer_freq;
	int parallel_attention;  /* NOT_GIVEN, 0, 1 */
	char source[SC_SOURCE_MAX];
};

#define MF_INT(K, FL) CFG_F_INT(struct raw_model, K, FL, #K)
static const struct cfg_field model_fields[] = {
	MF_INT(layers, REQ | POS),
	MF_INT(hidden, REQ | POS),
	MF_INT(ffn_hidden, POS | NUL),
	MF_INT(heads, REQ | POS),
	MF_INT(kv_heads, REQ | POS),
	MF_INT(head_dim, POS | NUL),
	MF_INT(vocab, POS | NUL),
	CFG_F_BOOL(struct raw_model, gated_mlp, REQ, "gated MLP"),
	CFG_F_ENUM(struct raw_model, activation, REQ, activations, "activation"),
	CFG_F_CUSTOM(struct raw_model, tied_embeddings, NUL, read_tristate, NULL, "tied embeddings"),
	CFG_F_NUM(struct raw_model, params_billion, POS | NUL, "billions"),
	CFG_F_NUM(struct raw_model, active_params_billion, POS | NUL, "billions"),
	MF_INT(experts, POS | NUL),
	MF_INT(top_k, POS | NUL),
	MF_INT(moe_ffn_hidden, POS | NUL),
	MF_INT(shared_experts, NONNEG | NUL),
	MF_INT(shared_expert_ffn_hidden, POS | NUL),
	MF_INT(first_dense_layers, NONNEG | NUL),
	MF_INT(moe_layer_freq, POS | NUL),
	MF_INT(q_lora_rank, POS | NUL),
	MF_INT(kv_lora_rank, POS | NUL),
	MF_INT(qk_rope_head_dim, POS | NUL),
	MF_INT(qk_nope_head_dim, POS | NUL),
	MF_INT(v_head_dim, POS | NUL),
	MF_INT(mtp_layers, NONNEG | NUL),
	MF_INT(sliding_window, POS | NUL),
	MF_INT(sliding_window_layer_freq, POS | NUL),
	CFG_F_CUSTOM(struct raw_model, parallel_attention, NUL, read_tristate, NULL, "parallel attention"),
	CFG_F_STR(struct raw_model, source, REQ, "source"),
	CFG_END
};

struct supp {
	int ffn_hidden, vocab, tied_embeddings, parallel_attention;
	char source[SC_SOURCE_MAX];
};

static const struct cfg_field supp_fields[] = {
	CFG_F_INT(struct supp, ffn_hidden, POS, "dense MLP width"),
	CFG_F_INT(struct supp, vocab, POS, "vocabulary"),
	CFG_F_CUSTOM(struct supp, tied_embeddings, 0, read_tristate, NULL, "tied embeddings"),
	CFG_F_CUSTOM(struct supp, parallel_attention, 0, read_tristate, NULL, "parallel attention"),
	CFG_F_STR(struct supp, source, REQ, "where the values come from"),
	CFG_END
};

struct smodel {
	char name[SC_NAME_MAX];
	struct srv_arch arch;
	bool complete;
	char missing[128];       /* fields still null */
	char filled[128];        /* fields taken from the supplement */
};

struct models {
	struct smodel *m;
	int n;
};

static void append(char *buf, size_t n, const char *what)
{
	size_t len = strlen(buf);

	snprintf(buf + len, n - len, "%s%s", len ? ", " : "", what);
}

static enum sc_status read_model(struct cfg_reader *rd, const cJSON *obj, const char *supp_path,
				 const cJSON *supp_models, struct smodel *out, const char *name,
				 const char *where)
{
	struct raw_model r;
	struct supp s;
	const cJSON *so = supp_models ? cJSON_GetObjectItemCaseSensitive(supp_models, name) : NULL;
	struct model_arch *m = &out->arch.m;
	enum sc_status st;
	char w[SC_ERROR_PTR_MAX];

	memset(&r, 0, sizeof(r));
	r.ffn_hidden = r.vocab = r.tied_embeddings = r.parallel_attention = NOT_GIVEN;
	if ((st = cfg_read_object(rd, obj, model_fields, &r, where)) != SC_OK)
		return st;
	memset(out, 0, sizeof(*out));
	snprintf(out->name, sizeof(out->name), "%s", name);
	if (so) {
		struct cfg_reader srd = *rd;
		char sw[SC_ERROR_PTR_MAX];

		memset(&s, 0, sizeof(s));
		s.tied_embeddings = s.parallel_attention = NOT_GIVEN;
		srd.file = supp_path;
		cfg_pointer_key(sw, sizeof(sw), "/models", name);
		if ((st = cfg_read_object(&srd, so, supp_fields, &s, sw)) != SC_OK)
			return st;
		if (r.ffn_hidden == NOT_GIVEN && s.ffn_hidden > 0) {
			r.ffn_hidden = s.ffn_hidden;
			append(out->filled, sizeof(out->filled), "ffn_hidden");
		}
		if (r.vocab == NOT_GIVEN && s.vocab > 0) {
			r.vocab = s.vocab;
			append(out->filled, sizeof(out->filled), "vocab");
		}
		if (r.tied_embeddings == NOT_GIVEN && s.tied_embeddings != NOT_GIVEN) {
			r.tied_embeddings = s.tied_embeddings;
			append(out->filled, sizeof(out->filled), "tied_embeddings");
		}
		if (r.parallel_attention == NOT_GIVEN && s.parallel_attention != NOT_GIVEN) {
			r.parallel_attention = s.parallel_attention;
			append(out->filled, sizeof(out->filled), "parallel_attention");
		}
	}
	if (r.ffn_hidden == NOT_GIVEN)
		append(out->missing, sizeof(out->missing), "ffn_hidden");
	if (r.vocab == NOT_GIVEN)
		append(out->missing, sizeof(out->missing), "vocab");
	if (r.tied_embeddings == NOT_GIVEN)
		append(out->missing, sizeof(out->missing), "tied_embeddings");
	out->complete = out->missing[0] == '\0';
	snprintf(m->name, sizeof(m->name), "%s", name);
	m->layers = r.layers;
	m->hidden = r.hidden;
	m->ffn_hidden = r.ffn_hidden > 0 ? r.ffn_hidden : 0;
	m->heads = r.heads;
	m->kv_heads = r.kv_heads;
	m->head_dim = r.head_dim;
	m->vocab = r.vocab > 0 ? r.vocab : 0;
	m->gated_mlp = r.gated_mlp;
	m->activation = (enum model_activation)r.activation;
	m->tied_embeddings = r.tied_embeddings == 1;
	m->params_billion = r.params_billion;
	m->active_params_billion = r.active_params_billion;
	m->experts = r.experts;
	m->top_k = r.top_k;
	m->moe_ffn_hidden = r.moe_ffn_hidden;
	m->shared_experts = r.shared_experts;
	m->first_dense_layers = r.first_dense_layers;
	m->moe_layer_freq = r.moe_layer_freq;
	m->q_lora_rank = r.q_lora_rank;
	m->kv_lora_rank = r.kv_lora_rank;
	m->qk_rope_head_dim = r.qk_rope_head_dim;
	m->qk_nope_head_dim = r.qk_nope_head_dim;
	m->v_head_dim = r.v_head_dim;
	m->mtp_layers = r.mtp_layers;
	m->sliding_window = r.sliding_window;
	m->sliding_window_layer_freq = r.sliding_window_layer_freq;
	snprintf(m->source, sizeof(m->source), "%s", r.source);
	out->arch.shared_expert_ffn_hidden = r.shared_expert_ffn_hidden;
	out->arch.parallel_attention = r.parallel_attention == 1;
	/* the consistency the catalogue's reader checks */
	if (m->head_dim == 0 && m->hidden % m->heads != 0) {
		cfg_pointer_key(w, sizeof(w), where, "heads");
		return sc_error_set(rd->err, SC_EINVAL, rd->file, w,
				    "heads (%d) must divide hidden (%d) unless head_dim is given",
				    m->heads, m->hidden);
	}
	if (m->heads % m->kv_heads != 0) {
		cfg_pointer_key(w, sizeof(w), where, "kv_heads");
		return sc_error_set(rd->err, SC_EINVAL, rd->file, w, "kv_heads (%d) must divide heads (%d)",
				    m->kv_heads, m->heads);
	}
	if (m->experts > 0 && (m->top_k <= 0 || m->top_k > m->experts || m->moe_ffn_hidden <= 0))
		return sc_error_set(rd->err, SC_EINVAL, rd->file, where,
				    "an MoE model needs top_k (at most experts) and moe_ffn_hidden");
	if (m->experts == 0 && (m->top_k || m->moe_ffn_hidden))
		return sc_error_set(rd->err, SC_EINVAL, rd->file, where,
				    "MoE fields given without \"experts\"");
	if (m->experts > 0 && m->moe_layer_freq == 0)
		m->moe_layer_freq = 1;
	if (m->kv_lora_rank > 0 && (m->qk_rope_head_dim <= 0 || m->qk_nope_head_dim <= 0 || m->v_head_dim <= 0))
		return sc_error_set(rd->err, SC_EINVAL, rd->file, where,
				    "an MLA model needs qk_rope_head_dim, qk_nope_head_dim and v_head_dim");
	if (m->first_dense_layers > m->layers) {
		cfg_pointer_key(w, sizeof(w), where, "first_dense_layers");
		return sc_error_set(rd->err, SC_EINVAL, rd->file, w, "first_dense_layers is more than layers");
	}
	return SC_OK;
}

/* ---- cases -------------------------------------------------------------------------------- */

struct raw_source {
	char title[BIG], table[BIG], url[BIG], repository[256], path[256], commit[64], note[BIG];
};

static const struct cfg_field source_fields[] = {
	CFG_F_STR(struct raw_source, title, REQ, "title"),
	CFG_F_STR(struct raw_source, table, 0, "table"),
	CFG_F_STR(struct raw_source, url, REQ, "url"),
	CFG_F_STR(struct raw_source, repository, 0, "repository"),
	CFG_F_STR(struct raw_source, path, 0, "path"),
	CFG_F_STR(struct raw_source, commit, 0, "commit"),
	CFG_F_STR(struct raw_source, note, 0, "note"),
	CFG_END
};

struct raw_precision {
	char weights[16], activations[16], kv_cache[16];
};

static const struct cfg_field precision_fields[] = {
	CFG_F_STR(struct raw_precision, weights, REQ, "weights"),
	CFG_F_STR(struct raw_precision, activations, NUL, "activations"),
	CFG_F_STR(struct raw_precision, kv_cache, NUL, "KV cache"),
	{ "as_published", CFG_CUSTOM, 0, 0, 0, NULL, NULL, read_ignored, 0, 0, "as printed", 0, 0 },
	CFG_END
};

struct raw_workload {
	char dataset[256];
	int input_len, output_len;
	double mean_input_len, mean_output_len;
	double request_rate_rps;
	int concurrency, num_prompts, batch_size, max_batch_size, max_num_tokens, kv_cache_len, kv_cache_tokens, max_input_len, max_output_len;
	double slo_ttft_p99_ms, slo_tpot_p99_ms;
};

#define WI(K) CFG_F_INT(struct raw_workload, K, POS | NUL, #K)
#define WN(K) CFG_F_NUM(struct raw_workload, K, POS | NUL, #K)
static const struct cfg_field workload_fields[] = {
	CFG_F_STR(struct raw_workload, dataset, REQ, "dataset"),
	WI(input_len), WI(output_len), WN(mean_input_len), WN(mean_output_len),
	CFG_F_CUSTOM(struct raw_workload, request_rate_rps, NUL, read_rate, NULL, "rate"),
	WI(concurrency), WI(num_prompts), WI(batch_size), WI(max_batch_size), WI(max_num_tokens),
	WI(kv_cache_len), WI(kv_cache_tokens), WI(max_input_len), WI(max_output_len), WN(slo_ttft_p99_ms), WN(slo_tpot_p99_ms),
	{ "as_published", CFG_CUSTOM, 0, 0, 0, NULL, NULL, read_ignored, 0, 0, "as printed", 0, 0 },
	CFG_END
};

#define MEASURED(X) \
	X(output_tokens_per_s) X(output_tokens_per_s_per_gpu) X(total_tokens_per_s) \
	X(total_tokens_per_s_per_gpu) X(input_tokens_per_s_per_gpu) X(input_tokens_per_s_per_node) \
	X(output_tokens_per_s_per_node) X(output_tokens_per_s_per_user) X(requests_per_s) \
	X(requests_per_min) X(ttft_mean_ms) X(ttft_median_ms) X(ttft_p99_ms) X(ttft_ms) \
	X(ttft_mean_s) X(ttft_min_s) X(ttft_max_s) X(tpot_mean_ms) X(tpot_median_ms) X(tpot_p99_ms) \
	X(itl_mean_ms) X(itl_median_ms) X(itl_p99_ms) X(token_latency_p50_s) X(token_latency_p75_s) \
	X(token_latency_p95_s) X(token_latency_p99_s) X(e2e_latency_mean_ms) X(duration_s) \
	X(successful_requests) X(total_input_tokens) X(total_output_tokens) \
	X(peak_output_tokens_per_s) X(peak_concurrent_requests) X(gpu_mem_used_gb)

struct raw_measured {
#define M_FIELD(K) double K;
	MEASURED(M_FIELD)
#undef M_FIELD
};

static const struct cfg_field measured_fields[] = {
#define M_ENTRY(K) CFG_F_NUM(struct raw_measured, K, NONNEG | NUL, #K),
	MEASURED(M_ENTRY)
#undef M_ENTRY
	CFG_END
};

struct raw_case {
	char id[VAL_ID_MAX];
	struct raw_source source;
	char source_group[SC_NAME_MAX * 2];
	char trust[16];
	char model[SC_NAME_MAX];
	char model_as_published[128];
	char gpu[SC_NAME_MAX];
	char gpu_as_published[256];
	int gpu_count, nodes, gpus_per_node;
	char system[256];
	char engine[SC_NAME_MAX];
	char engine_detail[256];
	char engine_version[128];
	int tp, pp, dp, ep, attention_dp;
	bool disaggregated;
	struct raw_precision precision;
	char scenario[16];
	struct raw_workload workload;
	struct raw_measured measured;
	char flags[FLAGS_MAX];
};

static const struct cfg_field case_fields[] = {
	CFG_F_STR(struct raw_case, id, REQ, "case id"),
	CFG_F_OBJ(struct raw_case, source, REQ, source_fields, "publication"),
	CFG_F_STR(struct raw_case, source_group, REQ, "publication group"),
	CFG_F_STR(struct raw_case, trust, REQ, "trust"),
	CFG_F_STR(struct raw_case, model, REQ, "key into models"),
	CFG_F_STR(struct raw_case, model_as_published, REQ, "model name as printed"),
	CFG_F_STR(struct raw_case, gpu, REQ, "GPU"),
	CFG_F_STR(struct raw_case, gpu_as_published, REQ, "GPU as printed"),
	CFG_F_INT(struct raw_case, gpu_count, REQ | POS, "GPUs"),
	CFG_F_INT(struct raw_case, nodes, POS | NUL, "nodes"),
	CFG_F_INT(struct raw_case, gpus_per_node, POS | NUL, "GPUs per node"),
	CFG_F_STR(struct raw_case, system, NUL, "system"),
	CFG_F_STR(struct raw_case, engine, REQ, "engine"),
	CFG_F_STR(struct raw_case, engine_detail, REQ, "engine detail"),
	CFG_F_STR(struct raw_case, engine_version, NUL, "engine version"),
	CFG_F_INT(struct raw_case, tp, POS | NUL, "tp"),
	CFG_F_INT(struct raw_case, pp, REQ | POS, "pp"),
	CFG_F_INT(struct raw_case, dp, REQ | POS, "replicas"),
	CFG_F_INT(struct raw_case, ep, POS | NUL, "ep"),
	CFG_F_INT(struct raw_case, attention_dp, POS | NUL, "attention DP"),
	CFG_F_BOOL(struct raw_case, disaggregated, REQ, "disaggregated"),
	CFG_F_OBJ(struct raw_case, precision, REQ, precision_fields, "formats"),
	CFG_F_STR(struct raw_case, scenario, REQ, "offline, server or online"),
	CFG_F_OBJ(struct raw_case, workload, REQ, workload_fields, "workload"),
	CFG_F_OBJ(struct raw_case, measured, REQ, measured_fields, "measurements"),
	CFG_F_CUSTOM(struct raw_case, flags, REQ, read_flags, NULL, "flags"),
	{ "derived", CFG_CUSTOM, 0, 0, 0, NULL, NULL, read_ignored, 0, 0, "derived fields", 0, 0 },
	{ "notes", CFG_CUSTOM, 0, 0, 0, NULL, NULL, read_ignored, 0, 0, "notes", 0, 0 },
	{ "mlperf", CFG_CUSTOM, 0, 0, 0, NULL, NULL, read_ignored, 0, 0, "MLPerf metadata", 0, 0 },
	CFG_END
};

static void raw_defaults(struct raw_case *rc)
{
	memset(rc, 0, sizeof(*rc));
	rc->tp = rc->ep = rc->attention_dp = NOT_GIVEN;
	rc->workload.request_rate_rps = NOT_GIVEN;
#define M_UNSET(K) rc->measured.K = NOT_GIVEN;
	MEASURED(M_UNSET)
#undef M_UNSET
}

/* ---- building a scenario --------------------------------------------------------------------- */

static int not_expressible(struct sval_case *vc, const char *fmt, const char *arg)
{
	vc->expressible = false;
	snprintf(vc->reason, sizeof(vc->reason), fmt, arg);
	return 0;
}

static void assume(struct sval_case *vc, const char *what)
{
	append(vc->assumptions, sizeof(vc->assumptions), what);
}

static bool parse_format(const char *s, enum srv_format *f)
{
	int i = sc_enum_parse(srv_format_names, s);

	if (i < 0)
		return false;
	*f = (enum srv_format)i;
	return true;
}

static bool given(double v)
{
	return v > 0 && isfinite(v);
}

static double length_mean(const struct srv_length *l)
{
	return srv_length_mean(l);
}

/* The patch number of "major.minor.patch..." (-1 when absent: "0.2"
 * says nothing about which 0.2 release). */
static int patch_of(const char *v)
{
	int major = 0, minor = 0, patch = 0;

	return sscanf(v, "%d.%d.%d", &major, &minor, &patch) == 3 ? patch : -1;
}

/* The engine catalogue entry of a case, by engine and version: vLLM
 * before 0.7 -> "vllm-v0"; LMDeploy 0.1 (a separate context pass) ->
 * "lmdeploy-v0.1", 0.2.0-0.2.1 (KV pool a fraction of total memory) ->
 * "lmdeploy-v0.2.0" (a bare "0.2" takes the plain entry); TensorRT-LLM
 * before 0.7 (masked MHA, no XQA) -> "tensorrt-llm-v0.6", 1.x (the PyTorch backend, its default from 1.0)
 * -> "tensorrt-llm-pytorch"; an unstated version takes the plain entry,
 * or the PyTorch backend's where the case names that backend. */
static const char *engine_name(const struct raw_case *rc)
{
	const char *v = rc->engine_version;
	int major = 0, minor = 0;
	bool known;

	if (v[0] == 'v')
		v++;
	known = sscanf(v, "%d.%d", &major, &minor) == 2;
	if (strcmp(rc->engine, "vllm") == 0)
		return known && major == 0 && minor < 7 ? "vllm-v0" : "vllm";
	if (strcmp(rc->engine, "lmdeploy") == 0 && known && major == 0 && minor < 2)
		return "lmdeploy-v0.1";
	if (strcmp(rc->engine, "lmdeploy") == 0 && known && major == 0 && minor == 2 && patch_of(v) >= 0 &&
	    patch_of(v) < 2)
		return "lmdeploy-v0.2.0";
	if (strcmp(rc->engine, "tensorrt-llm") == 0 && known) {
		if (major == 0 && minor < 7)
			return "tensorrt-llm-v0.6";
		if (major >= 1)
			return "tensorrt-llm-pytorch";
	}
	/* a case that names the backend it ran on */
	if (strcmp(rc->engine, "tensorrt-llm") == 0 && strstr(rc->engine_detail, "PyTorch backend"))
		return "tensorrt-llm-pytorch";
	return rc->engine;
}

/* A length from a stated fixed value, a published realised mean (a sampled
 * dataset, or outputs cut short by EOS), or a mean derived from published
 * token rates (only when no length is stated). */
static bool set_length(struct sval_case *vc, struct srv_length *l, int stated, int cap, double realised,
		       double derived, const char *what)
{
	char note[128];
	double mean = given(realised) ? realised : derived;

	memset(l, 0, sizeof(*l));
	if (stated > 0 && (!given(realised) || fabs(realised - stated) <= 0.01 * stated)) {
		l->dist = SRV_DIST_FIXED;
		l->mean = stated;
		return true;
	}
	if (!given(mean))
		return false;
	/* lognormal, coefficient of variation 1, capped at the stated
	 * maximum (else the benchmark's stated length filter, else 8 x the
	 * mean); its uncapped mean is chosen so the
	 * capped one is the published mean (bisection on the closed form) */
	l->dist = SRV_DIST_LOGNORMAL;
	l->min = 1;
	l->max = stated > 0 ? stated : cap > 0 ? cap : (int)ceil(8 * mean);
	if (mean >= 0.999 * l->max) {
		l->dist = SRV_DIST_FIXED;
		l->mean = mean;
		l->max = l->min = 0;
		return true;
	}
	l->mean = srv_lognormal_mean_for_capped(mean, 1.0, l->max);
	l->sd = l->mean;
	snprintf(note, sizeof(note), "%s lognormal cv 1 capped at %d, mean %.0f", what, l->max, mean);
	assume(vc, note);
	return true;
}

static void set_metric(struct sval_value *v, double measured, const char *stat)
{
	v->have = true;
	v->measured = measured;
	snprintf(v->stat, sizeof(v->stat), "%s", stat);
}

/* The case's identity as the table prints it: names, layout, formats,
 * scenario kind and engine major.minor. */
static void case_identity(const struct raw_case *rc, bool is_static, struct sval_case *vc)
{
	snprintf(vc->id, sizeof(vc->id), "%s", rc->id);
	snprintf(vc->source_group, sizeof(vc->source_group), "%s", rc->source_group);
	snprintf(vc->trust, sizeof(vc->trust), "%s", rc->trust);
	snprintf(vc->model, sizeof(vc->model), "%s", rc->model);
	snprintf(vc->gpu, sizeof(vc->gpu), "%s", rc->gpu);
	snprintf(vc->engine, sizeof(vc->engine), "%s", rc->engine);
	vc->gpu_count = rc->gpu_count;
	if (rc->tp > 0)
		snprintf(vc->layout, sizeof(vc->layout), "tp%d pp%d ep%d dp%d%s", rc->tp, rc->pp,
			 rc->ep > 0 ? rc->ep : 1, rc->dp, rc->attention_dp > 1 ? " adp" : "");
	if (rc->tp > 0 && rc->attention_dp > 1)
		snprintf(vc->layout + strlen(vc->layout), sizeof(vc->layout) - strlen(vc->layout), "%d",
			 rc->attention_dp);
	else
		snprintf(vc->layout, sizeof(vc->layout), "tp? pp%d dp%d", rc->pp, rc->dp);
	snprintf(vc->precision, sizeof(vc->precision), "%s/%s/%s", rc->precision.weights,
		 rc->precision.activations[0] ? rc->precision.activations : "-",
		 rc->precision.kv_cache[0] ? rc->precision.kv_cache : "-");
	snprintf(vc->kind, sizeof(vc->kind), "%s", is_static ? "static" : rc->scenario);
	{
		/* engine and its major.minor version */
		const char *v = rc->engine_version[0] == 'v' ? rc->engine_version + 1 : rc->engine_version;
		int major = 0, minor = 0;

		if (v[0] && sscanf(v, "%d.%d", &major, &minor) == 2)
			snprintf(vc->engine_version, sizeof(vc->engine_version), "%s %d.%d", rc->engine, major, minor);
		else
			snprintf(vc->engine_version, sizeof(vc->engine_version), "%s ?", rc->engine);
	}
	snprintf(vc->regime, sizeof(vc->regime), "-");
	vc->expressible = true;
}

/* What the case publishes: throughput, TTFT and TPOT, each from the first
 * of its published forms. */
static void case_published_metrics(const struct raw_case *rc, struct sval_case *vc)
{
	const struct raw_measured *ms = &rc->measured;

	if (given(ms->output_tokens_per_s))
		set_metric(&vc->m[SVAL_THROUGHPUT], ms->output_tokens_per_s, "output tokens/s");
	else if (given(ms->output_tokens_per_s_per_gpu))
		set_metric(&vc->m[SVAL_THROUGHPUT], ms->output_tokens_per_s_per_gpu * rc->gpu_count,
			   "output tokens/s");
	if (given(ms->ttft_mean_ms))
		set_metric(&vc->m[SVAL_TTFT], ms->ttft_mean_ms, "mean");
	else if (given(ms->ttft_median_ms))
		set_metric(&vc->m[SVAL_TTFT], ms->ttft_median_ms, "median");
	else if (given(ms->ttft_ms))
		set_metric(&vc->m[SVAL_TTFT], ms->ttft_ms, "mean");
	else if (given(ms->ttft_mean_s))
		set_metric(&vc->m[SVAL_TTFT], ms->ttft_mean_s * 1e3, "mean");
	if (given(ms->tpot_mean_ms))
		set_metric(&vc->m[SVAL_TPOT], ms->tpot_mean_ms, "mean");
	else if (given(ms->itl_mean_ms))
		set_metric(&vc->m[SVAL_TPOT], ms->itl_mean_ms, "itl mean");
	else if (given(ms->itl_median_ms))
		set_metric(&vc->m[SVAL_TPOT], ms->itl_median_ms, "median");
	else if (given(ms->token_latency_p50_s))
		set_metric(&vc->m[SVAL_TPOT], ms->token_latency_p50_s * 1e3, "median");
}

/* Whether the case's model, features and layout are ones the simulator
 * expresses; sets *tp (derived from the GPU count when unpublished).
 * Returns 1, or 0 with the case marked not expressible. */
static int case_expressible(const struct smodel *sm, const struct raw_case *rc, struct sval_case *vc,
			    int *tp)
{
	if (!vc->m[SVAL_THROUGHPUT].have && !vc->m[SVAL_TTFT].have && !vc->m[SVAL_TPOT].have)
		return not_expressible(vc, "%s", "publishes only a phase-isolated prefill or decode rate per GPU or node, not output throughput, TTFT or TPOT");
	if (!sm)
		return not_expressible(vc, "model \"%s\" is not in the file's models", rc->model);
	if (!sm->complete)
		return not_expressible(vc, "the model's %s is not published and not in the supplement",
				       sm->missing);
	if (has_flag(rc->flags, "speculative_decoding"))
		return not_expressible(vc, "%s", "speculative decoding: the draft acceptance rate is not published");
	if (has_flag(rc->flags, "simulated_slowdown") || has_flag(rc->flags, "simulated_routing"))
		return not_expressible(vc, "%s", "an artificially slowed or simulated-routing run");
	if (rc->disaggregated)
		return not_expressible(vc, "%s", "disaggregated prefill/decode: the pool sizes and the KV-transfer setup are not published");
	if (rc->tp == NOT_GIVEN) {
		/* pp and dp are published: the one tp of the GPU count */
		char note[64];

		if (rc->pp * rc->dp <= 0 || rc->gpu_count % (rc->pp * rc->dp) != 0)
			return not_expressible(vc, "%s", "the tensor-parallel size is not published");
		*tp = rc->gpu_count / (rc->pp * rc->dp);
		snprintf(note, sizeof(note), "tp=%d (gpus / (pp x dp))", *tp);
		assume(vc, note);
		snprintf(vc->layout, sizeof(vc->layout), "tp%d pp%d ep%d dp%d*", *tp, rc->pp,
			 rc->ep > 0 ? rc->ep : 1, rc->dp);
	}
	if (rc->attention_dp == NOT_GIVEN) {
		/* SGLang's DP-attention degree is its --dp size, which the case
		 * records as dp; at its default of 1 --enable-dp-attention is
		 * switched off (server_args.py _handle_data_parallelism, v0.4.4
		 * and later): plain TP */
		if (strcmp(rc->engine, "sglang") != 0 || rc->dp != 1)
			return not_expressible(vc, "%s", "attention data parallelism is on but its degree is not published");
		assume(vc, "attention_dp=1 (sglang --dp 1 turns dp attention off)");
	}
	if (rc->attention_dp > 1 && *tp % rc->attention_dp != 0)
		return not_expressible(vc, "%s", "attention data parallelism across more GPUs than the TP group is not modelled");
	if (rc->ep > 1 && *tp % rc->ep != 0)
		return not_expressible(vc, "%s", "expert parallelism beyond the TP group is not modelled");
	if (*tp * rc->pp * rc->dp != rc->gpu_count)
		return not_expressible(vc, "%s", "tp x pp x dp is not the GPU count");
	return 1;
}

/* The catalogue entries the case runs on: GPU (published short names
 * mapped to a catalogue variant), engine, fabric and calibration.
 * Returns 1, or 0 with the case marked not expressible. */
static int case_catalog_entries(const struct catalog *cat, const struct srv_engines *engines,
				const struct raw_case *rc, struct sval_case *vc, const struct gpu_spec **gpu,
				const struct srv_engine **eng, const struct fabric_spec **fab,
				const struct calibration **cal)
{
	char gname[SC_NAME_MAX];

	snprintf(gname, sizeof(gname), "%s", rc->gpu);
	if (strcmp(gname, "a100") == 0) {
		snprintf(gname, sizeof(gname), "a100-80gb");
		assume(vc, "gpu a100 = a100-80gb");
	} else if (strcmp(gname, "h100") == 0) {
		snprintf(gname, sizeof(gname), "h100-sxm");
		assume(vc, "gpu h100 = h100-sxm");
	}
	if (!(*gpu = catalog_gpu(cat, gname)))
		return not_expressible(vc, "GPU \"%s\" is not in the catalogue", gname);
	if (!(*eng = srv_engine_find(engines, engine_name(rc))))
		return not_expressible(vc, "engine \"%s\" is not in configs/engines.json", rc->engine);
	if (!(*fab = catalog_fabric(cat, "dgx-infiniband")))
		return not_expressible(vc, "%s", "fabric \"dgx-infiniband\" is not in the catalogue");
	if (!(*cal = catalog_calibration(cat, (*gpu)->calibration)))
		return not_expressible(vc, "calibration \"%s\" is not in the catalogue", (*gpu)->calibration);
	return 1;
}

/* The replica's hardware and parallel layout: the instance the GPU ships
 * in (NVL72 trays for GB200/GB300, 8-GPU nodes otherwise), tp/pp/ep and
 * the replica count. */
static void case_replica(const struct smodel *sm, const struct gpu_spec *gpu,
			 const struct fabric_spec *fab, const struct calibration *cal,
			 const struct raw_case *rc, int tp, struct sval_case *vc, struct srv_scenario *sc)
{
	snprintf(sc->name, sizeof(sc->name), "%s", rc->id);
	sc->arch = sm->arch;
	if (sm->filled[0]) {
		char note[160];
		snprintf(note, sizeof(note), "model %s from the supplement", sm->filled);
		assume(vc, note);
	}
	sc->gpu = *gpu;
	sc->fabric = *fab;
	sc->calibration = *cal;
	{
		struct instance_spec *in = &sc->instance;
		bool nvl72 = strcmp(gpu->name, "gb200") == 0 || strcmp(gpu->name, "gb300") == 0;

		snprintf(in->name, sizeof(in->name), "%s", rc->system[0] ? "published system" : gpu->name);
		snprintf(in->gpu, sizeof(in->gpu), "%s", gpu->name);
		in->gpus_per_node = nvl72 ? 4 : 8;
		in->nvlink_domain_gpus = nvl72 ? 72 : 8;
		in->efa_nics = in->gpus_per_node;
		in->efa_nic_Gbps = 400;
	}
	sc->replica.tp = tp;
	sc->replica.pp = rc->pp;
	if (rc->ep > 0) {
		sc->replica.ep = rc->ep;
	} else {
		sc->replica.ep = 1;
		if (sc->arch.m.experts > 0)
			assume(vc, "ep=1");
	}
	if (sc->arch.m.experts == 0)
		sc->replica.ep = 1;
	sc->replica.attention_dp = rc->attention_dp > 1 ? rc->attention_dp : 1;
	sc->replicas = rc->dp;
}

/* Weight, activation and KV-cache formats: published, or the engine's
 * default for the weights and the GPU's tensor cores.
 * Returns 1, or 0 with the case marked not expressible. */
static int case_formats(const struct gpu_spec *gpu, const struct srv_engine *eng,
			const struct raw_case *rc, struct sval_case *vc, struct srv_scenario *sc)
{
	if (!parse_format(rc->precision.weights, &sc->precision.weights))
		return not_expressible(vc, "weight format \"%s\" is not modelled", rc->precision.weights);
	if (rc->precision.activations[0]) {
		if (!parse_format(rc->precision.activations, &sc->precision.activations))
			return not_expressible(vc, "activation format \"%s\" is not modelled",
					       rc->precision.activations);
		if ((sc->precision.activations == SRV_FMT_FP8 && !(gpu->peak_fp8_flops > 0)) ||
		    (sc->precision.activations == SRV_FMT_NVFP4 && !(gpu->peak_fp4_flops > 0))) {
			/* the engines fall back to a weight-only kernel (Marlin) */
			sc->precision.activations = SRV_FMT_BF16;
			assume(vc, "activations=bf16 (no such tensor cores: weight-only kernel)");
		}
	} else {
		enum srv_format wf = sc->precision.weights;
		bool has_fp8 = gpu->peak_fp8_flops > 0, has_fp4 = gpu->peak_fp4_flops > 0;

		char note[48];

		sc->precision.activations = (wf == SRV_FMT_FP8 && has_fp8) || (wf == SRV_FMT_NVFP4 && has_fp4)
					    ? wf : (wf == SRV_FMT_FP16 ? SRV_FMT_FP16 : SRV_FMT_BF16);
		snprintf(note, sizeof(note), "activations=%s", srv_format_name(sc->precision.activations));
		assume(vc, note);
	}
	if (rc->precision.kv_cache[0]) {
		if (strcmp(rc->precision.kv_cache, "fp8-mixed") == 0) {
			sc->precision.kv_cache = SRV_FMT_FP8;
			assume(vc, "kv fp8-mixed = fp8");
		} else if (!parse_format(rc->precision.kv_cache, &sc->precision.kv_cache)) {
			return not_expressible(vc, "KV-cache format \"%s\" is not modelled", rc->precision.kv_cache);
		}
	} else if (eng->kv_cache_dtype == SRV_KV_DTYPE_CHECKPOINT &&
		   (sc->precision.weights == SRV_FMT_FP8 || sc->precision.weights == SRV_FMT_NVFP4)) {
		/* the engine takes the KV dtype from the checkpoint
		 * (configs/engines.json kv_cache_dtype), and NVIDIA ModelOpt
		 * FP8/NVFP4 checkpoints set kv_cache_quant_algo FP8
		 * (serving-cases README, "Known caveats") */
		sc->precision.kv_cache = SRV_FMT_FP8;
		assume(vc, "kv=fp8 (ModelOpt checkpoint)");
	} else {
		sc->precision.kv_cache = sc->precision.weights == SRV_FMT_FP16 ? SRV_FMT_FP16 : SRV_FMT_BF16;
		assume(vc, sc->precision.kv_cache == SRV_FMT_FP16 ? "kv=fp16" : "kv=bf16");
	}
	return 1;
}

/* The engine's settings: its defaults (smaller-GPU defaults where the
 * benchmark does not set them), overridden by the published batch limits. */
static void case_engine(const struct gpu_spec *gpu, const struct srv_engine *eng,
			const struct raw_case *rc, struct sval_case *vc, struct srv_scenario *sc)
{
	const struct raw_workload *w = &rc->workload;

	sc->engine = *eng;
	if (strcmp(eng->name, rc->engine) != 0) {
		char note[96];
		snprintf(note, sizeof(note), "engine defaults %s", eng->name);
		assume(vc, note);
	}
	if (srv_engine_gpu_defaults(&sc->engine, gpu, w->max_batch_size > 0, w->max_num_tokens > 0)) {
		char note[96];
		snprintf(note, sizeof(note), "%s smaller-GPU defaults (%d seqs, %d tokens)", eng->name,
			 sc->engine.max_num_seqs, sc->engine.max_num_batched_tokens);
		assume(vc, note);
	}
	if (w->max_batch_size > 0)
		sc->engine.max_num_seqs = w->max_batch_size;
	if (w->max_num_tokens > 0)
		sc->engine.max_num_batched_tokens = w->max_num_tokens;
	if (w->kv_cache_tokens > 0)
		sc->engine.kv_cache_tokens = w->kv_cache_tokens;   /* the benchmark's stated pool */
	if (srv_engine_attention_dp_limits(&sc->engine, sc->replica.attention_dp) > 1) {
		char note[96];
		snprintf(note, sizeof(note), "batch limits per attention rank: %d seqs, %d tokens per replica",
			 sc->engine.max_num_seqs, sc->engine.max_num_batched_tokens);
		assume(vc, note);
	}
	sc->router = SRV_ROUTER_LEAST_LOADED;
}

/* Prompt and output lengths: stated, realised, or derived from published
 * token rates; then the case's length regime.
 * Returns 1, or 0 with the case marked not expressible. */
static int case_lengths(const struct raw_case *rc, struct sval_case *vc, struct srv_scenario *sc)
{
	const struct raw_measured *ms = &rc->measured;
	const struct raw_workload *w = &rc->workload;
	double mean_in = w->mean_input_len, mean_out = w->mean_output_len, der_in = 0, der_out = 0;

	if (given(ms->output_tokens_per_s) && given(ms->requests_per_s))
		der_out = ms->output_tokens_per_s / ms->requests_per_s;
	if (given(ms->total_tokens_per_s) && given(ms->output_tokens_per_s) && given(ms->requests_per_s))
		der_in = (ms->total_tokens_per_s - ms->output_tokens_per_s) / ms->requests_per_s;
	if (!set_length(vc, &sc->workload.input_tokens, w->input_len, w->max_input_len, mean_in, der_in, "input") ||
	    !set_length(vc, &sc->workload.output_tokens, w->output_len, w->max_output_len, mean_out, der_out,
			"output"))
		return not_expressible(vc, "%s", "the prompt and output lengths are not published");

	snprintf(vc->regime, sizeof(vc->regime), "%s",
		 sval_regime(length_mean(&sc->workload.input_tokens), length_mean(&sc->workload.output_tokens)));
	return 1;
}

/* Arrivals: a static batch, Poisson at the published rate, a closed loop
 * at the published concurrency, or a burst of all prompts; online
 * benchmarks go through the engine's HTTP server.
 * Returns 1, or 0 with the case marked not expressible. */
static int case_arrivals(const struct raw_case *rc, bool is_static, struct sval_case *vc,
			 struct srv_scenario *sc)
{
	const struct raw_workload *w = &rc->workload;

	sc->workload.front_end = strcmp(rc->scenario, "online") == 0;
	sc->workload.seed = 1;
	sc->workload.warmup_requests = 0;
	if (is_static) {
		int b = w->batch_size > 0 ? w->batch_size : w->concurrency;

		if (b <= 0)
			return not_expressible(vc, "%s", "a static batch without a batch size");
		sc->engine.schedule = SRV_SCHED_STATIC;
		sc->engine.max_num_seqs = b;
		sc->workload.arrival = SRV_ARRIVAL_BURST;
		sc->workload.requests = b * rc->dp;
	} else if (w->request_rate_rps > 0 && isfinite(w->request_rate_rps)) {
		sc->workload.arrival = SRV_ARRIVAL_POISSON;
		sc->workload.rate_rps = w->request_rate_rps;
		sc->workload.requests = w->num_prompts > 0 ? w->num_prompts : 1000;
		assume(vc, "poisson arrivals");
	} else if (w->concurrency > 0) {
		sc->workload.arrival = SRV_ARRIVAL_CONCURRENCY;
		sc->workload.concurrency = w->concurrency;
		sc->workload.requests = w->num_prompts > 0 ? w->num_prompts : 10 * w->concurrency;
		if (sc->engine.max_num_seqs < w->concurrency && w->max_batch_size <= 0) {
			/* closed-loop benchmarks size the engine's batch to their
			 * concurrency (LMDeploy profile_throughput) */
			sc->engine.max_num_seqs = w->concurrency;
			assume(vc, "max_num_seqs=concurrency");
		}
	} else if (w->request_rate_rps == INFINITY && w->num_prompts > 0) {
		sc->workload.arrival = SRV_ARRIVAL_BURST;
		sc->workload.requests = w->num_prompts;
	} else {
		return not_expressible(vc, "%s", "neither the request rate nor the concurrency and prompt count are published");
	}
	return 1;
}

/* One published case as a serving scenario, or the reason it is not
 * expressible; vc->sc is set only when the whole case expresses. */
static int build_case(const struct models *models, const struct catalog *cat,
		      const struct srv_engines *engines, const struct raw_case *rc,
		      struct sval_case *vc)
{
	const struct smodel *sm = NULL;
	const struct gpu_spec *gpu;
	const struct srv_engine *eng;
	const struct fabric_spec *fab;
	const struct calibration *cal;
	struct srv_scenario *sc;
	bool is_static = has_flag(rc->flags, "static_batching");
	int tp = rc->tp;

	case_identity(rc, is_static, vc);
	case_published_metrics(rc, vc);
	for (int i = 0; i < models->n; i++)
		if (strcmp(models->m[i].name, rc->model) == 0)
			sm = &models->m[i];
	if (!case_expressible(sm, rc, vc, &tp) ||
	    !case_catalog_entries(cat, engines, rc, vc, &gpu, &eng, &fab, &cal))
		return 0;
	if (!(sc = calloc(1, sizeof(*sc))))
		return not_expressible(vc, "%s", "out of memory");
	case_replica(sm, gpu, fab, cal, rc, tp, vc, sc);
	if (!case_formats(gpu, eng, rc, vc, sc)) {
		free(sc);
		return 0;
	}
	case_engine(gpu, eng, rc, vc, sc);
	if (!case_lengths(rc, vc, sc) || !case_arrivals(rc, is_static, vc, sc)) {
		free(sc);
		return 0;
	}
	vc->sc = sc;
	return 1;
}

/* ---- load / run ---------------------------------------------------------------------------- */

static enum sc_status load_supplement(const char *path, cJSON **root, const cJSON **models,
				      struct sc_error *err)
{
	static const char *const top[] = { "description", "models", NULL };
	struct cfg_reader rd = { path, err, NULL };
	enum sc_status st;

	*root = NULL;
	*models = NULL;
	if (!path)
		return SC_OK;
	if (!(*root = cfg_parse_file(path, err)))
		return err->status;
	if ((st = cfg_check_keys(&rd, *root, top, "")) != SC_OK)
		return st;
	*models = cJSON_GetObjectItemCaseSensitive(*root, "models");
	if (!cJSON_IsObject(*models))
		return sc_error_set(err, SC_EINVAL, path, "/models", "expected an object of models");
	return SC_OK;
}

enum sc_status sval_load(const char *cases_path, const char *supplement_path,
			 const struct catalog *cat, const struct srv_engines *engines,
			 struct sval_set *set, struct sc_error *err)
{
	static const char *const top[] = { "models", "cases", NULL };
	struct cfg_reader rd = { cases_path, err, NULL };
	struct models models = { NULL, 0 };
	cJSON *root = NULL, *supp = NULL;
	const cJSON *mobj, *cases, *item, *supp_models;
	struct raw_case *rc = NULL;
	enum sc_status st;
	int i = 0;

	memset(set, 0, sizeof(*set));
	snprintf(set->path, sizeof(set->path), "%s", cases_path);
	if ((st = load_supplement(supplement_path, &supp, &supp_models, err)) != SC_OK)
		goto out;
	if (!(root = cfg_parse_file(cases_path, err))) {
		st = err->status;
		goto out;
	}
	if ((st = cfg_check_keys(&rd, root, top, "")) != SC_OK)
		goto out;
	mobj = cJSON_GetObjectItemCaseSensitive(root, "models");
	cases = cJSON_GetObjectItemCaseSensitive(root, "cases");
	if (!cJSON_IsObject(mobj)) {
		st = sc_error_set(err, SC_EINVAL, cases_path, "/models", "expected an object of models");
		goto out;
	}
	if (!cJSON_IsArray(cases)) {
		st = sc_error_set(err, SC_EINVAL, cases_path, "/cases", "expected an array of cases");
		goto out;
	}
	/* (supplement entries of models this file does not have are unused:
	 * a file may hold a subset of the cases) */
	models.n = cJSON_GetArraySize(mobj);
	models.m = calloc((size_t)models.n + 1, sizeof(*models.m));
	set->n_cases = cJSON_GetArraySize(cases);
	set->cases = calloc((size_t)set->n_cases + 1, sizeof(*set->cases));
	rc = malloc(sizeof(*rc));
	if (!models.m || !set->cases || !rc) {
		st = sc_error_set(err, SC_ENOMEM, cases_path, NULL, "out of memory");
		goto out;
	}
	cJSON_ArrayForEach(item, mobj) {
		char where[SC_ERROR_PTR_MAX];

		cfg_pointer_key(where, sizeof(where), "/models", item->string);
		if (strlen(item->string) >= SC_NAME_MAX) {
			st = sc_error_set(err, SC_EINVAL, cases_path, where, "model name too long");
			goto out;
		}
		if (!cJSON_IsObject(item)) {
			st = sc_error_set(err, SC_EINVAL, cases_path, where, "expected a model object");
			goto out;
		}
		if ((st = read_model(&rd, item, supplement_path, supp_models, &models.m[i], item->string,
				      where)) != SC_OK)
			goto out;
		i++;
	}
	i = 0;
	cJSON_ArrayForEach(item, cases) {
		char where[SC_ERROR_PTR_MAX];

		cfg_pointer_index(where, sizeof(where), "/cases", i);
		raw_defaults(rc);
		if ((st = cfg_read_object(&rd, item, case_fields, rc, where)) != SC_OK)
			goto out;
		build_case(&models, cat, engines, rc, &set->cases[i]);
		i++;
	}
	st = SC_OK;
out:
	free(rc);
	free(models.m);
	cJSON_Delete(root);
	cJSON_Delete(supp);
	if (st != SC_OK)
		sval_free(set);
	return st;
}

/* r's stable and sustainable_rps (open loops only), leaving its rates
 * as the benchmark measured them. */
static enum sc_status case_stability(const struct srv_scenario *sc, struct srv_result *r,
				     struct sc_error *err)
{
	struct srv_result v = *r;
	double cap = 0;
	enum sc_status st;

	if (!(sc->workload.arrival == SRV_ARRIVAL_POISSON || sc->workload.arrival == SRV_ARRIVAL_TRACE))
		return SC_OK;
	if ((st = srv_capacity(sc, &cap, err)) != SC_OK)
		return st;
	srv_stability(sc, cap, &v);
	r->stable = v.stable;
	r->sustainable_rps = v.sustainable_rps;
	return SC_OK;
}

void sval_run(struct sval_set *set, const struct calibration *calibration)
{
	for (int i = 0; i < set->n_cases; i++) {
		struct sval_case *vc = &set->cases[i];
		struct srv_result r;
		struct sc_error err;

		if (!vc->sc)
			continue;
		if (calibration && calibration_fits_gpu(calibration, &vc->sc->gpu))
			vc->sc->calibration = *calibration;
		/* the benchmark's own throughput (the run as simulated), and the
		 * stability verdict against the sustainable rate beside it */
		if (srv_simulate(vc->sc, &r, &err) != SC_OK ||
		    case_stability(vc->sc, &r, &err) != SC_OK) {
			vc->expressible = false;
			snprintf(vc->reason, sizeof(vc->reason), "model cannot express it: %s%s%s",
				 err.pointer, err.pointer[0] ? ": " : "", err.message);
			continue;
		}
		vc->expressible = true;
		vc->unstable = !r.stable;
		vc->sustainable_rps = r.sustainable_rps;
		for (int k = 0; k < SVAL_METRICS; k++) {
			struct sval_value *v = &vc->m[k];

			if (!v->have)
				continue;
			switch (k) {
			case SVAL_THROUGHPUT:
				v->predicted = r.output_tokens_per_s;
				break;
			case SVAL_TTFT:
				v->predicted = 1e3 * (strcmp(v->stat, "median") == 0 ? r.ttft_s.p50 : r.ttft_s.mean);
				break;
			case SVAL_TPOT:
				v->predicted = 1e3 * (strcmp(v->stat, "median") == 0 ? r.tpot_s.p50
						      : strcmp(v->stat, "itl mean") == 0 ? r.itl_mean_s
						      : r.tpot_s.mean);
				break;
			}
			v->err_rel = (v->predicted - v->measured) / v->measured;
		}
	}
}

const char *sval_regime(double in, double out)
{
	if (out >= SVAL_LONG_OUTPUT_TOKENS)
		return "long-output";
	if (in >= 4 * out)
		return "prefill-heavy";
	if (out >= 4 * in)
		return "decode-heavy";
	return "balanced";
}

bool sval_compared(const struct sval_case *vc, enum sval_metric k)
{
	return vc->expressible && vc->m[k].have && (k == SVAL_THROUGHPUT || !vc->unstable);
}

/* The time-like log ratios of the usable values of regime r (NULL skip:
 * all groups, else leaving out group skip); their count. */
static int serve_residuals(const struct sval_set *set, const char *family, int r, const char *skip,
			   const int *gidx, double *x, int *grp)
{
	int n = 0;

	for (int i = 0; i < set->n_cases; i++) {
		const struct sval_case *vc = &set->cases[i];

		if (!vc->sc || (family && strcmp(vc->sc->calibration.gpu_family, family) != 0) ||
		    (skip && strcmp(vc->source_group, skip) == 0) ||
		    (int)model_serving_regime(srv_length_mean(&vc->sc->workload.input_tokens),
					      srv_length_mean(&vc->sc->workload.output_tokens)) != r)
			continue;
		for (int k = 0; k < SVAL_METRICS; k++) {
			const struct sval_value *v = &vc->m[k];

			if (!sval_compared(vc, (enum sval_metric)k) || !v->has_oos || !(v->oos_predicted > 0) ||
			    !(v->measured > 0))
				continue;
			x[n] = k == SVAL_THROUGHPUT ? log(v->oos_predicted / v->measured)
						    : log(v->measured / v->oos_predicted);
			grp[n++] = gidx[i];
		}
	}
	return n;
}

void sval_regime_bands(const struct sval_set *set, const char *family,
		       struct model_regime_band band[REGIME_COUNT], int covered[REGIME_COUNT])
{
	size_t cap = (size_t)set->n_cases * SVAL_METRICS + 1;
	double *x = malloc(sizeof(double) * cap);
	int *grp = malloc(sizeof(int) * cap), *gidx = malloc(sizeof(int) * ((size_t)set->n_cases + 1));
	int n_groups = 0;
	const enum model_regime rs[] = { REGIME_SERVE_PREFILL, REGIME_SERVE_DECODE };

	memset(band, 0, sizeof(*band) * REGIME_COUNT);
	memset(covered, 0, sizeof(*covered) * REGIME_COUNT);
	for (int r = 0; r < REGIME_COUNT; r++)
		band[r].coverage = -1;
	if (!x || !grp || !gidx)
		goto done;
	for (int i = 0; i < set->n_cases; i++) {
		int g = -1;

		for (int j = 0; j < i && g < 0; j++)
			if (strcmp(set->cases[j].source_group, set->cases[i].source_group) == 0)
				g = gidx[j];
		gidx[i] = g >= 0 ? g : n_groups++;
	}
	for (size_t q = 0; q < sizeof(rs) / sizeof(rs[0]); q++) {
		int r = rs[q], m = serve_residuals(set, family, r, NULL, gidx, x, grp);
		int checked = 0, inside = 0;

		if (!val_band_of_log_ratios(x, grp, m, n_groups, &band[r]))
			continue;
		/* nested: each group's values against the band of the others */
		for (int i = 0; i < set->n_cases; i++) {
			struct model_regime_band nb;
			bool first = true;
			int mi, mo;

			for (int j = 0; j < i && first; j++)
				first = gidx[j] != gidx[i];
			if (!first)
				continue;
			mo = serve_residuals(set, family, r, set->cases[i].source_group, gidx, x, grp);
			memset(&nb, 0, sizeof(nb));
			if (!val_band_of_log_ratios(x, grp, mo, n_groups, &nb))
				continue;
			mi = serve_residuals(set, family, r, NULL, gidx, x, grp);
			for (int k = 0; k < mi; k++) {
				double v = exp(x[k]);

				if (grp[k] != gidx[i])
					continue;
				checked++;
				inside += v >= nb.p10 && v <= nb.p90;
			}
		}
		covered[r] = checked;
		band[r].coverage = checked ? (double)inside / checked : -1;
	}
done:
	free(x);
	free(grp);
	free(gidx);
}

double sval_oos_mape(const struct sval_set *set, enum sval_metric metric,
		     bool (*filter)(const struct sval_case *, const void *), const void *arg,
		     int *count)
{
	double sum = 0;
	int n = 0;

	for (int i = 0; i < set->n_cases; i++) {
		const struct sval_case *vc = &set->cases[i];

		if (!sval_compared(vc, metric) || !vc->m[metric].has_oos || (filter && !filter(vc, arg)))
			continue;
		sum += fabs(vc->m[metric].oos_err_rel);
		n++;
	}
	if (count)
		*count = n;
	return n ? sum / n : 0;
}

void sval_stats(const struct sval_set *set, enum sval_metric metric,
		bool (*filter)(const struct sval_case *, const void *), const void *arg,
		struct val_stats *out)
{
	double *err = malloc(sizeof(double) * ((size_t)set->n_cases + 1));
	int *index = malloc(sizeof(int) * ((size_t)set->n_cases + 1));
	int n = 0;

	memset(out, 0, sizeof(*out));
	out->worst_index = -1;
	if (err && index) {
		for (int i = 0; i < set->n_cases; i++) {
			const struct sval_case *vc = &set->cases[i];
			const struct sval_value *v = &vc->m[metric];

			if (!sval_compared(vc, metric) || (filter && !filter(vc, arg)))
				continue;
			err[n] = v->err_rel;
			index[n++] = i;
		}
		val_stats_of_errors(err, index, n, out);
	}
	free(err);
	free(index);
}

void sval_free(struct sval_set *set)
{
	if (set->cases)
		for (int i = 0; i < set->n_cases; i++)
			free(set->cases[i].sc);
	free(set->cases);
	memset(set, 0, sizeof(*set));
}
