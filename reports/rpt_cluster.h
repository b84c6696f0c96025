/* rpt_cluster.h: the jobs of one cluster run (sim/cluster/cluster_run.h)
 * side by side: each training or checkpoint job's step time, analytic and
 * DES alone and together, its slowdown, its storage reads and writes; each
 * serving job's KV transfers and latencies alone and shared.  Text to a
 * stream the caller owns; JSON as a string the caller frees. */
#ifndef SC_RPT_CLUSTER_H
#define SC_RPT_CLUSTER_H

#include <stdio.h>

#include "../sim/cluster/cluster_run.h"

void rpt_cluster_text(FILE *out, const struct cluster_run *r);

/* {"cluster", "nodes", "fabric", "placement", "jobs": [{"name", "kind",
 * "nodes", "first_node", ...}]} printed; NULL on allocation failure. */
char *rpt_cluster_json(const struct cluster_run *r);

#endif
