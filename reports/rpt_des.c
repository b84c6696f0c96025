/* rpt_des.c: renderers of the discrete-event engine's additions (see rpt_des.h). */
#include "rpt_des.h"
#include "../sim/config/rpt_num.h" /* after cJSON: output numbers checked */
#include "../models/units.h"

void rpt_des_text(FILE *out, const struct des_result *r)
{
	const struct des_stats *s = &r->stats;
	double a = r->analytic.step_time_s, d = r->step.step_time_s;

	fprintf(out, "\nengine      des (SimGrid 3.32): %d of %d GPUs simulated", s->simulated_gpus, s->gpus);
	if (s->fold > 1)
		fprintf(out, " (each for its %d tp ranks)", s->fold);
	fprintf(out, ", %lld flows\n", s->messages);
	fprintf(out, "analytical  %.4g s  (des %+.2f %%)\n", a, a > 0 ? 100.0 * (d - a) / a : 0.0);
	if (s->messages_estimate < s->messages_exact)
		fprintf(out, "coarsening  dp collectives in at most %d macro-step%s, up to %d bucket%s per job "
			"(%lld flows exact)\n", s->coll_steps, s->coll_steps == 1 ? "" : "s",
			s->bucket_merge, s->bucket_merge == 1 ? "" : "s", s->messages_exact);
	else
		fprintf(out, "coarsening  none (every ring step and bucket simulated)\n");
	if (r->n_links > 0) {
		fprintf(out, "\nbusiest links              busy       bytes   capacity GB/s\n");
		for (int i = 0; i < r->n_links; i++)
			fprintf(out, "  %-22s %6.1f %%  %10.4g  %10.1f\n", r->links[i].name,
				100.0 * r->links[i].utilisation, r->links[i].bytes,
				r->links[i].capacity_Bps / 1e9);
	}
}

void rpt_des_cost_line(FILE *out, const struct des_result *r)
{
	const struct des_stats *s = &r->stats;

	fprintf(out, "stepcast: des: %d of %d GPUs, %d actors, %lld flows (estimate %lld): %.2f s wall "
		"(platform %.2f s, run %.2f s), %.0f MiB peak (estimate %.0f MiB)\n",
		s->simulated_gpus, s->gpus, s->actors, s->messages, s->estimate.flows, s->wall_s,
		s->platform_s, s->run_s, s->child_maxrss_bytes / SC_MiB_BYTES,
		s->estimate.memory_bytes / SC_MiB_BYTES);
}

cJSON *rpt_des_json_object(const struct des_result *r)
{
	const struct des_stats *s = &r->stats;
	cJSON *o = cJSON_CreateObject(), *links;

	if (!o)
		return NULL;
	cJSON_AddStringToObject(o, "engine", "des");
	cJSON_AddNumberToObject(o, "analytic_step_time_s", r->analytic.step_time_s);
	cJSON_AddNumberToObject(o, "gpus", s->gpus);
	cJSON_AddNumberToObject(o, "simulated_gpus", s->simulated_gpus);
	cJSON_AddNumberToObject(o, "tp_replicas_per_simulated_gpu", s->fold);
	cJSON_AddNumberToObject(o, "actors", s->actors);
	cJSON_AddNumberToObject(o, "flows", (double)s->messages);
	cJSON_AddNumberToObject(o, "flows_exact", (double)s->messages_exact);
	cJSON_AddNumberToObject(o, "max_steps_per_collective", s->coll_steps);
	cJSON_AddNumberToObject(o, "buckets_merged", s->bucket_merge);
	{
		/* what was known before it ran (des_estimate) */
		cJSON *e = cJSON_AddObjectToObject(o, "estimate");

		if (e) {
			cJSON_AddNumberToObject(e, "flows", (double)s->estimate.flows);
			cJSON_AddNumberToObject(e, "flows_fixed", (double)s->estimate.flows_fixed);
			cJSON_AddNumberToObject(e, "timeline_slices", (double)s->estimate.events);
			cJSON_AddNumberToObject(e, "routes", (double)s->estimate.routes);
			cJSON_AddNumberToObject(e, "memory_bytes", s->estimate.memory_bytes);
		}
	}
	links = cJSON_AddArrayToObject(o, "busiest_links");
	for (int i = 0; links && i < r->n_links; i++) {
		cJSON *l = cJSON_CreateObject();

		if (!l)
			break;
		cJSON_AddStringToObject(l, "name", r->links[i].name);
		cJSON_AddStringToObject(l, "kind", r->links[i].kind);
		cJSON_AddNumberToObject(l, "capacity_Bps", r->links[i].capacity_Bps);
		cJSON_AddNumberToObject(l, "bytes", r->links[i].bytes);
		cJSON_AddNumberToObject(l, "utilisation", r->links[i].utilisation);
		cJSON_AddItemToArray(links, l);
	}
	return o;
}
