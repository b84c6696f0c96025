/* cluster_run.h: a shared cluster's jobs simulated alone and together
 * (`stepcast cluster`): training and checkpoint jobs as DES steps
 * (sim/des), serving jobs as their serving simulation (sim/serve) plus the
 * traffic they put on the fabric.
 *
 * A serving deployment's fabric traffic is its KV-cache transfers when it
 * is disaggregated (sim/serve sends each prompt's KV cache from a prefill
 * replica to a decode replica, one transfer at a time per prefill
 * replica, each GPU its own shard: srv_kv_transfer_bytes per GPU pair);
 * its TP stays inside a node's NVLink domain, so a unified deployment
 * whose replicas fit a node puts nothing on the fabric (nothing to
 * contend; its replicas' PP sends across nodes, when a replica spans
 * nodes, are not simulated here).  The DES issues the transfers at the
 * deployment's completed-request rate (serve's result alone), request j at
 * j / rate, from prefill replica j mod P to decode replica j mod D, for as
 * long as the longest training step alone, beside the training steps.  How
 * much slower its flows go together than alone is the share of the
 * network the training traffic leaves it; serve is re-run with the
 * instance's EFA bandwidth divided by that factor, which is how its
 * TTFT, TPOT and throughput change.  The training jobs' slowdown is the
 * DES's, with the transfers on their links.
 *
 * Ownership: cluster_run_free() releases what cluster_run_load() and
 * cluster_run_simulate() allocated.
 */
#ifndef SC_CLUSTER_RUN_H
#define SC_CLUSTER_RUN_H

#include "../config/cluster_load.h"
#include "../des/des.h"
#include "../serve/serve.h"
#include "../serve/serve_config.h"


struct cluster_serving {
	struct srv_scenario sc;
	struct srv_result alone, shared;
	bool has_traffic;                 /* disaggregated: KV transfers over the fabric */
	int requests;                     /* transfers issued in the DES */
	double span_s;                    /* the time they cover: the horizon, or less at SC_MAX_CLUSTER_KV_TRANSFERS */
	double rate_rps;                  /* their rate */
	struct des_flow *flows;           /* owned */
	int n_flows;
	struct des_stream_result flows_alone, flows_shared;
	double flow_slowdown;             /* flows_shared.mean_s / flows_alone.mean_s (>= 1) */
};

struct cluster_run {
	struct cluster_jobs jobs;
	const struct catalog *cat;
	const struct srv_engines *engines;
	struct step_result analytic[CLUSTER_MAX_JOBS];
	struct des_result alone[CLUSTER_MAX_JOBS], together[CLUSTER_MAX_JOBS];
	struct cluster_serving *serving[CLUSTER_MAX_JOBS]; /* serving jobs', owned; else NULL */
	double horizon_s;                 /* the longest training step alone */
};

/* Read the cluster file (sim/config/cluster_load.h), its serving
 * scenarios with engines.  cat and engines must outlive out. */
enum sc_status cluster_run_load(const char *path, const struct catalog *cat, const struct srv_engines *engines,
				struct cluster_run *out, struct sc_error *err);

/* Every job alone, then all together. */
enum sc_status cluster_run_simulate(struct cluster_run *r, struct sc_error *err);

void cluster_run_free(struct cluster_run *r);

#endif
