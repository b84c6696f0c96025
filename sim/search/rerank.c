/* rerank.c: the best layouts of a search re-timed by the discrete-event
 * engine (see rerank.h). */
#include "rerank.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../plan/cost.h"

/* Row `row` takes the DES result r (the scenario of the layout: lsc). */
static void take_des_time(const struct scenario *lsc, const struct search_opts *so, double usd_per_h,
			  const struct step_result *r, struct search_row *row)
{
	struct plan_train tr;
	double usd_mtok = usd_per_h / 3600.0 / r->tokens_per_s * 1e6;

	memset(&tr, 0, sizeof(tr));
	if (so->tokens > 0)
		plan_time_to_train(lsc, r, so->tokens, usd_per_h, &tr);
	row->step_time_s = r->step_time_s;
	row->tokens_per_s = r->tokens_per_s;
	row->mfu = r->mfu;
	memcpy(row->part_s, r->part_s, sizeof(row->part_s));
	row->bottleneck = r->bottleneck;
	row->bubble_fraction = r->bubble_fraction;
	row->train = tr;
	row->usd_per_mtoken = usd_mtok;
	row->score = search_score(so->objective, r->tokens_per_s,
				  so->tokens > 0 ? tr.usd_per_mtoken : usd_mtok, tr.time_s);
}

enum sc_status search_rerank_des(const struct scenario *sc, const struct search_opts *so,
				 const struct des_options *dopt, struct search_result *res, int k,
				 struct search_rerank_note *notes, int *n_notes, struct sc_error *err)
{
	int n = k < res->n_rows ? k : res->n_rows, kept = res->n_rows;
	struct scenario *scs = calloc((size_t)n + 1, sizeof(*scs));
	const struct scenario **ptr = calloc((size_t)n + 1, sizeof(*ptr));
	struct des_result *dr = calloc((size_t)n + 1, sizeof(*dr));
	enum sc_status *st = calloc((size_t)n + 1, sizeof(*st));
	struct sc_error *errs = calloc((size_t)n + 1, sizeof(*errs));
	double usd_per_h = plan_cluster_usd_per_h(&sc->cluster.instance, sc->cluster.nodes, so->pricing);
	enum sc_status ret = SC_OK;

	*n_notes = 0;
	if (!scs || !ptr || !dr || !st || !errs) {
		ret = sc_error_set(err, SC_ENOMEM, NULL, NULL, "out of memory");
		goto out;
	}
	for (int i = 0; i < n; i++) {
		search_row_scenario(sc, &res->rows[i], &scs[i]);
		ptr[i] = &scs[i];
	}
	des_predict_many(ptr, n, dopt, 0, dr, st, errs);
	for (int i = 0; i < n; i++) {
		struct search_row *row = &res->rows[i];
		struct search_rerank_note *note = &notes[(*n_notes)++];

		memset(note, 0, sizeof(*note));
		note->index = row->index;
		note->analytic_step_s = row->step_time_s;
		if (st[i] != SC_OK) {
			snprintf(note->why, sizeof(note->why), "%s", errs[i].message);
			continue;
		}
		note->retimed = true;
		note->des_step_s = dr[i].step.step_time_s;
		note->estimate = dr[i].stats.estimate;
		take_des_time(&scs[i], so, usd_per_h, &dr[i].step, row);
		des_result_free(&dr[i]);
	}
	res->n_rows = n;
	search_sort(res);
	res->n_rows = kept;
out:
	free(scs);
	free(ptr);
	free(dr);
	free(st);
	free(errs);
	return ret;
}
