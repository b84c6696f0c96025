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
	bool out_of_sample;        /* leave-one-source-group-out beside in sample */
	const char *bands_output;  /* with out_of_sample: write the serving regime bands here */
	double max_oos_mape;       /* < 0: no check; else any metric's out-of-sample MAPE above it fails */
	int oos_iterations;        /* < 0: the default; 0: each group at the priors, no refit */
};

struct calibration;
struct val_cv_result;
/* The leave-one-source-group-out table of one profile (stderr), as
 * `validate --out-of-sample` prints it for training and serving. */
void cli_print_cross_validation(const struct calibration *cal, const struct val_cv_result *cv);

/* The note (stderr) that profile cal has no parameter `validate --fit`
 * (serving: `validate --serving --fit`) refits, so its cases are out of
 * sample as they are. */
void cli_note_oos_as_is(const struct calibration *cal, bool serving);

int cli_validate_serving(const struct cli_serve_validate_opts *o);

/* --explain ID's messages, for every validation (stderr): the case ID is
 * not expressed, for reason (EXIT_UNSUPPORTED), or no case of the cases
 * file path has that id (EXIT_INVALID). */
int cli_explain_unexpressed(const char *id, const char *reason);
int cli_explain_no_case(const char *id, const char *path);

struct val_case;
struct step_result;
/* --explain of a training or memory case: the predict report of vc's
 * scenario on stdout, its result in *r (EXIT_OK), or why there is none. */
int cli_explain_training_case(const struct val_case *vc, struct step_result *r);

/* `stepcast validate --memory [FILE]` (path NULL: the shipped
 * memory-cases.json): --max-mape applies to the memory MAPE; explain (not
 * NULL): the full prediction of that case, the measured statistic beside. */
int cli_validate_memory(const char *path, const char *systems, enum cli_format fmt,
			double max_mape, bool summary_only, const char *config_dir,
			const char *explain);

/* `stepcast compare --serving SCENARIO`: plan the serving scenario at its
 * Poisson rate and p99 SLOs on each instance type (instances: a
 * comma-separated list, NULL for the whole catalogue) and print which type
 * is cheapest, to output (NULL: stdout) in fmt (text, json, csv or md). */
int cli_compare_serving(const char *path, const char *instances, enum cli_format fmt,
			const char *config_dir, const char *output);

#endif
