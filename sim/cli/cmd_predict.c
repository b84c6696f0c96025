/* cmd_predict.c: `stepcast predict SCENARIO`: one training step of a
 * scenario with the analytical engine, or with the discrete-event engine
 * (--engine des, sim/des). */
#include <stdio.h>
#include <string.h>

#include <stdlib.h>

#include "../../reports/rpt_goodput.h"
#include "../../calibrate/cal_profile.h"
#include "../../reports/rpt_des.h"
#include "../../reports/rpt_prom.h"
#include "../../reports/rpt_step.h"
#include "../../reports/rpt_placement.h"
#include "../des/des.h"
#include "../analytic/goodput.h"
#include "../analytic/step.h"
#include "../config/placement_load.h"
#include "../config/scenario_load.h"
#include "../search/explain.h"
#include "cli.h"
#include "cli_args.h"
#include "cli_progress.h"
#include "cli_des.h"
#include "cli_output.h"
#include "cli_set.h"
#include "../../models/units.h"

enum { OPT_ENGINE = CLI_KEY_BASE, OPT_FIDELITY, OPT_TRACE, OPT_CKPT_STEP };

static const struct cli_opt predict_opts[] = {
	{ "format", 'f', "FMT", "text (default), json, csv or prom (Prometheus text\n"
				"exposition, for node_exporter's textfile collector)", NULL },
	CLI_OPT_GROUP(cli_opts_calibration),
	CLI_OPT_GROUP(cli_opts_config_dir),
	{ "engine", OPT_ENGINE, "ENGINE", "analytic (default: closed-form, milliseconds) or des\n"
					  "(discrete-event simulation on SimGrid: sees contention\n"
					  "between flows, adds the busiest links)", NULL },
	{ "fidelity", OPT_FIDELITY, "FLOWS", "des: simulate at most about FLOWS flows (default\n"
					     "1000000), merging ring steps and DP buckets past it;\n"
					     "'exact' merges nothing", NULL },
	{ "trace", OPT_TRACE, "FILE", "des: write the simulated timeline as Chrome/Perfetto\n"
				      "trace JSON (open it in ui.perfetto.dev)", NULL },
	{ "checkpoint-step", OPT_CKPT_STEP, NULL, "des: simulate the step that writes a checkpoint to the\n"
						  "scenario's storage tier (its blocking part in the step,\n"
						  "an async drain beside its collectives)", NULL },
	{ "placement", CLI_OPT_PLACEMENT, "FILE", "place the nodes as this `aws ec2 describe-instance-\n"
					      "topology` JSON says (its first nodes, in its order;\n"
					      "overrides cluster.placement); with one, predict adds\n"
					      "its cost against packed and the groups that pay it", NULL },
	CLI_OPT_GROUP(cli_opts_set_cluster),
	CLI_OPT_GROUP(cli_opts_quiet),
	CLI_OPT_GROUP(cli_opts_des_budget),
	CLI_OPT_GROUP(cli_opts_help),
	CLI_OPT_END
};

static const struct cli_usage predict_usage = {
	"usage: stepcast predict SCENARIO [--format text|json|csv|prom]\n"
	"                        [--calibration NAME|FILE] [--config-dir DIR]\n"
	"                        [--engine analytic|des] [--fidelity FLOWS|exact]\n"
	"                        [--trace FILE] [--max-flows N] [--max-memory SIZE]\n"
	"                        [--max-events N] [--placement FILE] [--checkpoint-step]\n",
	"Predict one training step of SCENARIO (a JSON file, see scenarios/): step time,\n"
	"throughput, MFU, a breakdown that sums to the step time, memory per GPU with an\n"
	"out-of-memory verdict, the bottleneck and the collectives with their algorithms.\n",
	predict_opts, NULL
};

/* The tiers of the checkpoint comparison, one per kind (NVMe, FSx, S3):
 * the scenario's own tier of that kind if it uses one, else the
 * catalogue's (for FSx the fastest per TiB).  Copies into out[]. */
static int compare_tiers(const struct catalog *cat, const struct scenario *sc,
			 struct storage_spec *out)
{
	static const char *const kinds[] = { "nvme", "fsx-lustre", "s3" };
	int n = 0;

	for (int k = 0; k < 3; k++) {
		const struct storage_spec *best = NULL;

		if (strcmp(sc->storage.checkpoint_tier.kind, kinds[k]) == 0)
			best = &sc->storage.checkpoint_tier;
		else if (sc->storage.has_data_tier && strcmp(sc->storage.data_tier.kind, kinds[k]) == 0)
			best = &sc->storage.data_tier;
		else
			for (int i = 0; i < cat->n_storage; i++) {
				const struct storage_spec *t = &cat->storage[i];

				if (strcmp(t->kind, kinds[k]) == 0 &&
				    (!best || t->write_MBps_per_TiB > best->write_MBps_per_TiB))
					best = t;
			}
		if (best)
			out[n++] = *best;
	}
	return n;
}

/* The options of a run of predict. */
struct predict_opts {
	enum cli_format fmt;
	bool des;
	const char *trace;
	struct des_options dopt;
};

/* CLI_GO, or the exit code of the run (help, a usage error). */
static int parse_options(struct cli_args *a, struct predict_opts *o)
{
	int c;

	memset(o, 0, sizeof(*o));
	o->fmt = FMT_TEXT;
	while ((c = cli_next_option(a)) > 0) {
		bool ok;

		if (cli_des_budget_option("predict", c, a->arg, &o->dopt, &ok)) {
			if (!ok)
				return EXIT_USAGE;
			continue;
		}
		switch (c) {
		case OPT_ENGINE:
			if (strcmp(a->arg, "des") != 0 && strcmp(a->arg, "analytic") != 0)
				return cli_usage_error("predict", "unknown engine '%s' (expected analytic or des)",
						       a->arg);
			o->des = strcmp(a->arg, "des") == 0;
			break;
		case OPT_FIDELITY: {
			char *end = NULL;

			if (strcmp(a->arg, "exact") == 0) {
				o->dopt.fidelity = -1;
				break;
			}
			o->dopt.fidelity = strtod(a->arg, &end);
			if (!end || *end || !(o->dopt.fidelity >= 1) || o->dopt.fidelity > 1e12)
				return cli_usage_error("predict", "--fidelity wants a number of flows >= 1 or 'exact', not '%s'",
						       a->arg);
			break;
		}
		case OPT_TRACE:
			o->trace = a->arg;
			break;
		case OPT_CKPT_STEP:
			o->dopt.checkpoint_step = true;
			break;
		case 'f':
			if (!cli_parse_format("predict", a->arg,
					      1u << FMT_TEXT | 1u << FMT_JSON | 1u << FMT_CSV | 1u << FMT_PROM,
					      &o->fmt))
				return EXIT_USAGE;
			break;
		}
	}
	if (c == CLI_STOP || !cli_operand(a, &a->scenario_path, "missing SCENARIO file") ||
	    !cli_operands_end(a))
		return a->code;
	if ((o->trace || o->dopt.fidelity != 0 || o->dopt.checkpoint_step || cli_des_budget_given(&o->dopt)) &&
	    !o->des)
		return cli_usage_error("predict", "%s needs --engine des",
				       o->trace ? "--trace" : o->dopt.checkpoint_step ? "--checkpoint-step"
				       : o->dopt.fidelity != 0 ? "--fidelity"
				       : o->dopt.max_flows > 0 ? "--max-flows"
				       : o->dopt.max_memory_bytes > 0 ? "--max-memory" : "--max-events");
	if (o->dopt.max_events > 0 && !o->trace)
		return cli_usage_error("predict", "--max-events bounds the timeline of --trace");
	return CLI_GO;
}

/* The discrete-event engine: the same result structure, into *r; its
 * timeline to o->trace when asked. */
static int predict_des(const char *path, struct scenario *sc, struct predict_opts *o,
		       struct des_result *dr, struct step_result *r)
{
	struct sc_error err;
	struct des_estimate e;
	enum sc_status st;

	o->dopt.trace = o->trace != NULL;
	/* before a long run: its cost, when above the target */
	sc_error_clear(&err);
	if (des_estimate(sc, &o->dopt, &e, &err) == SC_OK && des_estimate_check(&e, &o->dopt, &err) == SC_OK)
		cli_des_fidelity_note(NULL, &e, &o->dopt);
	sc_error_clear(&err);
	cli_progress_begin("predict --engine des");
	st = des_predict(sc, &o->dopt, dr, &err);
	cli_progress_end();
	if (st != SC_OK)
		return cli_fail_in(&err, path);
	*r = dr->step;
	rpt_des_cost_line(stderr, dr);
	if (o->trace) {
		struct cli_output out;
		int wc = cli_output_open(&out, o->trace);

		if (wc == EXIT_OK) {
			bool ok = des_trace_write(out.f, sc, dr);

			if (!ok)
				fprintf(stderr, "stepcast: error: %s: cannot write the trace\n", o->trace);
			wc = cli_output_close(&out, ok);
		}
		des_result_free(dr);
		if (wc != EXIT_OK)
			return wc == EXIT_INTERNAL ? EXIT_IO : wc;
	}
	des_result_free(dr);
	return EXIT_OK;
}

/* What predict prints beside the step: goodput and the checkpoint tiers. */
struct predict_goodput {
	bool on;
	struct goodput_result g;
	struct goodput_option options[4];
	int n_opts;
};

static int predict_goodput(const char *path, const struct scenario *sc, const struct step_result *r,
			   const struct storage_spec *tiers, int n_tiers, struct predict_goodput *gp)
{
	const struct storage_spec *tp[3];
	struct sc_error err;

	if (!sc->storage.enabled && !sc->stragglers.enabled)
		return EXIT_OK;
	for (int i = 0; i < n_tiers; i++)
		tp[i] = &tiers[i];
	sc_error_clear(&err);
	if (sim_goodput(sc, r, &gp->g, &err) != SC_OK ||
	    (sc->storage.enabled &&
	     sim_goodput_compare(sc, r, tp, n_tiers, gp->options, &gp->n_opts, &err) != SC_OK))
		return cli_fail_in(&err, path);
	gp->on = true;
	return EXIT_OK;
}

/* Add item (when made) under key; false, freeing item, when not. */
static bool add_object(cJSON *root, const char *key, cJSON *item)
{
	if (item && cJSON_AddItemToObject(root, key, item))
		return true;
	cJSON_Delete(item);
	return false;
}

/* pl: the placement's cost against packed, or NULL without one. */
static int render(const char *path, const struct scenario *sc, const struct step_result *r,
		  const struct predict_opts *o, const struct des_result *dr, const struct predict_goodput *gp,
		  const struct pl_eval *pl)
{
	switch (o->fmt) {
	case FMT_JSON: {
		cJSON *root = rpt_step_json_object(sc, r);

		if (root && ((gp->on && !add_object(root, "resilience",
						    rpt_goodput_json(sc, &gp->g, gp->options, gp->n_opts))) ||
			     (o->des && !add_object(root, "des", rpt_des_json_object(dr))) ||
			     (pl && !add_object(root, "placement", rpt_placement_json_one(pl))) ||
			     (cli_overrides.n > 0 && !add_object(root, "overrides", cfg_overrides_json(&cli_overrides))))) {
			cJSON_Delete(root);
			root = NULL;
		}
		return cli_print_json(root);
	}
	case FMT_CSV:
		rpt_step_csv(stdout, sc, r);
		break;
	case FMT_PROM: {
		char label[256];

		rpt_prom_step(stdout, rpt_prom_scenario_label(path, label, sizeof(label)), sc, r,
			      gp->on ? &gp->g : NULL);
		break;
	}
	default:
		for (int i = 0; i < cli_overrides.n; i++)
			printf("%s%s", i ? ", " : "what-if     ", cli_overrides.item[i].text);
		if (cli_overrides.n > 0)
			printf("\n");
		rpt_step_text(stdout, sc, r);
		if (pl)
			rpt_placement_line(stdout, pl);
		if (o->des)
			rpt_des_text(stdout, dr);
		if (gp->on) {
			rpt_goodput_text(stdout, sc, &gp->g);
			if (gp->n_opts > 0)
				rpt_goodput_compare_text(stdout, sc, gp->options, gp->n_opts);
		}
		break;
	}
	return EXIT_OK;
}

/* Said, not hidden: how far over, and which of explain's single-step
 * neighbours fit (fastest first; else the closest). */
static void oom_advice(const char *path, const struct scenario *sc, const struct step_result *r)
{
	static struct explain_result x;
	struct sc_error xerr;
	int shown = 0, closest = -1;

	fprintf(stderr, "stepcast: predict: %s does not fit in GPU memory: %.2f GiB per GPU "
		"(%s) of %.2f GiB usable, %.2f GiB over (step %.3f s); one change each:\n",
		path, r->mem_total_bytes / SC_GiB_BYTES, r->mem_where,
		r->mem_capacity_bytes / SC_GiB_BYTES,
		(r->mem_total_bytes - r->mem_capacity_bytes) / SC_GiB_BYTES, r->step_time_s);
	sc_error_clear(&xerr);
	if (explain_run(sc, MODEL_DECISION_CONFIDENCE, &x, &xerr) != SC_OK)
		return;
	for (int i = 0; i < x.n; i++) {
		const struct explain_option *o = &x.opt[i];

		if (!o->oom && shown < 6) {
			fprintf(stderr, "  %-24s %8.2f GiB  fits  step %.3f s  (%s)\n", o->change,
				o->mem_total_bytes / SC_GiB_BYTES, o->step_time_s, o->set);
			shown++;
		}
		if (o->oom && (closest < 0 || o->mem_total_bytes < x.opt[closest].mem_total_bytes))
			closest = i;
	}
	if (shown == 0 && closest >= 0)
		fprintf(stderr, "  no single change fits; closest: %s, %.2f GiB (%s)\n",
			x.opt[closest].change, x.opt[closest].mem_total_bytes / SC_GiB_BYTES,
			x.opt[closest].set);
}

int cmd_predict(int argc, char **argv)
{
	struct cli_args a;
	struct predict_opts o;
	static struct scenario sc;
	static struct storage_spec tiers[3];
	static struct predict_goodput gp;
	static struct des_result dr;
	static struct pl_eval pe[2];
	struct step_result r;
	struct sc_error err;
	int n_tiers = 0, code;

	cli_args_init(&a, &predict_usage, argc, argv);
	if ((code = parse_options(&a, &o)) != CLI_GO)
		return code;
	if (!cli_setup(&a, &sc))
		return a.code;
	sc_error_clear(&err);
	if (sc.storage.enabled)
		n_tiers = compare_tiers(&a.cat, &sc, tiers);
	cli_args_free(&a);
	if (sim_step_predict(&sc, &r, &err) != SC_OK)
		return cli_fail_in(&err, a.scenario_path);
	/* a placement: its cost against packed (analytic), said with the result */
	if (sc.cluster.placement) {
		if (pl_evaluate(&sc, NULL, "packed", false, NULL, &pe[0], &err) != SC_OK ||
		    pl_evaluate(&sc, sc.cluster.placement, "placed", false, NULL, &pe[1], &err) != SC_OK)
			return cli_fail(&err);
		pl_eval_cost(&pe[1], &pe[0]);
	}
	if (o.des && (code = predict_des(a.scenario_path, &sc, &o, &dr, &r)) != EXIT_OK)
		return code;
	if ((code = predict_goodput(a.scenario_path, &sc, &r, tiers, n_tiers, &gp)) != EXIT_OK)
		return code;
	{
		/* a fitted profile knows the data behind it: say when this
		 * scenario's collectives lie outside it (stderr; stdout unchanged) */
		struct cal_range_warning w[SC_STEP_MAX_COLLECTIVES];
		int n = cal_range_check(&sc.calibration, &r, w, SC_STEP_MAX_COLLECTIVES);
		for (int i = 0; i < n && i < SC_STEP_MAX_COLLECTIVES; i++)
			fprintf(stderr, "stepcast: warning: %s\n", w[i].text);
	}
	if ((code = render(a.scenario_path, &sc, &r, &o, &dr, &gp, sc.cluster.placement ? &pe[1] : NULL)) != EXIT_OK)
		return code;
	if (r.oom) {
		oom_advice(a.scenario_path, &sc, &r);
		return cli_finish(EXIT_OOM);
	}
	return cli_finish(EXIT_OK);
}
