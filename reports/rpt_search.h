/* rpt_search.h: render a layout search (its struct search_meta and the
 * ranked rows of a struct search_result) as text, JSON, JSONL (the form
 * `stepcast merge` reads back, see sim/search/part.h), CSV or Markdown onto a
 * stream the caller owns.  Output depends only on meta and res, so a merge of
 * shards renders byte for byte what the unsharded search renders.
 */
#ifndef SC_RPT_SEARCH_H
#define SC_RPT_SEARCH_H

#include <stdbool.h>
#include <stdio.h>

#include "../sim/search/part.h"

enum rpt_search_format {
	RPT_SEARCH_TEXT,
	RPT_SEARCH_JSON,
	RPT_SEARCH_JSONL,
	RPT_SEARCH_CSV,
	RPT_SEARCH_MD
};

/* Returns false on allocation failure (JSON, JSONL). */
bool rpt_search(FILE *out, const struct search_meta *meta, const struct search_result *res,
		enum rpt_search_format fmt);

#endif
