/* placement.c: node-to-switch maps and what rank groups cross on them (see placement.h). */
#include "placement.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "limits.h"

const char *const placement_gen_names[] = SC_ENUM_NAMES(PLACEMENT_GEN_LIST);

const char *placement_gen_name(enum placement_gen g)
{
	return (unsigned)g < sizeof(placement_gen_names) / sizeof(placement_gen_names[0]) - 1 ? placement_gen_names[g]
											  : "?";
}

void placement_free(struct placement *pl)
{
	if (!pl)
		return;
	free(pl->sw);
	free(pl->name);
	pl->sw = NULL;
	pl->name = NULL;
	pl->nodes = 0;
}

/* ---- building from switch keys ----------------------------------------------------- */

/* Interning of one level's keys to dense ids: open addressing on FNV-1a. */
struct intern {
	const char **key;
	int *id;
	size_t cap;
	int n;
};

static uint64_t fnv1a(const char *s)
{
	uint64_t h = 1469598103934665603ull;

	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 1099511628211ull;
	return h;
}

static int intern_id(struct intern *t, const char *k)
{
	size_t i;

	if (!k)
		k = "";
	for (i = fnv1a(k) & (t->cap - 1); t->key[i]; i = (i + 1) & (t->cap - 1))
		if (strcmp(t->key[i], k) == 0)
			return t->id[i];
	t->key[i] = k;
	t->id[i] = t->n;
	return t->n++;
}

enum sc_status placement_build(struct placement *pl, int nodes, const char *const *keys,
			       const char *const *names, int leaf_capacity, const char *source,
			       struct sc_error *err)
{
	struct intern t;
	int *count = NULL, most = 0;

	memset(pl, 0, sizeof(*pl));
	if (nodes < 1 || nodes > SC_MAX_NODES)
		return sc_error_set(err, SC_EINVAL, NULL, NULL, "a placement needs 1 to %d nodes, not %d",
				    SC_MAX_NODES, nodes);
	memset(&t, 0, sizeof(t));
	for (t.cap = 16; t.cap < 2 * (size_t)nodes; t.cap *= 2)
		;
	t.key = malloc(t.cap * sizeof(*t.key));
	t.id = malloc(t.cap * sizeof(*t.id));
	pl->sw = malloc((size_t)nodes * PLACEMENT_LEVELS * sizeof(*pl->sw));
	if (names)
		pl->name = calloc((size_t)nodes, sizeof(*pl->name));
	if (!t.key || !t.id || !pl->sw || (names && !pl->name))
		goto oom;
	pl->nodes = nodes;
	for (int l = 0; l < PLACEMENT_LEVELS; l++) {
		memset(t.key, 0, t.cap * sizeof(*t.key));
		t.n = 0;
		for (int i = 0; i < nodes; i++)
			pl->sw[i * PLACEMENT_LEVELS + l] = intern_id(&t, keys[i * PLACEMENT_LEVELS + l]);
		pl->n_sw[l] = t.n;
	}
	count = calloc((size_t)pl->n_sw[0], sizeof(*count));
	if (!count)
		goto oom;
	for (int i = 0; i < nodes; i++) {
		int c = ++count[pl->sw[i * PLACEMENT_LEVELS]];

		most = c > most ? c : most;
	}
	free(count);
	pl->leaf_capacity = leaf_capacity > most ? leaf_capacity : most;
	for (int i = 0; names && i < nodes; i++)
		snprintf(pl->name[i], PLACEMENT_NAME_MAX, "%s", names[i] ? names[i] : "");
	snprintf(pl->source, sizeof(pl->source), "%s", source ? source : "");
	free(t.key);
	free(t.id);
	return SC_OK;
oom:
	free(t.key);
	free(t.id);
	placement_free(pl);
	return sc_error_set(err, SC_ENOMEM, NULL, NULL, "out of memory for a placement of %d nodes", nodes);
}

enum sc_status placement_subset(const struct placement *src, const int *idx, int n, const char *source,
				struct placement *out, struct sc_error *err)
{
	const char **keys = malloc((size_t)(n > 0 ? n : 1) * PLACEMENT_LEVELS * sizeof(*keys));
	const char **names = malloc((size_t)(n > 0 ? n : 1) * sizeof(*names));
	char (*buf)[12] = malloc((size_t)(n > 0 ? n : 1) * PLACEMENT_LEVELS * sizeof(*buf));
	enum sc_status st;

	memset(out, 0, sizeof(*out));
	if (!keys || !names || !buf) {
		st = sc_error_set(err, SC_ENOMEM, NULL, NULL, "out of memory for a placement");
		goto done;
	}
	for (int k = 0; k < n; k++) {
		for (int l = 0; l < PLACEMENT_LEVELS; l++) {
			snprintf(buf[k * PLACEMENT_LEVELS + l], sizeof(buf[0]), "%d",
				 src->sw[idx[k] * PLACEMENT_LEVELS + l]);
			keys[k * PLACEMENT_LEVELS + l] = buf[k * PLACEMENT_LEVELS + l];
		}
		names[k] = src->name ? src->name[idx[k]] : "";
	}
	st = placement_build(out, n, keys, src->name ? names : NULL, src->leaf_capacity, source, err);
done:
	free(keys);
	free(names);
	free(buf);
	return st;
}

enum sc_status placement_copy(struct placement *dst, const struct placement *src, struct sc_error *err)
{
	*dst = *src;
	dst->sw = malloc((size_t)src->nodes * PLACEMENT_LEVELS * sizeof(*dst->sw));
	dst->name = src->name ? malloc((size_t)src->nodes * sizeof(*dst->name)) : NULL;
	if (!dst->sw || (src->name && !dst->name)) {
		placement_free(dst);
		return sc_error_set(err, SC_ENOMEM, NULL, NULL, "out of memory copying a placement");
	}
	memcpy(dst->sw, src->sw, (size_t)src->nodes * PLACEMENT_LEVELS * sizeof(*dst->sw));
	if (src->name)
		memcpy(dst->name, src->name, (size_t)src->nodes * sizeof(*dst->name));
	return SC_OK;
}

/* ---- generators -------------------------------------------------------------------- */

/* SplitMix64 (Steele, Lea, Flood, OOPSLA 2014): a seeded, portable stream,
 * so that a seed gives the same placement everywhere. */
static uint64_t splitmix(uint64_t *s)
{
	uint64_t z = (*s += 0x9e3779b97f4a7c15ull);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

enum sc_status placement_generate(struct placement *pl, enum placement_gen kind, int nodes,
				  int blocks, int nodes_per_leaf, uint64_t seed, struct sc_error *err)
{
	int need, *slot = NULL;
	long long slots;
	const char **keys = NULL;
	char (*leafname)[16] = NULL;
	enum sc_status st;
	char src[PLACEMENT_SOURCE_MAX];

	memset(pl, 0, sizeof(*pl));
	if (nodes < 1 || nodes > SC_MAX_NODES)
		return sc_error_set(err, SC_EINVAL, NULL, NULL, "a placement needs 1 to %d nodes, not %d",
				    SC_MAX_NODES, nodes);
	if (nodes_per_leaf < 1)
		nodes_per_leaf = nodes;
	need = (nodes + nodes_per_leaf - 1) / nodes_per_leaf;
	if (blocks <= 0)
		blocks = need;
	if (blocks < need)
		return sc_error_set(err, SC_EINVAL, NULL, NULL,
				    "%d blocks of %d nodes cannot hold %d nodes (need at least %d)", blocks,
				    nodes_per_leaf, nodes, need);
	slots = (long long)blocks * nodes_per_leaf;
	if (slots > SC_MAX_NODES)
		return sc_error_set(err, SC_EINVAL, NULL, NULL, "%d blocks of %d nodes exceed %d nodes", blocks,
				    nodes_per_leaf, SC_MAX_NODES);
	slot = malloc((size_t)slots * sizeof(*slot));
	keys = calloc((size_t)nodes * PLACEMENT_LEVELS, sizeof(*keys));
	leafname = malloc((size_t)blocks * sizeof(*leafname));
	if (!slot || !keys || !leafname) {
		free(slot);
		free(keys);
		free(leafname);
		return sc_error_set(err, SC_ENOMEM, NULL, NULL, "out of memory generating a placement");
	}
	for (int b = 0; b < blocks; b++)
		snprintf(leafname[b], sizeof(leafname[b]), "leaf%d", b);
	for (long long i = 0; i < slots; i++)
		slot[i] = (int)i; /* slot i: leaf i / nodes_per_leaf */
	if (kind == PLACEMENT_GEN_SPREAD) {
		/* node i on leaf i % blocks */
		for (int i = 0; i < nodes; i++)
			slot[i] = (i % blocks) * nodes_per_leaf + i / blocks;
	} else if (kind == PLACEMENT_GEN_RANDOM) {
		/* the first `nodes` of a Fisher-Yates shuffle */
		uint64_t s = seed;

		for (int i = 0; i < nodes; i++) {
			long long j = i + (long long)(splitmix(&s) % (uint64_t)(slots - i));
			int t = slot[i];

			slot[i] = slot[j];
			slot[j] = t;
		}
	}
	for (int i = 0; i < nodes; i++)
		keys[i * PLACEMENT_LEVELS] = leafname[slot[i] / nodes_per_leaf];
	if (kind == PLACEMENT_GEN_RANDOM)
		snprintf(src, sizeof(src), "random, %d blocks of %d nodes, seed %llu", blocks, nodes_per_leaf,
			 (unsigned long long)seed);
	else
		snprintf(src, sizeof(src), "%s, %d blocks of %d nodes", placement_gen_name(kind), blocks,
			 nodes_per_leaf);
	st = placement_build(pl, nodes, keys, NULL, nodes_per_leaf, src, err);
	free(slot);
	free(keys);
	free(leafname);
	return st;
}

/* ---- what groups cross ------------------------------------------------------------- */

static int cmp_int(const void *a, const void *b)
{
	int x = *(const int *)a, y = *(const int *)b;

	return (x > y) - (x < y);
}

static int node_sw(const struct placement *pl, int node, int l)
{
	if (node >= pl->nodes)
		node = pl->nodes - 1;
	return pl->sw[node * PLACEMENT_LEVELS + l];
}

void placement_group_cross(const struct placement *pl, int ranks, int stride, int gpus_per_node,
			   int nodes_per_domain, struct placement_cross *out)
{
	long long total = (long long)pl->nodes * gpus_per_node;
	int *dom = NULL, *leaf = NULL;
	int *count = NULL;

	memset(out, 0, sizeof(*out));
	out->level = -1;
	if (ranks < 2 || stride < 1 || gpus_per_node < 1 || nodes_per_domain < 1)
		return;
	dom = malloc((size_t)ranks * sizeof(*dom));
	leaf = malloc((size_t)ranks * sizeof(*leaf));
	count = calloc((size_t)pl->n_sw[0], sizeof(*count));
	if (!dom || !leaf || !count)
		goto done;
	for (int i = 0; i < pl->nodes; i++)
		count[pl->sw[i * PLACEMENT_LEVELS]]++;
	for (long long r0 = 0; r0 + (long long)(ranks - 1) * stride < total; r0++) {
		int nd = 0, crossings = 0, level = -1, first;
		long long same = 0;

		if ((r0 / stride) % ranks != 0)
			continue;
		out->groups++;
		first = (int)(r0 / gpus_per_node);
		for (int i = 0; i < ranks; i++) {
			int node = (int)((r0 + (long long)i * stride) / gpus_per_node);
			int d = node / nodes_per_domain;

			for (int l = PLACEMENT_LEVELS - 1; l > level; l--)
				if (node_sw(pl, node, l) != node_sw(pl, first, l)) {
					level = l;
					break;
				}
			if (nd == 0 || dom[nd - 1] != d)
				dom[nd++] = d;
		}
		if (level < 0 || nd < 2)
			continue;
		out->groups_crossing++;
		if (level > out->level)
			out->level = level;
		/* a domain's leaf is its first node's (an NVLink domain is one rack) */
		for (int k = 0; k < nd; k++)
			leaf[k] = node_sw(pl, dom[k] * nodes_per_domain, 0);
		for (int k = 0; k < nd; k++)
			crossings += leaf[k] != leaf[(k + 1) % nd];
		if ((double)crossings / nd > out->ring_leave)
			out->ring_leave = (double)crossings / nd;
		qsort(leaf, (size_t)nd, sizeof(*leaf), cmp_int);
		for (int k = 0, j; k < nd; k = j) {
			for (j = k; j < nd && leaf[j] == leaf[k]; j++)
				;
			same += (long long)(j - k) * (j - k - 1);
		}
		if (1.0 - (double)same / ((double)nd * (nd - 1)) > out->a2a_leave)
			out->a2a_leave = 1.0 - (double)same / ((double)nd * (nd - 1));
	}
	if (out->groups_crossing > 0)
		for (int l = 0; l < pl->n_sw[0]; l++)
			if ((double)count[l] / pl->leaf_capacity > out->leaf_fill)
				out->leaf_fill = (double)count[l] / pl->leaf_capacity;
done:
	free(dom);
	free(leaf);
	free(count);
}
