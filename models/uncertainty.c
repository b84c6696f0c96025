/* uncertainty.c: log-normal prediction bands (see uncertainty.h). */
#include "uncertainty.h"

#include <math.h>

#include <gsl/gsl_cdf.h>

#include "layout.h"
#include "network.h"
#include "scenario.h"

/* E|exp(-Z) - 1| for Z ~ N(0, s^2): the part above 1 and the part below,
 * E[e^-Z; Z<0] - P(Z<0) + P(Z>0) - E[e^-Z; Z>0], with E[e^-Z; Z<0] =
 * e^{s^2/2} Phi(s) and E[e^-Z; Z>0] = e^{s^2/2} Phi(-s).  Increasing in s. */
static double mape_of_sigma(double s)
{
	return exp(0.5 * s * s) * (2.0 * gsl_cdf_ugaussian_P(s) - 1.0);
}

struct model_band model_band_from_mape(double mape)
{
	struct model_band b = { 0.0, 0.0 };
	double lo = 0.0, hi = 1.0;

	if (!(mape > 0) || !isfinite(mape))
		return b;
	while (mape_of_sigma(hi) < mape && hi < 64)
		hi *= 2;
	/* bisection: 60 halvings of at most [0, 64] are below 1e-16 */
	for (int i = 0; i < 60; i++) {
		double mid = 0.5 * (lo + hi);

		if (mape_of_sigma(mid) < mape)
			lo = mid;
		else
			hi = mid;
	}
	b.log_sigma = 0.5 * (lo + hi);
	return b;
}

double model_band_mape(const struct model_band *b)
{
	/* E|exp(-Z) - 1|, Z ~ N(mu, s^2): with W = -Z ~ N(-mu, s^2),
	 * E[e^W; W>0] = e^{-mu + s^2/2} Phi((-mu + s^2)/s) */
	double mu = -b->log_bias, s = b->log_sigma;

	if (!(s > 0))
		return fabs(exp(mu) - 1.0);
	{
		double m = exp(mu + 0.5 * s * s);
		double up = m * gsl_cdf_ugaussian_P((mu + s * s) / s) - gsl_cdf_ugaussian_P(mu / s);
		double down = gsl_cdf_ugaussian_P(-mu / s) - m * gsl_cdf_ugaussian_P(-(mu + s * s) / s);

		return up + down;
	}
}

struct model_band model_band_of_calibration(const struct calibration *cal)
{
	return model_band_from_mape(cal->uncertainty_rel);
}

struct model_band model_band_of_serving_calibration(const struct calibration *cal)
{
	return model_band_from_mape(cal->serve_uncertainty_rel);
}

double model_band_factor(const struct model_band *b, double p)
{
	if (!(p > 0 && p < 1))
		return 1.0;
	return exp(b->log_bias + b->log_sigma * gsl_cdf_ugaussian_Pinv(p));
}

double model_band_quantile(const struct model_band *b, double point, double p)
{
	return point * model_band_factor(b, p);
}

struct model_quantiles model_band_quantiles(const struct model_band *b, double point)
{
	struct model_quantiles q;

	q.p10 = model_band_quantile(b, point, 0.10);
	q.p50 = model_band_quantile(b, point, 0.50);
	q.p90 = model_band_quantile(b, point, 0.90);
	return q;
}

double model_band_prob_less(const struct model_band *ba, double pa, const struct model_band *bb,
			    double pb, double rho)
{
	/* ln(true a) ~ N(ln pa + bias_a, s_a^2), likewise b; a < b iff their
	 * difference, N(ln pb + bias_b - ln pa - bias_a, s_a^2 + s_b^2), is > 0 */
	double d = log(pb) + bb->log_bias - log(pa) - ba->log_bias;
	double v = ba->log_sigma * ba->log_sigma + bb->log_sigma * bb->log_sigma -
		   2 * rho * ba->log_sigma * bb->log_sigma;
	double s = v > 0 ? sqrt(v) : 0;

	/* below 1e-12 in log: no spread left (rho 1, equal sigmas) */
	if (!(s > 1e-12))
		return d > 0 ? 1.0 : d < 0 ? 0.0 : 0.5;
	return gsl_cdf_ugaussian_P(d / s);
}

bool model_band_surely_less(const struct model_band *ba, double pa, const struct model_band *bb,
			    double pb, double rho, double c)
{
	if (!(c > 0.5))
		return log(pa) + ba->log_bias < log(pb) + bb->log_bias;
	return model_band_prob_less(ba, pa, bb, pb, rho) >= c;
}

enum model_order model_band_order(const struct model_band *ba, double pa, const struct model_band *bb,
				  double pb, double rho, double c)
{
	if (model_band_surely_less(ba, pa, bb, pb, rho, c))
		return MODEL_ORDER_LESS;
	if (model_band_surely_less(bb, pb, ba, pa, rho, c))
		return MODEL_ORDER_GREATER;
	return MODEL_ORDER_TIE;
}

const char *model_order_name(enum model_order o)
{
	return o == MODEL_ORDER_LESS ? "less" : o == MODEL_ORDER_GREATER ? "greater" : "tie";
}

unsigned model_regimes_of(const struct scenario *sc, double step_s)
{
	struct layout_info li;
	unsigned m = 0;

	if (layout_derive(sc, NULL, &li, NULL) != SC_OK)
		return 0;
	m |= 1u << (sc->cluster.nodes > 1 ? REGIME_MULTI_NODE_DENSE : REGIME_SINGLE_NODE);
	if (li.zero >= 3)
		m |= 1u << REGIME_FSDP;
	if (model_is_moe(&sc->model)) {
		struct net_span ep = layout_span(&sc->cluster, &li, LG_EP);

		/* MoE runs are their own regimes, not "dense" */
		m &= ~(1u << REGIME_MULTI_NODE_DENSE);
		m |= 1u << (ep.inter ? REGIME_MOE_EP_NETWORK : REGIME_MOE_EP_NVLINK);
	}
	if (sc->training.seq_len >= MODEL_REGIME_LONG_SEQ)
		m |= 1u << REGIME_LONG_CONTEXT;
	if (step_s > 0 && step_s < MODEL_REGIME_SHORT_STEP_S)
		m |= 1u << REGIME_SHORT_STEP;
	return m;
}

enum model_regime model_serving_regime(double input_tokens, double output_tokens)
{
	return input_tokens > output_tokens ? REGIME_SERVE_PREFILL : REGIME_SERVE_DECODE;
}

const char *const model_regime_names[] = SC_ENUM_NAMES(MODEL_REGIME_LIST);

/* "none" outside the enum (REGIME_COUNT: no regime band applies). */
const char *model_regime_name(enum model_regime r)
{
	return (unsigned)r < REGIME_COUNT ? model_regime_names[r] : "none";
}

struct model_band model_band_of_regime_band(const struct model_regime_band *rb)
{
	struct model_band b = { 0.0, 0.0 };
	double z = gsl_cdf_ugaussian_Pinv(0.9);

	if (!rb->present || !(rb->p10 > 0) || !(rb->p50 > 0) || !(rb->p90 >= rb->p10))
		return b;
	b.log_bias = log(rb->p50);
	b.log_sigma = (log(rb->p90) - log(rb->p10)) / (2 * z);
	return b;
}

struct model_band model_band_of_regimes(const struct calibration *cal, unsigned regimes,
					bool serving, enum model_regime *regime)
{
	struct model_band best = { 0.0, -1.0 };
	enum model_regime which = REGIME_COUNT;

	for (int r = 0; r < REGIME_COUNT; r++) {
		struct model_band b;

		if (!(regimes & (1u << r)) || !cal->regime_band[r].present)
			continue;
		b = model_band_of_regime_band(&cal->regime_band[r]);
		if (b.log_sigma > best.log_sigma) {
			best = b;
			which = (enum model_regime)r;
		}
	}
	if (regime)
		*regime = which;
	if (which == REGIME_COUNT)
		return serving ? model_band_of_serving_calibration(cal) : model_band_of_calibration(cal);
	return best;
}

struct model_quantiles model_band_quantiles_rate(const struct model_band *b, double point)
{
	struct model_quantiles q;

	q.p10 = point / model_band_factor(b, 0.9);
	q.p50 = point / model_band_factor(b, 0.5);
	q.p90 = point / model_band_factor(b, 0.1);
	return q;
}
