/* main.c: the stepcast command line: a table of subcommands, one file each
 * (cmd_<verb>.c), as git's builtin/ table.  Only this directory prints
 * results or exits.
 */
#include <locale.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <gsl/gsl_errno.h>

#include "../config/rpt_num.h"
#include "cli.h"
#include "cli_set.h"
#include "cli_output.h"
#include "cli_coll.h"

/* name, run, summary, needs (what cli_setup loads for it after its options) */
static const struct cli_command commands[] = {
	{ "predict", cmd_predict, "predict one training step of a scenario", CLI_NEEDS_SCENARIO },
	{ "validate", cmd_validate, "compare predictions with published training runs", 0 },
	{ "collective", cmd_collective, "predict an nccl-tests sweep of one collective on an instance type", 0 },
	{ "catalog", cmd_catalog, "list the catalogue: gpus, instances, fabrics, storage, models, calibrations", CLI_NEEDS_CATALOG },
	{ "regress", cmd_regress, "compare pinned scenarios x calibration profiles with committed baselines", 0 },
	{ "calibrate", cmd_calibrate, "measure (run), read tool output (ingest), fit and show calibration profiles", 0 },
	{ "search", cmd_search, "enumerate and rank the parallel layouts of a scenario", CLI_NEEDS_SCENARIO },
	{ "plan", cmd_plan, "nodes, layout, time and cost to train a token budget", 0 },
	{ "compare", cmd_compare, "best layout, time and cost per instance type, with a report", 0 },
	{ "merge", cmd_merge, "join the JSONL parts of a sharded search", 0 },
	{ "serve", cmd_serve, "simulate serving a model, or plan replicas for a target rate and SLOs", 0 },
	{ "diff", cmd_diff, "two predictions side by side: what moved, by how much", 0 },
	{ "check", cmd_check, "hold a real run (Megatron-LM log, NCCL Inspector) against its prediction", CLI_NEEDS_SCENARIO },
	{ "explain", cmd_explain, "why the bottleneck, and what to change, ranked by predicted gain", CLI_NEEDS_SCENARIO },
	{ "cluster", cmd_cluster, "several jobs on one fabric, simulated together: each one's slowdown", CLI_NEEDS_CATALOG },
	{ "placement", cmd_placement, "what where the nodes sit costs a job; which free nodes to give it", CLI_NEEDS_SCENARIO },
};

const struct cli_command *cli_command_current;

static void usage(FILE *out)
{
	fprintf(out,
		"usage: stepcast COMMAND [OPTIONS] [ARGS]\n"
		"\n"
		"Predict step time, memory, bottleneck and cost of foundation-model training\n"
		"on GPU clusters (AWS P5/P6 kind), from a laptop, without a GPU.\n"
		"\n"
		"commands:\n");
	for (size_t i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
		fprintf(out, "  %-10s %s\n", commands[i].name, commands[i].summary);
	fprintf(out,
		"\n"
		"options:\n"
		"  -h, --help     show this help\n"
		"  -V, --version  show the version\n"
		"\n"
		"Run 'stepcast COMMAND --help' for a command's options.\n"
		"\n"
		"exit codes:\n"
		"  0   success\n"
		"  1   a requested check failed (validate --max-mape, regress, plan's deadline)\n"
		"  2   usage error (bad command line)\n"
		"  3   invalid input (config, scenario, catalogue or data file)\n"
		"  4   a file could not be read or written\n"
		"  5   valid input that the model does not cover\n"
		"  6   the layout does not fit in GPU memory (predict; the breakdown is still printed)\n"
		"  7   serve: unstable (arrivals above the sustainable rate) or not steady\n"
		"  70  internal error\n"
		"  77  no GPU: nothing measured (calibrate run)\n");
}

/* Print s with control characters (C0, DEL, and bytes of C1 or invalid
 * UTF-8 sequences that a terminal may act on) as \xHH: a path or value in a
 * message cannot carry a terminal escape sequence. */
static void put_escaped(const char *s, FILE *f)
{
	for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
		if (*p < 0x20 || *p == 0x7f || (*p == 0xc2 && p[1] >= 0x80 && p[1] <= 0x9f))
			fprintf(f, "\\x%02x", *p);
		else
			fputc(*p, f);
	}
}

int cli_fail(const struct sc_error *err)
{
	fputs("stepcast: error: ", stderr);
	if (err->file[0]) {
		put_escaped(err->file, stderr);
		fputs(": ", stderr);
	}
	if (err->pointer[0]) {
		put_escaped(err->pointer, stderr);
		fputs(": ", stderr);
	}
	put_escaped(err->message[0] ? err->message : sc_status_str(err->status), stderr);
	fputc('\n', stderr);
	switch (err->status) {
	case SC_OK: return EXIT_INTERNAL;
	case SC_EINVAL: return EXIT_INVALID;
	case SC_ENOTFOUND: return EXIT_INVALID;
	case SC_EINTERNAL: return EXIT_INTERNAL;
	case SC_ERANGE: return EXIT_INVALID;
	case SC_EIO: return EXIT_IO;
	case SC_ENOMEM: return EXIT_INTERNAL;
	case SC_EUNSUPPORTED: return EXIT_UNSUPPORTED;
	}
	return EXIT_INTERNAL;
}

int cli_fail_in(struct sc_error *err, const char *path)
{
	if (!err->file[0] && path)
		snprintf(err->file, sizeof(err->file), "%s", path);
	return cli_fail(err);
}

int cli_usage_error(const char *cmd, const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "stepcast: %s: ", cmd);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fprintf(stderr, "\nTry 'stepcast %s --help' for more information.\n", cmd);
	return EXIT_USAGE;
}

bool cli_parse_format(const char *cmd, const char *arg, unsigned allowed,
		      enum cli_format *out)
{
	static const char *const names[] = { "text", "json", "csv", "md", "jsonl", "html", "prom" };
	const int n_names = (int)(sizeof(names) / sizeof(names[0]));
	char list[96] = "";

	for (int i = 0; i < n_names; i++) {
		if ((allowed & (1u << i)) && strcmp(arg, names[i]) == 0) {
			*out = (enum cli_format)i;
			return true;
		}
	}
	for (int i = 0; i < n_names; i++) {
		if (allowed & (1u << i)) {
			size_t len = strlen(list);
			snprintf(list + len, sizeof(list) - len, "%s%s", len ? ", " : "", names[i]);
		}
	}
	cli_usage_error(cmd, "unknown format '%s' (expected one of: %s)", arg, list);
	return false;
}

int cli_load_catalog(const char *dir, struct catalog *cat)
{
	struct sc_error err;

	sc_error_clear(&err);
	if (catalog_load_ov(dir ? dir : catalog_default_dir(), &cli_overrides, cat, &err) != SC_OK)
		return cli_fail(&err);
	return EXIT_OK;
}

int cli_finish(int code)
{
	if (fflush(stdout) != 0 || ferror(stdout)) {
		fprintf(stderr, "stepcast: error: could not write the output\n");
		return EXIT_IO;
	}
	return code;
}

/* stdout as the user sees it; the command's stdout is a memory stream
 * (collect_stdout) until its exit code is known. */
static FILE *real_stdout;

bool cli_color(FILE *stream)
{
	const char *no = getenv("NO_COLOR");

	if (no && no[0])
		return false;
	return isatty(stream == stdout && real_stdout ? fileno(real_stdout) : fileno(stream));
}

/* What a command prints on stdout is held in memory and checked before
 * it is written (sim/config/rpt_num.h: no NaN, infinity or 300-digit number
 * reaches the user; exit 70 instead, naming the quantity or the line).
 * Diagnostics on stderr go out at once. */
static char *held;
static size_t held_len;

static void collect_stdout(void)
{
	FILE *mem = open_memstream(&held, &held_len);

	if (!mem)
		return; /* unchecked but working */
	real_stdout = stdout;
	stdout = mem;
}

static int release_stdout(int code)
{
	struct rpt_num_scan sc;
	FILE *mem = stdout;
	bool bad;

	if (!real_stdout)
		return code;
	bad = fflush(mem) != 0 || ferror(mem);
	stdout = real_stdout;
	real_stdout = NULL;
	fclose(mem);
	if (bad || (!held && held_len > 0)) {
		free(held);
		fprintf(stderr, "stepcast: error: out of memory for the output\n");
		return EXIT_INTERNAL;
	}
	if (!cli_nonfinite_reported() && rpt_num_failure()) {
		free(held);
		return cli_nonfinite_error(NULL, rpt_num_failure());
	}
	rpt_num_scan_init(&sc);
	if (!rpt_num_scan_feed(&sc, held, held_len) || !rpt_num_scan_end(&sc)) {
		free(held);
		return cli_nonfinite_error(NULL, sc.what);
	}
	if (held_len > 0)
		fwrite(held, 1, held_len, stdout);
	free(held);
	if (fflush(stdout) != 0 || ferror(stdout)) {
		fprintf(stderr, "stepcast: error: could not write the output\n");
		return EXIT_IO;
	}
	return code;
}

static int run(int argc, char **argv)
{
	if (argc < 2) {
		usage(stderr);
		return EXIT_USAGE;
	}
	if (strcmp(argv[1], "-h") == 0 || strcmp(argv[1], "--help") == 0 ||
	    strcmp(argv[1], "help") == 0) {
		usage(stdout);
		return cli_finish(EXIT_OK);
	}
	if (strcmp(argv[1], "-V") == 0 || strcmp(argv[1], "--version") == 0) {
		printf("stepcast %s\n", STEPCAST_VERSION);
		return cli_finish(EXIT_OK);
	}
	for (size_t i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
		if (strcmp(argv[1], commands[i].name) == 0) {
			cli_command_current = &commands[i];
			return commands[i].run(argc - 1, argv + 1);
		}
	fprintf(stderr, "stepcast: '%s' is not a stepcast command\n", argv[1]);
	fprintf(stderr, "Try 'stepcast --help' for the list of commands.\n");
	return EXIT_USAGE;
}

int main(int argc, char **argv)
{
	setlocale(LC_ALL, "C");
	gsl_set_error_handler_off();
	collect_stdout();
	return release_stdout(run(argc, argv));
}
