/* cmd_diff.c: `stepcast diff A [B]`: two step predictions side by side, each
 * a scenario (predicted now) or a prediction file of `predict --format json`;
 * with --set, B is the what-if (see reports/rpt_diff.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../reports/rpt_diff.h"
#include "../../reports/rpt_step.h"
#include "../analytic/step.h"
#include "../config/scenario_load.h"
#include "cli.h"
#include "cli_args.h"
#include "cli_search.h"
#include "cli_set.h"

static const struct cli_opt diff_opts[] = {
	{ "format", 'f', "FMT", "text (default), json or md", NULL },
	{ "confidence", 'C', "P", "decide at percentile P (default 90): B not faster\n"
				  "(slower) with probability P/100 under the bands is a\n"
				  "tie; 50 compares point predictions", NULL },
	{ "calibration", 'k', "NAME|FILE", "predict both scenarios with this profile", NULL },
	CLI_OPT_GROUP(cli_opts_config_dir),
	CLI_OPT_GROUP(cli_opts_set_cluster),
	CLI_OPT_GROUP(cli_opts_help),
	CLI_OPT_END
};

static const struct cli_usage diff_usage = {
	"usage: stepcast diff A [B] [--set PATH=VALUE]... [--instance NAME] [--nodes N]\n"
	"                     [--format text|json|md] [--calibration NAME|FILE]\n"
	"                     [--confidence P]\n"
	"                     [--config-dir DIR]\n",
	"Two step predictions side by side: step time and its band, throughput, MFU,\n"
	"the layout, every part of the breakdown, memory by category, each collective\n"
	"(time, bus bandwidth, algorithm) and cost, with B - A and (B - A) / A, the\n"
	"strings that changed and the part of the breakdown that moved most.  A and B\n"
	"are scenarios (predicted now, with the analytic engine) or prediction files\n"
	"written by `stepcast predict --format json`.  --set, --instance and --nodes\n"
	"change B only; with them B may be left out: it is then A with the overrides\n"
	"(a what-if in one command).  The verdict says whether B is faster, slower or a\n"
	"tie: a difference inside the step band (the regime band predict shows) at the\n"
	"confidence is a tie.\n",
	diff_opts, NULL
};

/* One side as a prediction object: read from a prediction file, or the
 * scenario predicted (with the overrides when b). */
static int side(const char *path, bool b, const char *calib, const char *dir, cJSON **out)
{
	struct sc_error err;
	cJSON *root;
	struct catalog cat;
	static struct scenario sc;
	struct step_result r;
	enum sc_status st;
	int code;

	*out = NULL;
	sc_error_clear(&err);
	if (!(root = cfg_parse_file(path, &err)))
		return cli_fail(&err);
	if (cJSON_IsObject(root) && cJSON_GetObjectItemCaseSensitive(root, "step_time_s") &&
	    cJSON_IsObject(cJSON_GetObjectItemCaseSensitive(root, "breakdown_s"))) {
		if ((b && cli_overrides.n > 0) || calib) {
			cJSON_Delete(root);
			return cli_usage_error("diff", "%s is a prediction file: %s applies to scenarios",
					       path, calib ? "--calibration" : "--set");
		}
		*out = root;
		return EXIT_OK;
	}
	if (b) {
		code = cli_load_catalog(dir, &cat);
	} else {
		code = catalog_load(dir ? dir : catalog_default_dir(), &cat, &err) == SC_OK ? EXIT_OK
											 : cli_fail(&err);
	}
	if (code != EXIT_OK) {
		cJSON_Delete(root);
		return code;
	}
	st = b ? cfg_overrides_apply(&cli_overrides, CFG_OV_SCENARIO, NULL, NULL, root, path, &err) : SC_OK;
	if (st == SC_OK)
		st = scenario_read(path, root, &cat, &sc, &err);
	if (st == SC_OK && calib)
		st = calibration_select(&cat, &sc.cluster.gpu, calib, NULL, "--calibration", NULL,
					&sc.calibration, &err);
	cJSON_Delete(root);
	catalog_free(&cat);
	if (st == SC_OK && (st = sim_step_predict(&sc, &r, &err)) != SC_OK && !err.file[0])
		snprintf(err.file, sizeof(err.file), "%s", path);
	if (st != SC_OK) {
		if (b)
			cfg_overrides_blame(&cli_overrides, &err);
		return cli_fail(&err);
	}
	if (!(*out = rpt_step_json_object(&sc, &r))) {
		fprintf(stderr, "stepcast: error: out of memory\n");
		return EXIT_INTERNAL;
	}
	return EXIT_OK;
}

int cmd_diff(int argc, char **argv)
{
	struct cli_args a;
	enum cli_format fmt = FMT_TEXT;
	const char *pa, *pb;
	static struct rpt_diff d;
	char label_b[512];
	cJSON *ja = NULL, *jb = NULL;
	int c, code;
	double confidence = MODEL_DECISION_CONFIDENCE;

	cli_args_init(&a, &diff_usage, argc, argv);
	while ((c = cli_next_option(&a)) > 0) {
		if (c == 'f' && !cli_parse_format("diff", a.arg, 1u << FMT_TEXT | 1u << FMT_JSON | 1u << FMT_MD, &fmt))
			return EXIT_USAGE;
		if (c == 'C' && !cli_parse_confidence("diff", a.arg, &confidence))
			return EXIT_USAGE;
	}
	if (c == CLI_STOP || !cli_operand(&a, &pa, "missing A (a scenario or a prediction file)") ||
	    !cli_operand(&a, &pb, NULL) || !cli_operands_end(&a))
		return a.code;
	if (!pb && cli_overrides.n == 0)
		return cli_usage_error("diff", "missing B (or --set, to compare A with a what-if of it)");
	if (!pb)
		pb = pa;
	{
		size_t n = (size_t)snprintf(label_b, sizeof(label_b), "%s", pb);

		for (int i = 0; i < cli_overrides.n && n < sizeof(label_b); i++)
			n += (size_t)snprintf(label_b + n, sizeof(label_b) - n, " --set %s",
					      cli_overrides.item[i].text);
	}
	if ((code = side(pa, false, a.calibration, a.config_dir, &ja)) != EXIT_OK)
		return code;
	if ((code = side(pb, true, a.calibration, a.config_dir, &jb)) != EXIT_OK) {
		cJSON_Delete(ja);
		return code;
	}
	rpt_diff_build(ja, jb, pa, label_b, confidence, &d);
	cJSON_Delete(ja);
	cJSON_Delete(jb);
	switch (fmt) {
	case FMT_JSON:
		return cli_finish(cli_print_json(rpt_diff_json(&d)));
	case FMT_MD:
		rpt_diff_md(stdout, &d);
		break;
	default:
		rpt_diff_text(stdout, &d);
		break;
	}
	return cli_finish(EXIT_OK);
}
