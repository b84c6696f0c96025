/* cli_serve_compare.c: `stepcast compare --serving SCENARIO`: the cheapest
 * serving deployment of each instance type at the scenario's Poisson rate
 * and p99 SLOs, and which type wins (see cli_serve.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../reports/rpt_serve.h"
#include "../serve/serve_config.h"
#include "../serve/serve_plan.h"
#include "cli_serve.h"
#include "cli_output.h"
#include "cli_progress.h"
#include "cli_set.h"

#define MAX_INSTANCES 32

int cli_compare_serving(const char *path, const char *instances, enum cli_format fmt,
			const char *config_dir, const char *output)
{
	static struct srv_scenario sc;
	const char *names[MAX_INSTANCES + 1];
	char buf[MAX_INSTANCES * SC_NAME_MAX], *save = NULL;
	struct srv_plan *plan = NULL;
	struct srv_plan_opts o;
	struct catalog cat;
	struct sc_error err;
	struct cli_output co;
	FILE *out;
	int code, n = 0;

	if ((code = cli_srv_load(config_dir, path, &cat, &sc)) != EXIT_OK)
		return code;
	if (sc.workload.arrival != SRV_ARRIVAL_POISSON) {
		code = cli_usage_error("compare", "--serving compares at the scenario's rate: its workload needs arrival \"poisson\" and rate_rps");
		goto done;
	}
	if (!(sc.slo.ttft_p99_ms > 0) && !(sc.slo.tpot_p99_ms > 0)) {
		code = cli_usage_error("compare", "--serving needs slo.ttft_p99_ms or slo.tpot_p99_ms in the scenario");
		goto done;
	}
	memset(&o, 0, sizeof(o));
	o.target_rps = sc.workload.rate_rps;
	o.slo_ttft_p99_ms = sc.slo.ttft_p99_ms;
	o.slo_tpot_p99_ms = sc.slo.tpot_p99_ms;
	if (instances) {
		snprintf(buf, sizeof(buf), "%s", instances);
		for (char *t = strtok_r(buf, ",", &save); t && n < MAX_INSTANCES; t = strtok_r(NULL, ",", &save))
			names[n++] = t;
		names[n] = NULL;
		o.instances = names;
	}
	if (!(plan = malloc(sizeof(*plan)))) {
		fprintf(stderr, "stepcast: error: out of memory\n");
		code = EXIT_INTERNAL;
		goto done;
	}
	cli_progress_begin("compare");
	sc_error_clear(&err);
	code = srv_plan(&sc, &cat, &o, plan, &err) != SC_OK;
	cli_progress_end();
	if (code) {
		code = cli_fail(&err);
		goto done;
	}
	if ((code = cli_output_open(&co, output)) != EXIT_OK)
		goto done;
	out = co.f;
	switch (fmt) {
	case FMT_JSON:
		if (!rpt_plan_json(out, &sc, plan))
			code = EXIT_INTERNAL;
		break;
	case FMT_CSV:
		rpt_plan_csv(out, &sc, plan);
		break;
	case FMT_MD:
		rpt_plan_compare(out, &sc, plan, true);
		break;
	default:
		rpt_plan_compare(out, &sc, plan, false);
		break;
	}
	{
		int wc = cli_output_close(&co, code == EXIT_OK);

		if (code == EXIT_OK)
			code = wc;
	}
	if (code == EXIT_OK && plan->best < 0)
		code = EXIT_CHECK_FAILED;
done:
	free(plan);
	catalog_free(&cat);
	return code;
}
