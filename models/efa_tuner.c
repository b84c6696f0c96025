/* efa_tuner.c: the aws-ofi-nccl region tuner (see efa_tuner.h). */
#include "efa_tuner.h"

#include <math.h>
#include <stddef.h>

#include "units.h"

static double lg(double v)
{
	return log2(v > 0 ? v : 1e-6);
}

/* On segment a-b (collinear and within its box), with a small tolerance
 * for the log2 rounding of the vertices. */
static bool on_segment(const double *a, const double *b, double x, double y)
{
	double cross = (b[0] - a[0]) * (y - a[1]) - (b[1] - a[1]) * (x - a[0]);

	return fabs(cross) < 1e-9 && x >= fmin(a[0], b[0]) - 1e-12 && x <= fmax(a[0], b[0]) + 1e-12 &&
	       y >= fmin(a[1], b[1]) - 1e-12 && y <= fmax(a[1], b[1]) + 1e-12;
}

/* Inside or on the edge (the plugin's is_inside_region: ray casting that
 * counts edge points as inside). */
static bool inside(const struct efa_region *r, double x, double y)
{
	bool in = false;

	for (int i = 0, j = r->n - 1; i < r->n; j = i++) {
		const double *a = r->v[i], *b = r->v[j];

		if (on_segment(a, b, x, y))
			return true;
		if ((a[1] > y) != (b[1] > y) && x < (b[0] - a[0]) * (y - a[1]) / (b[1] - a[1]) + a[0])
			in = !in;
	}
	return in;
}

const struct efa_region_table *efa_tuner_table(int platform, enum coll_op op, int ranks, int nodes)
{
	if (platform == EFA_TUNER_NONE || nodes <= 2 || ranks < 1)
		return NULL;
	for (int t = 0; t < efa_region_table_count; t++) {
		const struct efa_region_table *tb = &efa_region_tables[t];

		if (tb->platform == platform && tb->op == op && ranks == tb->ranks_per_node * nodes)
			return tb;
	}
	return NULL;
}

const struct efa_region *efa_tuner_choice_in(const struct efa_region_table *tb, int platform,
					     enum coll_op op, double bytes, int ranks, int nodes,
					     const char **table)
{
	static const double p5_quirk_v[][2] = { { 0, 0 } };
	static const struct efa_region p5_quirk = { "NVLS_TREE", "SIMPLE", EFA_ALGO_NVLS_TREE,
						    EFA_PROTO_SIMPLE, 1, p5_quirk_v };
	double x, y;

	if (table)
		*table = NULL;
	if (platform == EFA_TUNER_NONE || nodes <= 2 || ranks < 1)
		return NULL;
	/* nccl_ofi_model.cpp: the P5 16-node, 128-rank, 3-5 GiB rule */
	if (platform == EFA_TUNER_P5_P5E && op == COLL_ALL_REDUCE && nodes == 16 && ranks == 128 &&
	    bytes > 3.0 * SC_GiB_BYTES && bytes <= 5.0 * SC_GiB_BYTES) {
		if (table)
			*table = "model-p5-quirk";
		return &p5_quirk;
	}
	if (!tb)
		return NULL;
	x = lg(bytes);
	y = lg(ranks);
	for (int i = 0; i < tb->n; i++)
		if (inside(&tb->regions[i], x, y)) {
			if (table)
				*table = tb->id;
			return &tb->regions[i];
		}
	return NULL;
}

const struct efa_region *efa_tuner_choice(int platform, enum coll_op op, double bytes, int ranks,
					  int nodes, const char **table)
{
	return efa_tuner_choice_in(efa_tuner_table(platform, op, ranks, nodes), platform, op, bytes,
				   ranks, nodes, table);
}
