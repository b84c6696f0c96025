/* cli_search.h: command-line helpers of the capacity-planning commands
 * (search, plan, compare, merge): option values (integers, token budgets,
 * durations, shards, recompute and ZeRO lists), the Slurm job-array shard,
 * loading a scenario with a calibration override, and writing a report to a
 * file atomically (a temporary file in the same directory, renamed when
 * complete).  Parsers print a usage error and return false on bad input;
 * functions returning int return an exit code (EXIT_OK on success).
 */
#ifndef SC_CLI_SEARCH_H
#define SC_CLI_SEARCH_H

#include <stdbool.h>
#include <stdio.h>

#include "../../models/scenario.h"
#include "../plan/plan.h"
#include "../../reports/rpt_plan.h"
#include "../../reports/rpt_search.h"
#include "cli.h"
#include "cli_output.h"

bool cli_parse_int(const char *cmd, const char *opt, const char *arg, int min, int max, int *out);
bool cli_parse_tokens(const char *cmd, const char *arg, double *out);
bool cli_parse_duration(const char *cmd, const char *opt, const char *arg, double *out_s);

/* A confidence percentile P in (0, 100), "90" or "P90", into *out as a
 * fraction (0.9). */
bool cli_parse_confidence(const char *cmd, const char *arg, double *out);

/* "on-demand" or "capacity-block" into *out; a usage error on anything else. */
bool cli_parse_pricing(const char *cmd, const char *arg, enum plan_pricing *out);

/* The options plan and compare share: -t/--tokens, -d/--deadline, -N/--nodes,
 * -S/--sweep (at most max_sweep counts), -p/--pricing (*pricing_given set)
 * and -C/--confidence, into po.  Returns 1 when c was one of them and its
 * value parsed, -1 on a bad value (a usage error printed), 0 when c is none
 * of them. */
int cli_plan_option(const char *cmd, int c, const char *arg, int max_sweep, struct plan_opts *po,
		    bool *pricing_given);

/* po's token budget, or the scenario's training.tokens_to_train when none
 * was given; false (a usage error printed) when neither is set. */
bool cli_plan_tokens(const char *cmd, struct plan_opts *po, const struct scenario *sc);

/* "K/N" with 0 <= K < N. */
bool cli_parse_shard(const char *cmd, const char *arg, int *k, int *n);

/* The shard of a Slurm job array task, when SLURM_ARRAY_TASK_ID and
 * SLURM_ARRAY_TASK_COUNT are set: K = (ID - MIN) / STEP (MIN 0 and STEP 1
 * when unset), N = COUNT.  Leaves *k, *n alone when not in an array. */
int cli_slurm_shard(const char *cmd, int *k, int *n);

/* "none,selective,full" into a bit mask of 1 << enum sc_recompute. */
bool cli_parse_recompute_list(const char *cmd, const char *arg, unsigned *mask);
/* "0,1,2,3" into a bit mask of 1 << stage. */
bool cli_parse_zero_list(const char *cmd, const char *arg, unsigned *mask);
/* "1f1b,zb-h1" into a bit mask of 1 << enum sc_schedule. */
bool cli_parse_schedule_list(const char *cmd, const char *arg, unsigned *mask);

/* Load the catalogue (dir, NULL = default) and the scenario at path into
 * sc, with calibration profile calib (NULL = the scenario's).  Prints errors.
 * With keep, the catalogue is moved there on success (the caller
 * catalog_free()s it); else freed. */
int cli_load_scenario(const char *cmd, const char *dir, const char *path, const char *calib,
		      struct scenario *sc, struct catalog *keep);

/* "16,32,64" into up to max positive integers; returns false (after a usage
 * error) on bad input. */
/* True when nodes instances of inst are at most SC_MAX_GPUS GPUs; else a usage
 * error naming the option opt (exit 2), as a scenario's cluster.nodes is
 * bounded (models/limits.h). */
bool cli_check_cluster(const char *cmd, const char *opt, int nodes, const struct instance_spec *inst);

bool cli_parse_int_list(const char *cmd, const char *opt, const char *arg, int *out, int max,
			int *n);


/* Render a search to path (NULL: stdout) in fmt. */
int cli_write_search(const char *path, const struct search_meta *meta,
		     const struct search_result *res, enum cli_format fmt);

/* Render a plan or comparison to path (NULL: stdout) in fmt. */
int cli_write_plan(const char *path, const struct rpt_plan_input *in, enum cli_format fmt);

#endif
