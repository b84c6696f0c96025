/* rpt_cluster.c: `stepcast cluster` as text and JSON (rpt_cluster.h). */
#include "rpt_cluster.h"

#include <stdio.h>
#include <stdlib.h>

#include <cjson/cJSON.h>

#include "../sim/config/rpt_num.h"

/* A quantity of a job alone on its nodes and together with the others:
 * "alone_KEY" and "together_KEY". */
static void alone_together(cJSON *o, const char *key, double alone, double together)
{
	char k[64];

	snprintf(k, sizeof(k), "alone_%s", key);
	rpt_json_add_number(o, k, alone);
	snprintf(k, sizeof(k), "together_%s", key);
	rpt_json_add_number(o, k, together);
}

/* One serving job's JSON. */
static void serving_json(cJSON *o, const struct cluster_serving *s)
{
	const struct srv_result *a = &s->alone, *b = &s->shared;

	cJSON_AddBoolToObject(o, "fabric_traffic", s->has_traffic);
	cJSON_AddNumberToObject(o, "kv_transfers", s->requests);
	rpt_json_add_number(o, "kv_transfers_span_s", s->span_s);
	rpt_json_add_number(o, "kv_transfer_rate_rps", s->rate_rps);
	alone_together(o, "kv_flow_s", s->flows_alone.mean_s, s->flows_shared.mean_s);
	rpt_json_add_number(o, "kv_flow_slowdown", s->has_traffic ? s->flow_slowdown : 1.0);
	alone_together(o, "ttft_p50_s", a->ttft_s.p50, b->ttft_s.p50);
	alone_together(o, "ttft_p99_s", a->ttft_s.p99, b->ttft_s.p99);
	alone_together(o, "tpot_p50_s", a->tpot_s.p50, b->tpot_s.p50);
	alone_together(o, "output_tokens_per_s", a->output_tokens_per_s, b->output_tokens_per_s);
}

char *rpt_cluster_json(const struct cluster_run *r)
{
	const struct cluster_jobs *cj = &r->jobs;
	cJSON *root = cJSON_CreateObject(), *a = cJSON_CreateArray();
	char *text = NULL;

	if (root && a && cJSON_AddItemToObject(root, "jobs", a)) {
		cJSON_AddStringToObject(root, "cluster", cj->name);
		cJSON_AddNumberToObject(root, "nodes", cj->nodes);
		cJSON_AddStringToObject(root, "fabric", cj->fabric.fabric.name);
		cJSON_AddStringToObject(root, "placement", cj->fabric.placement ? cj->fabric.placement->source : "");
		for (int k = 0; k < cj->n; k++) {
			const struct des_result *al = &r->alone[k], *tg = &r->together[k];
			cJSON *o = cJSON_CreateObject();

			if (!o || !cJSON_AddItemToArray(a, o))
				break;
			cJSON_AddStringToObject(o, "name", cj->job_name[k]);
			cJSON_AddStringToObject(o, "kind", cluster_job_kind_name(cj->kind[k]));
			cJSON_AddNumberToObject(o, "nodes", cj->job_nodes[k]);
			cJSON_AddNumberToObject(o, "first_node", cj->first_node[k]);
			if (cj->kind[k] == CLUSTER_JOB_SERVING) {
				serving_json(o, r->serving[k]);
				continue;
			}
			rpt_json_add_number(o, "analytic_step_time_s", r->analytic[k].step_time_s);
			alone_together(o, "step_time_s", al->step.step_time_s, tg->step.step_time_s);
			rpt_json_add_number(o, "slowdown", tg->step.step_time_s / al->step.step_time_s);
			if (al->storage.data)
				alone_together(o, "data_read_s", al->storage.read_s, tg->storage.read_s);
			if (al->storage.checkpoint) {
				alone_together(o, "checkpoint_write_s", al->storage.write_s, tg->storage.write_s);
				cJSON_AddBoolToObject(o, "checkpoint_async", al->storage.async);
			}
		}
		text = cJSON_Print(root);
	} else if (!root || !cJSON_IsArray(a)) {
		cJSON_Delete(a);
	}
	cJSON_Delete(root);
	return text;
}

void rpt_cluster_text(FILE *out, const struct cluster_run *r)
{
	const struct cluster_jobs *cj = &r->jobs;

	fprintf(out, "cluster     %s\n", cj->name);
	fprintf(out, "fabric      %d x %s, %s (%d nodes per leaf, %.1f:1 leaf-to-spine)\n", cj->nodes,
	       cj->fabric.instance.name, cj->fabric.fabric.name, cj->fabric.fabric.nodes_per_leaf,
	       cj->fabric.fabric.leaf_spine_oversubscription > 1 ? cj->fabric.fabric.leaf_spine_oversubscription : 1.0);
	fprintf(out, "placement   %s\n\n", cj->fabric.placement ? cj->fabric.placement->source : "packed");
	fprintf(out, "%-24s %-10s %6s %12s %12s %12s %9s\n", "job", "kind", "nodes", "analytic s", "des alone s",
	       "des shared s", "slowdown");
	for (int k = 0; k < cj->n; k++) {
		if (cj->kind[k] == CLUSTER_JOB_SERVING)
			continue;
		fprintf(out, "%-24.24s %-10s %6d %12.4f %12.4f %12.4f %8.3fx\n", cj->job_name[k],
		       cluster_job_kind_name(cj->kind[k]), cj->job_nodes[k], r->analytic[k].step_time_s,
		       r->alone[k].step.step_time_s, r->together[k].step.step_time_s,
		       r->together[k].step.step_time_s / r->alone[k].step.step_time_s);
	}
	for (int k = 0; k < cj->n; k++) {
		const struct des_result *al = &r->alone[k], *tg = &r->together[k];

		if (cj->kind[k] == CLUSTER_JOB_SERVING)
			continue;
		if (al->storage.checkpoint)
			fprintf(out, "%-24.24s checkpoint %s write %.4f s alone, %.4f s shared (%.4g GB per GPU)\n",
			       cj->job_name[k], al->storage.async ? "async drain" : "sync", al->storage.write_s,
			       tg->storage.write_s, al->storage.write_bytes / 1e9);
		if (al->storage.data)
			fprintf(out, "%-24.24s data batch read %.4f s alone, %.4f s shared (%.4g MB per reader)\n",
			       cj->job_name[k], al->storage.read_s, tg->storage.read_s, al->storage.read_bytes / 1e6);
	}
	for (int k = 0; k < cj->n; k++) {
		const struct cluster_serving *s = r->serving[k];

		if (cj->kind[k] != CLUSTER_JOB_SERVING)
			continue;
		fprintf(out, "\nserving %s (%d nodes from node %d)\n", cj->job_name[k], cj->job_nodes[k], cj->first_node[k]);
		if (!s->has_traffic)
			fprintf(out, "  no fabric traffic (unified replicas inside their nodes): nothing to contend\n");
		else
			fprintf(out, "  KV transfers  %d at %.3g/s, %.4g MB per GPU pair: %.5f s alone, %.5f s shared (%.3fx)\n",
			       s->requests, s->rate_rps, s->alone.kv_transfer_bytes_per_request / 1e6,
			       s->flows_alone.mean_s, s->flows_shared.mean_s, s->flow_slowdown);
		if (s->has_traffic && s->span_s < r->horizon_s)
			fprintf(out, "  KV transfers cover the first %.4g s of the %.4g s horizon only (%d transfers simulated at most)\n",
				s->span_s, r->horizon_s, SC_MAX_CLUSTER_KV_TRANSFERS);
		fprintf(out, "  %-14s %12s %12s\n", "", "alone", "shared");
		fprintf(out, "  %-14s %12.3f %12.3f\n", "TTFT p50 ms", s->alone.ttft_s.p50 * 1e3, s->shared.ttft_s.p50 * 1e3);
		fprintf(out, "  %-14s %12.3f %12.3f\n", "TTFT p99 ms", s->alone.ttft_s.p99 * 1e3, s->shared.ttft_s.p99 * 1e3);
		fprintf(out, "  %-14s %12.4f %12.4f\n", "TPOT p50 ms", s->alone.tpot_s.p50 * 1e3, s->shared.tpot_s.p50 * 1e3);
		fprintf(out, "  %-14s %12.1f %12.1f\n", "output tok/s", s->alone.output_tokens_per_s,
		       s->shared.output_tokens_per_s);
	}
}
