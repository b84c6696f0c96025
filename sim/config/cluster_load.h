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
 * the scenario needs a "storage" object) or "serving" (a serving scenario,
 * sim/serve: the caller's serving_nodes hook reads it and says how many
 * nodes it takes; its nodes come after every training job's).  At least
 * one job is a training (or checkpoint) job: the fabric is its cluster's.
 */
#ifndef SC_CLUSTER_LOAD_H
#define SC_CLUSTER_LOAD_H

#include "catalog_load.h"
#include "../../models/enum_names.h"
#include "../../models/limits.h"
#include "../../models/placement.h"
#include "../../models/scenario.h"

#define CLUSTER_MAX_JOBS SC_MAX_CLUSTER_JOBS

#define CLUSTER_JOB_KIND_LIST(X) X(CLUSTER_JOB_TRAINING, "training") \
	X(CLUSTER_JOB_CHECKPOINT, "checkpoint") X(CLUSTER_JOB_SERVING, "serving")
enum cluster_job_kind { CLUSTER_JOB_KIND_LIST(SC_ENUM_ID) };
extern const char *const cluster_job_kind_names[];
const char *cluster_job_kind_name(enum cluster_job_kind k);

/* Reads the serving scenario `file` (job k) and returns in *nodes how many
 * nodes it takes; fills err (file and pointer) on failure.  The instance
 * and fabric names must be the training jobs' (checked by the caller,
 * which knows the serving scenario). */
struct cluster_serving_hook {
	enum sc_status (*nodes)(void *ctx, int k, const char *file, const struct cluster *fabric, int *nodes,
				struct sc_error *err);
	void *ctx;
};

struct cluster_jobs {
	char name[SC_SOURCE_MAX];
	int n;
	struct scenario *sc;              /* [n], owned */
	char job_name[CLUSTER_MAX_JOBS][64];
	enum cluster_job_kind kind[CLUSTER_MAX_JOBS];
	char file[CLUSTER_MAX_JOBS][SC_ERROR_FILE_MAX]; /* each job's scenario file, resolved */
	int job_nodes[CLUSTER_MAX_JOBS];  /* training: sc[k].cluster.nodes; serving: the hook's */
	int first_node[CLUSTER_MAX_JOBS];
	int nodes;                        /* all jobs' */
	struct cluster fabric;            /* the first training job's cluster with all nodes and the
					     whole placement */
	int fabric_job;                   /* that job */
};

enum sc_status cluster_jobs_load(const char *path, const struct catalog *cat,
				 const struct cluster_serving_hook *serving, struct cluster_jobs *out,
				 struct sc_error *err);
void cluster_jobs_free(struct cluster_jobs *c);

#endif
