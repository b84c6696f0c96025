/* cli_args.h: one option table per command, from which both the parser
 * (getopt_long's long options and short letters) and the help text are
 * made, so that --help and what is parsed cannot drift; and the options
 * every modelling command shares (--config-dir, --calibration, --set,
 * --instance, --nodes, --quiet, --help), handled once here.
 *
 * A command's run is: parse its own options (cli_next_option), take its
 * operands (cli_operand), set up what its entry in the commands[] table of
 * main.c says it needs (cli_setup: the catalogue, the scenario with the
 * overrides and the --calibration choice), one library call, render.
 */
#ifndef SC_CLI_ARGS_H
#define SC_CLI_ARGS_H

#include <stdbool.h>
#include <stdio.h>

#include "../../models/scenario.h"
#include "../config/catalog_load.h"
#include "cli.h"
#include "cli_set.h"

/* One option.  A table ends with CLI_OPT_END; CLI_OPT_GROUP(t) puts the
 * entries of table t at its place (the shared groups below). */
struct cli_opt {
	const char *name;            /* the long option (without --); NULL: end or group */
	int key;                     /* the short letter, or a CLI_KEY_* value (no letter) */
	const char *arg;             /* the value's name in the help; NULL: a flag */
	const char *help;            /* lines joined by '\n'; a leading '\n' starts it below the name */
	const struct cli_opt *group; /* with name NULL: the group's table */
};
#define CLI_OPT_END { NULL, 0, NULL, NULL, NULL }
#define CLI_OPT_GROUP(t) { NULL, 0, NULL, NULL, (t) }
/* ... with its help from column col (the shared groups' own layout inside
 * a command whose options are laid out at another column) */
#define CLI_OPT_GROUP_AT(t, col) { NULL, (col), NULL, NULL, (t) }

/* Keys of options without a short letter are from CLI_KEY_BASE up (the
 * shared ones, CLI_OPT_SET... of cli_set.h, lie above). */
enum { CLI_KEY_BASE = 0x100 };

/* The shared groups (their help text is the same for every command). */
extern const struct cli_opt cli_opts_config_dir[];  /* -c, --config-dir DIR */
extern const struct cli_opt cli_opts_calibration[]; /* -k, --calibration NAME|FILE */
extern const struct cli_opt cli_opts_output[];      /* -O, --output FILE (the safe writer) */
extern const struct cli_opt cli_opts_set[];         /* --set PATH=VALUE */
extern const struct cli_opt cli_opts_set_instance[]; /* --set, --instance (cluster.instance) */
extern const struct cli_opt cli_opts_set_cluster[]; /* --set, --instance, --nodes (cluster.nodes) */
extern const struct cli_opt cli_opts_quiet[];       /* --quiet */
extern const struct cli_opt cli_opts_placement[];   /* --placement FILE (an EC2 topology file; cli_setup
						       applies it: key CLI_OPT_PLACEMENT, whatever the help) */
extern const struct cli_opt cli_opts_help[];        /* -h, --help */

/* What `stepcast CMD --help` prints: synopsis, a blank line, about, a
 * blank line, "options:" and the table, then epilog (may be NULL). */
struct cli_usage {
	const char *synopsis;
	const char *about;
	const struct cli_opt *opts;
	const char *epilog;
	int column; /* where the options' help starts; 0: 26 */
};

/* Print the options' lines of table t, their help from column col. */
void cli_opts_print(FILE *out, const struct cli_opt *t, int col);

/* The long name of the option of table t with key (NULL: none). */
const char *cli_opt_name(const struct cli_opt *t, int key);

/* Print u (the options' lines generated from the table). */
void cli_usage_print(FILE *out, const struct cli_usage *u);


/* One run of a command: its table, argv, and what the shared options and
 * cli_setup filled in. */
struct cli_args {
	const char *cmd;            /* "predict": the prefix of its usage errors */
	const struct cli_usage *usage;
	unsigned needs;             /* CLI_NEEDS_* */
	const char *set_prefix;     /* where --instance/--nodes go: "cluster." or "" */
	int argc;
	char **argv;
	const char *arg;            /* the value of the option cli_next_option returned */
	const char *config_dir;     /* --config-dir, NULL: the default */
	const char *calibration;    /* --calibration, NULL: the scenario's */
	const char *scenario_path;  /* the scenario cli_setup loads */
	const char *placement;      /* --placement: an EC2 instance-topology file (cli_setup
				     * makes it the scenario's cluster.placement) */
	int code;                   /* the exit code when cli_next_option returned CLI_STOP */
	bool pass_shared;           /* return -c and -k too, after recording them (a command
				     * whose verbs do not all take them) */
	struct catalog cat;         /* CLI_NEEDS_CATALOG: loaded by cli_setup; cli_args_free frees it */
	bool have_cat;
	struct scenario *sc;        /* CLI_NEEDS_SCENARIO: the caller's storage, filled by cli_setup */
};

#define CLI_STOP (-2)

/* What a command's own option parser returns to go on (else an exit code). */
#define CLI_GO (-1)

/* Start parsing argv (argv[0] is the command's name) against u's table;
 * the command's name and needs are its commands[] entry's
 * (cli_command_current). */
void cli_args_init(struct cli_args *a, const struct cli_usage *u, int argc, char **argv);

/* The next of the command's own options: its key, with its value in
 * a->arg; 0 when the options end (the operands follow); CLI_STOP when the
 * run ends here with exit code a->code (--help printed, or a usage error).
 * The shared options are handled here and not returned. */
int cli_next_option(struct cli_args *a);

/* The next operand into *out.  missing: the usage error when there is
 * none ("missing SCENARIO file"); NULL: optional (*out NULL).  False (with
 * a->code set) on a missing operand. */
bool cli_operand(struct cli_args *a, const char **out, const char *missing);

/* The operands left (all of them: PARTS...) and their count. */
char **cli_operands_rest(struct cli_args *a, int *n);

/* False (usage error, a->code set) when operands are left. */
bool cli_operands_end(struct cli_args *a);

/* Load what a->needs says: the catalogue, and with CLI_NEEDS_SCENARIO the
 * scenario a->scenario_path into *sc with the overrides and --calibration
 * applied.  Prints the error and sets a->code on failure. */
bool cli_setup(struct cli_args *a, struct scenario *sc);

/* Free what cli_setup loaded. */
void cli_args_free(struct cli_args *a);

/* A usage error of a's command (returns EXIT_USAGE, sets a->code). */
int cli_args_error(struct cli_args *a, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Print j as indented JSON and a newline, freeing it; EXIT_OK, or
 * EXIT_INTERNAL (and the message) when j is NULL or cannot be printed:
 * the one way a command prints a JSON document. */
struct cJSON;
int cli_print_json(struct cJSON *j);

#endif
