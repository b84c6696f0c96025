/* cluster_load.h: a shared cluster: several jobs on one fabric.
 *
 * A cluster file:
 *   {"name": "...",
 *    "jobs": [{"scenario": "a.json"}, {"scenario": "b.json", "name": "eval", "kind": "checkpoint"}],
 *    "placement": {"generate": "spread", "blocks": 2} | {"file": F, "format": FMT(, "instances")}}
 * Scenario files are relative to the cluster file; every job must use the
 * same instance type and fabric.  The placement covers all the jobs'
 * nodes together (its generators and files as cluster.placement's,
 * placement_load.h): job 0 takes its first nodes, job 1 the next, and so
 * on, so that "spread" or a fragmented file put the jobs under the same
 * leaves, sharing their uplinks.  Absent: packed (each job on leaves of
 * its own).  Each job's scenario gets its slice as cluster.placement.
 * A job's "kind": "training" (default: one training step) or "checkpoint"
 * (the training step that writes a checkpoint to its scenario's storage
 * tier: several at once are a checkpoint storm on a shared file system;
 * the scenario needs a "storage" object).
 */
#ifndef SC_CLUSTER_LOAD_H
#define SC_CLUSTER_LOAD_H

#include "catalog_load.h"
#include "../../models/placement.h"
#include "../../models/scenario.h"

#define CLUSTER_MAX_JOBS 8

enum cluster_job_kind { CLUSTER_JOB_TRAINING, CLUSTER_JOB_CHECKPOINT };

struct cluster_jobs {
	char name[SC_SOURCE_MAX];
	int n;
	struct scenario *sc;              /* [n], owned */
	char job_name[CLUSTER_MAX_JOBS][64];
	enum cluster_job_kind kind[CLUSTER_MAX_JOBS];
	int first_node[CLUSTER_MAX_JOBS];
	int nodes;                        /* all jobs' */
	struct cluster fabric;            /* job 0's cluster with all nodes and the whole placement */
};

enum sc_status cluster_jobs_load(const char *path, const struct catalog *cat, struct cluster_jobs *out,
				 struct sc_error *err);
void cluster_jobs_free(struct cluster_jobs *c);

#endif
