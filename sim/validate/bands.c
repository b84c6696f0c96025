/* bands.c: per-regime bands from out-of-sample residuals (see bands.h). */
#include "bands.h"
#include "../config/cfg_json.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The band of n log ratios x[] from groups grp[] (indices): centre the
 * precision-weighted mean of the group means, spread the within-group and
 * between-group standard deviations and that centre's uncertainty
 * combined (one-way random effects: a new source group shifts as the
 * groups seen do, and scatters inside as they do).  false when n is too
 * small. */
bool val_band_of_log_ratios(const double *x, const int *grp, int n, int n_groups_max,
			    struct model_regime_band *b)
{
	return val_band_of_log_ratios_prior(x, grp, n, n_groups_max, -1, b);
}

/* A regime's own groups estimate its between-group variance with
 * groups - 1 degrees of freedom: none with one group, one with two, where
 * a band left one source out then sees no shift at all and covers the
 * next source by chance (the nested coverage of short-step and
 * multi-node-dense bands, README "Uncertainty").  The family's pooled
 * between-group variance (all its regimes) is the prior, worth
 * VAL_BAND_PRIOR_GROUPS groups: a source shifts the way the family's
 * sources do until the regime's own groups say otherwise (empirical Bayes
 * shrinkage of a variance, Gelman et al., Bayesian Data Analysis, 3rd ed.,
 * section 5.4: an inverse-chi-square prior with nu_0 degrees of freedom
 * adds nu_0 pseudo-observations of the prior scale). */
#define VAL_BAND_PRIOR_GROUPS 2.0

/* Between-group variance of the group means of x (one-way random
 * effects, groups - 1 denominator); the number of groups in *groups_out. */
static double between_var(const double *x, const int *grp, int n, int n_groups_max, int *groups_out)
{
	double *sum = calloc((size_t)n_groups_max + 1, sizeof(double));
	int *cnt = calloc((size_t)n_groups_max + 1, sizeof(int));
	double mb = 0, vb = 0;
	int groups = 0;

	*groups_out = 0;
	if (!sum || !cnt || n <= 0) {
		free(sum);
		free(cnt);
		return 0;
	}
	for (int i = 0; i < n; i++) {
		sum[grp[i]] += x[i];
		cnt[grp[i]]++;
	}
	for (int g = 0; g < n_groups_max; g++)
		if (cnt[g]) {
			groups++;
			mb += sum[g] / cnt[g];
		}
	mb /= groups;
	for (int g = 0; g < n_groups_max; g++)
		if (cnt[g]) {
			double d = sum[g] / cnt[g] - mb;
			vb += d * d;
		}
	free(sum);
	free(cnt);
	*groups_out = groups;
	return groups > 1 ? vb / (groups - 1) : 0;
}

bool val_band_of_log_ratios_prior(const double *x, const int *grp, int n, int n_groups_max,
				  double vb_prior, struct model_regime_band *b)
{
	double *sum = calloc((size_t)n_groups_max + 1, sizeof(double));
	int *cnt = calloc((size_t)n_groups_max + 1, sizeof(int));
	double c = 0, ww = 0, mb = 0, vb = 0, var_c = 0, sigma;
	int groups = 0;

	if (!sum || !cnt || n < VAL_BAND_MIN_CASES) {
		free(sum);
		free(cnt);
		return false;
	}
	for (int i = 0; i < n; i++) {
		sum[grp[i]] += x[i];
		cnt[grp[i]]++;
		c += x[i];
	}
	c /= n;
	for (int g = 0; g < n_groups_max; g++)
		if (cnt[g]) {
			groups++;
			mb += sum[g] / cnt[g];
		}
	mb /= groups;
	for (int i = 0; i < n; i++) {
		double d = x[i] - sum[grp[i]] / cnt[grp[i]];
		ww += d * d;
	}
	ww = n > groups ? ww / (n - groups) : 0;
	for (int g = 0; g < n_groups_max; g++)
		if (cnt[g]) {
			double d = sum[g] / cnt[g] - mb;
			vb += d * d;
		}
	vb = groups > 1 ? vb / (groups - 1) : 0;
	if (vb_prior >= 0)
		vb = ((groups - 1) * vb + VAL_BAND_PRIOR_GROUPS * vb_prior) /
		     (groups - 1 + VAL_BAND_PRIOR_GROUPS);
	{
		/* the centre for a new source group: the group means weighted
		 * by their precision 1 / (vb + ww / n_g), the estimate of the
		 * population mean under one-way random effects, not the case
		 * mean (which the largest source would set: 216 cases of one
		 * group against 9 of another); its own variance 1 / sum(w)
		 * belongs to the predictive variance of a new group's case
		 * (Gelman et al., Bayesian Data Analysis, 3rd ed., section 5.4:
		 * new group j~ has y ~ N(mu, tau^2 + sigma^2), mu known only to
		 * 1 / sum of the group precisions) */
		double sw = 0, swm = 0;

		for (int g = 0; g < n_groups_max; g++)
			if (cnt[g]) {
				double v = vb + ww / cnt[g], w = v > 0 ? 1.0 / v : 1.0;

				sw += w;
				swm += w * sum[g] / cnt[g];
			}
		if (sw > 0) {
			c = swm / sw;
			var_c = vb + ww > 0 ? 1.0 / sw : 0;
		}
	}
	sigma = sqrt(ww + vb + var_c);
	b->present = true;
	b->cases = n;
	{
		/* the quantiles of the lognormal band, by models/uncertainty's rule */
		struct model_band lb = { .log_bias = c, .log_sigma = sigma };

		b->p50 = model_band_factor(&lb, 0.5);
		b->p10 = model_band_factor(&lb, 0.1);
		b->p90 = model_band_factor(&lb, 0.9);
	}
	free(sum);
	free(cnt);
	return true;
}

static unsigned case_regimes(const struct val_case *vc)
{
	return vc->scenario ? model_regimes_of(vc->scenario, vc->oos_predicted_step_s) : 0;
}

static bool usable(const struct val_case *vc, const char *family)
{
	return vc->expressible && vc->has_oos && vc->oos_predicted_step_s > 0 && vc->measured_step_s > 0 &&
	       (!family || (vc->scenario && strcmp(vc->scenario->calibration.gpu_family, family) == 0));
}

/* The log ratios ln(measured / predicted) of regime r's usable cases and
 * their groups (indices into names), leaving out source group `skip`
 * (NULL: none); their count. */
static int residuals(const struct val_set *set, const unsigned *reg, const int *gidx, int r,
		     const char *skip, double *x, int *grp)
/* (reg[i] is 0 for the cases not usable for this family) */
{
	int n = 0;

	for (int i = 0; i < set->n_cases; i++) {
		const struct val_case *vc = &set->cases[i];

		if (!(reg[i] & (1u << r)) || (skip && strcmp(vc->source_group, skip) == 0))
			continue;
		x[n] = log(vc->measured_step_s / vc->oos_predicted_step_s);
		grp[n++] = gidx[i];
	}
	return n;
}

/* The prior of every regime's between-group variance: that of the
 * family's usable cases of all regimes, source group `skip` left out
 * (NULL: none), so that a nested band knows nothing of the case's own
 * source.  x and grp are scratch of n_cases entries. */
static double pooled_between_var(const struct val_set *set, const unsigned *reg, const int *gidx,
				 int n_groups, const char *skip, double *x, int *grp)
{
	int n = 0, groups;

	for (int i = 0; i < set->n_cases; i++) {
		const struct val_case *vc = &set->cases[i];

		if (!reg[i] || (skip && strcmp(vc->source_group, skip) == 0))
			continue;
		x[n] = log(vc->measured_step_s / vc->oos_predicted_step_s);
		grp[n++] = gidx[i];
	}
	return between_var(x, grp, n, n_groups, &groups);
}

void val_regime_bands(const struct val_set *set, const char *family, struct val_regime_stats *out)
{
	size_t n = (size_t)set->n_cases + 1;
	double *x = malloc(sizeof(double) * n);
	int *grp = malloc(sizeof(int) * n), *gidx = malloc(sizeof(int) * n);
	unsigned *reg = malloc(sizeof(unsigned) * n);
	/* per case: the widest nested band among its regimes (what predict shows) */
	double *shown_sigma = malloc(sizeof(double) * n);
	bool *shown_inside = malloc(sizeof(bool) * n);
	int n_groups = 0;

	memset(out, 0, sizeof(*out));
	out->shown_coverage = -1;
	for (size_t i = 0; shown_sigma && shown_inside && i < n; i++) {
		shown_sigma[i] = -1;
		shown_inside[i] = false;
	}
	for (int r = 0; r < REGIME_COUNT; r++)
		out->band[r].coverage = -1;
	if (!x || !grp || !gidx || !reg || !shown_sigma || !shown_inside)
		goto done;
	for (int i = 0; i < set->n_cases; i++) {
		int g = -1;

		reg[i] = usable(&set->cases[i], family) ? case_regimes(&set->cases[i]) : 0;
		for (int j = 0; j < i && g < 0; j++)
			if (strcmp(set->cases[j].source_group, set->cases[i].source_group) == 0)
				g = gidx[j];
		gidx[i] = g >= 0 ? g : n_groups++;
	}
	for (int r = 0; r < REGIME_COUNT; r++) {
		struct model_regime_band *b = &out->band[r];
		double vp = pooled_between_var(set, reg, gidx, n_groups, NULL, x, grp);
		int m = residuals(set, reg, gidx, r, NULL, x, grp), checked = 0, inside = 0;

		if (!val_band_of_log_ratios_prior(x, grp, m, n_groups, vp, b))
			continue;
		/* nested: each case against the band of the other groups */
		for (int i = 0; i < set->n_cases; i++) {
			const struct val_case *vc = &set->cases[i];
			struct model_regime_band nb;
			double v;

			if (!(reg[i] & (1u << r)))
				continue;
			vp = pooled_between_var(set, reg, gidx, n_groups, vc->source_group, x, grp);
			m = residuals(set, reg, gidx, r, vc->source_group, x, grp);
			memset(&nb, 0, sizeof(nb));
			if (!val_band_of_log_ratios_prior(x, grp, m, n_groups, vp, &nb))
				continue;
			v = vc->measured_step_s / vc->oos_predicted_step_s;
			checked++;
			inside += v >= nb.p10 && v <= nb.p90;
			if (log(nb.p90 / nb.p10) > shown_sigma[i]) {
				shown_sigma[i] = log(nb.p90 / nb.p10);
				shown_inside[i] = v >= nb.p10 && v <= nb.p90;
			}
		}
		out->covered_cases[r] = checked;
		b->coverage = checked ? (double)inside / checked : -1;
	}
	{
		int checked = 0, inside = 0;

		for (int i = 0; i < set->n_cases; i++)
			if (shown_sigma[i] >= 0) {
				checked++;
				inside += shown_inside[i];
			}
		out->shown_cases = checked;
		out->shown_coverage = checked ? (double)inside / checked : -1;
	}
done:
	free(shown_sigma);
	free(shown_inside);
	free(x);
	free(grp);
	free(gidx);
	free(reg);
}

cJSON *val_regime_bands_json(const struct val_set *set, const struct val_regime_stats *st,
			     const char *const *families, int n, const char *command,
			     const char *created)
{
	cJSON *root = cJSON_CreateObject(), *prov, *arr;

	if (!root)
		return NULL;
	cJSON_AddNumberToObject(root, "schema_version", 1);
	prov = cJSON_AddObjectToObject(root, "provenance");
	if (prov) {
		cJSON_AddStringToObject(prov, "command", command);
		cJSON_AddStringToObject(prov, "created", created);
		/* relative to the source tree when it is the shipped file */
		cJSON_AddStringToObject(prov, "cases", strstr(set->path, "tests/validation/")
					? strstr(set->path, "tests/validation/") : set->path);
		cJSON_AddStringToObject(prov, "method",
					"each case predicted with its source group left out of the fit of the "
					"parameters its profile marks as fitted by validate --fit "
					"(leave-one-source-group-out); per GPU family (and all pooled) and "
					"regime (a case counts in each regime it is in), ln(measured / "
					"predicted): P50 exp(mean), P10/P90 exp(mean -/+ 1.2816 sigma) with "
					"mean the precision-weighted mean of the group means and sigma^2 the "
					"within-group plus the between-group variance plus that mean's "
					"variance (one-way random effects over source groups, a new group's "
					"predictive spread); coverage: each case against the "
					"band of its regime's other source groups (nested, out of sample)");
	}
	arr = cJSON_AddArrayToObject(root, "regimes");
	for (int k = 0; arr && k < n; k++) {
		for (int r = 0; r < REGIME_COUNT; r++) {
			const struct model_regime_band *b = &st[k].band[r];
			cJSON *o;

			if (!b->present)
				continue;
			o = cfg_json_push(arr, cJSON_CreateObject());
			if (!o)
				break;
			cJSON_AddStringToObject(o, "family", families[k]);
			cJSON_AddStringToObject(o, "name", model_regime_name((enum model_regime)r));
			cJSON_AddNumberToObject(o, "cases", b->cases);
			cJSON_AddNumberToObject(o, "p10", b->p10);
			cJSON_AddNumberToObject(o, "p50", b->p50);
			cJSON_AddNumberToObject(o, "p90", b->p90);
			if (b->coverage >= 0) {
				cJSON_AddNumberToObject(o, "coverage_out_of_sample", b->coverage);
				cJSON_AddNumberToObject(o, "coverage_cases", st[k].covered_cases[r]);
			} else {
				cJSON_AddNullToObject(o, "coverage_out_of_sample");
			}
		}
	}
	/* what a prediction shows (the widest band of its regimes), nested */
	arr = cJSON_AddArrayToObject(root, "coverage_shown");
	for (int k = 0; arr && k < n; k++) {
		cJSON *o;

		if (st[k].shown_coverage < 0)
			continue;
		o = cfg_json_push(arr, cJSON_CreateObject());
		if (!o)
			break;
		cJSON_AddStringToObject(o, "family", families[k]);
		cJSON_AddNumberToObject(o, "cases", st[k].shown_cases);
		cJSON_AddNumberToObject(o, "coverage_out_of_sample", st[k].shown_coverage);
	}
	return root;
}

void val_bands_carry(cJSON *doc, const char *path, const char *prefix, bool matching)
{
	cJSON *arr = cJSON_GetObjectItemCaseSensitive(doc, "regimes"), *old = NULL, *item;
	FILE *f;
	char *text = NULL;
	long len;

	if (!cJSON_IsArray(arr) || !path || !(f = fopen(path, "rb")))
		return;
	if (fseek(f, 0, SEEK_END) == 0 && (len = ftell(f)) > 0 && len < (1L << 26) &&
	    fseek(f, 0, SEEK_SET) == 0 && (text = malloc((size_t)len + 1))) {
		if (fread(text, 1, (size_t)len, f) == (size_t)len) {
			text[len] = 0;
			old = cJSON_Parse(text);
		}
	}
	fclose(f);
	free(text);
	cJSON_ArrayForEach(item, cJSON_GetObjectItemCaseSensitive(old, "regimes")) {
		const cJSON *name = cJSON_GetObjectItemCaseSensitive(item, "name");
		cJSON *copy;

		if (!cJSON_IsString(name) ||
		    (strncmp(name->valuestring, prefix, strlen(prefix)) == 0) != matching)
			continue;
		if ((copy = cJSON_Duplicate(item, true)) && !cJSON_AddItemToArray(arr, copy))
			cJSON_Delete(copy);
	}
	if (!matching) {
		/* the other writer's provenance stays with its entries */
		cJSON *p = cJSON_GetObjectItemCaseSensitive(old, "provenance");

		if (p && !cJSON_GetObjectItemCaseSensitive(doc, "provenance"))
			cJSON_AddItemToObject(doc, "provenance", cJSON_Duplicate(p, true));
		p = cJSON_GetObjectItemCaseSensitive(old, "coverage_shown");
		if (p && !cJSON_GetObjectItemCaseSensitive(doc, "coverage_shown"))
			cJSON_AddItemToObject(doc, "coverage_shown", cJSON_Duplicate(p, true));
	}
	cJSON_Delete(old);
}
