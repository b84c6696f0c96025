/* fuzz_ingest_bench.c: libFuzzer target for the parser of
 * stepcast measurements JSON, the microbenchmarks' output (calibrate/cal_measure.c).
 *
 * Any input must parse or fail with an error, never crash, leak or loop
 * (ASan, UBSan and libFuzzer's timeout watch); what parses must survive
 * the measurements JSON round trip (fuzz_ingest_common.h).  Seeds:
 * tests/fuzz/corpus-fuzz_ingest_bench/ (real-format files), dictionary
 * fuzz_ingest_bench.dict.
 */
#include <stdint.h>

#include "fuzz_ingest_common.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static enum sc_status parse(const char *text, size_t len, const void *opts,
			    struct cal_measurements *m, struct sc_error *err)
{
	(void)opts;
	return cal_ingest_bench("fuzz.json", text, len, m, err);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	return fuzz_ingest_run(data, size, parse, NULL, "fuzz_ingest_bench");
}
