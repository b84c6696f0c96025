/* cli_des.h: the discrete-event engine's cost budgets on the command line,
 * one parser for every command that runs it (predict --engine des, search
 * --rerank): --max-flows, --max-memory, --max-events (sim/des/des.h, struct
 * des_estimate; docs/des.md). */
#ifndef SC_CLI_DES_H
#define SC_CLI_DES_H

#include <stdbool.h>
#include <stdio.h>

#include "../des/des.h"
#include "cli_args.h"

enum { CLI_DES_MAX_FLOWS = 1100, CLI_DES_MAX_MEMORY, CLI_DES_MAX_EVENTS };

/* The getopt_long entries of the budget options, for an option table
 * (--max-events only where a command writes a timeline). */
#define CLI_DES_BUDGET_OPTIONS                                                  \
	{ "max-flows", required_argument, NULL, CLI_DES_MAX_FLOWS },            \
	{ "max-memory", required_argument, NULL, CLI_DES_MAX_MEMORY }
#define CLI_DES_EVENTS_OPTION { "max-events", required_argument, NULL, CLI_DES_MAX_EVENTS }

/* The budget options as an option table (cli_args.h), and their lines of
 * the help. */
extern const struct cli_opt cli_opts_des_budget[];
void cli_des_budget_usage(FILE *out);

/* If c is one of the budget options, parse arg into o and return true
 * with *ok telling whether it parsed (a usage error is printed);
 * otherwise return false. */
bool cli_des_budget_option(const char *cmd, int c, const char *arg, struct des_options *o,
			   bool *ok);

/* True when any budget option was given. */
bool cli_des_budget_given(const struct des_options *o);

/* Say on stderr when a simulation runs above its --fidelity target (the
 * pipeline, CP and EP flows are one per block and cannot be merged), from
 * its estimate. */
void cli_des_fidelity_note(const char *what, const struct des_estimate *e,
			   const struct des_options *o);

#endif
