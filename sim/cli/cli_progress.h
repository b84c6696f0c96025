/* cli_progress.h: a progress line on stderr for runs over about a second
 * (search, plan, compare, serve, predict --engine des, validate, regress),
 * only when stderr is a terminal and --quiet was not given: nothing in pipes
 * or CI logs.  A thread redraws one line ("stepcast: search: 41 %, 2.3 s")
 * every 0.2 s from the first second on and erases it at the end; the work
 * feeds it through an sc_progress hook where it knows how far it is, else
 * the line shows the time alone.  No colour (NO_COLOR has nothing to
 * turn off).  STEPCAST_PROGRESS_AFTER_S (seconds, default 1) is for the
 * test that drives it through a pseudo-terminal. */
#ifndef SC_CLI_PROGRESS_H
#define SC_CLI_PROGRESS_H

#include <stdbool.h>
#include <stdio.h>

#include "../../models/progress.h"

extern bool cli_quiet;

/* Start the line for what ("search"); a no-op when disabled. */
void cli_progress_begin(const char *what);

/* The hook to hand to the work (NULL when disabled). */
const struct sc_progress *cli_progress_hook(void);

/* Stop and erase the line. */
void cli_progress_end(void);

#endif
