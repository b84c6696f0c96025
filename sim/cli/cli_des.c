/* cli_des.c: the discrete-event engine's budget options (see cli_des.h). */
#include "cli_des.h"

#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "cli.h"
#include "cli_args.h"
#include "../../models/units.h"

const struct cli_opt cli_opts_des_budget[] = {
	{ "max-flows", CLI_DES_MAX_FLOWS, "N", "des: refuse a simulation estimated to need more than N\n"
					       "flows (default 10000000, about 5 minutes)", NULL },
	{ "max-memory", CLI_DES_MAX_MEMORY, "SIZE", "des: refuse one estimated to need more than SIZE of\n"
						    "memory, e.g. 16GiB (default 4GiB)", NULL },
	{ "max-events", CLI_DES_MAX_EVENTS, "N", "des: with --trace, refuse a timeline of more than N\n"
						 "slices (default 20000000, about 2.2 GB of JSON)", NULL },
	CLI_OPT_END
};

void cli_des_budget_usage(FILE *out)
{
	cli_opts_print(out, cli_opts_des_budget, 26);
}

/* A count: a number from 1 to 1e15 (2.4e7 is fine). */
static bool parse_count(const char *arg, double *out)
{
	char *end = NULL;
	double v;

	errno = 0;
	v = strtod(arg, &end);
	if (!end || end == arg || *end || errno == ERANGE || !(v >= 1) || v > 1e15)
		return false;
	*out = floor(v);
	return true;
}

/* A size: a number with an optional unit (B, kB, MB, GB, TB, KiB, MiB,
 * GiB, TiB), from 1 MiB to 1 PiB. */
static bool parse_size(const char *arg, double *out)
{
	static const struct { const char *unit; double f; } units[] = {
		{ "", 1 }, { "B", 1 }, { "kB", 1e3 }, { "KB", 1e3 }, { "MB", 1e6 }, { "GB", 1e9 },
		{ "TB", 1e12 }, { "KiB", SC_KiB_BYTES }, { "MiB", SC_MiB_BYTES }, { "GiB", SC_GiB_BYTES },
		{ "TiB", 1099511627776.0 },
	};
	char *end = NULL;
	double v;

	errno = 0;
	v = strtod(arg, &end);
	if (!end || end == arg || errno == ERANGE || !(v > 0) || !isfinite(v))
		return false;
	for (size_t i = 0; i < sizeof(units) / sizeof(units[0]); i++)
		if (strcmp(end, units[i].unit) == 0) {
			v *= units[i].f;
			if (v < 1048576.0 || v > 1125899906842624.0)
				return false;
			*out = v;
			return true;
		}
	return false;
}

bool cli_des_budget_option(const char *cmd, int c, const char *arg, struct des_options *o,
			   bool *ok)
{
	switch (c) {
	case CLI_DES_MAX_FLOWS:
		*ok = parse_count(arg, &o->max_flows);
		if (!*ok)
			cli_usage_error(cmd, "--max-flows wants a number of flows from 1 to 1e15, not '%s'", arg);
		return true;
	case CLI_DES_MAX_EVENTS:
		*ok = parse_count(arg, &o->max_events);
		if (!*ok)
			cli_usage_error(cmd, "--max-events wants a number of timeline slices from 1 to 1e15, not '%s'",
					arg);
		return true;
	case CLI_DES_MAX_MEMORY:
		*ok = parse_size(arg, &o->max_memory_bytes);
		if (!*ok)
			cli_usage_error(cmd, "--max-memory wants a size from 1MiB to 1024TiB such as 16GiB, not '%s'",
					arg);
		return true;
	default:
		return false;
	}
}

bool cli_des_budget_given(const struct des_options *o)
{
	return o->max_flows > 0 || o->max_memory_bytes > 0 || o->max_events > 0;
}

void cli_des_fidelity_note(const char *what, const struct des_estimate *e,
			   const struct des_options *o)
{
	double budget = o && o->fidelity > 0 ? o->fidelity : DES_DEFAULT_FIDELITY;

	if (o && o->fidelity < 0)
		return; /* exact: no target */
	if ((double)e->flows <= budget)
		return;
	fprintf(stderr,
		"stepcast: warning: des: %s%sabout %lld flows to simulate, more than the --fidelity target of %.0f: "
		"coarsening cannot merge the %lld pipeline, CP and EP flows (one per block)\n",
		what ? what : "", what ? ": " : "", e->flows, budget, e->flows_fixed);
}
