/* cli_set.h: the what-if options every modelling command shares:
 * --set PATH=VALUE (repeatable), --instance NAME (= --set
 * cluster.instance=NAME) and --nodes N (= --set cluster.nodes=N).  They
 * collect into one list that cli_load_catalog and the scenario loaders of
 * sim/cli apply (sim/config/overrides.h). */
#ifndef SC_CLI_SET_H
#define SC_CLI_SET_H

#include <stdbool.h>
#include <stdio.h>

#include "../config/overrides.h"
#include "../config/scenario_load.h"
#include "../serve/serve_config.h"

/* getopt_long values, outside every command's short letters */
enum { CLI_OPT_SET = 0x5e70, CLI_OPT_INSTANCE, CLI_OPT_NODES, CLI_OPT_QUIET, CLI_OPT_PLACEMENT };

/* Each command lists them in its own option table, by name, so the docs
 * test sees them: { "set", required_argument, NULL, CLI_OPT_SET }, ... */

/* The overrides of this run (empty unless given). */
extern struct cfg_overrides cli_overrides;

/* Handle one of the options above (c is getopt's value); prefix is the key
 * path the shorthand sets ("cluster." for training scenarios, "" for
 * serving ones).  Prints a usage error and returns false on a bad value. */
bool cli_set_option(const char *cmd, int c, const char *arg, const char *prefix);

/* Parse a scenario file and apply the scenario overrides (NULL, with err
 * set, on error). */
cJSON *cli_parse_scenario(const char *path, struct sc_error *err);

/* scenario_load and srv_scenario_load with the overrides, errors blamed on
 * the override they are about. */
enum sc_status cli_scenario_load(const char *path, const struct catalog *cat, struct scenario *sc,
				 struct sc_error *err);
enum sc_status cli_srv_scenario_load(const char *path, const struct catalog *cat,
				     const struct srv_engines *engines, struct srv_scenario *sc,
				     struct sc_error *err);

/* The catalogue of dir (NULL: the default), the engine catalogue beside it
 * and the serving scenario at path with the overrides, errors printed:
 * EXIT_OK with *cat to free, else the exit code with nothing held. */
int cli_srv_load(const char *dir, const char *path, struct catalog *cat, struct srv_scenario *sc);

#endif
