/* rpt_placement.c: placements side by side (see rpt_placement.h). */
#include "rpt_placement.h"

#include <string.h>

#include "../sim/config/cfg_json.h"
#include "../sim/config/rpt_num.h"

static void group_cell(char *buf, size_t n, const struct pl_group *g)
{
	if (!g->inter)
		snprintf(buf, n, "nvlink");
	else if (g->spine_levels == 0)
		snprintf(buf, n, "leaf");
	else
		snprintf(buf, n, "+%d lvl %3.0f%%", g->spine_levels, 100.0 * g->ring_leave);
}

void rpt_placement_text(FILE *out, const struct scenario *sc, const struct pl_eval *e, int n)
{
	bool des = n > 0 && e[0].des;

	fprintf(out, "placement   %s\n", sc->name);
	fprintf(out, "cluster     %d x %s, fabric %s (%d nodes per leaf, %.1f:1 leaf-to-spine)\n",
		sc->cluster.nodes, sc->cluster.instance.name, sc->cluster.fabric.name,
		sc->cluster.fabric.nodes_per_leaf, sc->cluster.fabric.leaf_spine_oversubscription > 1
		? sc->cluster.fabric.leaf_spine_oversubscription : 1.0);
	fprintf(out, "\n%-10s %12s %9s", "", "analytic s", "cost");
	if (des)
		fprintf(out, " %12s %9s", "des s", "cost");
	fprintf(out, "  who pays (analytic parts against packed)\n");
	for (int i = 0; i < n; i++) {
		fprintf(out, "%-10s %12.4f %+8.2f%%", e[i].label, e[i].an.step_time_s, 100.0 * e[i].cost_rel);
		if (des)
			fprintf(out, " %12.4f %+8.2f%%", e[i].des_step_s, 100.0 * e[i].des_cost_rel);
		fprintf(out, "  %s\n", i == 0 ? "(the base)" : e[i].pays);
	}
	if (n == 0)
		return;
	fprintf(out, "\nwhat each group crosses (switch levels above the leaves, share of ring hops leaving a leaf)\n");
	fprintf(out, "%-10s", "");
	for (int k = 0; k < e[0].n_groups; k++) {
		char h[40];

		snprintf(h, sizeof(h), "%s %dx%d", e[0].g[k].name, e[0].g[k].ranks, e[0].g[k].stride);
		fprintf(out, " %14s", h);
	}
	fprintf(out, "\n");
	for (int i = 0; i < n; i++) {
		fprintf(out, "%-10s", e[i].label);
		for (int k = 0; k < e[i].n_groups; k++) {
			char c[32];

			group_cell(c, sizeof(c), &e[i].g[k]);
			fprintf(out, " %14s", c);
		}
		fprintf(out, "\n");
	}
	fprintf(out, "\n");
	for (int i = 0; i < n; i++)
		fprintf(out, "%-10s %s\n", e[i].label, e[i].source);
}

static cJSON *groups_json(const struct pl_eval *e)
{
	cJSON *a = cJSON_CreateArray();

	for (int k = 0; a && k < e->n_groups; k++) {
		const struct pl_group *g = &e->g[k];
		cJSON *o = cfg_json_push(a, cJSON_CreateObject());

		if (!o) {
			cJSON_Delete(a);
			return NULL;
		}
		cJSON_AddStringToObject(o, "group", g->name);
		cJSON_AddNumberToObject(o, "ranks", g->ranks);
		cJSON_AddNumberToObject(o, "stride", g->stride);
		cJSON_AddBoolToObject(o, "inter", g->inter);
		cJSON_AddNumberToObject(o, "spine_levels", g->spine_levels);
		rpt_json_add_number(o, "ring_leave", g->ring_leave);
		rpt_json_add_number(o, "a2a_leave", g->a2a_leave);
		rpt_json_add_number(o, "oversubscription", g->oversubscription);
	}
	return a;
}

static cJSON *eval_json(const struct pl_eval *e, bool base)
{
	cJSON *o = cJSON_CreateObject(), *g;

	if (!o)
		return NULL;
	cJSON_AddStringToObject(o, "label", e->label);
	cJSON_AddStringToObject(o, "source", e->source);
	rpt_json_add_number(o, "step_time_s", e->an.step_time_s);
	rpt_json_add_number(o, "cost_s", e->cost_s);
	rpt_json_add_number(o, "cost_rel", e->cost_rel);
	cJSON_AddStringToObject(o, "pays", base ? "" : e->pays);
	if (e->des) {
		rpt_json_add_number(o, "des_step_time_s", e->des_step_s);
		rpt_json_add_number(o, "des_cost_s", e->des_cost_s);
		rpt_json_add_number(o, "des_cost_rel", e->des_cost_rel);
	}
	if (!(g = groups_json(e)) || !cJSON_AddItemToObject(o, "groups", g)) {
		cJSON_Delete(g);
		cJSON_Delete(o);
		return NULL;
	}
	return o;
}

cJSON *rpt_placement_json(const struct scenario *sc, const struct pl_eval *e, int n)
{
	cJSON *root = cJSON_CreateObject(), *a = cJSON_CreateArray();

	if (!root || !a || !cJSON_AddItemToObject(root, "placements", a)) {
		cJSON_Delete(root);
		cJSON_Delete(a);
		return NULL;
	}
	cJSON_AddStringToObject(root, "scenario", sc->name);
	cJSON_AddNumberToObject(root, "nodes", sc->cluster.nodes);
	cJSON_AddStringToObject(root, "fabric", sc->cluster.fabric.name);
	for (int i = 0; i < n; i++) {
		cJSON *o = cfg_json_push(a, eval_json(&e[i], i == 0));

		if (!o) {
			cJSON_Delete(root);
			return NULL;
		}
	}
	return root;
}

void rpt_placement_line(FILE *out, const struct pl_eval *e)
{
	fprintf(out, "placement   %s: %+.4f s (%+.2f %%) against packed; pays: %s\n", e->source, e->cost_s,
		100.0 * e->cost_rel, e->pays);
}

cJSON *rpt_placement_json_one(const struct pl_eval *e)
{
	cJSON *o = cJSON_CreateObject(), *g;

	if (!o)
		return NULL;
	cJSON_AddStringToObject(o, "source", e->source);
	rpt_json_add_number(o, "packed_step_time_s", e->an.step_time_s - e->cost_s);
	rpt_json_add_number(o, "cost_s", e->cost_s);
	rpt_json_add_number(o, "cost_rel", e->cost_rel);
	cJSON_AddStringToObject(o, "pays", e->pays);
	if (!(g = groups_json(e)) || !cJSON_AddItemToObject(o, "groups", g)) {
		cJSON_Delete(g);
		cJSON_Delete(o);
		return NULL;
	}
	return o;
}
