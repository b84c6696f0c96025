/* mem_advice.c: re-predict a scenario with one memory-saving change each
 * (see mem_advice.h). */
#include "mem_advice.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../config/scenario_load.h"

static void try_option(const struct scenario *sc, const char *change, struct mem_fit_option *out,
		       int *n, int max)
{
	struct step_result r;
	struct sc_error err;

	if (*n >= max)
		return;
	sc_error_clear(&err);
	if (scenario_check(sc, NULL, &err) != SC_OK || sim_step_predict(sc, &r, &err) != SC_OK)
		return;
	snprintf(out[*n].change, sizeof(out[*n].change), "%s", change);
	out[*n].need_bytes = r.mem_total_bytes;
	out[*n].step_time_s = r.step_time_s;
	out[*n].fits = !r.oom;
	(*n)++;
}

static int cmp_option(const void *a, const void *b)
{
	const struct mem_fit_option *x = a, *y = b;

	if (x->fits != y->fits)
		return x->fits ? -1 : 1;
	if (x->fits)
		return (x->step_time_s > y->step_time_s) - (x->step_time_s < y->step_time_s);
	return (x->need_bytes > y->need_bytes) - (x->need_bytes < y->need_bytes);
}

int sim_mem_fit_advice(const struct scenario *sc, const struct step_result *r,
		       struct mem_fit_option *out, int max)
{
	struct scenario *v = malloc(sizeof(*v));
	const struct layout *l = &sc->layout;
	char what[96];
	int n = 0;

	(void)r;
	if (!v)
		return 0;
	if (sc->training.recompute != RECOMPUTE_FULL) {
		*v = *sc;
		v->training.recompute = RECOMPUTE_FULL;
		try_option(v, "recompute full", out, &n, max);
	}
	if (l->zero_stage < 3) {
		*v = *sc;
		v->layout.zero_stage = 3;
		v->layout.fsdp = true;
		try_option(v, "zero_stage 3 (FSDP)", out, &n, max);
	}
	if (sc->training.micro_batch_seqs > 1) {
		*v = *sc;
		v->training.micro_batch_seqs = sc->training.micro_batch_seqs / 2;
		snprintf(what, sizeof(what), "micro_batch_seqs %d", v->training.micro_batch_seqs);
		try_option(v, what, out, &n, max);
	}
	if (l->dp % 2 == 0) {
		*v = *sc;
		v->layout.tp = l->tp * 2;
		v->layout.dp = l->dp / 2;
		snprintf(what, sizeof(what), "tp %d dp %d", v->layout.tp, v->layout.dp);
		try_option(v, what, out, &n, max);
		*v = *sc;
		v->layout.pp = l->pp * 2;
		v->layout.dp = l->dp / 2;
		snprintf(what, sizeof(what), "pp %d dp %d", v->layout.pp, v->layout.dp);
		try_option(v, what, out, &n, max);
	}
	if (sc->training.moments_dtype != DTYPE_BF16 && sc->training.optimizer == OPT_ADAM) {
		*v = *sc;
		v->training.moments_dtype = DTYPE_BF16;
		try_option(v, "moments_dtype bf16", out, &n, max);
	}
	free(v);
	qsort(out, (size_t)n, sizeof(*out), cmp_option);
	return n;
}
