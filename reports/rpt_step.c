/* rpt_step.c: step prediction renderers (see rpt_step.h). */
#include "rpt_step.h"
#include "../models/layout.h"

#include <stdlib.h>

#include <cjson/cJSON.h>

#include "rpt_util.h"

#include "../models/purchase.h"
#include "../models/uncertainty.h"
#include "../sim/config/scenario_load.h"
#include "../sim/plan/cost.h"
#include "../sim/config/rpt_num.h" /* after cJSON: output numbers checked */
#include "../models/units.h"

/* The data-stall, checkpoint and straggler parts exist only for scenarios
 * with a "storage" or "stragglers" object: without one the report is what it
 * always was. */
static bool part_shown(const struct scenario *sc, int i)
{
	return (i != PART_DATA_STALL && i != PART_CHECKPOINT && i != PART_STRAGGLER) ||
	       sc->storage.enabled || sc->stragglers.enabled;
}

static const char *efa_or_nvlink(const struct scenario *sc)
{
	return scenario_gpus(sc) > sc->cluster.instance.nvlink_domain_gpus ? "EFA" : "NVLink only";
}
/* With a pipeline: how the layers split (models/layout), as
 * "  layers slots 0-1 per virtual stage". */
static void layer_split_line(FILE *out, const struct scenario *sc)
{
	struct layout_info li;
	int lo = 1 << 30, hi = 0;

	if (sc->layout.pp < 2 || layout_derive(sc, NULL, &li, NULL) != SC_OK)
		return;
	for (int j = 0; j < li.virtual_stages; j++) {
		int b, e;

		layout_vstage_layers(&li, j, &b, &e);
		lo = e - b < lo ? e - b : lo;
		hi = e - b > hi ? e - b : hi;
	}
	if (lo == hi)
		fprintf(out, "  layers %s %d per virtual stage", layer_split_name(li.split), lo);
	else
		fprintf(out, "  layers %s %d-%d per virtual stage", layer_split_name(li.split), lo, hi);
}


void rpt_step_text(FILE *out, const struct scenario *sc, const struct step_result *r)
{
	const struct layout *l = &sc->layout;
	const struct training *t = &sc->training;

	fprintf(out, "scenario    %s\n", sc->name);
	fprintf(out, "model       %s (%d layers, hidden %d%s)\n", sc->model.name, sc->model.layers,
		sc->model.hidden, model_is_moe(&sc->model) ? ", MoE" : "");
	fprintf(out, "cluster     %d x %s = %d x %s, fabric %s (%s)\n", sc->cluster.nodes,
		sc->cluster.instance.name, scenario_gpus(sc), sc->cluster.gpu.name,
		sc->cluster.fabric.name, efa_or_nvlink(sc));
	fprintf(out, "layout      tp %d  pp %d  vpp %d  dp %d  cp %d  ep %d  zero %d%s%s  schedule %s",
		l->tp, l->pp, l->vpp, l->dp, l->cp, l->ep, l->zero_stage,
		l->fsdp ? "  fsdp" : "", l->sequence_parallel ? "  sp" : "", schedule_name(l->schedule));
	layer_split_line(out, sc);
	fputc('\n', out);
	fprintf(out, "training    seq %d  global batch %d  micro batch %d (%d per step)  %s  recompute %s\n",
		t->seq_len, t->global_batch_seqs, t->micro_batch_seqs, r->micro_batches,
		precision_name(t->precision), recompute_name(t->recompute));
	fprintf(out, "calibration %s\n\n", sc->calibration.name);

	{
		enum model_regime regime;
		struct model_band b = sim_step_band(sc, r, &regime);
		struct model_quantiles q = model_band_quantiles(&b, r->step_time_s);

		fprintf(out, "step time   %.4g s  (+/- %.0f %%)\n", r->step_time_s,
			model_band_mape(&b) * 100);
		fprintf(out, "step band   P10 %.4g s  P50 %.4g s  P90 %.4g s  (regime %s)\n", q.p10, q.p50,
			q.p90, regime == REGIME_COUNT ? "none: the profile's uncertainty_rel"
						      : model_regime_name(regime));
	}
	fprintf(out, "throughput  %.4g tokens/s  (%.1f per GPU)\n", r->tokens_per_s, r->tokens_per_s_per_gpu);
	fprintf(out, "model flops %.1f TFLOP/s per GPU, MFU %.1f %%, HFU %.1f %%\n",
		r->model_tflops_per_gpu, r->mfu * 100, r->hfu * 100);
	fprintf(out, "bottleneck  %s\n\n", bottleneck_name(r->bottleneck));

	fprintf(out, "breakdown                 s   share\n");
	for (int i = 0; i < PART_COUNT; i++)
		if (part_shown(sc, i))
			fprintf(out, "  %-16s %10.4f  %5.1f %%\n", step_part_name((enum step_part)i),
				r->part_s[i], r->step_time_s > 0 ? 100 * r->part_s[i] / r->step_time_s : 0);
	fprintf(out, "  %-16s %10.4f\n\n", "total", r->step_time_s);

	fprintf(out, "memory per GPU        GiB   (%s, %s)\n",
		r->mem_where, framework_name(sc->training.framework));
	for (int i = 0; i < MEM_COUNT; i++)
		fprintf(out, "  %-16s %8.2f\n", mem_part_name((enum mem_part)i), r->mem_bytes[i] / SC_GiB_BYTES);
	fprintf(out, "  %-16s %8.2f of %.2f  %s\n", "total", r->mem_total_bytes / SC_GiB_BYTES,
		r->mem_capacity_bytes / SC_GiB_BYTES, r->oom ? "OUT OF MEMORY" : "fits");
	{
		const struct mem_out *w = &r->mem_stage[r->mem_worst_stage];

		fprintf(out, "  peak allocated %8.2f   max reserved %.2f   nvidia-smi %.2f\n\n",
			w->allocated_bytes / SC_GiB_BYTES, w->reserved_bytes / SC_GiB_BYTES, w->device_bytes / SC_GiB_BYTES);
	}

	if (r->n_collectives > 0) {
		fprintf(out, "collectives  ranks  tier    algorithm                      bytes/call   s/call   s/step\n");
		for (int i = 0; i < r->n_collectives; i++) {
			const struct step_collective *c = &r->collectives[i];
			fprintf(out, "  %-10s %5d  %-6s  %-28s %11.4g %9.3g %8.4f\n", c->what, c->ranks,
				c->tier, c->algorithm, c->bytes, c->time_s, c->total_time_s);
		}
	}
}

cJSON *rpt_step_json_object(const struct scenario *sc, const struct step_result *r)
{
	cJSON *root = cJSON_CreateObject(), *parts, *mem, *colls;

	if (!root)
		return NULL;
	cJSON_AddStringToObject(root, "scenario", sc->name);
	cJSON_AddStringToObject(root, "model", sc->model.name);
	cJSON_AddStringToObject(root, "instance", sc->cluster.instance.name);
	cJSON_AddNumberToObject(root, "nodes", sc->cluster.nodes);
	cJSON_AddNumberToObject(root, "gpus", scenario_gpus(sc));
	cJSON_AddStringToObject(root, "calibration", sc->calibration.name);
	cJSON_AddNumberToObject(root, "step_time_s", r->step_time_s);
	cJSON_AddNumberToObject(root, "uncertainty_rel", r->uncertainty_rel);
	{
		enum model_regime regime;
		struct model_band b = sim_step_band(sc, r, &regime);
		struct model_quantiles q = model_band_quantiles(&b, r->step_time_s);

		cJSON_AddStringToObject(root, "uncertainty_regime",
					regime == REGIME_COUNT ? "none" : model_regime_name(regime));
		cJSON_AddNumberToObject(root, "step_time_p10_s", q.p10);
		cJSON_AddNumberToObject(root, "step_time_p50_s", q.p50);
		cJSON_AddNumberToObject(root, "step_time_p90_s", q.p90);
		cJSON_AddNumberToObject(root, "step_time_log_sigma", b.log_sigma);
	}
	cJSON_AddNumberToObject(root, "tokens_per_s", r->tokens_per_s);
	cJSON_AddNumberToObject(root, "tokens_per_s_per_gpu", r->tokens_per_s_per_gpu);
	cJSON_AddNumberToObject(root, "model_flops_per_step", r->model_flops_per_step);
	cJSON_AddNumberToObject(root, "hardware_flops_per_step", r->hardware_flops_per_step);
	cJSON_AddNumberToObject(root, "model_tflops_per_gpu", r->model_tflops_per_gpu);
	cJSON_AddNumberToObject(root, "mfu", r->mfu);
	cJSON_AddNumberToObject(root, "hfu", r->hfu);
	cJSON_AddNumberToObject(root, "micro_batches", r->micro_batches);
	cJSON_AddNumberToObject(root, "bubble_fraction", r->bubble_fraction);
	cJSON_AddStringToObject(root, "bottleneck", bottleneck_name(r->bottleneck));
	parts = cJSON_AddObjectToObject(root, "breakdown_s");
	for (int i = 0; parts && i < PART_COUNT; i++)
		if (part_shown(sc, i))
			cJSON_AddNumberToObject(parts, step_part_name((enum step_part)i), r->part_s[i]);
	mem = cJSON_AddObjectToObject(root, "memory_bytes");
	for (int i = 0; mem && i < MEM_COUNT; i++)
		cJSON_AddNumberToObject(mem, mem_part_name((enum mem_part)i), r->mem_bytes[i]);
	cJSON_AddNumberToObject(root, "memory_total_bytes", r->mem_total_bytes);
	cJSON_AddNumberToObject(root, "memory_capacity_bytes", r->mem_capacity_bytes);
	cJSON_AddNumberToObject(root, "memory_allocated_bytes", r->mem_stage[r->mem_worst_stage].allocated_bytes);
	cJSON_AddNumberToObject(root, "memory_reserved_bytes", r->mem_stage[r->mem_worst_stage].reserved_bytes);
	cJSON_AddNumberToObject(root, "memory_device_bytes", r->mem_stage[r->mem_worst_stage].device_bytes);
	cJSON_AddBoolToObject(root, "oom", r->oom);
	colls = cJSON_AddArrayToObject(root, "collectives");
	for (int i = 0; colls && i < r->n_collectives; i++) {
		const struct step_collective *c = &r->collectives[i];
		cJSON *o = cJSON_CreateObject();
		if (!o)
			break;
		cJSON_AddStringToObject(o, "what", c->what);
		cJSON_AddStringToObject(o, "algorithm", c->algorithm);
		cJSON_AddStringToObject(o, "tier", c->tier);
		cJSON_AddNumberToObject(o, "ranks", c->ranks);
		cJSON_AddNumberToObject(o, "bytes", c->bytes);
		cJSON_AddNumberToObject(o, "time_s", c->time_s);
		cJSON_AddNumberToObject(o, "total_time_s", c->total_time_s);
		cJSON_AddStringToObject(o, "op", coll_op_name(c->op));
		cJSON_AddNumberToObject(o, "busbw_GBps", rpt_coll_busbw_GBps(c));
		cJSON_AddItemToArray(colls, o);
	}
	/* the layout as the scenario key reads it, and what the step costs:
	 * enough for `stepcast diff` of two prediction files */
	{
		cJSON *lay = cfg_to_json(cfg_layout_fields, &sc->layout);

		if (lay && !cJSON_AddItemToObject(root, "layout", lay))
			cJSON_Delete(lay);
	}
	{
		const struct instance_spec *in = &sc->cluster.instance;
		enum plan_pricing p = purchase_default_pricing(in);
		double usd_h = purchase_cluster_usd_per_h(in, sc->cluster.nodes, p);
		cJSON *cost = cJSON_AddObjectToObject(root, "cost");

		if (cost && usd_h > 0) {
			double tokens = r->tokens_per_s * r->step_time_s;

			cJSON_AddStringToObject(cost, "pricing", plan_pricing_name(p));
			cJSON_AddNumberToObject(cost, "cluster_usd_per_h", usd_h);
			cJSON_AddNumberToObject(cost, "usd_per_step", usd_h * r->step_time_s / 3600.0);
			if (tokens > 0)
				cJSON_AddNumberToObject(cost, "usd_per_million_tokens",
							usd_h * r->step_time_s / 3600.0 / tokens * 1e6);
		}
	}
	return root;
}

double rpt_coll_busbw_GBps(const struct step_collective *c)
{
	/* nccl-tests' bus bandwidth (and NCCL Inspector's): bytes per rank
	 * times the op's factor over the time of one call */
	return c->time_s > 0 ? c->bytes * coll_busbw_factor(c->op, c->ranks) / c->time_s / 1e9 : 0;
}

bool rpt_step_json(FILE *out, const struct scenario *sc, const struct step_result *r)
{
	cJSON *root = rpt_step_json_object(sc, r);

	if (!root)
		return false;
	return rpt_json_print(out, root);
}

void rpt_step_csv(FILE *out, const struct scenario *sc, const struct step_result *r)
{
	struct model_band b = sim_step_band(sc, r, NULL);
	struct model_quantiles q = model_band_quantiles(&b, r->step_time_s);

	fprintf(out, "step_time_s,tokens_per_s,tokens_per_s_per_gpu,model_tflops_per_gpu,mfu,hfu,"
		"bottleneck,memory_total_bytes,memory_capacity_bytes,oom");
	for (int i = 0; i < PART_COUNT; i++)
		if (part_shown(sc, i))
			fprintf(out, ",%s_s", step_part_name((enum step_part)i));
	for (int i = 0; i < MEM_COUNT; i++)
		fprintf(out, ",%s_bytes", mem_part_name((enum mem_part)i));
	fprintf(out, ",step_time_p10_s,step_time_p50_s,step_time_p90_s");
	fprintf(out, "\n%.6g,%.6g,%.6g,%.6g,%.6g,%.6g,%s,%.6g,%.6g,%s", r->step_time_s, r->tokens_per_s,
		r->tokens_per_s_per_gpu, r->model_tflops_per_gpu, r->mfu, r->hfu,
		bottleneck_name(r->bottleneck), r->mem_total_bytes, r->mem_capacity_bytes,
		r->oom ? "true" : "false");
	for (int i = 0; i < PART_COUNT; i++)
		if (part_shown(sc, i))
			fprintf(out, ",%.6g", r->part_s[i]);
	for (int i = 0; i < MEM_COUNT; i++)
		fprintf(out, ",%.6g", r->mem_bytes[i]);
	fprintf(out, ",%.6g,%.6g,%.6g", q.p10, q.p50, q.p90);
	fprintf(out, "\n");
}
