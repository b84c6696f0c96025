/* rpt_goodput.c: calendar and checkpoint-comparison renderers (see
 * rpt_goodput.h). */
#include "rpt_goodput.h"

#include "../models/uncertainty.h"
#include "../models/purchase.h"

#include <math.h>
#include <string.h>
#include "../sim/config/rpt_num.h" /* after cJSON: output numbers checked */
#include "../models/units.h"


static void duration_str(char *buf, size_t n, double s)
{
	if (!isfinite(s))
		snprintf(buf, n, "-");
	else if (s >= 86400 * 2)
		snprintf(buf, n, "%.1f days", s / 86400);
	else if (s >= 7200)
		snprintf(buf, n, "%.1f h", s / 3600);
	else if (s >= 120)
		snprintf(buf, n, "%.1f min", s / 60);
	else
		snprintf(buf, n, "%.3g s", s);
}

/* "every 63 steps (10.5 min)", or "none" */
static void interval_str(char *buf, size_t n, const struct goodput_result *g)
{
	char d[32];

	duration_str(d, sizeof(d), g->interval_s);
	if (!g->periodic)
		snprintf(buf, n, "none");
	else
		snprintf(buf, n, "every %d steps (%s)", g->interval_steps, d);
}

/* The data, checkpoint, failure, recovery and interval lines. */
static void storage_lines(FILE *out, const struct scenario *sc, const struct goodput_result *g)
{
	const struct storage_cfg *s = &sc->storage;
	char buf[96];

	if (g->has_data)
		fprintf(out, "  data         %s: %.4g GB per step (%.3g B/token), demand %.4g GB/s, supply %.4g GB/s%s, stall %.4f s per step\n",
			s->data_tier.name, g->data.bytes_per_step / 1e9, s->bytes_per_token,
			g->data.demand_Bps / 1e9, g->data.supply_Bps / 1e9,
			g->data.node_bound ? " (node-bound)" : "", g->data_stall_s);
	else
		fprintf(out, "  data         not modelled (no data_tier)\n");
	if (g->ckpt_bw.kind == STORAGE_FSX)
		snprintf(buf, sizeof(buf), ", %.4g TiB", g->ckpt_bw.provisioned_TiB);
	else
		buf[0] = '\0';
	fprintf(out, "  checkpoint   %.4g TB (weights %.4g + master %.4g + moments %.4g TB) to %s%s: write %.4g GB/s job-wide, %.4g GB/s per node\n",
		g->ckpt.total_bytes / 1e12, g->ckpt.weights_bytes / 1e12, g->ckpt.master_bytes / 1e12,
		g->ckpt.moments_bytes / 1e12, s->checkpoint_tier.name, buf, g->ckpt_bw.write_Bps / 1e9,
		g->ckpt_bw.node_write_Bps / 1e9);
	fprintf(out, "               per GPU %.4g GB written, %.4g GB held (%.4g GB replicated over %d); per node %.4g GB\n",
		g->ckpt.gpu_write_bytes / 1e9, g->ckpt.gpu_held_bytes / 1e9,
		g->ckpt.gpu_replicated_bytes / 1e9, g->ckpt.replica_group, g->ckpt.node_write_bytes / 1e9);
	fprintf(out, "               write %.4g s (%s-bound), %s %.4g s per save%s",
		g->io.write_s, g->io.write_node_bound ? "node" : "tier",
		s->async_checkpoint ? "async: blocks" : "sync: blocks", g->blocking_s,
		s->async_checkpoint ? "" : "\n");
	if (s->async_checkpoint)
		fprintf(out, ", drains %.4g s (%.3g %% of each node's network); %.4g GiB host memory per node of %.0f%s\n",
			g->drain_s, 100 * g->drain_net_share, g->host_bytes_per_node / SC_GiB_BYTES,
			g->host_capacity_bytes / SC_GiB_BYTES, g->host_memory_ok ? "" : " (DOES NOT FIT)");
	fprintf(out, "  failures     %s: MTBF %.3g h at %d GPUs on %d nodes (%.3g per h from GPUs, %.3g from nodes); %.3g interruptions per day incl. %.3g planned\n",
		s->failures.profile, g->mtbf_s / 3600, scenario_gpus(sc), sc->cluster.nodes,
		g->gpu_rate_per_h, g->node_rate_per_h, g->interruptions_per_day, 24 * g->planned_per_h);
	if (g->recovery == RECOVERY_CHECKPOINTLESS)
		fprintf(out, "  recovery     checkpointless (%d state replicas): restart %.4g s + peer transfer %.4g s per failure, %.4g s of lost work; +%.3g GiB per GPU, +%.4g s per step\n",
			s->checkpointless.state_replicas, g->restart_s, g->restore_s,
			g->lost_per_failure_s, g->mem_extra_bytes / SC_GiB_BYTES, g->replication_s);
	else
		fprintf(out, "  recovery     checkpoint/restart: restart %.4g s + restore %.4g s (read %.4g, exchange %.4g, copy %.4g) per failure, %.4g s of lost work%s\n",
			g->restart_s, g->restore_s, g->io.read_s, g->exchange_s,
			g->restore_s - g->io.read_s - g->exchange_s, g->lost_per_failure_s,
			g->drain_s > 0 ? " (incl. the async drain)" : "");
	interval_str(buf, sizeof(buf), g);
	{
		char d[32], y[32], o[32];

		duration_str(d, sizeof(d), g->daly_s);
		duration_str(y, sizeof(y), g->young_s);
		duration_str(o, sizeof(o), g->optimum_s);
		fprintf(out, "  interval     %s%s; for %.4g s blocking per save: Daly %s, Young %s, optimum %s\n",
			buf, !g->periodic ? " (no periodic checkpoints)" : g->interval_auto ? ", auto (Daly)" : ", given",
			g->blocking_s, d, y, o);
	}
}

void rpt_goodput_text(FILE *out, const struct scenario *sc, const struct goodput_result *g)
{
	char buf[96];

	fprintf(out, "\nstorage and resilience\n");
	if (sc->stragglers.enabled)
		fprintf(out, "  stragglers   %s sigma %.3g over %d GPUs (%s): step x %.4f, +%.4f s\n",
			straggler_dist_name(sc->stragglers.distribution), sc->stragglers.sigma,
			scenario_gpus(sc), sc->stragglers.monte_carlo_steps > 0 ? "sampled" : "exact",
			g->straggler_stretch, g->straggler_s);
	if (g->has_storage)
		storage_lines(out, sc, g);
	fprintf(out, "  goodput      %.1f %%", 100 * g->goodput);
	if (g->steps > 0) {
		duration_str(buf, sizeof(buf), g->wall_s);
		fprintf(out, "  (%.4g tokens in %.4g steps: %s, %.4g M GPU-hours, $%.4g M %s)",
			sc->training.tokens_to_train, g->steps, buf, g->gpu_hours / 1e6, g->cost_usd / 1e6,
			purchase_default_pricing(&sc->cluster.instance) == PRICING_ON_DEMAND
			? "on demand" : "in capacity blocks");
	}
	fprintf(out, "\n");
	if (g->steps > 0) {
		struct model_band b = model_band_of_regimes(&sc->calibration, model_regimes_of(sc, g->base_step_s), false, NULL);
		struct model_quantiles q = model_band_quantiles(&b, g->wall_s);
		char p10[32], p50[32], p90[32];

		duration_str(p10, sizeof(p10), q.p10);
		duration_str(p50, sizeof(p50), q.p50);
		duration_str(p90, sizeof(p90), q.p90);
		fprintf(out, "  time band    P10 %s, P50 %s, P90 %s (the step time's band, goodput as "
			"predicted)\n", p10, p50, p90);
	}
	if (g->has_storage) {
		fprintf(out, "\ncalendar          share\n");
		for (int i = 0; i < CAL_COUNT; i++)
			fprintf(out, "  %-14s %6.2f %%\n", cal_part_name((enum cal_part)i), 100 * g->frac[i]);
	}
	if (g->n_advice > 0) {
		fprintf(out, "\nwhat to change\n");
		for (int i = 0; i < g->n_advice; i++)
			fprintf(out, "  - %s\n", g->advice[i]);
	}
}

void rpt_goodput_compare_text(FILE *out, const struct scenario *sc,
			      const struct goodput_option *rows, int n)
{
	(void)sc;
	fprintf(out, "\ncheckpoint options (checkpoints at Daly's interval for each tier)\n");
	fprintf(out, "  %-26s %-28s %10s %10s %-28s %8s %9s\n", "option", "tier", "blocking_s",
		"restore_s", "interval", "goodput", "train");
	for (int i = 0; i < n; i++) {
		const struct goodput_option *o = &rows[i];
		char iv[64], days[32];

		if (!o->ok) {
			fprintf(out, "  %-26s %-28s not possible: %s\n", o->label, o->tier, o->why);
			continue;
		}
		interval_str(iv, sizeof(iv), &o->g);
		duration_str(days, sizeof(days), o->g.steps > 0 ? o->g.wall_s : NAN);
		fprintf(out, "  %-26s %-28s %10.4g %10.4g %-28s %7.2f%% %9s\n", o->label, o->tier,
			o->g.periodic ? o->g.blocking_s : 0.0, o->g.restore_s, iv, 100 * o->g.goodput, days);
	}
}

static cJSON *result_json(const struct scenario *sc, const struct goodput_result *g)
{
	cJSON *o = cJSON_CreateObject(), *cal, *c, *adv;

	if (!o)
		return NULL;
	cJSON_AddNumberToObject(o, "goodput", g->goodput);
	cJSON_AddStringToObject(o, "recovery", ckpt_recovery_name(g->recovery));
	cJSON_AddNumberToObject(o, "base_step_s", g->base_step_s);
	cJSON_AddNumberToObject(o, "step_s", g->step_s);
	cJSON_AddNumberToObject(o, "straggler_stretch", g->straggler_stretch);
	cJSON_AddNumberToObject(o, "straggler_s", g->straggler_s);
	cJSON_AddNumberToObject(o, "data_stall_s", g->data_stall_s);
	cJSON_AddNumberToObject(o, "checkpoint_s", g->checkpoint_s);
	cJSON_AddNumberToObject(o, "replication_s", g->replication_s);
	if ((cal = cJSON_AddObjectToObject(o, "calendar")))
		for (int i = 0; i < CAL_COUNT; i++)
			cJSON_AddNumberToObject(cal, cal_part_name((enum cal_part)i), g->frac[i]);
	if (!g->has_storage)
		goto advice;
	if (g->has_data && (c = cJSON_AddObjectToObject(o, "data"))) {
		cJSON_AddStringToObject(c, "tier", sc->storage.data_tier.name);
		cJSON_AddNumberToObject(c, "bytes_per_step", g->data.bytes_per_step);
		cJSON_AddNumberToObject(c, "demand_Bps", g->data.demand_Bps);
		cJSON_AddNumberToObject(c, "supply_Bps", g->data.supply_Bps);
		cJSON_AddBoolToObject(c, "node_bound", g->data.node_bound);
		cJSON_AddNumberToObject(c, "stall_s", g->data_stall_s);
	}
	if ((c = cJSON_AddObjectToObject(o, "checkpoint"))) {
		cJSON_AddStringToObject(c, "tier", sc->storage.checkpoint_tier.name);
		cJSON_AddNumberToObject(c, "total_bytes", g->ckpt.total_bytes);
		cJSON_AddNumberToObject(c, "weights_bytes", g->ckpt.weights_bytes);
		cJSON_AddNumberToObject(c, "master_bytes", g->ckpt.master_bytes);
		cJSON_AddNumberToObject(c, "moments_bytes", g->ckpt.moments_bytes);
		cJSON_AddNumberToObject(c, "gpu_write_bytes", g->ckpt.gpu_write_bytes);
		cJSON_AddNumberToObject(c, "gpu_held_bytes", g->ckpt.gpu_held_bytes);
		cJSON_AddNumberToObject(c, "node_write_bytes", g->ckpt.node_write_bytes);
		cJSON_AddNumberToObject(c, "write_s", g->io.write_s);
		cJSON_AddNumberToObject(c, "snapshot_s", g->io.snapshot_s);
		cJSON_AddNumberToObject(c, "blocking_s", g->blocking_s);
		cJSON_AddNumberToObject(c, "drain_s", g->drain_s);
		cJSON_AddNumberToObject(c, "drain_net_share", g->drain_net_share);
		cJSON_AddNumberToObject(c, "host_bytes_per_node", g->host_bytes_per_node);
		cJSON_AddNumberToObject(c, "restore_s", g->restore_s);
		cJSON_AddBoolToObject(c, "host_memory_ok", g->host_memory_ok);
		cJSON_AddNumberToObject(c, "interval_steps", g->interval_steps);
		cJSON_AddNumberToObject(c, "interval_s", g->interval_s);
		cJSON_AddBoolToObject(c, "interval_auto", g->interval_auto);
		cJSON_AddNumberToObject(c, "young_s", isfinite(g->young_s) ? g->young_s : -1);
		cJSON_AddNumberToObject(c, "daly_s", isfinite(g->daly_s) ? g->daly_s : -1);
	}
	if ((c = cJSON_AddObjectToObject(o, "failures"))) {
		cJSON_AddStringToObject(c, "profile", sc->storage.failures.profile);
		cJSON_AddNumberToObject(c, "job_rate_per_h", g->job_rate_per_h);
		cJSON_AddNumberToObject(c, "mtbf_s", isfinite(g->mtbf_s) ? g->mtbf_s : -1);
		cJSON_AddNumberToObject(c, "planned_per_h", g->planned_per_h);
		cJSON_AddNumberToObject(c, "restart_s", g->restart_s);
		cJSON_AddNumberToObject(c, "recovery_s", g->recovery_s);
		cJSON_AddNumberToObject(c, "lost_per_failure_s", g->lost_per_failure_s);
		cJSON_AddNumberToObject(c, "mem_extra_bytes", g->mem_extra_bytes);
	}
	if (g->steps > 0 && (c = cJSON_AddObjectToObject(o, "time_to_train"))) {
		cJSON_AddNumberToObject(c, "steps", g->steps);
		cJSON_AddNumberToObject(c, "wall_s", g->wall_s);
		{
			struct model_band b = model_band_of_regimes(&sc->calibration, model_regimes_of(sc, g->base_step_s), false, NULL);
			struct model_quantiles q = model_band_quantiles(&b, g->wall_s);

			cJSON_AddNumberToObject(c, "wall_p10_s", q.p10);
			cJSON_AddNumberToObject(c, "wall_p50_s", q.p50);
			cJSON_AddNumberToObject(c, "wall_p90_s", q.p90);
		}
		cJSON_AddNumberToObject(c, "gpu_hours", g->gpu_hours);
		cJSON_AddNumberToObject(c, "cost_usd", g->cost_usd);
	}
advice:
	if ((adv = cJSON_AddArrayToObject(o, "advice")))
		for (int i = 0; i < g->n_advice; i++)
			cJSON_AddItemToArray(adv, cJSON_CreateString(g->advice[i]));
	return o;
}

cJSON *rpt_goodput_json(const struct scenario *sc, const struct goodput_result *g,
			const struct goodput_option *rows, int n)
{
	cJSON *o = result_json(sc, g), *arr;

	if (!o)
		return NULL;
	if (n > 0 && (arr = cJSON_AddArrayToObject(o, "options"))) {
		for (int i = 0; i < n; i++) {
			cJSON *row = rows[i].ok ? result_json(sc, &rows[i].g) : cJSON_CreateObject();

			if (!row)
				break;
			cJSON_AddStringToObject(row, "option", rows[i].label);
			cJSON_AddStringToObject(row, "tier", rows[i].tier);
			if (!rows[i].ok)
				cJSON_AddStringToObject(row, "not_possible", rows[i].why);
			cJSON_AddItemToArray(arr, row);
		}
	}
	return o;
}
