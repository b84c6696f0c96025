/* cost.c: prices, the time-to-train hook and budget parsing (see cost.h). */
#include "cost.h"

#include "../analytic/goodput.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

SC_ENUM_DEFINE(plan_pricing_name, enum plan_pricing, plan_pricing_names, PLAN_PRICING_LIST)

bool plan_pricing_parse(const char *s, enum plan_pricing *out)
{
	int i = sc_enum_parse(plan_pricing_names, s);

	return i >= 0 ? (*out = (enum plan_pricing)i, true) : false;
}

double plan_instance_usd_per_h(const struct instance_spec *inst, enum plan_pricing p)
{
	return purchase_instance_usd_per_h(inst, p);
}

double plan_cluster_usd_per_h(const struct instance_spec *inst, int nodes, enum plan_pricing p)
{
	return purchase_cluster_usd_per_h(inst, nodes, p);
}

enum sc_status plan_check_pricing(const struct instance_spec *inst, enum plan_pricing p,
				  struct sc_error *err)
{
	char opts[256];

	if (purchase_offered(inst, p))
		return SC_OK;
	purchase_options_describe(inst, opts, sizeof(opts));
	if (p == PRICING_ON_DEMAND)
		return sc_error_set(err, SC_EINVAL, NULL, "/cluster/instance/price",
				    "instance \"%s\" is not sold on demand; its purchase options: %s",
				    inst->name, opts);
	return sc_error_set(err, SC_EINVAL, NULL, "/cluster/instance/price",
			    "instance \"%s\" has no %s price; its purchase options: %s", inst->name,
			    plan_pricing_name(p), opts);
}

/* Without a "storage" or "stragglers" object every step is productive:
 * time = tokens / throughput, the first-order answer published planners give
 * (e.g. the Llama 3 paper's 54-day estimate divides tokens by throughput
 * before interruptions).  With one, the goodput model (sim/analytic/
 * goodput.h: data stalls, stragglers, checkpoints at their interval,
 * failures at the job's size, restarts and restores) gives the calendar:
 * productive_s counts the ideal step (without those parts) over the steps,
 * time_s = productive_s / goodput.  A scenario the goodput model rejects
 * (it cannot reach here from sim_step_predict, which runs the same model)
 * gets an infinite time, so no plan chooses it. */
void plan_time_to_train(const struct scenario *sc, const struct step_result *r,
			double tokens, double usd_per_h, struct plan_train *out)
{
	double tokens_per_step = (double)sc->training.global_batch_seqs * sc->training.seq_len;

	memset(out, 0, sizeof(*out));
	out->tokens = tokens;
	if (!(r->tokens_per_s > 0) || !(tokens > 0))
		return;
	if (sc->storage.enabled || sc->stragglers.enabled) {
		struct goodput_result g;
		struct sc_error err;

		sc_error_clear(&err);
		if (sim_goodput(sc, r, &g, &err) == SC_OK && g.goodput > 0) {
			out->productive_s = tokens / tokens_per_step * g.base_step_s;
			out->time_s = out->productive_s / g.goodput;
		} else {
			out->productive_s = tokens / r->tokens_per_s;
			out->time_s = INFINITY;
		}
	} else {
		out->productive_s = tokens / r->tokens_per_s;
		out->time_s = out->productive_s;
	}
	out->goodput = out->productive_s / out->time_s;
	out->steps = tokens / tokens_per_step;
	out->gpu_hours = out->time_s * scenario_gpus(sc) / 3600.0;
	out->usd_per_h = usd_per_h;
	out->usd_total = usd_per_h * out->time_s / 3600.0;
	out->usd_per_mtoken = out->usd_total / tokens * 1e6;
}

/* A finite positive number followed by one optional unit letter (or none);
 * returns the letter (0 when none) or -1 on a syntax error. */
static int number_unit(const char *s, double *v)
{
	char *end;

	errno = 0;
	*v = strtod(s, &end);
	if (end == s || errno == ERANGE || !isfinite(*v) || !(*v > 0))
		return -1;
	if (*end == '\0')
		return 0;
	if (end[1] != '\0')
		return -1;
	return (unsigned char)*end;
}

/* A unit letter (0: none) and what it multiplies the number by. */
struct unit {
	int letter;
	double scale;
};

/* s as number_unit reads it, scaled by its letter's entry of units[n];
 * what names the quantity and expected the units in messages. */
static enum sc_status scaled_number(const char *s, const struct unit *units, int n, const char *what,
				    const char *expected, double *out, struct sc_error *err)
{
	double v;
	int u = number_unit(s, &v);

	for (int i = 0; i < n; i++)
		if (units[i].letter == u) {
			v *= units[i].scale;
			if (!isfinite(v))
				return sc_error_set(err, SC_EINVAL, NULL, NULL, "%s \"%s\" is too large", what, s);
			*out = v;
			return SC_OK;
		}
	return sc_error_set(err, SC_EINVAL, NULL, NULL, "%s \"%s\" is not a positive number with %s", what, s,
			    expected);
}

enum sc_status plan_parse_tokens(const char *s, double *out, struct sc_error *err)
{
	static const struct unit units[] = {
		{ 0, 1 }, { 'K', 1e3 }, { 'k', 1e3 }, { 'M', 1e6 }, { 'B', 1e9 }, { 'G', 1e9 }, { 'T', 1e12 },
	};

	return scaled_number(s, units, (int)(sizeof(units) / sizeof(units[0])), "token count",
			     "an optional K, M, B or T suffix", out, err);
}

/* No unit: days. */
enum sc_status plan_parse_duration(const char *s, double *out_s, struct sc_error *err)
{
	static const struct unit units[] = {
		{ 's', 1 }, { 'm', 60 }, { 'h', 3600 }, { 0, 86400 }, { 'd', 86400 }, { 'w', 7 * 86400 },
	};

	return scaled_number(s, units, (int)(sizeof(units) / sizeof(units[0])), "duration",
			     "a unit s, m, h, d or w", out_s, err);
}
