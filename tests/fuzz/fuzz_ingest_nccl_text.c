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

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	/* the first two bytes also choose the options a user might pass */
	struct cal_ingest_opts o = { size && (data[0] & 1) ? "all_reduce" : NULL,
				     size > 1 && (data[1] & 1) ? 16 : 0, 0 };
	struct cal_measurements m;
	struct sc_error err;
	enum sc_status st;

	cal_measurements_init(&m);
	sc_error_clear(&err);
	st = cal_ingest_nccl_text("fuzz.log", (const char *)data, size, &o, &m, &err);
	if (st == SC_OK)
		fuzz_check_round_trip(&m, "fuzz_ingest_nccl_text");
	else if (!err.message[0])
		abort(); /* an error must say what is wrong */
	cal_measurements_free(&m);
	return 0;
}
