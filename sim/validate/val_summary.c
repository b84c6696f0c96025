/* val_summary.c: the validation summary (see val_summary.h): the rows
 * the renderers print and the CI gate reads. */
#include "val_summary.h"

#include <string.h>

static bool by_group(const struct val_case *vc, const void *arg)
{
	return strcmp(vc->source_group, arg) == 0;
}

static bool by_gpu(const struct val_case *vc, const void *arg)
{
	return strcmp(vc->gpu, arg) == 0;
}

int val_distinct_add(const char **names, int n, int max, const char *v)
{
	for (int j = 0; j < n; j++)
		if (strcmp(names[j], v) == 0)
			return n;
	if (n < max)
		names[n++] = v;
	return n;
}

/* Distinct values of a field over all cases, in first-seen order. */
static int distinct(const struct val_set *set, bool group, const char **out, int max)
{
	int n = 0;

	for (int i = 0; i < set->n_cases; i++)
		n = val_distinct_add(out, n, max, group ? set->cases[i].source_group : set->cases[i].gpu);
	return n;
}

static int count_all(const struct val_set *set, bool (*f)(const struct val_case *, const void *),
		     const void *arg)
{
	int n = 0;
	for (int i = 0; i < set->n_cases; i++)
		if (!f || f(&set->cases[i], arg))
			n++;
	return n;
}

static bool by_family(const struct val_case *vc, const void *arg)
{
	return vc->scenario && strcmp(vc->scenario->calibration.gpu_family, arg) == 0;
}


void val_stats_oos(const struct val_set *set, bool (*f)(const struct val_case *, const void *),
		   const void *arg, struct val_stats *out)
{
	val_stats_select(set, f, arg, true, out);
}

bool val_any_oos(const struct val_set *set)
{
	for (int i = 0; i < set->n_cases; i++)
		if (set->cases[i].has_oos)
			return true;
	return false;
}

int val_summary_rows(const struct val_set *set, struct val_summary_row *rows, int max)
{
	const char *names[64];
	int n = 0, k;

	rows[n].kind = "all";
	rows[n].name = "all";
	rows[n].total = set->n_cases;
	val_stats(set, NULL, NULL, &rows[n].st);
	n++;
	k = distinct(set, true, names, 64);
	for (int i = 0; i < k && n < max; i++, n++) {
		rows[n].kind = "group";
		rows[n].name = names[i];
		rows[n].total = count_all(set, by_group, names[i]);
		val_stats(set, by_group, names[i], &rows[n].st);
	}
	k = distinct(set, false, names, 64);
	for (int i = 0; i < k && n < max; i++, n++) {
		rows[n].kind = "gpu";
		rows[n].name = names[i];
		rows[n].total = count_all(set, by_gpu, names[i]);
		val_stats(set, by_gpu, names[i], &rows[n].st);
	}
	/* GPU families (the profiles' gpu_family), when out-of-sample errors
	 * exist: the granularity of the fits */
	k = 0;
	for (int i = 0; val_any_oos(set) && i < set->n_cases; i++) {
		const struct val_case *vc = &set->cases[i];
		bool seen = false;

		if (!vc->scenario)
			continue;
		for (int j = 0; j < k; j++)
			seen |= strcmp(names[j], vc->scenario->calibration.gpu_family) == 0;
		if (!seen && k < 64)
			names[k++] = vc->scenario->calibration.gpu_family;
	}
	for (int i = 0; i < k && n < max; i++, n++) {
		rows[n].kind = "family";
		rows[n].name = names[i];
		rows[n].total = count_all(set, by_family, names[i]);
		val_stats(set, by_family, names[i], &rows[n].st);
	}
	for (int i = 0; i < n; i++) {
		if (strcmp(rows[i].kind, "all") == 0)
			val_stats_oos(set, NULL, NULL, &rows[i].oos);
		else
			val_stats_oos(set, strcmp(rows[i].kind, "group") == 0 ? by_group :
				       strcmp(rows[i].kind, "gpu") == 0 ? by_gpu : by_family,
				  rows[i].name, &rows[i].oos);
	}
	return n;
}

