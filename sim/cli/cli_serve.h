/* cli_serve.h: the serving side of `stepcast validate --serving` and
 * `stepcast compare --serving`, kept apart from cmd_validate.c and
 * cmd_compare.c, which parse the options and hand them here.
 * Prints results to stdout and messages to stderr; returns an exit code.
 */
#ifndef SC_CLI_SERVE_H
#define SC_CLI_SERVE_H

#include <stdbool.h>

#include "cli.h"

struct cli_serve_validate_opts {
	const char *path;          /* NULL: the shipped serving-cases.json */
	enum cli_format fmt;
	double max_mape;           /* < 0: no check */
	bool summary_only;
	const char *calibration;   /* NULL: each GPU's profile */
	const char *config_dir;    /* NULL: the default */
	const char *fit;           /* "p1,p2": fit these parameters */
	const char *output;        /* where --fit writes the profile */
	const char *explain;       /* a case id */
	bool cross_validate;
};

int cli_validate_serving(const struct cli_serve_validate_opts *o);

/* `stepcast validate --memory [FILE]` (path NULL: the shipped
 * memory-cases.json): --max-mape applies to the memory MAPE. */
int cli_validate_memory(const char *path, const char *systems, enum cli_format fmt,
			double max_mape, bool summary_only, const char *config_dir);

/* `stepcast compare --serving SCENARIO`: plan the serving scenario at its
 * Poisson rate and p99 SLOs on each instance type (instances: a
 * comma-separated list, NULL for the whole catalogue) and print which type
 * is cheapest, to output (NULL: stdout) in fmt (text, json, csv or md). */
int cli_compare_serving(const char *path, const char *instances, enum cli_format fmt,
			const char *config_dir, const char *output);

#endif
