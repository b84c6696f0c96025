/* progress.h: how a long computation says how far it is, to whoever runs
 * it.  The library never prints: a caller that wants a progress line (the
 * CLI, on a terminal) passes a callback; NULL means nobody asked. */
#ifndef SC_PROGRESS_H
#define SC_PROGRESS_H

struct sc_progress {
	void (*report)(void *ctx, long long done, long long total);
	void *ctx;
};

static inline void sc_progress_report(const struct sc_progress *p, long long done, long long total)
{
	if (p && p->report)
		p->report(p->ctx, done, total);
}

#endif
