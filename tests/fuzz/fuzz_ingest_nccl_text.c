/* fuzz_ingest_nccl_text.c: libFuzzer target for the parser of
 * nccl-tests text logs (calibrate/ingest/ing_nccl_text.c).
 *
 * Any input must parse or fail with an error, never crash, leak or loop
 * (ASan, UBSan and libFuzzer's timeout watch); what parses must survive
 * the measurements JSON round trip (fuzz_ingest_common.h).  Seeds:
 * tests/fuzz/corpus-fuzz_ingest_nccl_text/ (real-format files), dictionary
 * fuzz_ingest_nccl_text.dict.
 */
#include <stdint.h>

#include "fuzz_ingest_common.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static enum sc_status parse(const char *text, size_t len, const void *opts,
			    struct cal_measurements *m, struct sc_error *err)
{
	return cal_ingest_nccl_text("fuzz.log", text, len, opts, m, err);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	/* the first two bytes also choose the options a user might pass */
	struct cal_ingest_opts o = { size && (data[0] & 1) ? "all_reduce" : NULL,
				     size > 1 && (data[1] & 1) ? 16 : 0, 0 };

	return fuzz_ingest_run(data, size, parse, &o, "fuzz_ingest_nccl_text");
}
