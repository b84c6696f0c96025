/* fuzz_search_part.c: libFuzzer target for the JSONL reader of search
 * results (`stepcast merge` input, sim/search/part.c).
 *
 * Each input goes through search_part_parse().  A part that reads must
 * survive a round trip: written again as JSONL (reports/rpt_search.c) and
 * read back, it gives the same rows bit for bit and the same counts, so
 * writer and reader agree.  Everything is freed per input; ASan and UBSan
 * (from the build flags) catch the rest.
 * Run: build-fuzz/tests/fuzz_search_part -max_total_time=60 tests/fuzz/corpus-fuzz_search_part
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "reports/rpt_search.h"
#include "sim/search/part.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct search_meta meta, meta2;
	struct search_result res, res2;
	struct sc_error err;
	char *out = NULL;
	size_t out_len = 0;
	FILE *f;

	if (search_part_parse("fuzz", (const char *)data, size, &meta, &res, &err) != SC_OK) {
		search_result_free(&res);
		return 0;
	}
	f = open_memstream(&out, &out_len);
	if (!f)
		abort();
	if (!rpt_search(f, &meta, &res, RPT_SEARCH_JSONL))
		abort();
	fclose(f);
	if (search_part_parse("fuzz-again", out, out_len, &meta2, &res2, &err) != SC_OK) {
		fprintf(stderr, "fuzz_search_part: a part that read does not read back: %s: %s\n",
			err.pointer, err.message);
		abort();
	}
	if (res2.n_rows != res.n_rows || res2.stats.layouts != res.stats.layouts ||
	    res2.stats.oom != res.stats.oom || res2.stats.predicted != res.stats.predicted ||
	    meta2.shard != meta.shard || meta2.shards != meta.shards || meta2.top != meta.top)
		abort();
	for (int i = 0; i < res.n_rows; i++) {
		const struct search_row *a = &res.rows[i], *b = &res2.rows[i];

		if (a->index != b->index || a->score != b->score || a->step_time_s != b->step_time_s ||
		    a->tokens_per_s != b->tokens_per_s || memcmp(a->part_s, b->part_s, sizeof(a->part_s)) ||
		    a->layout.tp != b->layout.tp || a->layout.pp != b->layout.pp ||
		    a->micro_batch_seqs != b->micro_batch_seqs || a->bottleneck != b->bottleneck ||
		    a->train.time_s != b->train.time_s)
			abort();
	}
	free(out);
	search_result_free(&res);
	search_result_free(&res2);
	return 0;
}
