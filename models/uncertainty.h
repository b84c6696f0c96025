/* uncertainty.h: how sure a prediction is, and what that means for a
 * decision.
 *
 * The band of a predicted quantity (a step time, a time to train, a latency)
 * is a log-normal distribution of the truth around the prediction:
 * ln(measured / predicted) ~ Normal(log_bias, log_sigma^2).  Validation
 * errors of step times are multiplicative (a 20 % error is as likely on a
 * 1 s step as on a 100 s one) and skewed (a model can be 2x too optimistic,
 * never 100 % too pessimistic), which a normal band in log space describes
 * and a symmetric +/- band does not.  From the band come quantiles (P10,
 * P50, P90: P50 is the point prediction when the band is unbiased) and the
 * probability that one prediction is truly below another.
 *
 * struct model_band is the whole description so that it can grow (the
 * calibration issue makes bands per regime: GPU family, scale, MoE or
 * dense); callers get one from model_band_of_calibration() and pass it by
 * pointer.  Pure functions over plain values; nothing allocates.
 */
#ifndef SC_UNCERTAINTY_H
#define SC_UNCERTAINTY_H

#include "calibration.h"

struct model_band {
	double log_bias;  /* mean of ln(measured / predicted); 0: unbiased */
	double log_sigma; /* standard deviation of ln(measured / predicted), >= 0 */
};

/* P10, P50 and P90 of a quantity (same unit as the point prediction). */
struct model_quantiles {
	double p10, p50, p90;
};

/* The band whose mean absolute relative error E|predicted/measured - 1| is
 * mape (a fraction, >= 0), unbiased.  This is what a calibration profile's
 * uncertainty_rel is (the validation's MAPE out of sample, see the
 * profiles' sources): for ln(measured/predicted) ~ N(0, s^2),
 * E|exp(-Z) - 1| = exp(s^2/2) (2 Phi(s) - 1), solved for s (about
 * 1.2533 mape for small mape, where |ln x| ~ |x - 1| and E|Z| = s sqrt(2/pi)).
 * A negative or non-finite mape gives the zero band. */
struct model_band model_band_from_mape(double mape);

/* The mean absolute relative error E|predicted/measured - 1| of band b
 * (the inverse of model_band_from_mape when unbiased). */
double model_band_mape(const struct model_band *b);

/* The step-time band of a training prediction with calibration cal (from
 * uncertainty_rel), and the band of a serving prediction (throughput, TTFT,
 * TPOT; from serve_uncertainty_rel). */
struct model_band model_band_of_calibration(const struct calibration *cal);
struct model_band model_band_of_serving_calibration(const struct calibration *cal);

/* The regimes (a bit per enum model_regime) a training prediction of sc
 * with predicted step step_s is in: nodes, FSDP/ZeRO-3, MoE with its
 * expert-parallel group inside or across NVLink domains (the layout's
 * LG_EP span, models/layout), sequence >= MODEL_REGIME_LONG_SEQ, step <
 * MODEL_REGIME_SHORT_STEP_S.  0 when the layout does not derive. */
#define MODEL_REGIME_LONG_SEQ 32768
#define MODEL_REGIME_SHORT_STEP_S 1.0
struct scenario;
unsigned model_regimes_of(const struct scenario *sc, double step_s);

/* The serving regime: prefill-heavy when the prompt tokens exceed the
 * output tokens, else decode-heavy. */
enum model_regime model_serving_regime(double input_tokens, double output_tokens);

const char *model_regime_name(enum model_regime r);

/* The log-normal band through a regime band's quantiles: log_bias ln P50,
 * log_sigma (ln P90 - ln P10) / (2 z_0.9). */
struct model_band model_band_of_regime_band(const struct model_regime_band *rb);

/* The band of a prediction in the regimes `regimes` (bits): the widest
 * (largest log_sigma) present regime band of cal, the cautious choice
 * when a run is in several; *regime says which (REGIME_COUNT: none
 * present, the calibration's uncertainty_rel band, or serve_uncertainty_rel
 * with serving). */
struct model_band model_band_of_regimes(const struct calibration *cal, unsigned regimes,
					bool serving, enum model_regime *regime);

/* The factor on a point prediction that gives its quantile p (0 < p < 1):
 * exp(log_bias + log_sigma z_p), z_p the standard normal quantile.  1 when
 * p is outside (0, 1) or not a number (no band). */
double model_band_factor(const struct model_band *b, double p);

/* point x model_band_factor(b, p). */
double model_band_quantile(const struct model_band *b, double point, double p);

/* P10, P50 and P90 of point under b. */
struct model_quantiles model_band_quantiles(const struct model_band *b, double point);

/* The quantiles of a rate (throughput) whose band b is that of the time
 * it takes (measured / predicted time): P10 = point / factor(0.9), P50 =
 * point / factor(0.5), P90 = point / factor(0.1).  For an unbiased band
 * the same as model_band_quantiles. */
struct model_quantiles model_band_quantiles_rate(const struct model_band *b, double point);

/* The probability that quantity a (predicted pa > 0, band ba) is truly
 * below quantity b (predicted pb > 0, band bb), when their log errors have
 * correlation rho (in [-1, 1]):
 * Phi((ln pb + bias_b - ln pa - bias_a) / sqrt(s_a^2 + s_b^2 - 2 rho s_a s_b)).
 * rho 0 (independent errors) is the cautious choice for two different
 * predictions: two from one profile share part of their error, which makes
 * their ratio surer than that says, but by how much is not measured.  rho 1
 * for one prediction priced twice (same step on the same GPU): then only
 * the known factors (prices) decide.  Without spread: 1, 0.5 or 0 (a < b,
 * equal, a > b). */
double model_band_prob_less(const struct model_band *ba, double pa, const struct model_band *bb,
			    double pb, double rho);

/* A decision at confidence c (0.5 <= c < 1): is a (the lower prediction)
 * surely below b, i.e. model_band_prob_less(a, b, rho) >= c?  When not, the
 * two are tied within the model's band.  c <= 0.5 compares the medians
 * alone (a tie only when they are equal). */
bool model_band_surely_less(const struct model_band *ba, double pa, const struct model_band *bb,
			    double pb, double rho, double c);

/* The one rule every decision between two predictions follows (compare's
 * winner, plan's cheapest node count, explain's neighbours, diff's two
 * sides): at confidence c (MODEL_DECISION_CONFIDENCE unless the user gives
 * --confidence), a is MODEL_ORDER_LESS than b when it is surely below
 * (model_band_surely_less(a, b)), MODEL_ORDER_GREATER when b is surely
 * below a, else MODEL_ORDER_TIE: the difference is inside the model's band
 * and no answer may rank them.  rho as for model_band_prob_less: 0 for two
 * different predictions (two layouts, two node counts), 1 for one
 * prediction priced twice. */
#define MODEL_DECISION_CONFIDENCE 0.9
enum model_order { MODEL_ORDER_LESS = -1, MODEL_ORDER_TIE = 0, MODEL_ORDER_GREATER = 1 };
enum model_order model_band_order(const struct model_band *ba, double pa, const struct model_band *bb,
				  double pb, double rho, double c);
const char *model_order_name(enum model_order o); /* "less", "tie", "greater" */

#endif
