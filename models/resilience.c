/* resilience.c: failure rates, checkpoint intervals, Daly's wall-time model
 * and stragglers (see resilience.h). */
#include "resilience.h"

#include <math.h>
#include <string.h>

#include <gsl/gsl_cdf.h>
#include <gsl/gsl_randist.h>
#include <gsl/gsl_rng.h>

SC_ENUM_DEFINE(ckpt_recovery_name, enum ckpt_recovery, ckpt_recovery_names, CKPT_RECOVERY_LIST)
SC_ENUM_DEFINE(ckpt_moments_name, enum ckpt_moments, ckpt_moments_names, CKPT_MOMENTS_LIST)
SC_ENUM_DEFINE(fail_scale_name, enum fail_scale, fail_scale_names, FAIL_SCALE_LIST)
SC_ENUM_DEFINE(straggler_dist_name, enum straggler_dist, straggler_dist_names, STRAGGLER_DIST_LIST)

/* Why: a cause seen c times while G GPUs on N nodes ran for H hours has the
 * maximum-likelihood Poisson rate c / (G H) per GPU-hour (or c / (N H) per
 * node-hour); a job of g GPUs on n nodes then fails at sum(rate x g or n)
 * per hour.  Planned interruptions (maintenance, upgrades) are a property of
 * the job's operation, per job-hour. */
enum sc_status res_failure_rates(const struct failure_profile_spec *profile,
				 const struct failure_cause_spec *causes, int n,
				 struct failure_rates *out, struct sc_error *err)
{
	double hours = profile->observed_days * 24.0;
	double gpus = profile->observed_gpus;
	double nodes = profile->gpus_per_node > 0 ? gpus / profile->gpus_per_node : gpus;

	memset(out, 0, sizeof(*out));
	snprintf(out->profile, sizeof(out->profile), "%s", profile->name);
	if (!(hours > 0) || !(gpus > 0))
		return sc_error_set(err, SC_EINVAL, NULL, NULL,
				    "failure profile \"%s\" needs positive observed_days and observed_gpus",
				    profile->name);
	for (int i = 0; i < n; i++) {
		const struct failure_cause_spec *c = &causes[i];
		int k = out->n_causes;

		if (strcmp(c->profile, profile->name) != 0)
			continue;
		if (k >= SC_FAILURE_CAUSES_MAX)
			return sc_error_set(err, SC_ERANGE, NULL, NULL,
					    "failure profile \"%s\" has more than %d causes",
					    profile->name, SC_FAILURE_CAUSES_MAX);
		snprintf(out->cause[k].name, sizeof(out->cause[k].name), "%s", c->name);
		snprintf(out->cause[k].category, sizeof(out->cause[k].category), "%s", c->category);
		out->cause[k].per = c->scales_with == FAIL_PER_NODE ? FAIL_PER_NODE : FAIL_PER_GPU;
		out->cause[k].rate_per_h = c->interruptions /
					   ((out->cause[k].per == FAIL_PER_GPU ? gpus : nodes) * hours);
		out->n_causes++;
	}
	if (out->n_causes == 0)
		return sc_error_set(err, SC_EINVAL, NULL, NULL,
				    "failure profile \"%s\" has no causes", profile->name);
	out->planned_per_h = profile->planned_interruptions / hours;
	return SC_OK;
}

double res_cause_rate_per_h(const struct failure_rates *r, int i, int gpus, int nodes)
{
	if (i < 0 || i >= r->n_causes)
		return 0.0;
	return r->cause[i].rate_per_h * (r->cause[i].per == FAIL_PER_GPU ? gpus : nodes);
}

double res_job_rate_per_h(const struct failure_rates *r, int gpus, int nodes)
{
	double sum = 0;

	for (int i = 0; i < r->n_causes; i++)
		sum += res_cause_rate_per_h(r, i, gpus, nodes);
	return sum;
}

double res_young_interval_s(double delta_s, double mtbf_s)
{
	if (!(delta_s > 0) || !isfinite(mtbf_s))
		return INFINITY;
	return sqrt(2.0 * delta_s * mtbf_s);
}

double res_daly_interval_s(double delta_s, double mtbf_s)
{
	double x;

	if (!(delta_s > 0) || !isfinite(mtbf_s))
		return INFINITY;
	if (delta_s >= 2.0 * mtbf_s)
		return mtbf_s;
	x = delta_s / (2.0 * mtbf_s);
	return sqrt(2.0 * delta_s * mtbf_s) * (1.0 + sqrt(x) / 3.0 + x / 9.0) - delta_s;
}

double res_daly_wall_s(double work_s, double tau_s, double delta_s,
		       double restart_s, double mtbf_s)
{
	double M = mtbf_s;

	if (!(tau_s > 0))
		return INFINITY;
	if (!isfinite(M) || !(M > 0))
		return work_s * (tau_s + delta_s) / tau_s;
	/* expm1 keeps the small-rate limit exact: M (e^(x/M) - 1) -> x */
	return M * exp(restart_s / M) * expm1((tau_s + delta_s) / M) * work_s / tau_s;
}

double res_optimal_interval_s(double delta_s, double restart_s, double mtbf_s)
{
	const double g = (sqrt(5.0) - 1.0) / 2.0;
	double a, b, c, d;

	if (!(delta_s > 0) || !isfinite(mtbf_s))
		return INFINITY;
	/* the wall time per unit of work is unimodal in tau; search in log tau */
	a = log(delta_s / 1000.0);
	b = log(10.0 * mtbf_s);
	for (int i = 0; i < 200; i++) {
		c = b - g * (b - a);
		d = a + g * (b - a);
		if (res_daly_wall_s(1.0, exp(c), delta_s, restart_s, mtbf_s) <
		    res_daly_wall_s(1.0, exp(d), delta_s, restart_s, mtbf_s))
			b = d;
		else
			a = c;
	}
	return exp((a + b) / 2.0);
}

enum sc_status res_checkpointless_check(const struct scenario *sc, int replicas,
					struct sc_error *err)
{
	const struct layout *l = &sc->layout;
	int zero = l->fsdp ? 3 : l->zero_stage;
	int group = zero >= 3 && l->fsdp_group > 0 ? l->fsdp_group : l->dp * l->cp;

	if (replicas < 2)
		replicas = 2;
	if (l->dp * l->cp < replicas || (zero >= 1 && group % replicas != 0))
		return sc_error_set(err, SC_EINVAL, NULL, "/storage/recovery",
				    "checkpointless recovery keeps %d copies of the state on data-parallel peers: the data-parallel group (dp x cp = \"%d\", ZeRO shards over %d) must be a multiple of %d",
				    replicas, l->dp * l->cp, group, replicas);
	return SC_OK;
}

/* E[g(M_n)] for M_n the largest of n standard normals: the density of M_n
 * is n phi(x) Phi(x)^(n-1) (David and Nagaraja, "Order Statistics", 2003,
 * eq. 2.1.6); Simpson's rule on [-10, 10] (the integrand is below 1e-20
 * outside for every n >= 1), with log Phi from the upper tail for accuracy
 * near 1. */
static double normal_max_expect(int n, double sigma, bool lognormal)
{
	const int steps = 8000;
	const double lo = -10.0, hi = 10.0, h = (hi - lo) / steps;
	double sum = 0;

	for (int i = 0; i <= steps; i++) {
		double x = lo + i * h;
		double q = gsl_cdf_ugaussian_Q(x);
		double log_cdf = q < 0.5 ? log1p(-q) : log(gsl_cdf_ugaussian_P(x));
		double dens = exp(log((double)n) - 0.5 * x * x - 0.91893853320467274178 /* log sqrt(2 pi) */ +
				  (n - 1) * log_cdf);
		double g = lognormal ? exp(sigma * x) : 1.0 + sigma * x;
		double w = (i == 0 || i == steps) ? 1.0 : (i % 2 ? 4.0 : 2.0);

		sum += w * g * dens;
	}
	return sum * h / 3.0;
}

enum sc_status res_straggler_stretch(const struct straggler_cfg *cfg, int n,
				     double *stretch, struct sc_error *err)
{
	double sigma = cfg->sigma;

	if (n < 1)
		n = 1;
	if (cfg->monte_carlo_steps > 0) {
		gsl_rng *r;
		double sum = 0;

		/* the cost is known before the work: steps x GPUs samples */
		if ((double)cfg->monte_carlo_steps * n > RES_MAX_MC_SAMPLES)
			return sc_error_set(err, SC_EINVAL, NULL, "/stragglers/monte_carlo_steps",
					    "monte_carlo_steps x GPUs = %d x %d = %.3g samples, more than the "
					    "budget of %.0e; use at most %d steps, or 0 for the exact order statistic",
					    cfg->monte_carlo_steps, n, (double)cfg->monte_carlo_steps * n,
					    RES_MAX_MC_SAMPLES, (int)(RES_MAX_MC_SAMPLES / n));
		r = gsl_rng_alloc(gsl_rng_mt19937);
		if (!r)
			return sc_error_set(err, SC_ENOMEM, NULL, NULL,
					    "out of memory for the straggler sampler");
		gsl_rng_set(r, (unsigned long)cfg->seed);
		for (int s = 0; s < cfg->monte_carlo_steps; s++) {
			double mx = -INFINITY;

			for (int i = 0; i < n; i++) {
				double v;

				switch (cfg->distribution) {
				case STRAGGLER_LOGNORMAL:
					v = exp(sigma * gsl_ran_gaussian_ziggurat(r, 1.0));
					break;
				case STRAGGLER_NORMAL:
					v = 1.0 + sigma * gsl_ran_gaussian_ziggurat(r, 1.0);
					break;
				default:
					v = 1.0 + gsl_ran_exponential(r, sigma);
					break;
				}
				if (v > mx)
					mx = v;
			}
			sum += mx;
		}
		gsl_rng_free(r);
		*stretch = sum / cfg->monte_carlo_steps;
		return SC_OK;
	}
	switch (cfg->distribution) {
	case STRAGGLER_LOGNORMAL:
		*stretch = normal_max_expect(n, sigma, true);
		break;
	case STRAGGLER_NORMAL:
		*stretch = normal_max_expect(n, sigma, false);
		break;
	case STRAGGLER_EXPONENTIAL: {
		/* the largest of n exponentials of mean sigma has mean sigma H_n
		 * (Renyi's representation of exponential order statistics) */
		double hn = 0;

		for (int i = 1; i <= n; i++)
			hn += 1.0 / i;
		*stretch = 1.0 + sigma * hn;
		break;
	}
	}
	return SC_OK;
}
