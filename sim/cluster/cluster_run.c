/* cluster_run.c: a shared cluster simulated (see cluster_run.h). */
#include "cluster_run.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../analytic/step.h"
#include "../serve/serve_sim.h"

/* cluster_load's hook: read serving job k and say how many nodes it takes
 * (srv_scenario_nodes, serve's one rule). */
static enum sc_status serving_nodes(void *ctx, int k, const char *file, const struct cluster *fabric, int *nodes,
				    struct sc_error *err)
{
	struct cluster_run *r = ctx;
	struct cluster_serving *s = calloc(1, sizeof(*s));
	enum sc_status st;

	if (!s)
		return sc_error_set(err, SC_ENOMEM, file, NULL, "out of memory");
	r->serving[k] = s;
	if ((st = srv_scenario_load(file, r->cat, r->engines, &s->sc, err)) != SC_OK)
		return st;
	if (strcmp(s->sc.instance.name, fabric->instance.name) != 0 ||
	    strcmp(s->sc.fabric.name, fabric->fabric.name) != 0)
		return sc_error_set(err, SC_EINVAL, file, "/instance",
				    "the serving job runs on %s / %s; the cluster's jobs share %s / %s", s->sc.instance.name,
				    s->sc.fabric.name, fabric->instance.name, fabric->fabric.name);
	*nodes = srv_scenario_nodes(&s->sc);
	return SC_OK;
}

void cluster_run_free(struct cluster_run *r)
{
	for (int k = 0; k < CLUSTER_MAX_JOBS; k++) {
		if (r->serving[k])
			free(r->serving[k]->flows);
		free(r->serving[k]);
		r->serving[k] = NULL;
		des_result_free(&r->alone[k]);
		des_result_free(&r->together[k]);
	}
	cluster_jobs_free(&r->jobs);
}

enum sc_status cluster_run_load(const char *path, const struct catalog *cat, const struct srv_engines *engines,
				struct cluster_run *out, struct sc_error *err)
{
	struct cluster_serving_hook hook = { serving_nodes, out };
	enum sc_status st;

	memset(out, 0, sizeof(*out));
	out->cat = cat;
	out->engines = engines;
	st = cluster_jobs_load(path, cat, &hook, &out->jobs, err);
	if (st != SC_OK)
		cluster_run_free(out);
	return st;
}

/* GPU of replica p's first GPU in a pool of replicas of g GPUs packed on
 * nodes of gpn from GPU base (as srv_scenario_nodes counts them: several
 * replicas to a node when they fit, whole nodes each otherwise). */
static int replica_gpu(int base, int p, int g, int gpn)
{
	if (g <= gpn)
		return base + (p / (gpn / g)) * gpn + (p % (gpn / g)) * g;
	return base + p * ((g + gpn - 1) / gpn) * gpn;
}

/* The KV transfers of serving job k over the horizon. */
static enum sc_status serving_flows(struct cluster_run *r, int k, struct sc_error *err)
{
	struct cluster_serving *s = r->serving[k];
	const struct srv_scenario *sc = &s->sc;
	struct srv_scenario pre = *sc;
	int gpn = sc->instance.gpus_per_node, P = sc->disagg.prefill_replicas, D = sc->disagg.decode_replicas;
	int pg = sc->disagg.prefill.tp * sc->disagg.prefill.pp, dg = sc->disagg.decode.tp * sc->disagg.decode.pp;
	int pairs = pg < dg ? pg : dg, base, dbase, n;
	double bytes = s->alone.kv_transfer_bytes_per_request;

	s->has_traffic = P > 0 && D > 0 && bytes > 0 && s->alone.requests_per_s > 0;
	if (!s->has_traffic)
		return SC_OK;
	base = r->jobs.first_node[k] * gpn;
	pre.disagg.decode_replicas = 0;
	dbase = base + srv_scenario_nodes(&pre) * gpn;
	s->rate_rps = s->alone.requests_per_s;
	n = (int)ceil(s->rate_rps * r->horizon_s);
	if (n < 1)
		n = 1;
	if ((long long)n * pairs > SC_MAX_CLUSTER_KV_TRANSFERS)
		n = SC_MAX_CLUSTER_KV_TRANSFERS / pairs;
	s->requests = n;
	s->span_s = fmin(r->horizon_s, n / s->rate_rps);
	s->flows = calloc((size_t)n * pairs, sizeof(*s->flows));
	if (!s->flows)
		return sc_error_set(err, SC_ENOMEM, NULL, NULL, "out of memory");
	for (int j = 0; j < n; j++)
		for (int i = 0; i < pairs; i++) {
			struct des_flow *f = &s->flows[s->n_flows++];

			f->src = replica_gpu(base, j % P, pg, gpn) + i;
			f->dst = replica_gpu(dbase, j % D, dg, gpn) + i;
			f->t_s = j / s->rate_rps;
			f->bytes = bytes;
		}
	return SC_OK;
}

enum sc_status cluster_run_simulate(struct cluster_run *r, struct sc_error *err)
{
	struct cluster_jobs *cj = &r->jobs;
	const struct scenario *scs[CLUSTER_MAX_JOBS];
	struct des_stream streams[CLUSTER_MAX_JOBS];
	struct des_stream_result sr[CLUSTER_MAX_JOBS];
	struct des_result tg[CLUSTER_MAX_JOBS];
	int map[CLUSTER_MAX_JOBS], smap[CLUSTER_MAX_JOBS], nt = 0, ns = 0;
	struct des_options ck, all;
	enum sc_status st = SC_OK;

	memset(&ck, 0, sizeof(ck));
	memset(&all, 0, sizeof(all));
	ck.checkpoint_step = true;
	/* alone: each training job's step, each serving job's run */
	for (int k = 0; st == SC_OK && k < cj->n; k++) {
		bool c = cj->kind[k] == CLUSTER_JOB_CHECKPOINT;

		if (cj->kind[k] == CLUSTER_JOB_SERVING) {
			st = srv_simulate_checked(&r->serving[k]->sc, &r->serving[k]->alone, err);
			continue;
		}
		if (c)
			all.checkpoint_jobs |= 1u << nt;
		scs[nt] = &cj->sc[k];
		map[nt++] = k;
		st = sim_step_predict(&cj->sc[k], &r->analytic[k], err);
		if (st == SC_OK)
			st = des_predict(&cj->sc[k], c ? &ck : NULL, &r->alone[k], err);
		if (st == SC_OK && r->alone[k].step.step_time_s > r->horizon_s)
			r->horizon_s = r->alone[k].step.step_time_s;
	}
	/* the serving jobs' transfers, alone on the fabric */
	for (int k = 0; st == SC_OK && k < cj->n; k++) {
		if (cj->kind[k] != CLUSTER_JOB_SERVING)
			continue;
		st = serving_flows(r, k, err);
		if (st == SC_OK && r->serving[k]->has_traffic) {
			streams[ns].flows = r->serving[k]->flows;
			streams[ns].n_flows = r->serving[k]->n_flows;
			smap[ns++] = k;
		}
	}
	if (st == SC_OK && ns > 0) {
		st = des_predict_shared(NULL, 0, streams, ns, &cj->fabric, NULL, NULL, sr, err);
		for (int i = 0; st == SC_OK && i < ns; i++)
			r->serving[smap[i]]->flows_alone = sr[i];
	}
	/* together */
	if (st == SC_OK)
		st = des_predict_shared(scs, nt, streams, ns, &cj->fabric, &all, tg, sr, err);
	for (int i = 0; st == SC_OK && i < nt; i++)
		r->together[map[i]] = tg[i];
	for (int i = 0; st == SC_OK && i < ns; i++) {
		struct cluster_serving *s = r->serving[smap[i]];

		s->flows_shared = sr[i];
		s->flow_slowdown = s->flows_alone.mean_s > 0 ? sr[i].mean_s / s->flows_alone.mean_s : 1;
	}
	/* the serving runs with the network share they got */
	for (int k = 0; st == SC_OK && k < cj->n; k++) {
		struct cluster_serving *s = r->serving[k];

		if (cj->kind[k] != CLUSTER_JOB_SERVING)
			continue;
		s->shared = s->alone;
		if (s->has_traffic && s->flow_slowdown > 1 + 1e-9) {
			struct srv_scenario slow = s->sc;

			slow.instance.efa_nic_Gbps /= s->flow_slowdown;
			st = srv_simulate_checked(&slow, &s->shared, err);
		}
	}
	return st;
}
