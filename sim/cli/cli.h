/* cli.h: what the subcommands share: exit codes, error printing, output
 * format names, the catalogue directory option.  Only sim/cli prints to
 * stdout or exits.
 */
#ifndef SC_CLI_H
#define SC_CLI_H

#include <stdbool.h>
#include <stdio.h>

#include "../../models/status.h"
#include "../config/calibration_select.h"
#include "../config/catalog_load.h"

/* Exit codes (documented in README.md; a test keeps them in step). */
enum {
	EXIT_OK = 0,          /* success */
	EXIT_CHECK_FAILED = 1, /* a requested check failed (validate --max-mape) */
	EXIT_USAGE = 2,       /* bad command line */
	EXIT_INVALID = 3,     /* bad input: config, scenario, catalogue, data file */
	EXIT_IO = 4,          /* a file could not be read or written */
	EXIT_UNSUPPORTED = 5, /* valid input the model does not cover */
	EXIT_OOM = 6,         /* predict: the layout does not fit in GPU memory */
	EXIT_UNSTABLE = 7,    /* serve: arrivals above the sustainable rate, or no steady state */
	EXIT_SKIPPED = 77,    /* no GPU: nothing measured (calibrate run; ctest's skip code) */
	EXIT_INTERNAL = 70    /* a bug: please report it */
};

enum cli_format { FMT_TEXT, FMT_JSON, FMT_CSV, FMT_MD, FMT_JSONL, FMT_HTML, FMT_PROM, FMT_COUNT };

/* What a command needs set up before its one library call (the flags of
 * its commands[] entry; cli_setup of cli_args.h does it, after the
 * options, which may name the catalogue or the calibration). */
enum {
	CLI_NEEDS_CATALOG = 1u << 0,  /* the catalogue (-c, --config-dir) */
	CLI_NEEDS_SCENARIO = 1u << 1, /* + a training scenario, the overrides and -k, --calibration applied */
};

/* An entry of the commands[] table (main.c), as git's builtin table. */
struct cli_command {
	const char *name;
	int (*run)(int argc, char **argv);
	const char *summary;
	unsigned needs; /* CLI_NEEDS_*: 0, the command sets up what it needs itself */
};

/* The entry of the command being run (NULL before one is chosen). */
extern const struct cli_command *cli_command_current;

/* Print "stepcast: error: FILE: /pointer: message" to stderr and return the
 * exit code for err's status. */
int cli_fail(const struct sc_error *err);

/* cli_fail, naming path when err names no file (an engine's error about
 * the scenario it was given). */
int cli_fail_in(struct sc_error *err, const char *path);

/* Print "stepcast: CMD: MESSAGE" and a hint to see --help; return EXIT_USAGE. */
int cli_usage_error(const char *cmd, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/* Parse a --format value against the allowed set (bit mask of 1 << FMT_*). */
bool cli_parse_format(const char *cmd, const char *arg, unsigned allowed,
		      enum cli_format *out);

/* Load the catalogue from dir (NULL: the default); print and map errors. */
int cli_load_catalog(const char *dir, struct catalog *cat);

/* Flush stdout and check for write errors, as git does; return code or
 * EXIT_IO. */
int cli_finish(int code);

/* True when colour may be used on stream (a TTY and NO_COLOR unset). */
bool cli_color(FILE *stream);

int cmd_calibrate(int argc, char **argv);
int cmd_catalog(int argc, char **argv);
int cmd_predict(int argc, char **argv);
int cmd_regress(int argc, char **argv);
int cmd_validate(int argc, char **argv);
int cmd_search(int argc, char **argv);
int cmd_plan(int argc, char **argv);
int cmd_compare(int argc, char **argv);
int cmd_merge(int argc, char **argv);
int cmd_serve(int argc, char **argv);
int cmd_diff(int argc, char **argv);
int cmd_explain(int argc, char **argv);
int cmd_check(int argc, char **argv);
int cmd_placement(int argc, char **argv);
int cmd_cluster(int argc, char **argv);

#endif
