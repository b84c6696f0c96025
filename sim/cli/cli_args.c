/* cli_args.c: option tables, the parser and the help made from them, and
 * the shared options and set-up of the commands (see cli_args.h). */
#include "cli_args.h"

#include <getopt.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "../config/placement_load.h"
#include "cli_output.h"
#include "cli_progress.h"

const struct cli_opt cli_opts_config_dir[] = {
	{ "config-dir", 'c', "DIR", "catalogue directory (default: $STEPCAST_CONFIG_DIR,\n"
				    "else the configs/ of the data directory)", NULL },
	CLI_OPT_END
};

const struct cli_opt cli_opts_calibration[] = {
	{ "calibration", 'k', "NAME|FILE", "use this profile instead of the scenario's: a\n"
					   "catalogue NAME, or a profile FILE (a value with '/'\n"
					   "or ending in .json); it must be for the GPU's family", NULL },
	CLI_OPT_END
};

const struct cli_opt cli_opts_output[] = {
	{ "output", 'O', "FILE", "write to FILE (a temporary file renamed when complete)", NULL },
	CLI_OPT_END
};

const struct cli_opt cli_opts_set[] = {
	{ "set", CLI_OPT_SET, "PATH=VALUE",
	  "what-if: change one value of the scenario (layout.tp=4,\n"
	  "cluster.nodes=128) or of the catalogue\n"
	  "(catalog.instances.p5.48xlarge.efa_nic_Gbps=50) before it\n"
	  "is checked; repeatable, the last of a PATH wins", NULL },
	CLI_OPT_END
};

const struct cli_opt cli_opts_set_instance[] = {
	CLI_OPT_GROUP(cli_opts_set),
	{ "instance", CLI_OPT_INSTANCE, "NAME", "the same as --set cluster.instance=NAME", NULL },
	CLI_OPT_END
};

const struct cli_opt cli_opts_set_cluster[] = {
	CLI_OPT_GROUP(cli_opts_set_instance),
	{ "nodes", CLI_OPT_NODES, "N", "the same as --set cluster.nodes=N", NULL },
	CLI_OPT_END
};

const struct cli_opt cli_opts_quiet[] = {
	{ "quiet", CLI_OPT_QUIET, NULL, "no progress line on stderr (it is shown only on a\n"
					"terminal, for runs over a second)", NULL },
	CLI_OPT_END
};

const struct cli_opt cli_opts_placement[] = {
	{ "placement", CLI_OPT_PLACEMENT, "FILE", "place the nodes as this `aws ec2 describe-instance-\n"
						  "topology` JSON says (its first nodes, in its order;\n"
						  "overrides cluster.placement)", NULL },
	CLI_OPT_END
};

const struct cli_opt cli_opts_help[] = {
	{ "help", 'h', NULL, "show this help", NULL },
	CLI_OPT_END
};

/* The help's layout: "  -f, --format FMT" padded to column 26, the help
 * from there (below, when the name is longer), continuation lines at 26. */
#define HELP_COLUMN 26

void cli_opts_print(FILE *out, const struct cli_opt *t, int col)
{
	for (; t->name || t->group; t++) {
		char label[96];
		const char *h;
		int n;

		if (!t->name) {
			cli_opts_print(out, t->group, t->key > 0 ? t->key : col);
			continue;
		}
		if (t->key > 0 && t->key < 0x80)
			n = snprintf(label, sizeof(label), "  -%c, --%s%s%s", t->key, t->name,
				     t->arg ? " " : "", t->arg ? t->arg : "");
		else
			n = snprintf(label, sizeof(label), "      --%s%s%s", t->name, t->arg ? " " : "",
				     t->arg ? t->arg : "");
		fputs(label, out);
		h = t->help ? t->help : "";
		if (n >= col || *h == '\n') {
			fputc('\n', out);
			if (*h == '\n')
				h++;
			n = 0;
		}
		for (;;) {
			const char *nl = strchr(h, '\n');
			int len = nl ? (int)(nl - h) : (int)strlen(h);

			fprintf(out, "%*s%.*s\n", col - n, "", len, h);
			n = 0;
			if (!nl)
				break;
			h = nl + 1;
		}
	}
}

const char *cli_opt_name(const struct cli_opt *t, int key)
{
	for (; t->name || t->group; t++) {
		const char *name = t->name ? (t->key == key ? t->name : NULL) : cli_opt_name(t->group, key);

		if (name)
			return name;
	}
	return NULL;
}

void cli_usage_print(FILE *out, const struct cli_usage *u)
{
	fprintf(out, "%s\n%s\noptions:\n", u->synopsis, u->about);
	cli_opts_print(out, u->opts, u->column ? u->column : HELP_COLUMN);
	if (u->epilog)
		fputs(u->epilog, out);
}

/* getopt_long's tables from the option table (flattened). */
#define MAX_OPTS 64

struct getopt_tables {
	struct option longs[MAX_OPTS + 1];
	char shorts[3 * MAX_OPTS + 2];
	int n;
};

static void flatten(struct getopt_tables *g, const struct cli_opt *t)
{
	for (; t->name || t->group; t++) {
		if (!t->name) {
			flatten(g, t->group);
			continue;
		}
		if (g->n >= MAX_OPTS)
			abort(); /* a table larger than MAX_OPTS: a bug, caught by every test */
		g->longs[g->n++] = (struct option){ t->name, t->arg ? required_argument : no_argument,
						    NULL, t->key };
		if (t->key > 0 && t->key < 0x80) {
			size_t len = strlen(g->shorts);

			g->shorts[len++] = (char)t->key;
			if (t->arg)
				g->shorts[len++] = ':';
			g->shorts[len] = '\0';
		}
	}
}

static struct getopt_tables tables;

void cli_args_init(struct cli_args *a, const struct cli_usage *u, int argc, char **argv)
{
	memset(a, 0, sizeof(*a));
	a->cmd = cli_command_current ? cli_command_current->name : argv[0];
	a->usage = u;
	a->needs = cli_command_current ? cli_command_current->needs : 0;
	a->set_prefix = "cluster.";
	a->argc = argc;
	a->argv = argv;
	memset(&tables, 0, sizeof(tables));
	tables.shorts[0] = ':'; /* a missing value is ':', told apart from an unknown option */
	flatten(&tables, u->opts);
	optind = 1;
	opterr = 0;
}

int cli_args_error(struct cli_args *a, const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "stepcast: %s: ", a->cmd);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fprintf(stderr, "\nTry 'stepcast %s --help' for more information.\n", a->cmd);
	a->code = EXIT_USAGE;
	return EXIT_USAGE;
}

int cli_next_option(struct cli_args *a)
{
	int c;

	while ((c = getopt_long(a->argc, a->argv, tables.shorts, tables.longs, NULL)) != -1) {
		a->arg = optarg;
		switch (c) {
		case 'h':
			cli_usage_print(stdout, a->usage);
			a->code = cli_finish(EXIT_OK);
			return CLI_STOP;
		case 'c': /* -c and -k mean the same in every command */
			a->config_dir = optarg;
			if (a->pass_shared)
				return c;
			continue;
		case 'k':
			a->calibration = optarg;
			if (a->pass_shared)
				return c;
			continue;
		case CLI_OPT_SET:
		case CLI_OPT_INSTANCE:
		case CLI_OPT_NODES:
			if (!cli_set_option(a->cmd, c, optarg, a->set_prefix)) {
				a->code = EXIT_USAGE;
				return CLI_STOP;
			}
			continue;
		case CLI_OPT_QUIET:
			cli_quiet = true;
			continue;
		case CLI_OPT_PLACEMENT:
			a->placement = optarg;
			continue;
		case ':':
			cli_args_error(a, "option '%s' needs a value", a->argv[optind - 1]);
			return CLI_STOP;
		case '?':
			cli_args_error(a, "unknown option '%s'", a->argv[optind - 1]);
			return CLI_STOP;
		default:
			return c;
		}
	}
	return 0;
}

bool cli_operand(struct cli_args *a, const char **out, const char *missing)
{
	*out = NULL;
	if (optind < a->argc) {
		*out = a->argv[optind++];
		return true;
	}
	if (missing) {
		cli_args_error(a, "%s", missing);
		return false;
	}
	return true;
}

char **cli_operands_rest(struct cli_args *a, int *n)
{
	char **rest = a->argv + optind;

	*n = a->argc - optind;
	optind = a->argc;
	return rest;
}

bool cli_operands_end(struct cli_args *a)
{
	if (optind < a->argc) {
		cli_args_error(a, "unexpected argument '%s'", a->argv[optind]);
		return false;
	}
	return true;
}

bool cli_setup(struct cli_args *a, struct scenario *sc)
{
	struct sc_error err;

	if (!(a->needs & (CLI_NEEDS_CATALOG | CLI_NEEDS_SCENARIO)))
		return true;
	if ((a->code = cli_load_catalog(a->config_dir, &a->cat)) != EXIT_OK)
		return false;
	a->have_cat = true;
	if (!(a->needs & CLI_NEEDS_SCENARIO))
		return true;
	a->sc = sc;
	sc_error_clear(&err);
	if (cli_scenario_load(a->scenario_path, &a->cat, sc, &err) != SC_OK ||
	    (a->calibration && calibration_select(&a->cat, &sc->cluster.gpu, a->calibration, NULL,
						  "--calibration", NULL, &sc->calibration, &err) != SC_OK) ||
	    (a->placement && placement_use_ec2_file(a->placement, sc, &err) != SC_OK)) {
		cli_args_free(a);
		a->code = cli_fail(&err);
		return false;
	}
	return true;
}

void cli_args_free(struct cli_args *a)
{
	if (a->have_cat)
		catalog_free(&a->cat);
	a->have_cat = false;
}

int cli_print_json(cJSON *j)
{
	return cli_write_json(NULL, j, NULL, NULL);
}
