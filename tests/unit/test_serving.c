/* test_serving.c: the serving model and simulation against hand
 * calculations and queueing laws.
 *
 *  - KV bytes per token of a GQA model (Llama-3-70B) and an MLA model
 *    (DeepSeek-V3), whole-model and per GPU under TP, by hand;
 *  - the KV footprint of a sliding-window model (gpt-oss-120b), and the
 *    whole context kept by an engine that ignores the window;
 *  - decode attention as the engine's kernel reads the KV cache: a
 *    per-head kernel reads a GQA group's KV head 1 + (g - 1)(1 - L2 hit)
 *    times, a grouped kernel once, past its largest group per head again;
 *  - the mean length the sizing uses is the clipped distribution's, the
 *    sampler's;
 *  - a decode step at batch 1 is bound by streaming the weights from HBM:
 *    its GEMM time equals weight bytes / (HBM bandwidth x serve_hbm_eta);
 *    a long prefill is compute-bound;
 *  - Little's law L = lambda W in the simulation's steady state;
 *  - one static batch takes its prefill plus every decode step, summed by
 *    hand from the iteration model;
 *  - the disaggregated KV transfer takes the send/recv time of the prompt's
 *    KV bytes on EFA, by hand;
 *  - determinism (same seed, same answer), preemption under a full cache,
 *    speculative decoding's tokens per step, the planner's answer meeting
 *    its SLOs.
 * Runs from the repository root (the catalogue in configs/).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "models/collective.h"
#include "models/serving.h"
#include "sim/config/catalog_load.h"
#include "sim/serve/serve_config.h"
#include "sim/serve/serve_datasets.h"
#include "sim/serve/serve_plan.h"
#include "sim/serve/serve_sim.h"
#include "sc_test.h"

static struct catalog cat;
static struct srv_engines engines;

static bool load_scenario(const char *json, struct srv_scenario *sc)
{
	struct sc_error err;
	cJSON *root = cfg_parse_buffer("test", json, strlen(json), &err);
	enum sc_status st;

	if (!root) {
		fprintf(stderr, "parse: %s\n", err.message);
		return false;
	}
	st = srv_scenario_read("test", root, &cat, &engines, sc, &err);
	cJSON_Delete(root);
	if (st != SC_OK)
		fprintf(stderr, "scenario: %s: %s\n", err.pointer, err.message);
	return st == SC_OK;
}

static void test_kv_bytes_gqa(void)
{
	const struct model_arch *m = catalog_model(&cat, "llama3-70b");
	static struct srv_scenario sc;
	static struct srv_replica r;
	struct sc_error err;

	CHECK(m != NULL);
	if (!m)
		return;
	/* 2 (K, V) x 8 kv heads x 128 head dim x 2 bytes x 80 layers */
	CHECK_REL(srv_kv_bytes_per_token(m, 2.0), 2.0 * 8 * 128 * 2 * 80, 1e-12);
	CHECK_REL(srv_kv_bytes_per_token(m, 1.0), 163840.0, 1e-12);
	/* TP 8: one kv head per GPU */
	CHECK(load_scenario("{\"name\":\"t\",\"model\":\"llama3-70b\",\"instance\":\"p5en.48xlarge\","
			    "\"replica\":{\"tp\":8},\"replicas\":1,\"precision\":{\"weights\":\"bf16\"},"
			    "\"engine\":\"vllm\",\"workload\":{\"arrival\":\"burst\",\"requests\":10,"
			    "\"input_tokens\":{\"dist\":\"fixed\",\"mean\":100},"
			    "\"output_tokens\":{\"dist\":\"fixed\",\"mean\":10}}}", &sc));
	CHECK(srv_replica_for(&sc, &sc.replica, &r, &err) == SC_OK);
	CHECK_REL(r.kv_bytes_per_token_full, 2.0 * 1 * 128 * 2 * 80, 1e-12);
	CHECK_REL(r.kv_bytes_per_token_window, 0.0, 0);
	/* a block of 16 holds 16 tokens' worth: 17 tokens take two blocks */
	CHECK_REL(srv_kv_seq_bytes(&r, 17, 16), 32 * 40960.0, 1e-12);
}

static void test_kv_bytes_mla(void)
{
	const struct model_arch *m = catalog_model(&cat, "deepseek-v3");
	static struct srv_scenario sc;
	static struct srv_replica r;
	struct sc_error err;

	CHECK(m != NULL);
	if (!m)
		return;
	/* the compressed latent (512) and the shared rotary key (64) per
	 * layer, 61 layers, BF16 (DeepSeek-V2 report, section 2.1.4) */
	CHECK_REL(srv_kv_bytes_per_token(m, 2.0), (512.0 + 64.0) * 2 * 61, 1e-12);
	/* an MHA model of the same shape would need 128 heads x (128 + 128) */
	CHECK(srv_kv_bytes_per_token(m, 2.0) < 61.0 * 128 * 256 * 2 / 40);
	/* under TP every rank keeps the whole latent */
	CHECK(load_scenario("{\"name\":\"t\",\"model\":\"deepseek-v3\",\"instance\":\"p6-b200.48xlarge\","
			    "\"replica\":{\"tp\":8,\"ep\":8},\"replicas\":1,\"precision\":{\"weights\":\"fp8\","
			    "\"kv_cache\":\"fp8\"},\"engine\":\"sglang\",\"workload\":{\"arrival\":\"burst\","
			    "\"requests\":10,\"input_tokens\":{\"dist\":\"fixed\",\"mean\":100},"
			    "\"output_tokens\":{\"dist\":\"fixed\",\"mean\":10}}}", &sc));
	CHECK(srv_replica_for(&sc, &sc.replica, &r, &err) == SC_OK);
	CHECK_REL(r.kv_bytes_per_token_full, 576.0 * 61, 1e-12);
}

/* Attention DP: each of the 8 ranks keeps only its own sequences' MLA
 * latent (the replica holds 8 x the tokens of TP-only attention), carries
 * the whole attention weights (more weight bytes per GPU), and a decode
 * step of a large batch is cheaper (each rank reads 1/8 of the KV cache);
 * the per-rank limits of TensorRT-LLM's PyTorch backend scale by 8;
 * attention_dp must divide tp and needs an MoE model. */
static void test_attention_dp(void)
{
	static struct srv_scenario sc, sd;
	static struct srv_replica r, rd;
	struct sc_error err;
	struct srv_batch b;
	const char *fmt = "{\"name\":\"t\",\"model\":\"%s\",\"instance\":\"p6-b200.48xlarge\","
			  "\"replica\":{\"tp\":8,\"ep\":8%s},\"replicas\":1,\"precision\":{\"weights\":\"fp8\","
			  "\"kv_cache\":\"fp8\"},\"engine\":{\"name\":\"tensorrt-llm-pytorch\",\"max_num_seqs\":64},"
			  "\"workload\":{\"arrival\":\"burst\",\"requests\":10,\"input_tokens\":{\"dist\":\"fixed\",\"mean\":100},"
			  "\"output_tokens\":{\"dist\":\"fixed\",\"mean\":10}}}";
	char buf[1024];

	snprintf(buf, sizeof(buf), fmt, "deepseek-v3", "");
	CHECK(load_scenario(buf, &sc));
	snprintf(buf, sizeof(buf), fmt, "deepseek-v3", ",\"attention_dp\":8");
	CHECK(load_scenario(buf, &sd));
	CHECK(srv_replica_for(&sc, &sc.replica, &r, &err) == SC_OK);
	CHECK(srv_replica_for(&sd, &sd.replica, &rd, &err) == SC_OK);
	CHECK(sc.engine.max_num_seqs == 64);
	CHECK(sd.engine.max_num_seqs == 8 * 64);
	CHECK(rd.adp == 8 && rd.attn_tp == 1);
	CHECK_REL(rd.kv_bytes_per_token_full, r.kv_bytes_per_token_full / 8, 1e-12);
	CHECK(rd.weights_bytes > r.weights_bytes);
	memset(&b, 0, sizeof(b));
	b.decode_seqs = b.sampled = 512;
	b.decode_ctx = 512 * 4096.0;
	b.decode_ctx_win = b.decode_ctx;
	CHECK(srv_iteration_time(&rd, &b, NULL) < srv_iteration_time(&r, &b, NULL));
	snprintf(buf, sizeof(buf), fmt, "deepseek-v3", ",\"attention_dp\":3");
	CHECK(load_scenario(buf, &sd));
	CHECK(srv_replica_for(&sd, &sd.replica, &rd, &err) == SC_EINVAL);
	CHECK(strstr(err.pointer, "attention_dp") != NULL);
}

/* A disaggregated pool with its own attention_dp runs the engine's
 * per-rank limits times its own degree; the other pool keeps the
 * replica's.  SGLang's limits are the replica's whatever the degree. */
static void test_attention_dp_pools(void)
{
	static struct srv_scenario sc;
	const char *fmt = "{\"name\":\"t\",\"model\":\"deepseek-v3\",\"instance\":\"p6-b200.48xlarge\","
			  "\"replica\":{\"tp\":8,\"ep\":8},\"disaggregated\":{\"prefill_replicas\":1,\"decode_replicas\":1,"
			  "\"decode\":{\"tp\":8,\"ep\":8,\"attention_dp\":4}},\"precision\":{\"weights\":\"fp8\"},"
			  "\"engine\":{\"name\":\"%s\",\"max_num_seqs\":64,\"max_num_batched_tokens\":4096},"
			  "\"workload\":{\"arrival\":\"burst\",\"requests\":10,\"input_tokens\":{\"dist\":\"fixed\",\"mean\":100},"
			  "\"output_tokens\":{\"dist\":\"fixed\",\"mean\":10}}}";
	char buf[1024];
	int seqs, tokens;

	snprintf(buf, sizeof(buf), fmt, "tensorrt-llm-pytorch");
	CHECK(load_scenario(buf, &sc));
	srv_engine_pool_limits(&sc.engine, &sc.disagg.decode, &seqs, &tokens);
	CHECK(seqs == 4 * 64 && tokens == 4 * 4096);
	srv_engine_pool_limits(&sc.engine, &sc.disagg.prefill, &seqs, &tokens);
	CHECK(seqs == 64 && tokens == 4096);
	snprintf(buf, sizeof(buf), fmt, "sglang");
	CHECK(load_scenario(buf, &sc));
	srv_engine_pool_limits(&sc.engine, &sc.disagg.decode, &seqs, &tokens);
	CHECK(seqs == 64 && tokens == 4096);
}

/* A stated KV pool (kv_cache_tokens) holds exactly that many tokens; the
 * "kv" basis sizes the pool alone as a fraction of total HBM (LMDeploy
 * before v0.2.2), whatever the weights take. */
static void test_kv_pool_stated(void)
{
	static struct srv_scenario sc;
	static struct srv_replica r;
	struct sc_error err;
	const char *fmt = "{\"name\":\"t\",\"model\":\"llama3-8b\",\"instance\":\"p5.48xlarge\","
			  "\"replica\":{\"tp\":1},\"replicas\":1,\"precision\":{\"weights\":\"bf16\"},\"engine\":{\"name\":\"lmdeploy\"%s},"
			  "\"workload\":{\"arrival\":\"burst\",\"requests\":10,\"input_tokens\":{\"dist\":\"fixed\",\"mean\":100},"
			  "\"output_tokens\":{\"dist\":\"fixed\",\"mean\":10}}}";
	char buf[1024];

	snprintf(buf, sizeof(buf), fmt, ",\"kv_cache_tokens\":100000");
	CHECK(load_scenario(buf, &sc));
	CHECK(srv_replica_for(&sc, &sc.replica, &r, &err) == SC_OK);
	CHECK_REL(r.kv_pool_bytes / (r.kv_bytes_per_token_full + r.kv_bytes_per_token_window), 100000.0, 1e-9);
	snprintf(buf, sizeof(buf), fmt, ",\"kv_mem_fraction\":0.5,\"kv_mem_fraction_of\":\"kv\"");
	CHECK(load_scenario(buf, &sc));
	CHECK(srv_replica_for(&sc, &sc.replica, &r, &err) == SC_OK);
	CHECK_REL(r.kv_pool_bytes, 0.5 * sc.gpu.hbm_bytes, 1e-9);
}

static void test_kv_sliding_window(void)
{
	static struct srv_scenario sc;
	static struct srv_replica r;
	struct sc_error err;
	/* gpt-oss-120b: 36 layers, every second one a 128-token window;
	 * 8 kv heads of 64, BF16: 2 x 8 x 64 x 2 = 2048 bytes per layer */
	double per_layer = 2.0 * 8 * 64 * 2;

	CHECK(load_scenario("{\"name\":\"t\",\"model\":\"gpt-oss-120b\",\"instance\":\"p5en.48xlarge\","
			    "\"replica\":{\"tp\":1},\"replicas\":1,\"precision\":{\"weights\":\"mxfp4\"},"
			    "\"engine\":\"vllm\",\"workload\":{\"arrival\":\"burst\",\"requests\":10,"
			    "\"input_tokens\":{\"dist\":\"fixed\",\"mean\":100},"
			    "\"output_tokens\":{\"dist\":\"fixed\",\"mean\":10}}}", &sc));
	CHECK(srv_replica_for(&sc, &sc.replica, &r, &err) == SC_OK);
	CHECK_REL(r.kv_bytes_per_token_full, 18 * per_layer, 1e-12);
	CHECK_REL(r.kv_bytes_per_token_window, 18 * per_layer, 1e-12);
	CHECK(r.window_tokens == 128);
	CHECK_REL(srv_kv_seq_bytes(&r, 1000, 1), 18 * per_layer * (1000 + 128), 1e-12);
	CHECK_REL(srv_kv_seq_bytes(&r, 100, 1), 36 * per_layer * 100, 1e-12);
}


static const char *att_json =
	"{\"name\":\"t\",\"model\":\"llama3-70b\",\"instance\":\"p5en.48xlarge\","
	"\"replica\":{\"tp\":2},\"replicas\":1,\"precision\":{\"weights\":\"fp8\"},"
	"\"engine\":{\"name\":\"tensorrt-llm\"%s},\"workload\":{\"arrival\":\"burst\",\"requests\":10,"
	"\"input_tokens\":{\"dist\":\"fixed\",\"mean\":100},"
	"\"output_tokens\":{\"dist\":\"fixed\",\"mean\":10}}}";

static double decode_attention_s(const char *engine_extra, double *amp)
{
	static struct srv_scenario sc;
	static struct srv_replica r;
	struct srv_iter_parts p;
	struct srv_batch b;
	struct sc_error err;
	char json[1024];

	snprintf(json, sizeof(json), att_json, engine_extra);
	if (!load_scenario(json, &sc) || srv_replica_for(&sc, &sc.replica, &r, &err) != SC_OK)
		return -1;
	memset(&b, 0, sizeof(b));
	b.decode_seqs = 256;
	b.decode_ctx = b.decode_ctx_win = 256 * 4096.0;
	b.sampled = 256;
	srv_iteration_time(&r, &b, &p);
	*amp = r.kv_read_amp;
	return p.attention_s;
}

static void test_decode_attention_kernels(void)
{
	double a_grouped, a_head, a_limit, t_grouped, t_head, t_limit, h;
	const struct calibration *cal = catalog_calibration(&cat, "hopper-default");

	CHECK(cal != NULL);
	if (!cal)
		return;
	h = cal->serve_kv_reread_l2_hit;
	/* Llama-3-70B on TP 2: 32 query heads over 4 KV heads, g = 8 */
	t_grouped = decode_attention_s("", &a_grouped);
	t_head = decode_attention_s(",\"decode_attention\":\"per-head\"", &a_head);
	t_limit = decode_attention_s(",\"grouped_max_group\":4", &a_limit);
	CHECK_REL(a_grouped, 1.0, 0);
	CHECK_REL(a_head, 1.0 + 7.0 * (1.0 - h), 1e-12);
	CHECK_REL(a_limit, a_head, 1e-12);
	/* decode attention at 4k context is HBM-bound: its time grows with
	 * the KV bytes read */
	CHECK(t_grouped > 0 && t_head > t_grouped * (1.0 + 0.5 * 7.0 * (1.0 - h)));
	CHECK_REL(t_limit, t_head, 1e-12);
}

static void test_window_ignored(void)
{
	static struct srv_scenario sc;
	static struct srv_replica r;
	struct sc_error err;
	double per_layer = 2.0 * 8 * 64 * 2;

	/* the TensorRT-LLM engine keeps every token (no max_attention_window_size) */
	CHECK(load_scenario("{\"name\":\"t\",\"model\":\"gpt-oss-120b\",\"instance\":\"p5en.48xlarge\","
			    "\"replica\":{\"tp\":1},\"replicas\":1,\"precision\":{\"weights\":\"mxfp4\"},"
			    "\"engine\":\"tensorrt-llm\",\"workload\":{\"arrival\":\"burst\",\"requests\":10,"
			    "\"input_tokens\":{\"dist\":\"fixed\",\"mean\":100},"
			    "\"output_tokens\":{\"dist\":\"fixed\",\"mean\":10}}}", &sc));
	CHECK(!sc.engine.sliding_window_kv);
	CHECK(srv_replica_for(&sc, &sc.replica, &r, &err) == SC_OK);
	CHECK(r.window_tokens == 0);
	CHECK_REL(r.kv_bytes_per_token_full, 36 * per_layer, 1e-12);
	CHECK_REL(srv_kv_seq_bytes(&r, 1000, 1), 36 * per_layer * 1000, 1e-12);
}

static void test_length_mean(void)
{
	struct srv_length_stat st = { 200, -1, 0, 1000 };
	struct srv_length l;
	double sum = 0;
	unsigned long long x = 88172645463325252ULL;
	int n = 200000;

	/* a published mean, capped at 1000: the sampled distribution's mean
	 * is the published one, and the uncapped lognormal's is above it */
	CHECK(srv_length_of_stat(&st, &l));
	CHECK(l.dist == SRV_DIST_LOGNORMAL && l.mean > 200);
	CHECK_REL(srv_length_mean(&l), 200, 1e-6);
	/* and a Monte Carlo draw of min(X, max) agrees (xorshift, Box-Muller) */
	for (int i = 0; i < n; i++) {
		double u1, u2, z, cv = l.sd / l.mean, s2 = log(1 + cv * cv), v;

		x ^= x << 13; x ^= x >> 7; x ^= x << 17;
		u1 = ((x >> 11) + 0.5) / 9007199254740992.0;
		x ^= x << 13; x ^= x >> 7; x ^= x << 17;
		u2 = ((x >> 11) + 0.5) / 9007199254740992.0;
		z = sqrt(-2 * log(u1)) * cos(6.283185307179586 * u2);
		v = exp(log(l.mean) - 0.5 * s2 + sqrt(s2) * z);
		sum += v > l.max ? l.max : v;
	}
	CHECK_REL(sum / n, 200, 0.02);
	/* a normal clipped at both ends; uniform; fixed */
	l.dist = SRV_DIST_NORMAL;
	l.mean = 100;
	l.sd = 50;
	l.min = 100;
	l.max = 0;
	CHECK_REL(srv_length_mean(&l), 100 + 50 * 0.3989422804014327, 1e-9);
	l.dist = SRV_DIST_UNIFORM;
	l.min = 10;
	l.max = 30;
	CHECK_REL(srv_length_mean(&l), 20, 0);
	l.dist = SRV_DIST_FIXED;
	l.mean = 64;
	CHECK_REL(srv_length_mean(&l), 30, 0);   /* fixed, clipped to max */
}

static void test_decode_is_hbm_bound(void)
{
	static struct srv_scenario sc;
	static struct srv_replica r;
	struct srv_iter_parts p;
	struct srv_batch b;
	struct sc_error err;
	const struct model_arch *m;
	double bw, embed, t;

	CHECK(load_scenario("{\"name\":\"t\",\"model\":\"llama3-70b\",\"instance\":\"p5en.48xlarge\","
			    "\"replica\":{\"tp\":8},\"replicas\":1,\"precision\":{\"weights\":\"bf16\"},"
			    "\"engine\":\"vllm\",\"workload\":{\"arrival\":\"burst\",\"requests\":10,"
			    "\"input_tokens\":{\"dist\":\"fixed\",\"mean\":100},"
			    "\"output_tokens\":{\"dist\":\"fixed\",\"mean\":10}}}", &sc));
	CHECK(srv_replica_for(&sc, &sc.replica, &r, &err) == SC_OK);
	m = &r.arch.m;
	memset(&b, 0, sizeof(b));
	b.decode_seqs = 1;
	b.decode_ctx = b.decode_ctx_win = 1;
	b.sampled = 1;
	t = srv_iteration_time(&r, &b, &p);
	bw = r.gpu.hbm_GBps * 1e9 * r.cal.serve_hbm_eta;
	/* every weight a GPU holds is read once, except the input embedding
	 * (one row looked up) */
	embed = 2.0 * m->vocab * m->hidden / 8;
	CHECK_REL(p.weight_read_s, p.gemm_s, 0.01);
	CHECK_REL(p.gemm_s, (r.weights_bytes - embed) / bw, 0.02);
	/* and nothing else of the step is comparable: attention reads one
	 * token of KV, the rest is fixed overhead and small collectives */
	CHECK(p.attention_s < 0.05 * p.gemm_s);
	CHECK_REL(t - p.overhead_s - p.comm_s, (r.weights_bytes - embed) / bw, 0.05);

	/* a long prefill is compute-bound: no decoder GEMM waits on its
	 * weights; only the output head, run for the one sampled token, does */
	memset(&b, 0, sizeof(b));
	b.prefill_tokens = 8192;
	b.prefill_pairs = b.prefill_pairs_win = 8192.0 * 8193 / 2;
	b.sampled = 1;
	srv_iteration_time(&r, &b, &p);
	CHECK_REL(p.weight_read_s, embed / bw, 1e-6);
	CHECK(p.gemm_s > 0.5 * p.total_s);
}

static const char *poisson_json =
	"{\"name\":\"little\",\"model\":\"llama3-8b\",\"instance\":\"p5.48xlarge\","
	"\"replica\":{\"tp\":1},\"replicas\":2,\"precision\":{\"weights\":\"bf16\"},"
	"\"engine\":\"vllm\",\"workload\":{\"arrival\":\"poisson\",\"rate_rps\":%g,"
	"\"requests\":%d,\"warmup_requests\":%d,"
	"\"input_tokens\":{\"dist\":\"lognormal\",\"mean\":600,\"sd\":300,\"min\":16,\"max\":4096},"
	"\"output_tokens\":{\"dist\":\"lognormal\",\"mean\":200,\"sd\":100,\"min\":4,\"max\":1024},"
	"\"seed\":%d}}";

/* poisson_json at rate_rps with its request count, warm-up requests and
 * seed, loaded into sc: the start of every open-loop test. */
static bool load_poisson(struct srv_scenario *sc, double rate_rps, int requests, int warmup, int seed)
{
	char json[1024];

	snprintf(json, sizeof(json), poisson_json, rate_rps, requests, warmup, seed);
	return load_scenario(json, sc);
}

/* Plan options for target_rps under p99 SLOs (ms) on instances; the rest
 * 0 (the calibration's SLO margin). */
static void plan_opts_at(struct srv_plan_opts *o, double target_rps, double ttft_p99_ms,
			 double tpot_p99_ms, const char **instances)
{
	memset(o, 0, sizeof(*o));
	o->target_rps = target_rps;
	o->slo_ttft_p99_ms = ttft_p99_ms;
	o->slo_tpot_p99_ms = tpot_p99_ms;
	o->instances = instances;
}

static void test_littles_law(void)
{
	static struct srv_scenario sc;
	struct srv_result r;
	struct sc_error err;

	CHECK(load_poisson(&sc, 12.0, 6000, 1000, 7));
	CHECK(srv_simulate(&sc, &r, &err) == SC_OK);
	CHECK(r.completed == 6000);
	CHECK(r.little_L > 1);
	/* steady state: the time-average number in the system equals the
	 * arrival rate times the mean time in the system */
	CHECK_REL(r.little_L, r.little_lambda * r.little_W, 0.03);
	/* and the arrival rate is the one asked for */
	CHECK_REL(r.little_lambda, 12.0, 0.06);
	/* what arrives is served: throughput = rate in steady state */
	CHECK_REL(r.requests_per_s, 12.0, 0.06);
}

/* Saturation: the sustainable rate is the saturated completion rate; below
 * it an open loop is stable and (with enough requests) steady and its
 * throughput is the arrival rate; above it the run is unstable, its
 * throughput is the sustainable rate, and it prices no tokens. */
static void test_saturation(void)
{
	static struct srv_scenario sc;
	struct srv_result r;
	struct sc_error err;
	double cap = 0;

	CHECK(load_poisson(&sc, 12.0, 6000, 1000, 7));
	CHECK(srv_capacity(&sc, &cap, &err) == SC_OK);
	CHECK(cap > 12);
	/* at half of it: stable, steady, throughput = what arrives */
	sc.workload.rate_rps = 0.5 * cap;
	CHECK(srv_simulate_checked(&sc, &r, &err) == SC_OK);
	CHECK(r.open_loop && r.stable && r.steady && r.cost_known);
	CHECK_REL(r.sustainable_rps, cap, 1e-9);
	CHECK_REL(r.requests_per_s, 0.5 * cap, 0.08);
	CHECK(r.usd_per_m_output_tokens > 0);
	/* at twice it: unstable; what completes is the sustainable rate */
	sc.workload.rate_rps = 2 * cap;
	CHECK(srv_simulate_checked(&sc, &r, &err) == SC_OK);
	CHECK(!r.stable && !r.steady && !r.cost_known);
	CHECK(r.offered_rps > 1.8 * cap);
	/* no more than the sustainable rate completes (less in the window,
	 * which holds the ramp of the first lifetimes) */
	CHECK(r.requests_per_s <= 1.03 * cap && r.requests_per_s > 0.6 * cap);
	CHECK(r.usd_per_m_output_tokens == 0);
	/* stable but too short a window (the issue-19 edge: fewer requests
	 * than one lifetime's arrivals): not steady, and says how many */
	sc.workload.rate_rps = 0.5 * cap;
	sc.workload.requests = 40;
	sc.workload.warmup_requests = 4;
	CHECK(srv_simulate_checked(&sc, &r, &err) == SC_OK);
	CHECK(r.stable && !r.steady && !r.cost_known);
	CHECK(r.steady_requests > 40);
	/* and raising the count to what it says reaches steady state (the
	 * lifetime estimate of a short run is rough: a few rounds) */
	for (int k = 0; k < 4 && !r.steady; k++) {
		sc.workload.requests = r.steady_requests;
		CHECK(srv_simulate_checked(&sc, &r, &err) == SC_OK);
	}
	CHECK(r.stable && r.steady);
	/* closed loops and bursts are finite work */
	sc.workload.arrival = SRV_ARRIVAL_BURST;
	CHECK(srv_simulate_checked(&sc, &r, &err) == SC_OK);
	CHECK(!r.open_loop && r.stable && r.steady);
}

/* The planner never answers with a run that did not reach steady state:
 * at a rate whose base request count spans less than one request lifetime
 * (issue 19: 0 tokens/s, $0.000 per million), the answer carries the rate
 * asked for; far above anything searched, no answer. */
static void test_plan_steady(void)
{
	static struct srv_scenario sc;
	static struct srv_plan plan;
	const char *instances[] = { "p5.48xlarge", NULL };
	struct srv_plan_opts o;
	struct sc_error err;

	CHECK(load_poisson(&sc, 8.0, 300, 30, 5));
	plan_opts_at(&o, 400, 3000, 60, instances);
	CHECK(srv_plan(&sc, &cat, &o, &plan, &err) == SC_OK);
	CHECK(plan.best >= 0);
	if (plan.best >= 0) {
		const struct srv_plan_row *b = &plan.rows[plan.best];

		CHECK(b->requests > 300);
		/* steady: what the fleet completes is what arrives (mean output
		 * about 200 tokens) */
		CHECK_REL(b->requests_per_s, 400, 0.08);
		CHECK(b->output_tokens_per_s > 0.85 * 400 * 200 && b->usd_per_m_output_tokens > 0);
	}
	o.target_rps = 1e12;
	CHECK(srv_plan(&sc, &cat, &o, &plan, &err) == SC_OK);
	CHECK(plan.best < 0);
	for (int i = 0; i < plan.n_rows; i++)
		CHECK(!plan.rows[i].feasible);
}

/* The dataset catalogue: the required datasets, each sourced and
 * sampleable; a scenario naming one samples the published means (seeded,
 * the same every run); an MLPerf Server scenario takes the benchmark's
 * limits as its SLOs. */
static void test_datasets(void)
{
	static const char *const need[] = { "sharegpt", "fixed-128-128", "random-1024-128",
					     "mlperf-llama2-70b", "mlperf-llama3.1-405b",
					     "mlperf-llama3.1-8b", "mlperf-mixtral-8x7b",
					     "mlperf-deepseek-r1", "mlperf-gptj", NULL };
	static struct srv_scenario sc, again;
	struct srv_datasets ds;
	struct srv_result r, r2;
	struct sc_error err;
	char json[1024];

	CHECK(srv_datasets_load("configs", &ds, &err) == SC_OK);
	for (int i = 0; need[i]; i++) {
		const struct srv_dataset *d = srv_dataset_find(&ds, need[i]);
		struct srv_length in, out;

		CHECK(d != NULL);
		if (!d)
			continue;
		CHECK(d->n_tokenizers >= 1);
		CHECK(d->tokenizers[0].source[0] != '\0');
		CHECK(srv_dataset_lengths(d, NULL, &in, &out, NULL, &err) == SC_OK);
		if (strncmp(need[i], "mlperf-", 7) == 0) {
			CHECK(d->kind == SRV_DATASET_MLPERF && d->has_mlperf_server);
			CHECK(d->mlperf_server.latency_p99_s > 0);
		}
	}
	/* a fixed dataset is fixed; only bounds are uniform between them */
	{
		struct srv_length in, out;
		CHECK(srv_dataset_lengths(srv_dataset_find(&ds, "fixed-128-128"), NULL, &in, &out, NULL, &err) == SC_OK);
		CHECK(in.dist == SRV_DIST_FIXED && in.mean == 128 && out.mean == 128);
		CHECK(srv_dataset_lengths(srv_dataset_find(&ds, "mlperf-llama2-70b"), NULL, &in, &out, NULL, &err) == SC_OK);
		CHECK(in.dist == SRV_DIST_UNIFORM && in.min == 1 && in.max == 1024);
		CHECK(out.dist == SRV_DIST_LOGNORMAL && out.max == 1024);
	}
	srv_datasets_free(&ds);

	/* sampling a dataset reproduces its published means */
	snprintf(json, sizeof(json),
		 "{\"name\":\"ds\",\"model\":\"llama3-8b\",\"instance\":\"p5.48xlarge\","
		 "\"replica\":{\"tp\":1},\"replicas\":1,\"precision\":{\"weights\":\"bf16\"},"
		 "\"engine\":\"vllm\",\"workload\":{\"arrival\":\"burst\",\"mlperf\":\"offline\","
		 "\"dataset\":\"mlperf-llama2-70b\",\"requests\":6000,\"seed\":3}}");
	CHECK(load_scenario(json, &sc));
	CHECK(strcmp(sc.workload.tokenizer, "llama2") == 0);
	CHECK(srv_simulate(&sc, &r, &err) == SC_OK);
	CHECK_REL(r.mean_output_tokens, 294.45, 0.04);
	CHECK_REL(r.mean_input_tokens, 512.5, 0.04);
	again = sc;
	CHECK(srv_simulate(&again, &r2, &err) == SC_OK);
	CHECK(r2.mean_input_tokens == r.mean_input_tokens && r2.output_tokens_per_s == r.output_tokens_per_s);
	snprintf(json, sizeof(json),
		 "{\"name\":\"ds\",\"model\":\"llama3-8b\",\"instance\":\"p5.48xlarge\","
		 "\"replica\":{\"tp\":1},\"replicas\":1,\"precision\":{\"weights\":\"bf16\"},"
		 "\"engine\":\"vllm\",\"workload\":{\"arrival\":\"poisson\",\"rate_rps\":5,"
		 "\"mlperf\":\"server\",\"dataset\":\"sharegpt\",\"tokenizer\":\"gpt-oss\","
		 "\"requests\":4000,\"seed\":3}}");
	CHECK(load_scenario(json, &sc));
	CHECK(srv_simulate(&sc, &r, &err) == SC_OK);
	CHECK_REL(r.mean_input_tokens, 215.3, 0.04);
	CHECK_REL(r.mean_output_tokens, 195.0, 0.04);
	/* sharegpt is no MLPerf dataset: no limits to default to */
	CHECK(!(sc.slo.ttft_p99_ms > 0));
	snprintf(json, sizeof(json),
		 "{\"name\":\"ds\",\"model\":\"llama3-8b\",\"instance\":\"p5.48xlarge\","
		 "\"replica\":{\"tp\":1},\"replicas\":1,\"precision\":{\"weights\":\"bf16\"},"
		 "\"engine\":\"vllm\",\"workload\":{\"arrival\":\"poisson\",\"rate_rps\":5,"
		 "\"mlperf\":\"server\",\"dataset\":\"mlperf-llama3.1-8b\",\"requests\":2000}}");
	CHECK(load_scenario(json, &sc));
	CHECK(sc.slo.ttft_p99_ms == 2000 && sc.slo.tpot_p99_ms == 100);
	/* the largest rate meeting the limits: below the sustainable rate, and
	 * a little above it the limits or steadiness fail */
	{
		double best = 0, cap = 0;
		struct srv_result at;

		CHECK(srv_max_rate(&sc, &best, &at, &err) == SC_OK);
		CHECK(srv_capacity(&sc, &cap, &err) == SC_OK);
		CHECK(best > 0 && best < cap);
		CHECK(at.slo_met && at.steady);
	}
}

static void test_determinism(void)
{
	static struct srv_scenario sc;
	struct srv_result a, b, c;
	struct sc_error err;

	CHECK(load_poisson(&sc, 10.0, 1500, 100, 3));
	CHECK(srv_simulate(&sc, &a, &err) == SC_OK);
	CHECK(srv_simulate(&sc, &b, &err) == SC_OK);
	CHECK(a.ttft_s.p99 == b.ttft_s.p99 && a.tpot_s.mean == b.tpot_s.mean &&
	      a.output_tokens_per_s == b.output_tokens_per_s && a.iterations == b.iterations);
	sc.workload.seed = 4;
	CHECK(srv_simulate(&sc, &c, &err) == SC_OK);
	CHECK(c.ttft_s.p99 != a.ttft_s.p99);
}

static void test_preemption(void)
{
	static struct srv_scenario sc;
	struct srv_result r;
	struct sc_error err;

	/* a cache of a few thousand tokens for a burst of long requests */
	CHECK(load_scenario("{\"name\":\"t\",\"model\":\"llama3-70b\",\"instance\":\"p5en.48xlarge\","
			    "\"replica\":{\"tp\":2},\"replicas\":1,\"precision\":{\"weights\":\"bf16\"},"
			    "\"engine\":{\"name\":\"vllm\",\"kv_mem_fraction\":0.62},"
			    "\"workload\":{\"arrival\":\"burst\",\"requests\":64,"
			    "\"input_tokens\":{\"dist\":\"fixed\",\"mean\":1000},"
			    "\"output_tokens\":{\"dist\":\"fixed\",\"mean\":1000}}}", &sc));
	CHECK(srv_simulate(&sc, &r, &err) == SC_OK);
	CHECK(r.replica.kv_capacity_tokens < 64 * 2000);
	CHECK(r.replica.kv_capacity_tokens > 2000);
	CHECK(r.preemptions > 0);
	CHECK(r.completed == 64);
	CHECK(r.kv_util_peak <= 1.0 + 1e-9);
	/* reserving prompt and output at admission never preempts */
	sc.engine.kv_policy = SRV_KV_RESERVE;
	CHECK(srv_simulate(&sc, &r, &err) == SC_OK);
	CHECK(r.preemptions == 0);
	CHECK(r.completed == 64);
}

static void test_static_batch_by_hand(void)
{
	static struct srv_scenario sc;
	static struct srv_replica rep;
	struct srv_result r;
	struct srv_batch b;
	struct sc_error err;
	double t, per_layer_pairs;
	const int B = 8, in = 500, out = 40;

	CHECK(load_scenario("{\"name\":\"t\",\"model\":\"llama3-8b\",\"instance\":\"p5.48xlarge\","
			    "\"replica\":{\"tp\":1},\"replicas\":1,\"precision\":{\"weights\":\"bf16\"},"
			    "\"engine\":{\"name\":\"tensorrt-llm\",\"schedule\":\"static\",\"max_num_seqs\":8},"
			    "\"workload\":{\"arrival\":\"burst\",\"requests\":8,\"front_end\":false,"
			    "\"input_tokens\":{\"dist\":\"fixed\",\"mean\":500},"
			    "\"output_tokens\":{\"dist\":\"fixed\",\"mean\":40}}}", &sc));
	CHECK(srv_simulate(&sc, &r, &err) == SC_OK);
	CHECK(srv_replica_for(&sc, &sc.replica, &rep, &err) == SC_OK);
	/* one prefill of all prompts, then out - 1 decode steps */
	memset(&b, 0, sizeof(b));
	per_layer_pairs = (double)in * (in + 1) / 2;
	b.prefill_tokens = B * in;
	b.prefill_pairs = b.prefill_pairs_win = B * per_layer_pairs;
	b.sampled = B;
	t = srv_iteration_time(&rep, &b, NULL);
	CHECK_REL(r.ttft_s.mean, t, 1e-9);
	for (int j = 0; j < out - 1; j++) {
		memset(&b, 0, sizeof(b));
		b.decode_seqs = B;
		b.decode_ctx = b.decode_ctx_win = (double)B * (in + j);
		b.sampled = B;
		t += srv_iteration_time(&rep, &b, NULL);
	}
	CHECK_REL(r.makespan_s, t, 1e-6);
	CHECK_REL(r.output_tokens_per_s, B * out / t, 1e-6);
}

static void test_disaggregated_transfer(void)
{
	static struct srv_scenario sc;
	static struct srv_replica rep;
	struct srv_result r;
	struct sc_error err;
	struct net_span s;
	struct cluster cl;
	double bytes, want;

	CHECK(load_scenario("{\"name\":\"t\",\"model\":\"llama3-70b\",\"instance\":\"p5.48xlarge\","
			    "\"replica\":{\"tp\":8},\"precision\":{\"weights\":\"fp8\",\"kv_cache\":\"fp8\"},"
			    "\"engine\":\"vllm\",\"disaggregated\":{\"prefill_replicas\":1,\"decode_replicas\":1},"
			    "\"workload\":{\"arrival\":\"poisson\",\"rate_rps\":0.5,\"requests\":40,"
			    "\"input_tokens\":{\"dist\":\"fixed\",\"mean\":3000},"
			    "\"output_tokens\":{\"dist\":\"fixed\",\"mean\":20}}}", &sc));
	CHECK(srv_simulate(&sc, &r, &err) == SC_OK);
	CHECK(r.disaggregated);
	CHECK(r.completed == 40);
	CHECK_STR(r.kv_transfer_tier, "efa");
	CHECK(srv_replica_for(&sc, &sc.disagg.prefill, &rep, &err) == SC_OK);
	/* each GPU sends its head's K and V of every layer: 3000 tokens x
	 * 2 x 1 head x 128 x 1 byte x 80 layers, over its 1/8 share of the
	 * node's 32 x 100 Gb/s EFA at the calibrated send/recv efficiency
	 * (the AWS EFA transport's ring efficiency on a p5) */
	bytes = 3000.0 * 2 * 128 * 80;
	CHECK_REL(r.kv_transfer_bytes_per_request, bytes, 1e-12);
	memset(&cl, 0, sizeof(cl));
	cl.instance = sc.instance;
	cl.gpu = sc.gpu;
	cl.fabric = sc.fabric;
	cl.nodes = 2;
	s = net_span_of(&cl, 2, 8);
	want = sc.calibration.p2p_alpha_s + s.extra_latency_s +
	       bytes / (32 * 100e9 / 8 / 8 * sc.calibration.awsefa_ring_bw_eff);
	CHECK_REL(coll_time(&sc.calibration, &s, COLL_SEND_RECV, bytes, NULL), want, 1e-9);
	/* at 0.5 requests/s nothing queues on the link */
	CHECK_REL(r.kv_transfer_s.p50, want, 1e-6);
	CHECK_REL(r.kv_transfer_s.max, want, 1e-6);
}

static void test_trace(void)
{
	static struct srv_scenario sc;
	struct srv_result r;
	struct sc_error err;
	char path[] = "/tmp/stepcast-trace-XXXXXX", json[1024];
	int fd = mkstemp(path);
	FILE *f = fd >= 0 ? fdopen(fd, "w") : NULL;

	CHECK(f != NULL);
	if (!f)
		return;
	/* three requests, the last long after the others are done */
	fprintf(f, "arrival_s,input_tokens,output_tokens\n0,100,10\n0.5,200,20\n100,300,5\n");
	fclose(f);
	snprintf(json, sizeof(json),
		 "{\"name\":\"t\",\"model\":\"llama3-8b\",\"instance\":\"p5.48xlarge\","
		 "\"replica\":{\"tp\":1},\"replicas\":1,\"precision\":{\"weights\":\"bf16\"},"
		 "\"engine\":\"vllm\",\"workload\":{\"arrival\":\"trace\",\"trace\":\"%s\"}}", path);
	CHECK(load_scenario(json, &sc));
	CHECK(srv_simulate(&sc, &r, &err) == SC_OK);
	remove(path);
	CHECK(r.requests == 3 && r.measured == 3 && r.completed == 3);
	CHECK_REL(r.mean_input_tokens, 200, 1e-12);
	CHECK_REL(r.mean_output_tokens, (10 + 20 + 5) / 3.0, 1e-12);
	/* the last request arrives at 100 s into an idle replica */
	CHECK(r.makespan_s > 100 && r.makespan_s < 101);
}

static void test_speculative(void)
{
	struct srv_speculative s = { 3, 0.7 };

	CHECK_REL(srv_tokens_per_step(&s), (1 - pow(0.7, 4)) / 0.3, 1e-12);
	s.acceptance_rate = 1.0;
	CHECK_REL(srv_tokens_per_step(&s), 4.0, 1e-12);
	s.draft_tokens = 0;
	CHECK_REL(srv_tokens_per_step(&s), 1.0, 1e-12);
}

static void test_plan_meets_slo(void)
{
	static struct srv_scenario sc, best;
	static struct srv_plan plan;
	const char *instances[] = { "p5.48xlarge", NULL };
	struct srv_plan_opts o;
	struct srv_result r;
	struct sc_error err;

	CHECK(load_poisson(&sc, 8.0, 1500, 200, 5));
	plan_opts_at(&o, 16, 1500, 40, instances);
	o.slo_margin_given = true;   /* none: planned to the SLOs themselves */
	o.slo_margin = 0;
	CHECK(srv_plan(&sc, &cat, &o, &plan, &err) == SC_OK);
	CHECK(plan.best >= 0);
	if (plan.best < 0)
		return;
	CHECK(plan.rows[plan.best].ttft_p99_s * 1e3 <= 1500);
	CHECK(plan.rows[plan.best].tpot_p99_s * 1e3 <= 40);
	/* the answer, simulated on its own, meets the SLOs, and so does the
	 * fewest replicas it found; one replica fewer than that does not */
	CHECK(srv_plan_scenario(&sc, &cat, &plan.rows[plan.best], 16, &best, &err) == SC_OK);
	CHECK(srv_simulate(&best, &r, &err) == SC_OK);
	CHECK(r.slo_met);
	CHECK(plan.rows[plan.best].replicas_needed <= best.replicas);
	best.replicas = plan.rows[plan.best].replicas_needed;
	CHECK(srv_simulate(&best, &r, &err) == SC_OK);
	CHECK(r.slo_met);
	if (best.replicas > 1) {
		best.replicas--;
		CHECK(srv_simulate(&best, &r, &err) == SC_OK);
		CHECK(!r.slo_met);
	}
}

/* With a margin, a plan meets each SLO less the margin: the answer's p99s
 * sit below SLO x (1 - margin), it needs at least as many replicas as
 * without, and the default is the serving calibration's uncertainty. */
static void test_plan_slo_margin(void)
{
	static struct srv_scenario sc, best;
	static struct srv_plan p0, pm;
	const char *instances[] = { "p5.48xlarge", NULL };
	struct srv_plan_opts o;
	struct srv_result r;
	struct sc_error err;
	double m;

	CHECK(load_poisson(&sc, 8.0, 1500, 200, 5));
	memset(&o, 0, sizeof(o));
	/* the default: the profile's serve_uncertainty_rel */
	CHECK_REL(srv_plan_slo_margin(&o, &sc.calibration), sc.calibration.serve_uncertainty_rel, 0);
	CHECK(sc.calibration.serve_uncertainty_rel > 0.05);
	o.slo_margin_given = true;
	o.slo_margin = 0.1;
	CHECK_REL(srv_plan_slo_margin(&o, &sc.calibration), 0.1, 0);
	o.slo_margin = 0;
	CHECK(srv_plan_slo_margin(&o, &sc.calibration) == 0);

	o.target_rps = 64;
	o.slo_ttft_p99_ms = 1500;
	o.slo_tpot_p99_ms = 10;
	o.instances = instances;
	CHECK(srv_plan(&sc, &cat, &o, &p0, &err) == SC_OK);
	o.slo_margin_given = false;  /* the calibration's */
	CHECK(srv_plan(&sc, &cat, &o, &pm, &err) == SC_OK);
	m = sc.calibration.serve_uncertainty_rel;
	CHECK(p0.best >= 0 && pm.best >= 0);
	if (p0.best < 0 || pm.best < 0)
		return;
	CHECK_REL(pm.rows[pm.best].slo_margin, m, 0);
	CHECK(pm.rows[pm.best].ttft_p99_s * 1e3 <= 1500 * (1 - m));
	CHECK(pm.rows[pm.best].tpot_p99_s * 1e3 <= 10 * (1 - m));
	CHECK(pm.rows[pm.best].usd_per_h >= p0.rows[p0.best].usd_per_h);
	/* this case is one where the margin changes the answer: at 7.5 ms of
	 * a 10 ms TPOT objective one p5 does it without a margin, two with
	 * hopper-default's 30 % */
	CHECK(pm.rows[pm.best].usd_per_h > p0.rows[p0.best].usd_per_h);
	/* the fewest replicas found meet the margined limits; one fewer not */
	CHECK(srv_plan_scenario(&sc, &cat, &pm.rows[pm.best], 64, &best, &err) == SC_OK);
	best.slo.ttft_p99_ms = 1500 * (1 - m);
	best.slo.tpot_p99_ms = 10 * (1 - m);
	best.replicas = pm.rows[pm.best].replicas_needed;
	CHECK(srv_simulate(&best, &r, &err) == SC_OK);
	CHECK(r.slo_met);
	if (best.replicas > 1) {
		best.replicas--;
		CHECK(srv_simulate(&best, &r, &err) == SC_OK);
		CHECK(!r.slo_met);
	}
}

/* TurboMind v0.1's separate context pass: a batch of two finishing prompts
 * (100 tokens from scratch, 200 after 50 cached) and three decoding
 * sequences runs as a context pass of the prompts but their last tokens
 * and a decode pass of five sequences, the last tokens attending to their
 * whole prompts (100 and 250 keys), each counted once. */
static void test_context_pass_by_hand(void)
{
	static struct srv_scenario sc;
	static struct srv_replica r;
	struct srv_batch b, ctx, dec, hctx, hdec;
	struct sc_error err;

	CHECK(load_scenario("{\"name\":\"t\",\"model\":\"llama3-70b\",\"instance\":\"p5en.48xlarge\","
			    "\"replica\":{\"tp\":8},\"replicas\":1,\"precision\":{\"weights\":\"bf16\"},"
			    "\"engine\":\"lmdeploy-v0.1\",\"workload\":{\"arrival\":\"burst\",\"requests\":10,"
			    "\"input_tokens\":{\"dist\":\"fixed\",\"mean\":100},"
			    "\"output_tokens\":{\"dist\":\"fixed\",\"mean\":10}}}", &sc));
	CHECK(sc.engine.context_pass_separate);
	CHECK(srv_replica_for(&sc, &sc.replica, &r, &err) == SC_OK);
	memset(&b, 0, sizeof(b));
	b.prefill_tokens = 100 + 200;
	b.prefill_pairs = b.prefill_pairs_win = 100.0 * 101 / 2 + (200.0 * 50 + 200.0 * 201 / 2);
	b.prefill_ctx = 50;
	b.decode_seqs = 3;
	b.decode_ctx = b.decode_ctx_win = 400 + 800 + 1600;
	b.sampled = 3 + 2;
	b.finish_keys = b.finish_keys_win = 100 + 250;

	memset(&hctx, 0, sizeof(hctx));
	hctx.prefill_tokens = 99 + 199;
	hctx.prefill_pairs = hctx.prefill_pairs_win = 99.0 * 100 / 2 + (199.0 * 50 + 199.0 * 200 / 2);
	hctx.prefill_ctx = 50;
	memset(&hdec, 0, sizeof(hdec));
	hdec.decode_seqs = 5;
	hdec.decode_ctx = hdec.decode_ctx_win = 400 + 800 + 1600 + 100 + 250;
	hdec.sampled = 5;

	srv_split_context_pass(&b, &ctx, &dec);
	CHECK_REL(ctx.prefill_tokens, hctx.prefill_tokens, 0);
	CHECK_REL(ctx.prefill_pairs, hctx.prefill_pairs, 1e-12);
	CHECK_REL(ctx.prefill_pairs_win, hctx.prefill_pairs_win, 1e-12);
	CHECK_REL(dec.decode_seqs, 5, 0);
	CHECK_REL(dec.decode_ctx, hdec.decode_ctx, 0);
	CHECK_REL(ctx.sampled, 0, 0);
	CHECK_REL(srv_context_pass_time(&r, &b),
		  srv_iteration_time(&r, &hctx, NULL) + srv_iteration_time(&r, &hdec, NULL), 1e-12);
	/* two passes stream the weights twice: slower than the batch as one */
	CHECK(srv_context_pass_time(&r, &b) > srv_iteration_time(&r, &b, NULL));
}

int main(void)
{
	struct sc_error err;

	if (catalog_load("configs", &cat, &err) != SC_OK ||
	    srv_engines_load("configs", &engines, &err) != SC_OK) {
		fprintf(stderr, "cannot load the catalogue: %s: %s\n", err.file, err.message);
		return 1;
	}
	RUN(test_kv_bytes_gqa);
	RUN(test_kv_bytes_mla);
	RUN(test_attention_dp);
	RUN(test_attention_dp_pools);
	RUN(test_kv_pool_stated);
	RUN(test_kv_sliding_window);
	RUN(test_window_ignored);
	RUN(test_decode_attention_kernels);
	RUN(test_length_mean);
	RUN(test_decode_is_hbm_bound);
	RUN(test_littles_law);
	RUN(test_saturation);
	RUN(test_datasets);
	RUN(test_plan_steady);
	RUN(test_determinism);
	RUN(test_preemption);
	RUN(test_static_batch_by_hand);
	RUN(test_context_pass_by_hand);
	RUN(test_disaggregated_transfer);
	RUN(test_trace);
	RUN(test_speculative);
	RUN(test_plan_meets_slo);
	RUN(test_plan_slo_margin);
	srv_engines_free(&engines);
	catalog_free(&cat);
	return sc_test_summary();
}
