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

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct cal_measurements m;
	struct sc_error err;
	enum sc_status st;

	cal_measurements_init(&m);
	sc_error_clear(&err);
	st = cal_ingest_bench("fuzz.json", (const char *)data, size, &m, &err);
	if (st == SC_OK)
		fuzz_check_round_trip(&m, "fuzz_ingest_bench");
	else if (!err.message[0])
		abort(); /* an error must say what is wrong */
	cal_measurements_free(&m);
	return 0;
}
