/* cli_progress.c: the progress line (see cli_progress.h). */
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cli_progress.h"

bool cli_quiet;

static pthread_t thread;
static bool running;
static atomic_bool stop;
static atomic_llong done_n, total_n;
static char what_s[32];
static double after_s = 1.0;

static double now_s(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

static void report(void *ctx, long long done, long long total)
{
	(void)ctx;
	atomic_store(&done_n, done);
	atomic_store(&total_n, total);
}

static const struct sc_progress hook = { report, NULL };

static void *loop(void *arg)
{
	double t0 = now_s();
	int width = 0;
	const struct timespec tick = { 0, 200000000L };

	(void)arg;
	/* the check for stop after the draw: with STEPCAST_PROGRESS_AFTER_S=0
	 * the line is drawn at least once however short the run */
	for (;;) {
		double t = now_s() - t0;

		if (t >= after_s) {
			long long d = atomic_load(&done_n), n = atomic_load(&total_n);
			char line[96];
			int len;

			if (n > 0)
				len = snprintf(line, sizeof(line), "stepcast: %s: %lld %%, %.1f s", what_s,
					       d * 100 / n, t);
			else
				len = snprintf(line, sizeof(line), "stepcast: %s: %.1f s", what_s, t);
			fprintf(stderr, "\r%s%*s", line, width > len ? width - len : 0, "");
			fflush(stderr);
			if (len > width)
				width = len;
		}
		if (atomic_load(&stop))
			break;
		nanosleep(&tick, NULL);
	}
	if (width > 0) {
		fprintf(stderr, "\r%*s\r", width, "");
		fflush(stderr);
	}
	return NULL;
}

void cli_progress_begin(const char *what)
{
	const char *e = getenv("STEPCAST_PROGRESS_AFTER_S");
	const char *term = getenv("TERM");

	if (running || cli_quiet || !isatty(STDERR_FILENO) || (term && strcmp(term, "dumb") == 0))
		return;
	if (e && e[0]) {
		char *end;
		double v = strtod(e, &end);

		if (!*end && v >= 0 && v < 3600)
			after_s = v;
	}
	snprintf(what_s, sizeof(what_s), "%s", what);
	atomic_store(&stop, false);
	atomic_store(&done_n, 0);
	atomic_store(&total_n, 0);
	running = pthread_create(&thread, NULL, loop, NULL) == 0;
}

const struct sc_progress *cli_progress_hook(void)
{
	return running ? &hook : NULL;
}

void cli_progress_end(void)
{
	if (!running)
		return;
	atomic_store(&stop, true);
	pthread_join(thread, NULL);
	running = false;
}
