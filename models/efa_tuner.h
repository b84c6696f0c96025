/* efa_tuner.h: NCCL's algorithm and protocol on AWS as the aws-ofi-nccl
 * region tuner chooses them (TUNER_TYPE=REGION, the plugin's default).
 *
 * For a platform with region tables (P5/P5e, P5en, P6-B200, P6-B300), more
 * than 2 nodes, and 8, 2 or 1 ranks per node (the layouts with tables), the
 * first region (in priority order) whose polygon in (log2 bytes, log2 ranks)
 * contains the point, edges included, names the algorithm and protocol;
 * outside every region, or for other layouts, NCCL's own tuner decides.
 * On P5/P5e the model tuner's hard-coded rule (16 nodes, 128 ranks, 3 to
 * 5 GiB all-reduce -> NVLS_TREE/Simple) is applied first.  Sources:
 * aws/aws-ofi-nccl src/tuner/nccl_ofi_regions.cpp and nccl_ofi_model.cpp
 * @2daf7d30 (= v1.21.1), transcribed in validation/efa-tuner-priors.json;
 * the tables are generated from it (scripts/gen-efa-regions.py).  Pure.
 */
#ifndef SC_EFA_TUNER_H
#define SC_EFA_TUNER_H

#include <stdbool.h>

#include "catalog.h"
#include "collective.h"

/* The names below as codes, so that choosing needs no string compare. */
enum efa_algo { EFA_ALGO_TREE, EFA_ALGO_RING, EFA_ALGO_NVLS_TREE, EFA_ALGO_PAT };
enum efa_proto { EFA_PROTO_LL, EFA_PROTO_LL128, EFA_PROTO_SIMPLE };

struct efa_region {
	const char *algorithm;   /* NCCL_ALGO_*: "TREE", "RING", "NVLS_TREE", "PAT" */
	const char *protocol;    /* NCCL_PROTO_*: "LL", "LL128", "SIMPLE" */
	enum efa_algo algo;      /* the same, as codes */
	enum efa_proto proto;
	int n;
	const double (*v)[2];    /* log2(bytes), log2(ranks) */
};

struct efa_region_table {
	int platform;            /* enum efa_tuner_platform */
	enum coll_op op;
	int ranks_per_node;
	int n;
	const struct efa_region *regions;
	const char *id;          /* the record of efa-tuner-priors.json */
};

extern const struct efa_region_table efa_region_tables[];
extern const int efa_region_table_count;

/* The region tuner's choice for op of `bytes` over `ranks` ranks on `nodes`
 * nodes of platform; NULL when it leaves the choice to NCCL.  *table gets
 * the table's record id (may be NULL). */
const struct efa_region *efa_tuner_choice(int platform, enum coll_op op, double bytes, int ranks,
					  int nodes, const char **table);

/* The table efa_tuner_choice() scans for op over `ranks` ranks on `nodes`
 * nodes of platform, or NULL (no table: NCCL decides, except for the P5
 * model rule, which efa_tuner_choice_in() applies itself).  Resolved once
 * per group span (models/network.h net_span_of), not per call. */
const struct efa_region_table *efa_tuner_table(int platform, enum coll_op op, int ranks, int nodes);

/* efa_tuner_choice() with the table already resolved (tb from
 * efa_tuner_table() for the same platform, op, ranks and nodes). */
const struct efa_region *efa_tuner_choice_in(const struct efa_region_table *tb, int platform,
					     enum coll_op op, double bytes, int ranks, int nodes,
					     const char **table);

#endif
