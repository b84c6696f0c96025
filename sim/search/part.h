/* part.h: a search result as data that outlives the process: the metadata
 * every report of a search prints (struct search_meta), its JSONL form
 * (one shard's "part" or a whole run), and the merge of parts.
 *
 * JSONL form, one JSON object per line:
 *   {"stepcast_search": 1, "meta": {...}}          first line
 *   {"index": N, ...one struct search_row...}       one line per kept row, best first
 *   {"stats": {...}}                                last line
 * Numbers are written so that they read back bit for bit (the shortest of
 * %.15g, %.16g and %.17g that strtod turns back into the same double), so a
 * merge of parts ranks and renders exactly what the unsharded run does.  The writer is
 * reports/rpt_search.c; the reader here is strict (sim/config/cfg_json.h:
 * unknown keys, wrong types and missing keys are errors naming the file,
 * line and JSON pointer).
 *
 * Ownership: search_part_read and search_merge fill a caller-owned struct
 * search_result that they initialise; the caller frees it with
 * search_result_free (also after an error).
 */
#ifndef SC_SEARCH_PART_H
#define SC_SEARCH_PART_H

#include <cjson/cJSON.h>

#include "../config/cfg_json.h"
#include "search.h"

#define SEARCH_PART_VERSION 2 /* 2: per-row band, confidence and tied_with_best */

/* What a search was: everything its reports print besides the rows. */
struct search_meta {
	char stepcast_version[32];  /* parts of different versions do not merge */
	char scenario[SC_SOURCE_MAX];
	char model[SC_NAME_MAX];
	int layers;
	int hidden;
	bool moe;
	char instance[SC_NAME_MAX];
	char gpu[SC_NAME_MAX];
	int gpus_per_node;
	int nvlink_domain_gpus;
	int nodes;
	int gpus;
	char fabric[SC_NAME_MAX];
	char calibration[SC_NAME_MAX];
	int seq_len;
	int global_batch_seqs;
	enum sc_precision precision;
	double tokens;              /* budget; 0 = none */
	enum search_objective objective;
	int top;
	enum plan_pricing pricing;
	double usd_per_h;           /* the cluster's, under pricing */
	struct instance_price price;/* per instance, with date, region, source */
	struct search_space space;  /* with the defaults resolved */
	double confidence;          /* of the tie marks (search_mark_ties) */
	int shard, shards;          /* 0, 1 for a whole run or a merge */
};

/* The metadata of a search of sc with opts. */
void search_meta_of(const struct scenario *sc, const struct search_opts *opts,
		    struct search_meta *out);

/* Field tables of the JSONL lines (exported for the schema of the format).  A row object
 * also has "index" (an integer), "breakdown_s" (one number per step part)
 * and "bottleneck" (a name), handled outside the table because their form
 * follows enums that other modules extend. */
extern const struct cfg_field cfg_search_meta_fields[];
extern const struct cfg_field cfg_search_row_fields[];

/* Build the JSON object of one row / of the meta line's "meta" / of the
 * stats line's "stats", numbers as exact raw text.  NULL on allocation
 * failure; caller cJSON_Deletes. */
cJSON *search_row_to_json(const struct search_row *row);
cJSON *search_meta_to_json(const struct search_meta *meta);
cJSON *search_stats_to_json(const struct search_stats *st);

/* Read one JSONL file (a part or a whole run's --format jsonl) into meta
 * and res (initialised here with meta.top rows).  Errors name path:LINE and
 * the JSON pointer. */
enum sc_status search_part_read(const char *path, struct search_meta *meta,
				struct search_result *res, struct sc_error *err);

/* The same from a buffer of len bytes (need not end in a NUL); path names
 * it in messages. */
enum sc_status search_part_parse(const char *path, const char *buf, size_t len,
				 struct search_meta *meta, struct search_result *res,
				 struct sc_error *err);

/* Merge n parts into the result of the unsharded run: every part must come
 * from the same search (meta equal but for the shard), the shards 0..N-1 must
 * each be present exactly once; rows are re-ranked, stats summed, and meta's
 * shard becomes 0 of 1. */
enum sc_status search_merge(const char *const *paths, int n, struct search_meta *meta,
			    struct search_result *res, struct sc_error *err);

#endif
