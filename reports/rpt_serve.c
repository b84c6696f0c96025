/* rpt_serve.c: serving renderers (see rpt_serve.h). */
#include "rpt_serve.h"

#include "../models/uncertainty.h"
#include "../models/purchase.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "rpt_util.h"
#include "../sim/config/cfg_json.h"
#include "../sim/config/rpt_num.h" /* after cJSON: output numbers checked */
#include "../models/units.h"


static void length_text(char *buf, size_t n, const struct srv_length *l)
{
	switch (l->dist) {
	case SRV_DIST_FIXED:
		snprintf(buf, n, "%g", l->mean);
		break;
	case SRV_DIST_UNIFORM:
		snprintf(buf, n, "uniform %d-%d", l->min, l->max);
		break;
	default:
		snprintf(buf, n, "%s mean %g sd %g", srv_dist_name(l->dist), l->mean, l->sd);
		break;
	}
}

static void arrival_text(char *buf, size_t n, const struct srv_workload *w)
{
	switch (w->arrival) {
	case SRV_ARRIVAL_POISSON:
		snprintf(buf, n, "poisson %g req/s", w->rate_rps);
		break;
	case SRV_ARRIVAL_CONCURRENCY:
		snprintf(buf, n, "closed loop, %d clients", w->concurrency);
		break;
	case SRV_ARRIVAL_BURST:
		snprintf(buf, n, "all at once");
		break;
	case SRV_ARRIVAL_TRACE:
		snprintf(buf, n, "trace %s", w->trace);
		break;
	}
}

static void layout_text(char *buf, size_t n, const struct srv_layout *l)
{
	int k = snprintf(buf, n, "tp %d pp %d ep %d", l->tp, l->pp, l->ep);

	if (l->attention_dp > 1 && k > 0 && (size_t)k < n)
		snprintf(buf + k, n - (size_t)k, " attention-dp %d", l->attention_dp);
}

static void head_text(FILE *out, const struct srv_scenario *sc)
{
	const struct model_arch *m = &sc->arch.m;
	const struct srv_engine *e = &sc->engine;
	const struct srv_workload *w = &sc->workload;
	char lay[64], arr[SRV_PATH_MAX + 32], in[96], o[96];

	fprintf(out, "scenario    %s\n", sc->name);
	fprintf(out, "model       %s (%d layers, hidden %d, %d/%d heads%s%s)\n", m->name, m->layers,
		m->hidden, m->heads, m->kv_heads, model_is_mla(m) ? ", MLA" : "",
		model_is_moe(m) ? ", MoE" : "");
	if (sc->disagg.prefill_replicas > 0) {
		char pl[64], dl[64];
		layout_text(pl, sizeof(pl), &sc->disagg.prefill);
		layout_text(dl, sizeof(dl), &sc->disagg.decode);
		fprintf(out, "deployment  disaggregated: %d prefill x (%s) + %d decode x (%s) = %d x %s on %d x %s\n",
			sc->disagg.prefill_replicas, pl, sc->disagg.decode_replicas, dl,
			srv_scenario_gpus(sc), sc->gpu.name, srv_scenario_nodes(sc), sc->instance.name);
	} else {
		layout_text(lay, sizeof(lay), &sc->replica);
		fprintf(out, "deployment  %d replicas x (%s) = %d x %s on %d x %s\n", sc->replicas, lay,
			srv_scenario_gpus(sc), sc->gpu.name, srv_scenario_nodes(sc), sc->instance.name);
	}
	if (sc->layout_note[0])
		fprintf(out, "layout      %s\n", sc->layout_note);
	fprintf(out, "precision   weights %s  activations %s  kv cache %s\n",
		srv_format_name(sc->precision.weights), srv_format_name(sc->precision.activations),
		srv_format_name(sc->precision.kv_cache));
	fprintf(out, "engine      %s%s%s%s: %s batching%s, %d tokens and %d sequences per iteration, %s KV in blocks of %d, %.2f of %s HBM\n",
		e->name, e->wraps[0] ? " (runs " : "", e->wraps, e->wraps[0] ? ")" : "",
		srv_schedule_name(e->schedule), e->chunked_prefill ? ", chunked prefill" : "",
		e->max_num_batched_tokens, e->max_num_seqs, srv_kv_policy_name(e->kv_policy),
		e->kv_block_tokens, e->kv_mem_fraction, srv_mem_basis_hbm(e->kv_mem_fraction_of));
	if (e->kv_cache_tokens > 0)
		fprintf(out, "kv pool     %d tokens per replica, as stated\n", e->kv_cache_tokens);
	if (sc->speculative.draft_tokens > 0)
		fprintf(out, "speculative %d draft tokens, acceptance %.2f (%.2f tokens per step)\n",
			sc->speculative.draft_tokens, sc->speculative.acceptance_rate,
			srv_tokens_per_step(&sc->speculative));
	arrival_text(arr, sizeof(arr), w);
	length_text(in, sizeof(in), &w->input_tokens);
	length_text(o, sizeof(o), &w->output_tokens);
	if (w->arrival == SRV_ARRIVAL_TRACE)
		fprintf(out, "workload    %s, warm-up %d, router %s\n", arr, w->warmup_requests,
			srv_router_name(sc->router));
	else
		fprintf(out, "workload    %s, %d requests (warm-up %d), input %s, output %s, prefix hits %.0f %%, seed %d, router %s\n",
			arr, w->requests, w->warmup_requests, in, o, 100 * w->prefix_cache_hit_rate,
			w->seed, srv_router_name(sc->router));
	if (w->dataset[0] || w->mlperf != SRV_MLPERF_NONE)
		fprintf(out, "dataset     %s%s%s%s%s\n", w->dataset[0] ? w->dataset : "(none)",
			w->tokenizer[0] ? " (lengths in the " : "", w->tokenizer, w->tokenizer[0] ? " tokenizer)" : "",
			w->mlperf == SRV_MLPERF_OFFLINE ? ", MLPerf Offline scenario"
			: w->mlperf == SRV_MLPERF_SERVER ? ", MLPerf Server scenario" : "");
	fprintf(out, "calibration %s\n\n", sc->calibration.name);
}

static void replica_text(FILE *out, const char *what, const struct srv_replica_summary *s,
			 const struct srv_scenario *sc)
{
	double hbm = sc->gpu.hbm_bytes;

	fprintf(out, "%s per GPU        GiB\n", what);
	fprintf(out, "  weights          %8.2f\n", s->weights_bytes / SC_GiB_BYTES);
	fprintf(out, "  kv cache pool    %8.2f  (%.0f tokens per replica, %.0f bytes per token per GPU)\n",
		s->kv_pool_bytes / SC_GiB_BYTES, s->kv_capacity_tokens, s->kv_bytes_per_token);
	fprintf(out, "  hbm              %8.2f\n", hbm / SC_GiB_BYTES);
	fprintf(out, "  decode step at batch 1: %.2f ms (all weights stream from HBM in %.2f ms)\n",
		s->decode_step_batch1_s * 1e3, s->weight_stream_s * 1e3);
	if (s->max_num_seqs != sc->engine.max_num_seqs ||
	    s->max_num_batched_tokens != sc->engine.max_num_batched_tokens)
		fprintf(out, "  batch limits: %d sequences and %d tokens per iteration (the engine's per attention rank x this pool's attention_dp)\n",
			s->max_num_seqs, s->max_num_batched_tokens);
	fputc('\n', out);
}

static void dist_row(FILE *out, const char *name, const struct srv_dist_stats *d)
{
	fprintf(out, "  %-6s %10.1f %10.1f %10.1f %10.1f %10.1f\n", name, d->mean * 1e3, d->p50 * 1e3,
		d->p90 * 1e3, d->p99 * 1e3, d->max * 1e3);
}

static void slo_part(FILE *out, const char *name, double slo_ms, double got_s, bool *first)
{
	if (!(slo_ms > 0))
		return;
	fprintf(out, "%s%s <= %g ms: %s (%.1f ms)", *first ? "" : "; ", name, slo_ms,
		got_s * 1e3 <= slo_ms ? "met" : "MISSED", got_s * 1e3);
	*first = false;
}

/* The stability verdict of an open loop (srv_stability). */
static void stability_text(FILE *out, const struct srv_result *r)
{
	if (!r->open_loop)
		return;
	if (!r->stable)
		fprintf(out, "stability   UNSTABLE: requests arrive at %.4g/s, above the sustainable %.4g/s of this "
			"deployment; the queue grows without bound and the latencies depend on the request count\n",
			r->offered_rps, r->sustainable_rps);
	else if (!r->steady)
		fprintf(out, "stability   NOT STEADY: the %.3g s measurement window spans fewer than %.0f mean request "
			"lifetimes (%.3g s); run %d requests or more\n", r->duration_s, SRV_STEADY_LIFETIMES,
			r->e2e_s.mean, r->steady_requests);
	else if (r->sustainable_rps > 0)
		fprintf(out, "stability   steady: %.4g requests/s offered, %.0f %% of the sustainable %.4g/s\n",
			r->offered_rps, 100 * r->offered_rps / r->sustainable_rps, r->sustainable_rps);
}

/* "$0.123" or "n/a" when no steady token rate prices it. */
static const char *usd_text(char *buf, size_t n, bool known, double v)
{
	if (known)
		snprintf(buf, n, "$%.3f", v);
	else
		snprintf(buf, n, "n/a");
	return buf;
}

/* The uncertainty band of a serving result: the calibration's band of r's
 * regime (regime: which, REGIME_COUNT when the profile has none and the
 * serving calibration's uncertainty stands in), and under it the P10, P50
 * and P90 of output tokens/s, p99 TTFT and p99 TPOT (ms).  The text and
 * JSON reports both print it. */
struct serve_band {
	struct model_band band;
	enum model_regime regime;
	struct model_quantiles tokens_per_s, ttft_p99_ms, tpot_p99_ms;
};

static struct serve_band serve_band_of(const struct srv_scenario *sc, const struct srv_result *r)
{
	struct serve_band sb;

	sb.band = model_band_of_regimes(&sc->calibration,
					1u << model_serving_regime(r->mean_input_tokens, r->mean_output_tokens),
					true, &sb.regime);
	sb.tokens_per_s = model_band_quantiles_rate(&sb.band, r->output_tokens_per_s);
	sb.ttft_p99_ms = model_band_quantiles(&sb.band, r->ttft_s.p99 * 1e3);
	sb.tpot_p99_ms = model_band_quantiles(&sb.band, r->tpot_s.p99 * 1e3);
	return sb;
}

void rpt_serve_text(FILE *out, const struct srv_scenario *sc, const struct srv_result *r)
{
	char ua[32], ub[32];
	bool first = true;

	head_text(out, sc);
	if (r->disaggregated) {
		replica_text(out, "prefill replica", &r->prefill, sc);
		replica_text(out, "decode replica ", &r->replica, sc);
	} else {
		replica_text(out, "replica", &r->replica, sc);
	}
	fprintf(out, "requests    %d simulated, %d measured, %d completed, over %.1f s (makespan %.1f s)\n",
		r->requests, r->measured, r->completed, r->duration_s, r->makespan_s);
	fprintf(out, "throughput  %.3f req/s, %.1f output tokens/s (%.1f per GPU), %.1f input tokens/s\n",
		r->requests_per_s, r->output_tokens_per_s, r->output_tokens_per_s_per_gpu,
		r->input_tokens_per_s);
	fprintf(out, "lengths     mean input %.1f, mean output %.1f tokens\n", r->mean_input_tokens,
		r->mean_output_tokens);
	stability_text(out, r);
	fprintf(out, "\n");
	fprintf(out, "latency ms       mean        p50        p90        p99        max\n");
	dist_row(out, "ttft", &r->ttft_s);
	dist_row(out, "tpot", &r->tpot_s);
	dist_row(out, "e2e", &r->e2e_s);
	dist_row(out, "queue", &r->queue_s);
	if (r->disaggregated)
		dist_row(out, "kv_xfer", &r->kv_transfer_s);
	fprintf(out, "  itl mean %.2f ms\n\n", r->itl_mean_s * 1e3);
	if (r->disaggregated)
		fprintf(out, "kv transfer %.3g bytes per request per GPU pair over %s\n",
			r->kv_transfer_bytes_per_request, r->kv_transfer_tier);
	fprintf(out, "kv cache    mean use %.1f %%, peak %.1f %%, %d preemptions\n", 100 * r->kv_util_mean,
		100 * r->kv_util_peak, r->preemptions);
	fprintf(out, "batching    mean decode batch %.1f sequences, %lld iterations, replicas busy %.1f %%\n",
		r->mean_decode_batch, r->iterations, 100 * r->busy_fraction);
	if (r->little_lambda > 0)
		fprintf(out, "little      L = %.2f requests in the system; lambda x W = %.3f/s x %.3f s = %.2f\n",
			r->little_L, r->little_lambda, r->little_W, r->little_lambda * r->little_W);
	if (r->slo_given) {
		fprintf(out, "slo         ");
		slo_part(out, "ttft p50", sc->slo.ttft_p50_ms, r->ttft_s.p50, &first);
		slo_part(out, "ttft p99", sc->slo.ttft_p99_ms, r->ttft_s.p99, &first);
		slo_part(out, "tpot p50", sc->slo.tpot_p50_ms, r->tpot_s.p50, &first);
		slo_part(out, "tpot p99", sc->slo.tpot_p99_ms, r->tpot_s.p99, &first);
		fprintf(out, "  => %s\n", r->slo_met ? "all met" : "NOT MET");
	}
	if (r->max_rate_done) {
		if (r->max_rate_rps > 0)
			fprintf(out, "mlperf      Server: the largest rate that meets the objectives is %.4g requests/s (%.4g output tokens/s; p99 TTFT %.1f ms, p99 TPOT %.1f ms), %.0f %% of the sustainable %.4g/s\n",
				r->max_rate_rps, r->max_rate_output_tokens_per_s, r->max_rate_ttft_p99_s * 1e3,
				r->max_rate_tpot_p99_s * 1e3,
				r->sustainable_rps > 0 ? 100 * r->max_rate_rps / r->sustainable_rps : 0,
				r->sustainable_rps);
		else
			fprintf(out, "mlperf      Server: no rate meets the objectives\n");
	}
	if (purchase_unit(&sc->instance)) {
		/* bought only as whole UltraServers (models/purchase.h) */
		const struct ultraserver_spec *u = purchase_unit(&sc->instance);

		fprintf(out, "cost        %d x %s in %d x %s = $%.2f/h in capacity blocks (%s); %s per "
			"million output tokens, %s per million tokens in+out\n", r->nodes, sc->instance.name,
			purchase_round_nodes(&sc->instance, r->nodes) / u->instances, u->name, r->usd_per_h,
			u->date, usd_text(ua, sizeof(ua), r->cost_known, r->usd_per_m_output_tokens),
			usd_text(ub, sizeof(ub), r->cost_known, r->usd_per_m_total_tokens));
	} else {
		fprintf(out, "cost        %d x %s = $%.2f/h %s (%s); %s per million output tokens, %s per million tokens in+out\n",
			r->nodes, sc->instance.name, r->usd_per_h,
			purchase_default_pricing(&sc->instance) == PRICING_ON_DEMAND ? "on demand"
			: "in capacity blocks", sc->instance.price.date,
			usd_text(ua, sizeof(ua), r->cost_known, r->usd_per_m_output_tokens),
			usd_text(ub, sizeof(ub), r->cost_known, r->usd_per_m_total_tokens));
	}
	{
		struct serve_band sb = serve_band_of(sc, r);

		fprintf(out, "uncertainty +/- %.0f %% on throughput and latency (serving validation, regime %s)\n",
			100 * model_band_mape(&sb.band),
			sb.regime == REGIME_COUNT ? "none" : model_regime_name(sb.regime));
		fprintf(out, "band        P10 / P50 / P90: output %.4g / %.4g / %.4g tokens/s, p99 TTFT %.4g / "
			"%.4g / %.4g ms, p99 TPOT %.4g / %.4g / %.4g ms\n", sb.tokens_per_s.p10,
			sb.tokens_per_s.p50, sb.tokens_per_s.p90, sb.ttft_p99_ms.p10, sb.ttft_p99_ms.p50,
			sb.ttft_p99_ms.p90, sb.tpot_p99_ms.p10, sb.tpot_p99_ms.p50, sb.tpot_p99_ms.p90);
	}
}

/* ---- JSON --------------------------------------------------------------------------- */

static cJSON *dist_json(const struct srv_dist_stats *d)
{
	cJSON *o = cJSON_CreateObject();

	if (!o)
		return NULL;
	cJSON_AddNumberToObject(o, "count", d->count);
	cJSON_AddNumberToObject(o, "mean_ms", d->mean * 1e3);
	cJSON_AddNumberToObject(o, "p50_ms", d->p50 * 1e3);
	cJSON_AddNumberToObject(o, "p90_ms", d->p90 * 1e3);
	cJSON_AddNumberToObject(o, "p99_ms", d->p99 * 1e3);
	cJSON_AddNumberToObject(o, "max_ms", d->max * 1e3);
	return o;
}

/* One replica's sizes (sim/serve/serve.h), every field written. */
static const struct cfg_field replica_fields[] = {
	CFG_F_INT(struct srv_replica_summary, gpus, CFG_REQUIRED, "tp x pp"),
	CFG_F_NUM_AS(struct srv_replica_summary, weights_bytes, "weights_bytes_per_gpu", CFG_REQUIRED,
		     "weights per GPU"),
	CFG_F_NUM_AS(struct srv_replica_summary, kv_pool_bytes, "kv_pool_bytes_per_gpu", CFG_REQUIRED,
		     "KV-cache pool per GPU"),
	CFG_F_NUM(struct srv_replica_summary, kv_capacity_tokens, CFG_REQUIRED,
		  "full-attention tokens the replica's pool holds"),
	CFG_F_NUM_AS(struct srv_replica_summary, kv_bytes_per_token, "kv_bytes_per_token_per_gpu",
		     CFG_REQUIRED, "KV bytes of one token per GPU"),
	CFG_F_NUM(struct srv_replica_summary, decode_step_batch1_s, CFG_REQUIRED,
		  "one decode step of one sequence"),
	CFG_F_NUM(struct srv_replica_summary, weight_stream_s, CFG_REQUIRED,
		  "weights bytes / (HBM x serve_hbm_eta)"),
	CFG_END
};

static cJSON *replica_json(const struct srv_replica_summary *s)
{
	return cfg_to_json(replica_fields, s);
}

static cJSON *layout_json(const struct srv_layout *l)
{
	cJSON *o = cJSON_CreateObject();

	if (!o)
		return NULL;
	cJSON_AddNumberToObject(o, "tp", l->tp);
	cJSON_AddNumberToObject(o, "pp", l->pp);
	cJSON_AddNumberToObject(o, "ep", l->ep);
	return o;
}

bool rpt_serve_json(FILE *out, const struct srv_scenario *sc, const struct srv_result *r)
{
	cJSON *o = cJSON_CreateObject();

	if (!o)
		return false;
	cJSON_AddStringToObject(o, "scenario", sc->name);
	cJSON_AddStringToObject(o, "model", sc->arch.m.name);
	cJSON_AddStringToObject(o, "instance", sc->instance.name);
	cJSON_AddStringToObject(o, "gpu", sc->gpu.name);
	cJSON_AddStringToObject(o, "engine", sc->engine.name);
	cJSON_AddStringToObject(o, "calibration", sc->calibration.name);
	if (sc->workload.dataset[0]) {
		cJSON_AddStringToObject(o, "dataset", sc->workload.dataset);
		cJSON_AddStringToObject(o, "tokenizer", sc->workload.tokenizer);
	}
	if (sc->layout_note[0])
		cJSON_AddStringToObject(o, "layout_chosen", sc->layout_note);
	if (sc->workload.mlperf != SRV_MLPERF_NONE)
		cJSON_AddStringToObject(o, "mlperf_scenario",
					sc->workload.mlperf == SRV_MLPERF_OFFLINE ? "offline" : "server");
	cJSON_AddItemToObject(o, "replica", layout_json(&sc->replica));
	cJSON_AddNumberToObject(o, "replicas", sc->replicas);
	cJSON_AddBoolToObject(o, "disaggregated", r->disaggregated);
	if (r->disaggregated) {
		cJSON_AddNumberToObject(o, "prefill_replicas", sc->disagg.prefill_replicas);
		cJSON_AddNumberToObject(o, "decode_replicas", sc->disagg.decode_replicas);
		cJSON_AddItemToObject(o, "prefill_layout", layout_json(&sc->disagg.prefill));
		cJSON_AddItemToObject(o, "decode_layout", layout_json(&sc->disagg.decode));
		cJSON_AddItemToObject(o, "prefill_replica_model", replica_json(&r->prefill));
		cJSON_AddItemToObject(o, "kv_transfer", dist_json(&r->kv_transfer_s));
		cJSON_AddStringToObject(o, "kv_transfer_tier", r->kv_transfer_tier);
	}
	cJSON_AddItemToObject(o, "replica_model", replica_json(&r->replica));
	cJSON_AddNumberToObject(o, "gpus", r->gpus);
	cJSON_AddNumberToObject(o, "nodes", r->nodes);
	cJSON_AddNumberToObject(o, "requests", r->requests);
	cJSON_AddNumberToObject(o, "measured", r->measured);
	cJSON_AddNumberToObject(o, "completed", r->completed);
	cJSON_AddNumberToObject(o, "duration_s", r->duration_s);
	cJSON_AddNumberToObject(o, "makespan_s", r->makespan_s);
	cJSON_AddNumberToObject(o, "requests_per_s", r->requests_per_s);
	cJSON_AddNumberToObject(o, "output_tokens_per_s", r->output_tokens_per_s);
	cJSON_AddNumberToObject(o, "output_tokens_per_s_per_gpu", r->output_tokens_per_s_per_gpu);
	cJSON_AddNumberToObject(o, "input_tokens_per_s", r->input_tokens_per_s);
	cJSON_AddItemToObject(o, "ttft", dist_json(&r->ttft_s));
	cJSON_AddItemToObject(o, "tpot", dist_json(&r->tpot_s));
	cJSON_AddItemToObject(o, "e2e", dist_json(&r->e2e_s));
	cJSON_AddItemToObject(o, "queue", dist_json(&r->queue_s));
	cJSON_AddNumberToObject(o, "itl_mean_ms", r->itl_mean_s * 1e3);
	cJSON_AddNumberToObject(o, "kv_util_mean", r->kv_util_mean);
	cJSON_AddNumberToObject(o, "kv_util_peak", r->kv_util_peak);
	cJSON_AddNumberToObject(o, "preemptions", r->preemptions);
	cJSON_AddNumberToObject(o, "mean_decode_batch", r->mean_decode_batch);
	cJSON_AddNumberToObject(o, "iterations", (double)r->iterations);
	cJSON_AddNumberToObject(o, "busy_fraction", r->busy_fraction);
	cJSON_AddNumberToObject(o, "little_L", r->little_L);
	cJSON_AddNumberToObject(o, "little_lambda_per_s", r->little_lambda);
	cJSON_AddNumberToObject(o, "little_W_s", r->little_W);
	if (r->slo_given)
		cJSON_AddBoolToObject(o, "slo_met", r->slo_met);
	/* "stable" (or not): a closed loop or a burst is finite work */
	cJSON_AddStringToObject(o, "status", !r->stable ? "unstable" : !r->steady ? "not-steady" : "steady");
	if (r->open_loop) {
		cJSON_AddNumberToObject(o, "offered_rps", r->offered_rps);
		if (r->sustainable_rps > 0)
			cJSON_AddNumberToObject(o, "sustainable_rps", r->sustainable_rps);
		if (r->steady_requests > 0)
			cJSON_AddNumberToObject(o, "steady_requests", r->steady_requests);
	}
	if (r->max_rate_done) {
		cJSON_AddNumberToObject(o, "mlperf_server_max_rps", r->max_rate_rps);
		cJSON_AddNumberToObject(o, "mlperf_server_output_tokens_per_s", r->max_rate_output_tokens_per_s);
		cJSON_AddNumberToObject(o, "mlperf_server_ttft_p99_ms", r->max_rate_ttft_p99_s * 1e3);
		cJSON_AddNumberToObject(o, "mlperf_server_tpot_p99_ms", r->max_rate_tpot_p99_s * 1e3);
	}
	cJSON_AddNumberToObject(o, "usd_per_h", r->usd_per_h);
	if (r->cost_known) {
		cJSON_AddNumberToObject(o, "usd_per_m_output_tokens", r->usd_per_m_output_tokens);
		cJSON_AddNumberToObject(o, "usd_per_m_total_tokens", r->usd_per_m_total_tokens);
	} else {
		cJSON_AddNullToObject(o, "usd_per_m_output_tokens");
		cJSON_AddNullToObject(o, "usd_per_m_total_tokens");
	}
	cJSON_AddNumberToObject(o, "uncertainty_rel", sc->calibration.serve_uncertainty_rel);
	{
		struct serve_band sb = serve_band_of(sc, r);

		cJSON_AddNumberToObject(o, "uncertainty_rel", model_band_mape(&sb.band));
		cJSON_AddStringToObject(o, "uncertainty_regime",
					sb.regime == REGIME_COUNT ? "none" : model_regime_name(sb.regime));
		cJSON_AddNumberToObject(o, "output_tokens_per_s_p10", sb.tokens_per_s.p10);
		cJSON_AddNumberToObject(o, "output_tokens_per_s_p90", sb.tokens_per_s.p90);
		cJSON_AddNumberToObject(o, "ttft_p99_ms_p10", sb.ttft_p99_ms.p10);
		cJSON_AddNumberToObject(o, "ttft_p99_ms_p90", sb.ttft_p99_ms.p90);
		cJSON_AddNumberToObject(o, "tpot_p99_ms_p10", sb.tpot_p99_ms.p10);
		cJSON_AddNumberToObject(o, "tpot_p99_ms_p90", sb.tpot_p99_ms.p90);
	}
	return rpt_json_print(out, o);
}

void rpt_serve_csv(FILE *out, const struct srv_scenario *sc, const struct srv_result *r)
{
	fprintf(out, "scenario,model,instance,replicas,tp,pp,ep,gpus,nodes,requests_per_s,"
		"output_tokens_per_s,output_tokens_per_s_per_gpu,ttft_p50_ms,ttft_p99_ms,tpot_p50_ms,"
		"tpot_p99_ms,e2e_p99_ms,kv_util_mean,preemptions,usd_per_h,usd_per_m_output_tokens\n");
	fprintf(out, "\"%s\",%s,%s,%d,%d,%d,%d,%d,%d,%.6g,%.6g,%.6g,%.6g,%.6g,%.6g,%.6g,%.6g,%.4g,%d,%.6g,%.6g\n",
		sc->name, sc->arch.m.name, sc->instance.name, sc->replicas, sc->replica.tp,
		sc->replica.pp, sc->replica.ep, r->gpus, r->nodes, r->requests_per_s,
		r->output_tokens_per_s, r->output_tokens_per_s_per_gpu, r->ttft_s.p50 * 1e3,
		r->ttft_s.p99 * 1e3, r->tpot_s.p50 * 1e3, r->tpot_s.p99 * 1e3, r->e2e_s.p99 * 1e3,
		r->kv_util_mean, r->preemptions, r->usd_per_h, r->usd_per_m_output_tokens);
}

/* ---- plan ------------------------------------------------------------------------------ */

/* One line per instance type of the plan: the margin kept to the SLOs and
 * the limits the replicas were planned against. */
static void margin_text(FILE *out, const struct srv_plan *p)
{
	for (int i = 0; i < p->n_rows; i++) {
		const struct srv_plan_row *r = &p->rows[i];
		bool seen = false;

		for (int j = 0; j < i && !seen; j++)
			seen = strcmp(p->rows[j].instance, r->instance) == 0;
		if (seen)
			continue;
		fprintf(out, "margin      %.0f %% on %s (%s): planned to", 100 * r->slo_margin, r->instance,
			p->slo_margin_given ? "--slo-margin" : "its serving calibration's uncertainty");
		if (p->slo_ttft_p99_ms > 0)
			fprintf(out, " p99 TTFT <= %.4g ms", p->slo_ttft_p99_ms * (1 - r->slo_margin));
		if (p->slo_tpot_p99_ms > 0)
			fprintf(out, "%s p99 TPOT <= %.4g ms", p->slo_ttft_p99_ms > 0 ? "," : "",
				p->slo_tpot_p99_ms * (1 - r->slo_margin));
		fputc('\n', out);
	}
}

void rpt_plan_text(FILE *out, const struct srv_scenario *sc, const struct srv_plan *p)
{
	char in[96], o[96];

	length_text(in, sizeof(in), &sc->workload.input_tokens);
	length_text(o, sizeof(o), &sc->workload.output_tokens);
	fprintf(out, "plan        %s at %g requests/s (poisson), input %s, output %s tokens\n",
		sc->arch.m.name, p->target_rps, in, o);
	fprintf(out, "precision   weights %s  activations %s  kv cache %s;  engine %s\n",
		srv_format_name(sc->precision.weights), srv_format_name(sc->precision.activations),
		srv_format_name(sc->precision.kv_cache), sc->engine.name);
	fprintf(out, "objectives  ");
	if (p->slo_ttft_p99_ms > 0)
		fprintf(out, "p99 TTFT <= %g ms  ", p->slo_ttft_p99_ms);
	if (p->slo_tpot_p99_ms > 0)
		fprintf(out, "p99 TPOT <= %g ms", p->slo_tpot_p99_ms);
	fprintf(out, "\n");
	margin_text(out, p);
	fprintf(out, "\n");
	fprintf(out, "%-18s %-14s %8s %6s %5s %5s %9s %9s %9s %9s %9s %9s\n", "instance", "replica",
		"replicas", "needed", "gpus", "nodes", "$/h", "$/Mout", "ttft99ms", "tpot99ms", "cap_rps",
		"b1_ms");
	for (int i = 0; i < p->n_rows; i++) {
		const struct srv_plan_row *r = &p->rows[i];
		char lay[48];

		snprintf(lay, sizeof(lay), "tp%d pp%d ep%d", r->layout.tp, r->layout.pp, r->layout.ep);
		if (r->feasible)
			fprintf(out, "%-18s %-14s %8d %6d %5d %5d %9.2f %9.3f %9.1f %9.1f %9.2f %9.2f%s\n",
				r->instance, lay, r->replicas, r->replicas_needed, r->gpus, r->nodes, r->usd_per_h,
				r->usd_per_m_output_tokens, r->ttft_p99_s * 1e3, r->tpot_p99_s * 1e3,
				r->replica_capacity_rps, r->decode_step_batch1_s * 1e3,
				i == p->best ? "  <= cheapest" : r->best ? "  <= best on this type" : "");
		else
			fprintf(out, "%-18s %-14s %8s  not feasible: %s\n", r->instance, lay, "-", r->reason);
	}
	fprintf(out, "\n");
	if (p->best >= 0) {
		const struct srv_plan_row *b = &p->rows[p->best];

		fprintf(out, "answer      %d x %s (%d replicas of tp %d pp %d ep %d, %d GPUs; %d replicas would do) serve %g requests/s with p99 TTFT %.0f ms and p99 TPOT %.1f ms\n",
			b->nodes, b->instance, b->replicas, b->layout.tp, b->layout.pp, b->layout.ep,
			b->gpus, b->replicas_needed, p->target_rps, b->ttft_p99_s * 1e3, b->tpot_p99_s * 1e3);
		fprintf(out, "cost        $%.2f/h on demand, $%.3f per million output tokens, $%.3f per million tokens in+out (%.0f output tokens/s)\n",
			b->usd_per_h, b->usd_per_m_output_tokens, b->usd_per_m_total_tokens,
			b->output_tokens_per_s);
	} else {
		fprintf(out, "answer      no layout meets the objectives\n");
	}
	fprintf(out, "simulations %d\n", p->simulations);
}

bool rpt_plan_json(FILE *out, const struct srv_scenario *sc, const struct srv_plan *p)
{
	cJSON *o = cJSON_CreateObject(), *rows;

	if (!o)
		return false;
	cJSON_AddStringToObject(o, "model", sc->arch.m.name);
	cJSON_AddNumberToObject(o, "target_rps", p->target_rps);
	cJSON_AddNumberToObject(o, "slo_ttft_p99_ms", p->slo_ttft_p99_ms);
	cJSON_AddNumberToObject(o, "slo_tpot_p99_ms", p->slo_tpot_p99_ms);
	cJSON_AddBoolToObject(o, "slo_margin_given", p->slo_margin_given);
	cJSON_AddNumberToObject(o, "best", p->best);
	cJSON_AddNumberToObject(o, "simulations", p->simulations);
	rows = cJSON_AddArrayToObject(o, "rows");
	for (int i = 0; rows && i < p->n_rows; i++) {
		const struct srv_plan_row *r = &p->rows[i];
		cJSON *x = cJSON_CreateObject();

		if (!x)
			break;
		cJSON_AddStringToObject(x, "instance", r->instance);
		cJSON_AddStringToObject(x, "gpu", r->gpu);
		cJSON_AddItemToObject(x, "replica", layout_json(&r->layout));
		cJSON_AddBoolToObject(x, "feasible", r->feasible);
		cJSON_AddNumberToObject(x, "slo_margin", r->slo_margin);
		if (!r->feasible) {
			cJSON_AddStringToObject(x, "reason", r->reason);
		} else {
			cJSON_AddNumberToObject(x, "replicas", r->replicas);
			cJSON_AddNumberToObject(x, "replicas_needed", r->replicas_needed);
			cJSON_AddNumberToObject(x, "gpus", r->gpus);
			cJSON_AddNumberToObject(x, "nodes", r->nodes);
			cJSON_AddNumberToObject(x, "usd_per_h", r->usd_per_h);
			cJSON_AddNumberToObject(x, "usd_per_m_output_tokens", r->usd_per_m_output_tokens);
			cJSON_AddNumberToObject(x, "usd_per_m_total_tokens", r->usd_per_m_total_tokens);
			cJSON_AddNumberToObject(x, "ttft_p50_ms", r->ttft_p50_s * 1e3);
			cJSON_AddNumberToObject(x, "ttft_p99_ms", r->ttft_p99_s * 1e3);
			cJSON_AddNumberToObject(x, "tpot_p50_ms", r->tpot_p50_s * 1e3);
			cJSON_AddNumberToObject(x, "tpot_p99_ms", r->tpot_p99_s * 1e3);
			cJSON_AddNumberToObject(x, "e2e_p99_ms", r->e2e_p99_s * 1e3);
			cJSON_AddNumberToObject(x, "output_tokens_per_s", r->output_tokens_per_s);
			cJSON_AddNumberToObject(x, "kv_util_mean", r->kv_util_mean);
			cJSON_AddBoolToObject(x, "best_on_instance", r->best);
		}
		cJSON_AddNumberToObject(x, "replica_capacity_rps", r->replica_capacity_rps);
		cJSON_AddNumberToObject(x, "decode_step_batch1_ms", r->decode_step_batch1_s * 1e3);
		cJSON_AddItemToArray(rows, x);
	}
	return rpt_json_print(out, o);
}

void rpt_plan_csv(FILE *out, const struct srv_scenario *sc, const struct srv_plan *p)
{
	(void)sc;
	fprintf(out, "instance,tp,pp,ep,feasible,replicas,replicas_needed,gpus,nodes,usd_per_h,usd_per_m_output_tokens,"
		"ttft_p99_ms,tpot_p99_ms,replica_capacity_rps,best,reason,slo_margin\n");
	for (int i = 0; i < p->n_rows; i++) {
		const struct srv_plan_row *r = &p->rows[i];

		fprintf(out, "%s,%d,%d,%d,%s,%d,%d,%d,%d,%.6g,%.6g,%.6g,%.6g,%.6g,%s,\"%s\",%.6g\n", r->instance,
			r->layout.tp, r->layout.pp, r->layout.ep, r->feasible ? "true" : "false",
			r->replicas, r->replicas_needed, r->gpus, r->nodes, r->usd_per_h, r->usd_per_m_output_tokens,
			r->ttft_p99_s * 1e3, r->tpot_p99_s * 1e3, r->replica_capacity_rps,
			i == p->best ? "true" : "false", r->reason, r->slo_margin);
	}
}

void rpt_plan_compare(FILE *out, const struct srv_scenario *sc, const struct srv_plan *p, bool md)
{
	int second = -1;

	fprintf(out, md ? "## Serving %s at %g requests/s\n\n" : "compare     serving %s at %g requests/s",
		sc->arch.m.name, p->target_rps);
	if (!md) {
		fprintf(out, " (p99 TTFT <= %g ms, p99 TPOT <= %g ms)\n", p->slo_ttft_p99_ms,
			p->slo_tpot_p99_ms);
		margin_text(out, p);
		fputc('\n', out);
	} else
		fprintf(out, "Objectives: p99 TTFT <= %g ms, p99 TPOT <= %g ms.\n\n"
			"| instance | gpu | replica | replicas | nodes | $/h | $/M output tokens | p99 TTFT ms | p99 TPOT ms |\n"
			"|---|---|---|---:|---:|---:|---:|---:|---:|\n", p->slo_ttft_p99_ms, p->slo_tpot_p99_ms);
	if (!md)
		fprintf(out, "%-18s %-10s %-14s %8s %5s %9s %9s %9s %9s\n", "instance", "gpu", "replica",
			"replicas", "nodes", "$/h", "$/Mout", "ttft99ms", "tpot99ms");
	for (int i = 0; i < p->n_rows; i++) {
		const struct srv_plan_row *r = &p->rows[i];
		char lay[48];
		bool any = false;

		if (!r->best) {
			/* an instance type with no feasible row: say so once */
			for (int j = 0; j < p->n_rows; j++)
				if (strcmp(p->rows[j].instance, r->instance) == 0 && (p->rows[j].best || j < i))
					any = true;
			if (any)
				continue;
			fprintf(out, md ? "| %s | %s | - | - | - | - | - | - | - (no layout meets the objectives) |\n"
					: "%-18s %-10s no layout meets the objectives\n", r->instance, r->gpu);
			continue;
		}
		if (i != p->best && (second < 0 || r->usd_per_h < p->rows[second].usd_per_h))
			second = i;
		snprintf(lay, sizeof(lay), "tp%d pp%d ep%d", r->layout.tp, r->layout.pp, r->layout.ep);
		fprintf(out, md ? "| %s | %s | %s | %d | %d | %.2f | %.3f | %.0f | %.1f |\n"
				: "%-18s %-10s %-14s %8d %5d %9.2f %9.3f %9.0f %9.1f\n",
			r->instance, r->gpu, lay, r->replicas, r->nodes, r->usd_per_h,
			r->usd_per_m_output_tokens, r->ttft_p99_s * 1e3, r->tpot_p99_s * 1e3);
	}
	fprintf(out, "\n");
	if (p->best < 0) {
		fprintf(out, "no instance type meets the objectives\n");
		return;
	}
	fprintf(out, md ? "**Cheapest: %s**, $%.3f per million output tokens" : "cheapest    %s, $%.3f per million output tokens",
		p->rows[p->best].instance, p->rows[p->best].usd_per_m_output_tokens);
	if (second >= 0)
		fprintf(out, ", %.1f %% less than %s ($%.3f)", 100 * (1 - p->rows[p->best].usd_per_h /
								  p->rows[second].usd_per_h),
			p->rows[second].instance, p->rows[second].usd_per_m_output_tokens);
	fprintf(out, "\n");
}

/* ---- SVG -------------------------------------------------------------------------------- */

static void svg_escape(FILE *out, const char *s)
{
	for (; *s; s++) {
		switch (*s) {
		case '<': fputs("&lt;", out); break;
		case '>': fputs("&gt;", out); break;
		case '&': fputs("&amp;", out); break;
		case '"': fputs("&quot;", out); break;
		default: fputc(*s, out);
		}
	}
}

/* A "nice" axis maximum: 1, 2 or 5 times a power of ten at or above v. */
static double nice_max(double v)
{
	double p, m;

	if (!(v > 0))
		return 1;
	p = pow(10, floor(log10(v)));
	m = v / p;
	return (m <= 1 ? 1 : m <= 2 ? 2 : m <= 5 ? 5 : 10) * p;
}

static const char *const colors[] = { "#1f77b4", "#d62728", "#2ca02c", "#9467bd", "#ff7f0e",
				      "#8c564b", "#e377c2", "#17becf" };

/* One panel at (x0, y0) of w x h: y = field (ms) against output tokens/s. */
static void panel(FILE *out, double x0, double y0, double w, double h, const char *ylabel,
		  const struct srv_curve *c, int n, bool tpot, double slo_ms, double xmax)
{
	double ymax = slo_ms > 0 ? slo_ms * 1.5 : 0;

	for (int i = 0; i < n; i++)
		for (int j = 0; j < c[i].n; j++) {
			double y = (tpot ? c[i].pt[j].tpot_p99_s : c[i].pt[j].ttft_p99_s) * 1e3;
			if (y > ymax && (slo_ms <= 0 || y < slo_ms * 20))
				ymax = y;
		}
	ymax = nice_max(ymax);
	fprintf(out, "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" fill=\"none\" stroke=\"#444\"/>\n",
		x0, y0, w, h);
	for (int k = 0; k <= 4; k++) {
		double yv = ymax * k / 4, xv = xmax * k / 4;
		double py = y0 + h - h * k / 4, px = x0 + w * k / 4;

		fprintf(out, "<text x=\"%.1f\" y=\"%.1f\" font-size=\"11\" text-anchor=\"end\">%g</text>\n",
			x0 - 4, py + 4, yv);
		fprintf(out, "<text x=\"%.1f\" y=\"%.1f\" font-size=\"11\" text-anchor=\"middle\">%g</text>\n",
			px, y0 + h + 14, xv);
		fprintf(out, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#ddd\"/>\n",
			x0, py, x0 + w, py);
	}
	fprintf(out, "<text x=\"%.1f\" y=\"%.1f\" font-size=\"12\" text-anchor=\"middle\">output tokens/s</text>\n",
		x0 + w / 2, y0 + h + 30);
	fprintf(out, "<text x=\"%.1f\" y=\"%.1f\" font-size=\"12\" text-anchor=\"middle\" transform=\"rotate(-90 %.1f %.1f)\">%s</text>\n",
		x0 - 44, y0 + h / 2, x0 - 44, y0 + h / 2, ylabel);
	if (slo_ms > 0 && slo_ms <= ymax) {
		double py = y0 + h - h * slo_ms / ymax;
		fprintf(out, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#000\" stroke-dasharray=\"6 4\"/>\n",
			x0, py, x0 + w, py);
		fprintf(out, "<text x=\"%.1f\" y=\"%.1f\" font-size=\"11\" text-anchor=\"end\">SLO %g ms</text>\n",
			x0 + w - 4, py - 4, slo_ms);
	}
	for (int i = 0; i < n; i++) {
		const char *col = colors[i % 8];

		fprintf(out, "<polyline fill=\"none\" stroke=\"%s\" stroke-width=\"2\" points=\"", col);
		for (int j = 0; j < c[i].n; j++) {
			double xv = c[i].pt[j].output_tokens_per_s;
			double yv = (tpot ? c[i].pt[j].tpot_p99_s : c[i].pt[j].ttft_p99_s) * 1e3;
			if (yv > ymax)
				yv = ymax;
			fprintf(out, "%s%.1f,%.1f", j ? " " : "", x0 + w * xv / xmax, y0 + h - h * yv / ymax);
		}
		fprintf(out, "\"/>\n");
		for (int j = 0; j < c[i].n; j++) {
			double xv = c[i].pt[j].output_tokens_per_s;
			double yv = (tpot ? c[i].pt[j].tpot_p99_s : c[i].pt[j].ttft_p99_s) * 1e3;
			if (yv > ymax)
				yv = ymax;
			fprintf(out, "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"3\" fill=\"%s\"><title>%g req/s: %.0f tokens/s, %.1f ms</title></circle>\n",
				x0 + w * xv / xmax, y0 + h - h * yv / ymax, col, c[i].pt[j].rate_rps,
				c[i].pt[j].output_tokens_per_s,
				(tpot ? c[i].pt[j].tpot_p99_s : c[i].pt[j].ttft_p99_s) * 1e3);
		}
	}
}

void rpt_serve_svg(FILE *out, const char *title, const struct srv_curve *curves, int n,
		   double slo_ttft_ms, double slo_tpot_ms)
{
	double W = 960, H = 420 + 18.0 * n, xmax = 0;

	for (int i = 0; i < n; i++)
		for (int j = 0; j < curves[i].n; j++)
			if (curves[i].pt[j].output_tokens_per_s > xmax)
				xmax = curves[i].pt[j].output_tokens_per_s;
	xmax = nice_max(xmax);
	fprintf(out, "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%.0f\" height=\"%.0f\" viewBox=\"0 0 %.0f %.0f\" font-family=\"sans-serif\">\n",
		W, H, W, H);
	fprintf(out, "<rect width=\"100%%\" height=\"100%%\" fill=\"#fff\"/>\n");
	fprintf(out, "<text x=\"%.1f\" y=\"24\" font-size=\"15\" text-anchor=\"middle\">", W / 2);
	svg_escape(out, title);
	fprintf(out, "</text>\n");
	panel(out, 80, 50, 360, 280, "p99 TTFT (ms)", curves, n, false, slo_ttft_ms, xmax);
	panel(out, 560, 50, 360, 280, "p99 TPOT (ms)", curves, n, true, slo_tpot_ms, xmax);
	for (int i = 0; i < n; i++) {
		double y = 390 + 18.0 * i;
		fprintf(out, "<rect x=\"80\" y=\"%.1f\" width=\"14\" height=\"4\" fill=\"%s\"/>\n", y - 4,
			colors[i % 8]);
		fprintf(out, "<text x=\"100\" y=\"%.1f\" font-size=\"12\">", y);
		svg_escape(out, curves[i].label);
		fprintf(out, "</text>\n");
	}
	fprintf(out, "</svg>\n");
}
