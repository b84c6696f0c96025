/* placement_eval.c: a placement's cost, and the choice among free nodes (see placement_eval.h). */
#include "placement_eval.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../models/layout.h"
#include "../../models/network.h"

static const struct {
	enum layout_group lg;
	const char *name;
} pl_groups[PL_MAX_GROUPS] = {
	{ LG_DP, "dp" }, { LG_EDP, "edp" }, { LG_PP, "pp" }, { LG_EP, "ep" }, { LG_CP, "cp" }, { LG_TP, "tp" },
};

enum sc_status pl_evaluate(const struct scenario *sc, const struct placement *pl, const char *label,
			   bool des, const struct des_options *dopt, struct pl_eval *out,
			   struct sc_error *err)
{
	static struct scenario s; /* large: not on the stack */
	static struct des_result dr;
	struct layout_info li;
	enum sc_status st;

	memset(out, 0, sizeof(*out));
	s = *sc;
	s.cluster.placement = pl;
	snprintf(out->label, sizeof(out->label), "%s", label);
	snprintf(out->source, sizeof(out->source), "%s", pl ? pl->source : "packed (consecutive nodes fill leaves)");
	if (pl && pl->nodes != sc->cluster.nodes)
		return sc_error_set(err, SC_EINVAL, NULL, "/cluster/placement",
				    "the placement has %d nodes, the cluster %d", pl->nodes, sc->cluster.nodes);
	if ((st = sim_step_predict(&s, &out->an, err)) != SC_OK)
		return st;
	if ((st = layout_derive(&s, NULL, &li, err)) != SC_OK)
		return st;
	for (int i = 0; i < PL_MAX_GROUPS; i++) {
		const struct layout_group_def *gi = &li.g[pl_groups[i].lg];
		struct net_span sp;
		struct pl_group *g;

		if (gi->ranks <= 1 || (pl_groups[i].lg == LG_EDP && !model_is_moe(&s.model)))
			continue;
		sp = layout_span(&s.cluster, &li, pl_groups[i].lg);
		g = &out->g[out->n_groups++];
		g->name = pl_groups[i].name;
		g->ranks = gi->ranks;
		g->stride = gi->stride;
		g->inter = sp.inter;
		g->spine_levels = sp.placed ? sp.spine_levels : sp.crosses_spine ? 1 : 0;
		g->ring_leave = sp.placed ? sp.ring_leave
				: sp.crosses_spine ? 1.0 / (sp.leaf_domains > 1 ? sp.leaf_domains : 1) : 0;
		g->a2a_leave = sp.placed ? sp.a2a_leave
			       : sp.crosses_spine && sp.domains > 1 ? (double)(sp.domains - sp.leaf_domains) / (sp.domains - 1)
			       : 0;
		g->oversubscription = sp.oversubscription;
	}
	if (des) {
		if ((st = des_predict(&s, dopt, &dr, err)) != SC_OK)
			return st;
		out->des = true;
		out->des_step_s = dr.step.step_time_s;
		memcpy(out->des_part_s, dr.step.part_s, sizeof(out->des_part_s));
		des_result_free(&dr);
	}
	return SC_OK;
}

void pl_eval_cost(struct pl_eval *e, const struct pl_eval *base)
{
	static const struct {
		enum step_part p;
		const char *name;
	} parts[] = { { PART_DP_COMM, "dp" }, { PART_PP_COMM, "pp" }, { PART_EP_COMM, "ep" },
		      { PART_CP_COMM, "cp" }, { PART_TP_COMM, "tp" }, { PART_BUBBLE, "bubble" } };
	size_t n = 0;

	e->cost_s = e->an.step_time_s - base->an.step_time_s;
	e->cost_rel = base->an.step_time_s > 0 ? e->cost_s / base->an.step_time_s : 0;
	if (e->des && base->des) {
		e->des_cost_s = e->des_step_s - base->des_step_s;
		e->des_cost_rel = base->des_step_s > 0 ? e->des_cost_s / base->des_step_s : 0;
	}
	e->pays[0] = '\0';
	for (size_t i = 0; i < sizeof(parts) / sizeof(parts[0]); i++) {
		double d = e->an.part_s[parts[i].p] - base->an.part_s[parts[i].p];

		/* a part pays when it moves by at least 1 ms or 0.05 % of the step */
		if (fabs(d) >= 1e-3 || fabs(d) >= 5e-4 * base->an.step_time_s)
			n += (size_t)snprintf(e->pays + n, n < sizeof(e->pays) ? sizeof(e->pays) - n : 0,
					      "%s%s %+.3f s", n ? ", " : "", parts[i].name, d);
		if (n >= sizeof(e->pays))
			n = sizeof(e->pays) - 1;
	}
	if (!e->pays[0])
		snprintf(e->pays, sizeof(e->pays), "nothing");
}

const char *pl_choice_name(enum pl_choice c)
{
	switch (c) {
	case PL_CHOOSE_AWARE: return "topology-aware";
	case PL_CHOOSE_FILE_ORDER: return "file order";
	case PL_CHOOSE_SPREAD: return "spread";
	case PL_CHOOSE_COUNT: break;
	}
	return "?";
}

/* ---- choosing nodes ------------------------------------------------------------------ */

struct chooser {
	const struct placement *pl;
	int *out;
	int n_out;
};

static int sw_of(const struct placement *pl, int node, int level)
{
	return pl->sw[node * PLACEMENT_LEVELS + level];
}

/* Take k of the nodes set[0..n) (file order), smallest subtree first:
 * at `level`, the group of one switch that holds k with the fewest spare
 * nodes (best fit); else whole groups, largest first, and the rest from
 * the best-fitting remaining group, one level down.  Consecutive picks
 * share switches, so consecutive ranks do. */
static void take(struct chooser *c, const int *set, int n, int k, int level)
{
	int *ids, *cnt, ng = 0;

	if (k <= 0)
		return;
	if (level < 0) {
		for (int i = 0; i < n && k > 0; i++, k--)
			c->out[c->n_out++] = set[i];
		return;
	}
	ids = malloc((size_t)n * sizeof(*ids));
	cnt = calloc((size_t)n, sizeof(*cnt));
	if (!ids || !cnt) {
		free(ids);
		free(cnt);
		for (int i = 0; i < n && k > 0; i++, k--)
			c->out[c->n_out++] = set[i];
		return;
	}
	/* the distinct switches of this level in order of first use */
	for (int i = 0; i < n; i++) {
		int s = sw_of(c->pl, set[i], level), j;

		for (j = 0; j < ng && ids[j] != s; j++)
			;
		if (j == ng)
			ids[ng++] = s;
		cnt[j]++;
	}
	while (k > 0 && ng > 0) {
		int best = -1, big = 0;
		int *sub;
		int m = 0;

		for (int j = 0; j < ng; j++) {
			if (cnt[j] >= k && (best < 0 || cnt[j] < cnt[best]))
				best = j;
			if (cnt[j] > cnt[big])
				big = j;
		}
		if (best < 0)
			best = big;
		sub = malloc((size_t)cnt[best] * sizeof(*sub));
		if (!sub)
			break;
		for (int i = 0; i < n; i++)
			if (sw_of(c->pl, set[i], level) == ids[best])
				sub[m++] = set[i];
		{
			int before = c->n_out;

			take(c, sub, m, k < m ? k : m, level - 1);
			k -= c->n_out - before;
		}
		free(sub);
		ids[best] = ids[ng - 1];
		cnt[best] = cnt[ng - 1];
		ng--;
	}
	free(ids);
	free(cnt);
}

enum sc_status pl_choose(const struct placement *fr, int nodes, enum pl_choice how, struct placement *out,
			 struct sc_error *err)
{
	int *pick, *all;
	const char **keys, **names;
	char (*buf)[16];
	enum sc_status st;
	struct chooser c;
	char src[PLACEMENT_SOURCE_MAX];

	memset(out, 0, sizeof(*out));
	if (nodes < 1 || nodes > fr->nodes)
		return sc_error_set(err, SC_EINVAL, NULL, NULL, "the job needs %d nodes, %d are free", nodes,
				    fr->nodes);
	pick = malloc((size_t)fr->nodes * sizeof(*pick));
	all = malloc((size_t)fr->nodes * sizeof(*all));
	keys = malloc((size_t)nodes * PLACEMENT_LEVELS * sizeof(*keys));
	names = malloc((size_t)nodes * sizeof(*names));
	buf = malloc((size_t)nodes * PLACEMENT_LEVELS * sizeof(*buf));
	if (!pick || !all || !keys || !names || !buf) {
		st = sc_error_set(err, SC_ENOMEM, NULL, NULL, "out of memory choosing nodes");
		goto done;
	}
	for (int i = 0; i < fr->nodes; i++)
		all[i] = i;
	c.pl = fr;
	c.out = pick;
	c.n_out = 0;
	if (how == PL_CHOOSE_AWARE) {
		take(&c, all, fr->nodes, nodes, PLACEMENT_LEVELS - 1);
	} else if (how == PL_CHOOSE_FILE_ORDER) {
		for (int i = 0; i < nodes; i++)
			pick[c.n_out++] = i;
	} else {
		/* round-robin over the leaves, each in file order */
		int *next = calloc((size_t)fr->n_sw[0], sizeof(*next));

		if (!next) {
			st = sc_error_set(err, SC_ENOMEM, NULL, NULL, "out of memory choosing nodes");
			goto done;
		}
		while (c.n_out < nodes) {
			for (int l = 0; l < fr->n_sw[0] && c.n_out < nodes; l++) {
				int i = next[l];

				while (i < fr->nodes && sw_of(fr, i, 0) != l)
					i++;
				if (i < fr->nodes) {
					pick[c.n_out++] = i;
					next[l] = i + 1;
				} else {
					next[l] = fr->nodes;
				}
			}
		}
		free(next);
	}
	for (int k = 0; k < nodes; k++) {
		for (int l = 0; l < PLACEMENT_LEVELS; l++) {
			snprintf(buf[k * PLACEMENT_LEVELS + l], sizeof(buf[0]), "%d", sw_of(fr, pick[k], l));
			keys[k * PLACEMENT_LEVELS + l] = buf[k * PLACEMENT_LEVELS + l];
		}
		names[k] = fr->name ? fr->name[pick[k]] : "";
	}
	snprintf(src, sizeof(src), "%s choice of %d of %d free nodes", pl_choice_name(how), nodes, fr->nodes);
	st = placement_build(out, nodes, keys, fr->name ? names : NULL, fr->leaf_capacity, src, err);
done:
	free(pick);
	free(all);
	free(keys);
	free(names);
	free(buf);
	return st;
}
