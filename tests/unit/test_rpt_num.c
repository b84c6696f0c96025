/* test_rpt_num.c: the non-finite output check (sim/config/rpt_num.h): JSON
 * numbers name their key, the text scan finds printf's spellings of NaN
 * and infinity and overlong digit runs (also across the pieces it is fed
 * in) and leaves words that merely contain them alone. */
#include <math.h>
#include <string.h>

#include "../../sim/config/rpt_num.h"
#include "sc_test.h"

static bool scan(const char *text, size_t piece)
{
	struct rpt_num_scan s;
	size_t n = strlen(text);

	rpt_num_scan_init(&s);
	for (size_t i = 0; i < n; i += piece)
		if (!rpt_num_scan_feed(&s, text + i, n - i < piece ? n - i : piece))
			break;
	return rpt_num_scan_end(&s);
}

static void test_json(void)
{
	cJSON *o = cJSON_CreateObject();

	rpt_num_reset();
	CHECK(cJSON_AddNumberToObject(o, "step_time_s", 1.5) != NULL); /* mapped onto the check */
	CHECK(rpt_num_failure() == NULL);
	cJSON_AddNumberToObject(o, "mfu", NAN);
	cJSON_AddNumberToObject(o, "tokens_per_s", INFINITY);
	CHECK(rpt_num_failure() != NULL);
	CHECK_STR(rpt_num_failure(), "\"mfu\" is nan"); /* the first one */
	rpt_num_reset();
	cJSON_Delete(rpt_json_number(-INFINITY, "x"));
	CHECK_STR(rpt_num_failure(), "\"x\" is -inf");
	rpt_num_reset();
	cJSON_Delete(o);
}

static void test_text(void)
{
	static const char *const bad[] = {
		"mfu          -nan %\n", "time inf s\n", "a,b\n1,nan\n", "x NaN\n", "(INF)", "t -inf",
		"cost $12345678901234567890123456789012345678901\n",
	};
	static const char *const good[] = {
		"step time 13.75 s\n", "NCCL INFO Channel 00\n", "inference, infiniband, nano, dp_inf\n",
		"1e+308 tokens\n", "-1.5e-300\n", "nanoseconds infinite\n", "\"name\": \"inference\"\n",
		"1234567890123456789012345678901234567890\n", /* 40 digits: allowed */
	};

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		for (size_t piece = 1; piece <= 64; piece *= 4) {
			CHECK(!scan(bad[i], piece) || (fprintf(stderr, "not found: %s\n", bad[i]), 0));
		}
	for (size_t i = 0; i < sizeof(good) / sizeof(good[0]); i++)
		for (size_t piece = 1; piece <= 64; piece *= 4) {
			CHECK(scan(good[i], piece) || (fprintf(stderr, "false finding: %s\n", good[i]), 0));
		}
	{
		/* the message names the line */
		struct rpt_num_scan s;
		const char *t = "step 1 s\nmfu -nan %\n";

		rpt_num_scan_init(&s);
		rpt_num_scan_feed(&s, t, strlen(t));
		CHECK(!rpt_num_scan_end(&s));
		CHECK(strstr(s.what, "output line 2") != NULL);
		CHECK(strstr(s.what, "mfu -nan") != NULL);
	}
}

int main(void)
{
	RUN(test_json);
	RUN(test_text);
	return sc_test_summary();
}
