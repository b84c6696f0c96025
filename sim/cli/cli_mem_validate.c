/* cli_mem_validate.c: `stepcast validate --memory [FILE]`: predict the
 * published per-GPU peak memory of training runs (sim/validate/mem_validate)
 * and report the error per case and in summary. */
#include <stdio.h>

#include <string.h>

#include "../../reports/rpt_mem_validate.h"
#include "../../reports/rpt_step.h"
#include "../analytic/step.h"
#include "../validate/mem_validate.h"
#include "cli.h"
#include "cli_serve.h"
#include "../../models/units.h"

/* --explain ID: the predict report of one memory case (its memory
 * breakdown per category), then the statistic it states against the
 * measured peak. */
static int explain_case(const struct mem_val_set *set, const char *id)
{
	for (int i = 0; i < set->n_cases; i++) {
		const struct mem_case *mc = &set->cases[i];
		struct step_result r;
		int code;

		if (strcmp(mc->vc.id, id) != 0)
			continue;
		if ((code = cli_explain_training_case(&mc->vc, &r)) != EXIT_OK)
			return code;
		printf("\nmeasured    %.2f GiB %s on the %s stage (predicted %.2f, error %+.1f %%)\n",
		       mc->measured_bytes / SC_GiB_BYTES, mem_statistic_name(mc->statistic),
		       mc->stage ? "last" : "first", mc->predicted_bytes / SC_GiB_BYTES, 100 * mc->err_rel);
		if (mc->vc.assumptions[0])
			printf("assumed     %s\n", mc->vc.assumptions);
		return EXIT_OK;
	}
	return cli_explain_no_case(id, set->path);
}

int cli_validate_memory(const char *path, const char *systems, enum cli_format fmt,
			double max_mape, bool summary_only, const char *config_dir,
			const char *explain)
{
	struct catalog cat;
	struct mem_val_set set;
	struct memval_summary all;
	struct sc_error err;
	int code;

	if ((code = cli_load_catalog(config_dir, &cat)) != EXIT_OK)
		return code;
	sc_error_clear(&err);
	if (memval_load(path ? path : memval_default_path(),
			systems ? systems : val_default_systems_path(), &cat, &set, &err) != SC_OK ||
	    memval_run(&set, &cat, &err) != SC_OK) {
		catalog_free(&cat);
		return cli_fail(&err);
	}
	if (explain) {
		code = explain_case(&set, explain);
		memval_free(&set);
		catalog_free(&cat);
		return code;
	}
	if (!rpt_mem_validate(stdout, &set, (enum rpt_validate_format)fmt, summary_only)) {
		fprintf(stderr, "stepcast: error: out of memory\n");
		memval_free(&set);
		catalog_free(&cat);
		return EXIT_INTERNAL;
	}
	rpt_memval_summary(&set, NULL, NULL, &all);
	code = EXIT_OK;
	if (max_mape >= 0 && (all.expressed == 0 || 100 * all.mape > max_mape)) {
		fprintf(stderr, "stepcast: validate: memory MAPE %.1f %% exceeds --max-mape %.1f %%\n",
			100 * all.mape, max_mape);
		code = EXIT_CHECK_FAILED;
	}
	memval_free(&set);
	catalog_free(&cat);
	return code;
}
