/* cli_coll.h: the collective commands: `validate --collectives` and
 * `collective`. */
#ifndef SC_CLI_COLL_H
#define SC_CLI_COLL_H

#include <stdbool.h>

#include "cli.h"

struct cli_cv_opts {
	const char *path;        /* NULL: the shipped collective and EFA curves */
	enum cli_format fmt;
	double max_mape;         /* < 0: no check */
	bool summary_only;
	const char *calibration; /* NULL: each GPU's default */
	const char *config_dir;
	const char *fit;         /* "p1,p2": fit these of --calibration */
	const char *output;      /* where --fit writes the profile */
	bool cross;              /* leave one source group out */
	double min_bytes;        /* points below are not counted */
};

/* The --fit companions' usage rules are the caller's (cmd_validate's
 * fit_usage, one rule for every kind of case). */
int cli_validate_collectives(const struct cli_cv_opts *o);

int cmd_collective(int argc, char **argv);

#endif
