/* test_des_fork.c: the forked-child runner of the DES (sim/des/des_fork.c):
 * answers come back over the pipe, several children run at once and keep
 * their order, and a crash, a failure with a message, or a child past its
 * time limit is an error, never a hang. */
#include "../../sim/des/des_internal.h"
#include "../unit/sc_test.h"

#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static int answer(void *arg, int fd)
{
	long v = (long)(intptr_t)arg;
	char buf[64];
	int n = snprintf(buf, sizeof(buf), "answer %ld", v);

	/* a large answer too: more than one pipe buffer */
	if (v == 7) {
		static char big[1 << 20];

		memset(big, 'x', sizeof(big));
		if (des_write_all(fd, big, sizeof(big)) != 0)
			return 1;
		return 0;
	}
	return des_write_all(fd, buf, (size_t)n) == 0 ? 0 : 1;
}

static int crash(void *arg, int fd)
{
	(void)arg;
	(void)fd;
	fprintf(stderr, "about to fail: the last words\n");
	abort();
}

static int fail_msg(void *arg, int fd)
{
	(void)arg;
	(void)fd;
	fprintf(stderr, "\ndes: something the child could not do\n");
	return DES_CHILD_EXIT_BASE + SC_EUNSUPPORTED;
}

static int hang(void *arg, int fd)
{
	(void)arg;
	(void)fd;
	for (;;)
		pause();
	return 0;
}

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec * 1e-9;
}

static void test_answers_in_order(void)
{
	struct des_child_fn fn[8];
	struct des_child_out out[8];

	for (int i = 0; i < 8; i++) {
		fn[i].run = answer;
		fn[i].arg = (void *)(intptr_t)i;
	}
	CHECK(des_fork_run(fn, 8, 3, 60, out) == SC_OK);
	for (int i = 0; i < 8; i++) {
		char want[64];

		CHECK(out[i].status == SC_OK);
		if (i == 7) {
			CHECK(out[i].len == (size_t)1 << 20);
		} else {
			snprintf(want, sizeof(want), "answer %d", i);
			CHECK(out[i].len == strlen(want) && memcmp(out[i].data, want, out[i].len) == 0);
		}
		CHECK(out[i].wall_s >= 0);
		CHECK(out[i].maxrss_bytes > 0);
		des_child_out_free(&out[i]);
	}
}

static void test_failures_are_errors(void)
{
	struct des_child_fn fn[4] = { { crash, NULL }, { fail_msg, NULL }, { hang, NULL },
				      { answer, (void *)(intptr_t)3 } };
	struct des_child_out out[4];
	double t0 = now_s();

	CHECK(des_fork_run(fn, 4, 4, 1.0, out) != SC_OK);
	/* the hanging child was killed at its 1 s limit, not waited for */
	CHECK(now_s() - t0 < 20);
	CHECK(out[0].status == SC_EINTERNAL);
	CHECK(strstr(out[0].message, "crashed (signal 6") != NULL);
	CHECK(strstr(out[0].message, "the last words") != NULL);
	CHECK(out[1].status == SC_EUNSUPPORTED);
	CHECK_STR(out[1].message, "des: something the child could not do");
	CHECK(out[2].status == SC_EINTERNAL);
	CHECK(strstr(out[2].message, "time limit of 1 s") != NULL);
	CHECK(out[3].status == SC_OK);
	for (int i = 0; i < 4; i++)
		des_child_out_free(&out[i]);
}

int main(void)
{
	signal(SIGPIPE, SIG_IGN);
	RUN(test_answers_in_order);
	RUN(test_failures_are_errors);
	return sc_test_summary();
}
