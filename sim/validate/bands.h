/* bands.h: uncertainty bands per regime from out-of-sample residuals.
 *
 * After val_cross_validate() has predicted each case with its source group
 * left out of the fit (has_oos), val_regime_bands() takes, per regime
 * (model_regimes_of: a case counts in every regime it is in), the log
 * ratios ln(measured / predicted) out of sample; P50 is exp of their mean,
 * P10 and P90 exp(mean -/+ z_0.9 sigma) with sigma^2 the within-source-
 * group plus the between-group variance (one-way random effects: a new
 * source shifts like the sources seen, not only scatters like their
 * runs).  The lognormal band of models/uncertainty.h through P10, P50 and
 * P90 is then exact.  Its coverage is measured out
 * of sample as well (nested): each case is checked against the band built
 * from the regime's cases of the other source groups only.  A regime with
 * fewer than VAL_BAND_MIN_CASES residuals gets no band.
 * val_regime_bands_json() writes configs/uncertainty-bands.json, which the
 * catalogue loader attaches to every profile (struct calibration's
 * regime_band).  Caller-owned everything.
 */
#ifndef SC_VALIDATE_BANDS_H
#define SC_VALIDATE_BANDS_H

#include <cjson/cJSON.h>

#include "../../models/uncertainty.h"
#include "validate.h"

/* Fewer residuals give no band: the relative standard error of a sample
 * standard deviation is about 1 / sqrt(2 (n - 1)) (normal theory), 27 % at
 * n = 8, above the band-width differences between regimes (docs/accuracy.md,
 * Accuracy) below it. */
#define VAL_BAND_MIN_CASES 8

struct val_regime_stats {
	struct model_regime_band band[REGIME_COUNT];
	int covered_cases[REGIME_COUNT]; /* cases the nested coverage could check */
	/* the band a prediction shows (the widest of its regimes', nested):
	 * its coverage over the cases that have one; < 0: none */
	double shown_coverage;
	int shown_cases;
};

/* Over the cases of GPU family `family` (their profile's gpu_family; NULL:
 * every family pooled). */
void val_regime_bands(const struct val_set *set, const char *family, struct val_regime_stats *out);

/* The bands file: schema_version, provenance (command, method, cases file,
 * created) and one entry per family and regime with a band: st[k] of
 * families[k] ("all": pooled, the fallback of a family without that
 * regime's band). */
cJSON *val_regime_bands_json(const struct val_set *set, const struct val_regime_stats *st,
			     const char *const *families, int n, const char *command,
			     const char *created);

/* The band of n log ratios x[] whose source groups are grp[] (indices
 * below n_groups_max): P50 exp(mean), P10/P90 with the within- plus
 * between-group spread; false below VAL_BAND_MIN_CASES.  Shared by the
 * training and the serving bands. */
bool val_band_of_log_ratios(const double *x, const int *grp, int n, int n_groups_max,
			    struct model_regime_band *b);

/* The same with a prior between-group variance vb_prior (< 0: none), worth
 * VAL_BAND_PRIOR_GROUPS groups against the groups - 1 degrees of freedom
 * of x's own (bands.c says why). */
bool val_band_of_log_ratios_prior(const double *x, const int *grp, int n, int n_groups_max,
				  double vb_prior, struct model_regime_band *b);

/* The training and the serving validation each write their own regimes
 * into one bands file: copy into doc's "regimes" the entries of the file
 * at path whose names start with prefix (matching) or do not (!matching;
 * then its provenance and coverage_shown too, where doc has none).  A
 * missing or unreadable file adds nothing. */
void val_bands_carry(cJSON *doc, const char *path, const char *prefix, bool matching);

#endif
