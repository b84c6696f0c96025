/* rpt_prom.c: Prometheus text exposition of predictions (see rpt_prom.h).
 *
 * Format: https://prometheus.io/docs/instrumenting/exposition_formats/
 * (text 0.0.4): "# HELP name text", "# TYPE name gauge", then the samples of
 * that family together; label values escape \, " and newline; values as
 * Go's float syntax (%.17g here; never NaN or Inf: a sample that is not
 * finite is left out).
 */
#include "rpt_prom.h"

#include <ctype.h>
#include <math.h>
#include <string.h>

#include "../models/uncertainty.h"
#include "rpt_step.h"
#include "../models/purchase.h"
#include "../sim/plan/cost.h"

/* Families both predict and serve write keep one HELP and one label set:
 * node_exporter's textfile collector merges files and refuses a family
 * whose help or label names differ between them. */
#define HELP_GPUS "GPUs of the prediction."
#define HELP_USD_H "Price of the cluster per hour under its default pricing (on-demand where sold, else capacity blocks)."

const char *rpt_prom_scenario_label(const char *path, char *buf, size_t n)
{
	const char *base = strrchr(path, '/');
	size_t len;

	base = base ? base + 1 : path;
	len = strlen(base);
	if (len > 5 && strcmp(base + len - 5, ".json") == 0)
		len -= 5;
	snprintf(buf, n, "%.*s", (int)len, base);
	return buf;
}

static void family(FILE *out, const char *name, const char *help)
{
	fprintf(out, "# HELP %s %s\n# TYPE %s gauge\n", name, help, name);
}

static void label_value(FILE *out, const char *v)
{
	fputc('"', out);
	for (const char *p = v; *p; p++) {
		if (*p == '\\' || *p == '"')
			fputc('\\', out);
		if (*p == '\n')
			fputs("\\n", out);
		else
			fputc(*p, out);
	}
	fputc('"', out);
}

/* name{scenario="label",k1="v1",...} value; extra is NULL-terminated
 * key, value pairs. */
static void sample(FILE *out, const char *name, const char *label, const char *const *extra,
		   double v)
{
	if (!isfinite(v))
		return;
	fprintf(out, "%s{scenario=", name);
	label_value(out, label);
	for (int i = 0; extra && extra[i]; i += 2) {
		fprintf(out, ",%s=", extra[i]);
		label_value(out, extra[i + 1]);
	}
	fprintf(out, "} %.17g\n", v);
}

static void gauge(FILE *out, const char *name, const char *help, const char *label, double v)
{
	if (!isfinite(v))
		return;
	family(out, name, help);
	sample(out, name, label, NULL, v);
}

/* NCCL's names of the operations (ncclFuncToString), as NCCL Inspector's
 * "collective" label spells them; all-to-all is not an NCCL function (it is
 * grouped send/recv), its name here is the nccl-tests one. */
const char *rpt_prom_nccl_collective(enum coll_op op)
{
	switch (op) {
	case COLL_ALL_REDUCE: return "AllReduce";
	case COLL_REDUCE_SCATTER: return "ReduceScatter";
	case COLL_ALL_GATHER: return "AllGather";
	case COLL_ALL_TO_ALL: return "AllToAll";
	case COLL_SEND_RECV: return "SendRecv";
	}
	return "Unknown";
}

/* "ring/simple" -> "RING_SIMPLE", as NCCL Inspector's algo_proto; other
 * characters than letters and digits become one '_'. */
static void algo_proto(const char *alg, char *out, size_t n)
{
	size_t k = 0;

	for (const char *p = alg; *p && k + 1 < n; p++) {
		if (isalnum((unsigned char)*p))
			out[k++] = (char)toupper((unsigned char)*p);
		else if (k > 0 && out[k - 1] != '_')
			out[k++] = '_';
	}
	while (k > 0 && out[k - 1] == '_')
		k--;
	out[k] = '\0';
}

static void layout_text(const struct layout *l, char *buf, size_t n)
{
	snprintf(buf, n, "tp%d pp%d vpp%d dp%d cp%d ep%d zero%d%s", l->tp, l->pp, l->vpp, l->dp, l->cp,
		 l->ep, l->zero_stage, l->fsdp ? " fsdp" : "");
}

static void collectives(FILE *out, const char *label, const struct step_result *r)
{
	static const struct {
		const char *name, *help;
		int kind; /* 0 per call time, 1 bus bandwidth, 2 per step */
		bool p2p;
	} fams[] = {
		{ "stepcast_predicted_collective_exec_time_seconds",
		  "Predicted time of one call of a collective (NCCL Inspector: nccl_collective_exec_time_microseconds / 1e6).",
		  0, false },
		{ "stepcast_predicted_bus_bandwidth_bytes_per_second",
		  "Predicted bus bandwidth of a collective, nccl-tests definition (NCCL Inspector: nccl_bus_bandwidth_gbs * 1e9).",
		  1, false },
		{ "stepcast_predicted_collective_step_seconds",
		  "Predicted time per step in a collective, before overlap.", 2, false },
		{ "stepcast_predicted_p2p_exec_time_seconds",
		  "Predicted time of one pipeline send/recv (NCCL Inspector: nccl_p2p_exec_time_microseconds / 1e6).",
		  0, true },
		{ "stepcast_predicted_p2p_bus_bandwidth_bytes_per_second",
		  "Predicted bus bandwidth of a pipeline send/recv (NCCL Inspector: nccl_p2p_bus_bandwidth_gbs * 1e9).",
		  1, true },
	};

	for (size_t f = 0; f < sizeof(fams) / sizeof(fams[0]); f++) {
		bool any = false;

		for (int i = 0; i < r->n_collectives; i++) {
			const struct step_collective *c = &r->collectives[i];
			char ranks[16], ap[64], nth[8];
			const char *extra[16];
			int k = 0, n = 1;
			double v;

			if ((c->op == COLL_SEND_RECV) != fams[f].p2p)
				continue;
			for (int j = 0; j < i; j++)
				n += strcmp(r->collectives[j].what, c->what) == 0;
			snprintf(ranks, sizeof(ranks), "%d", c->ranks);
			snprintf(nth, sizeof(nth), "%d", n);
			algo_proto(c->algorithm, ap, sizeof(ap));
			extra[k++] = "group";
			extra[k++] = c->what;
			extra[k++] = "call";
			extra[k++] = nth;
			if (fams[f].p2p) {
				extra[k++] = "p2p_operation";
				extra[k++] = "Send";
			} else {
				extra[k++] = "collective";
				extra[k++] = rpt_prom_nccl_collective(c->op);
			}
			extra[k++] = "nranks";
			extra[k++] = ranks;
			extra[k++] = "algo_proto";
			extra[k++] = ap;
			extra[k++] = "tier";
			extra[k++] = c->tier;
			extra[k] = NULL;
			v = fams[f].kind == 0 ? c->time_s
			    : fams[f].kind == 1 ? rpt_coll_busbw_GBps(c) * 1e9 : c->total_time_s;
			if (!any) {
				family(out, fams[f].name, fams[f].help);
				any = true;
			}
			sample(out, fams[f].name, label, extra, v);
		}
	}
}

void rpt_prom_step(FILE *out, const char *label, const struct scenario *sc,
		   const struct step_result *r, const struct goodput_result *g)
{
	struct model_band b = sim_step_band(sc, r, NULL); /* the band predict prints */
	struct model_quantiles q = model_band_quantiles(&b, r->step_time_s);
	const char *name = "stepcast_predicted_step_time_seconds";
	char lay[96];
	const char *info[16];
	int k = 0;

	layout_text(&sc->layout, lay, sizeof(lay));
	info[k++] = "model";
	info[k++] = sc->model.name;
	info[k++] = "instance";
	info[k++] = sc->cluster.instance.name;
	info[k++] = "gpu";
	info[k++] = sc->cluster.gpu.name;
	info[k++] = "calibration";
	info[k++] = sc->calibration.name;
	info[k++] = "layout";
	info[k++] = lay;
	info[k++] = "bottleneck";
	info[k++] = bottleneck_name(r->bottleneck);
	info[k] = NULL;
	family(out, "stepcast_prediction_info", "The predicted scenario: model, instance, layout, bottleneck (value 1).");
	sample(out, "stepcast_prediction_info", label, info, 1);

	family(out, name, "Predicted optimizer step time at the calibration's band quantiles (band: p10, p50, p90).");
	sample(out, name, label, (const char *const[]){ "band", "p10", NULL }, q.p10);
	sample(out, name, label, (const char *const[]){ "band", "p50", NULL }, q.p50);
	sample(out, name, label, (const char *const[]){ "band", "p90", NULL }, q.p90);
	gauge(out, "stepcast_predicted_tokens_per_second", "Predicted training throughput, tokens per second.", label,
	      r->tokens_per_s);
	gauge(out, "stepcast_predicted_tokens_per_second_per_gpu", "Predicted training throughput per GPU.", label,
	      r->tokens_per_s_per_gpu);
	gauge(out, "stepcast_predicted_mfu_ratio",
	      "Predicted model FLOPs utilisation (model FLOP/s over the precision's peak).", label, r->mfu);
	gauge(out, "stepcast_predicted_hfu_ratio",
	      "Predicted hardware FLOPs utilisation (with recompute); compare with DCGM_FI_PROF_PIPE_TENSOR_ACTIVE.",
	      label, r->hfu);
	gauge(out, "stepcast_predicted_gpus", HELP_GPUS, label, scenario_gpus(sc));
	gauge(out, "stepcast_predicted_nodes", "Instances (nodes) of the prediction.", label, sc->cluster.nodes);

	name = "stepcast_predicted_step_breakdown_seconds";
	family(out, name, "Predicted step time by part (the parts sum to the step time).");
	for (int i = 0; i < PART_COUNT; i++)
		if (r->part_s[i] != 0 || i == PART_COMPUTE)
			sample(out, name, label,
			       (const char *const[]){ "part", step_part_name((enum step_part)i), NULL }, r->part_s[i]);

	name = "stepcast_predicted_memory_bytes";
	family(out, name, "Predicted memory per GPU by category (compare the total with DCGM_FI_DEV_FB_USED * 2^20).");
	for (int i = 0; i < MEM_COUNT; i++)
		sample(out, name, label, (const char *const[]){ "category", mem_part_name((enum mem_part)i), NULL },
		       r->mem_bytes[i]);
	gauge(out, "stepcast_predicted_memory_total_bytes", "Predicted memory per GPU, all categories.", label,
	      r->mem_total_bytes);
	gauge(out, "stepcast_predicted_memory_capacity_bytes", "HBM per GPU.", label, r->mem_capacity_bytes);
	gauge(out, "stepcast_predicted_oom", "1 when the prediction does not fit in HBM.", label, r->oom ? 1 : 0);
	collectives(out, label, r);
	if (g) {
		gauge(out, "stepcast_predicted_goodput_ratio",
		      "Predicted goodput: useful training time over calendar time (checkpoints, failures, stalls).",
		      label, g->goodput);
		gauge(out, "stepcast_predicted_effective_step_time_seconds",
		      "Predicted step time with data stalls, stragglers and blocking checkpoints.", label, g->step_s);
	}
	{
		const struct instance_spec *in = &sc->cluster.instance;
		enum plan_pricing p = purchase_default_pricing(in);
		double usd_h = purchase_cluster_usd_per_h(in, sc->cluster.nodes, p);
		double tokens = r->tokens_per_s * r->step_time_s;

		if (usd_h > 0) {
			name = "stepcast_predicted_cluster_cost_usd_per_hour";
			family(out, name, HELP_USD_H);
			sample(out, name, label, (const char *const[]){ "pricing", plan_pricing_name(p), NULL }, usd_h);
			gauge(out, "stepcast_predicted_cost_usd_per_step", "Predicted cost of one optimizer step.", label,
			      usd_h * r->step_time_s / 3600.0);
			if (tokens > 0)
				gauge(out, "stepcast_predicted_cost_usd_per_million_tokens",
				      "Predicted cost per million training tokens.", label,
				      usd_h * r->step_time_s / 3600.0 / tokens * 1e6);
		}
	}
}

static void dist(FILE *out, const char *name, const char *help, const char *label, const char *model,
		 const struct srv_dist_stats *d)
{
	static const char *const bands[] = { "mean", "p50", "p90", "p99" };
	const double v[] = { d->mean, d->p50, d->p90, d->p99 };

	if (d->count <= 0)
		return;
	family(out, name, help);
	for (int i = 0; i < 4; i++)
		sample(out, name, label, (const char *const[]){ "model_name", model, "band", bands[i], NULL }, v[i]);
}

void rpt_prom_serve(FILE *out, const char *label, const struct srv_scenario *sc,
		    const struct srv_result *r)
{
	const char *model = sc->arch.m.name;
	const char *const ml[] = { "model_name", model, NULL };

	family(out, "stepcast_serving_info", "The predicted serving deployment: model, instance (value 1).");
	sample(out, "stepcast_serving_info", label,
	       (const char *const[]){ "model_name", model, "instance", sc->instance.name, NULL }, 1);
	dist(out, "stepcast_predicted_time_to_first_token_seconds",
	     "Predicted time to first token (vLLM: vllm:time_to_first_token_seconds).", label, model, &r->ttft_s);
	dist(out, "stepcast_predicted_time_per_output_token_seconds",
	     "Predicted time per output token per request (vLLM: vllm:time_per_output_token_seconds).", label,
	     model, &r->tpot_s);
	dist(out, "stepcast_predicted_e2e_request_latency_seconds",
	     "Predicted end-to-end request latency (vLLM: vllm:e2e_request_latency_seconds).", label, model,
	     &r->e2e_s);
	dist(out, "stepcast_predicted_request_queue_time_seconds",
	     "Predicted time waiting before the first schedule (vLLM: vllm:request_queue_time_seconds).", label,
	     model, &r->queue_s);
	if (isfinite(r->itl_mean_s)) {
		family(out, "stepcast_predicted_inter_token_latency_seconds",
		       "Predicted token-weighted mean inter-token latency (vLLM: vllm:inter_token_latency_seconds).");
		sample(out, "stepcast_predicted_inter_token_latency_seconds", label,
		       (const char *const[]){ "model_name", model, "band", "mean", NULL }, r->itl_mean_s);
	}
	family(out, "stepcast_predicted_generation_tokens_per_second",
	       "Predicted output tokens per second (vLLM: rate(vllm:generation_tokens_total[5m])).");
	sample(out, "stepcast_predicted_generation_tokens_per_second", label, ml, r->output_tokens_per_s);
	family(out, "stepcast_predicted_prompt_tokens_per_second",
	       "Predicted prompt tokens per second (vLLM: rate(vllm:prompt_tokens_total[5m])).");
	sample(out, "stepcast_predicted_prompt_tokens_per_second", label, ml, r->input_tokens_per_s);
	family(out, "stepcast_predicted_requests_per_second", "Predicted completed requests per second.");
	sample(out, "stepcast_predicted_requests_per_second", label, ml, r->requests_per_s);
	family(out, "stepcast_predicted_kv_cache_usage_ratio",
	       "Predicted time-weighted KV cache use (vLLM: vllm:kv_cache_usage_perc, a fraction).");
	sample(out, "stepcast_predicted_kv_cache_usage_ratio", label, ml, r->kv_util_mean);
	gauge(out, "stepcast_predicted_gpus", HELP_GPUS, label, r->gpus);
	if (r->usd_per_h > 0) {
		family(out, "stepcast_predicted_cluster_cost_usd_per_hour", HELP_USD_H);
		sample(out, "stepcast_predicted_cluster_cost_usd_per_hour", label,
		       (const char *const[]){ "pricing", plan_pricing_name(purchase_default_pricing(&sc->instance)),
					      NULL }, r->usd_per_h);
		gauge(out, "stepcast_predicted_cost_usd_per_million_output_tokens",
		      "Predicted cost per million output tokens.", label, r->usd_per_m_output_tokens);
	}
	if (r->slo_given)
		gauge(out, "stepcast_predicted_slo_met", "1 when the predicted p99 latencies meet the scenario's SLOs.",
		      label, r->slo_met ? 1 : 0);
}

void rpt_prom_plan(FILE *out, const char *label, const struct scenario *sc,
		   const struct plan_opts *o, const struct compare_entry *e)
{
	const struct plan_point *pt;
	const struct plan_train *t;
	const char *const pl[] = { "instance", e->instance.name, "pricing", plan_pricing_name(o->pricing), NULL };
	const char *name = "stepcast_plan_time_to_train_seconds";
	char lay[96];

	(void)sc;
	if (e->plan.chosen < 0) {
		gauge(out, "stepcast_plan_feasible", "1 when some layout fits at some node count.", label, 0);
		return;
	}
	pt = &e->plan.points[e->plan.chosen];
	t = &pt->train[o->pricing];
	layout_text(&pt->best.layout, lay, sizeof(lay));
	gauge(out, "stepcast_plan_feasible", "1 when some layout fits at some node count.", label, 1);
	family(out, "stepcast_plan_info", "The chosen plan: instance, pricing, layout (value 1).");
	sample(out, "stepcast_plan_info", label,
	       (const char *const[]){ "instance", e->instance.name, "pricing", plan_pricing_name(o->pricing),
				      "layout", lay, NULL }, 1);
	family(out, "stepcast_plan_nodes", "Instances (nodes) of the chosen plan.");
	sample(out, "stepcast_plan_nodes", label, pl, pt->nodes);
	family(out, "stepcast_plan_gpus", "GPUs of the chosen plan.");
	sample(out, "stepcast_plan_gpus", label, pl, pt->gpus);
	family(out, name, "Predicted wall-clock time to train the budget at the step time's P10, P50 and P90.");
	sample(out, name, label, (const char *const[]){ "band", "p10", NULL }, pt->time_q_s.p10);
	sample(out, name, label, (const char *const[]){ "band", "p50", NULL }, pt->time_q_s.p50);
	sample(out, name, label, (const char *const[]){ "band", "p90", NULL }, pt->time_q_s.p90);
	family(out, "stepcast_plan_step_time_seconds", "Predicted step time of the chosen layout.");
	sample(out, "stepcast_plan_step_time_seconds", label, pl, pt->best.step_time_s);
	family(out, "stepcast_plan_tokens_per_second", "Predicted throughput of the chosen layout.");
	sample(out, "stepcast_plan_tokens_per_second", label, pl, pt->best.tokens_per_s);
	family(out, "stepcast_plan_mfu_ratio", "Predicted MFU of the chosen layout.");
	sample(out, "stepcast_plan_mfu_ratio", label, pl, pt->best.mfu);
	family(out, "stepcast_plan_goodput_ratio", "Productive time over wall-clock time of the plan.");
	sample(out, "stepcast_plan_goodput_ratio", label, pl, t->goodput);
	family(out, "stepcast_plan_gpu_time_seconds", "GPU time to train the budget (GPU-hours x 3600).");
	sample(out, "stepcast_plan_gpu_time_seconds", label, pl, t->gpu_hours * 3600.0);
	if (t->usd_per_h > 0) {
		family(out, "stepcast_plan_cost_usd", "Cost to train the budget under the pricing.");
		sample(out, "stepcast_plan_cost_usd", label, pl, t->usd_total);
		family(out, "stepcast_plan_cluster_cost_usd_per_hour", "Price of the plan's cluster per hour.");
		sample(out, "stepcast_plan_cluster_cost_usd_per_hour", label, pl, t->usd_per_h);
	}
	if (o->deadline_s > 0) {
		gauge(out, "stepcast_plan_deadline_seconds", "The deadline asked for.", label, o->deadline_s);
		gauge(out, "stepcast_plan_meets_deadline", "1 when the plan meets the deadline at its confidence.", label,
		      pt->meets_deadline ? 1 : 0);
	}
}
