/* placement_load.c: EC2 instance topology, Slurm topology.conf and
 * Kubernetes node labels as placements (see placement_load.h). */
#include "placement_load.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>

#include "cfg_json.h"
#include "../../models/limits.h"

const char *const placement_format_names[] = { "ec2-instance-topology", "slurm-topology", "k8s-nodes",
					       NULL };

/* The instances of a file before selection: names[i], keys[i * 3 + l]
 * (pointers into the parsed text or the cJSON tree, alive until the
 * parse is done), where[i] the JSON pointer or line of instance i. */
struct inst_list {
	int n, cap;
	const char **names;
	const char **keys;
	int *where;               /* index in the file's array, or line number */
	bool oom;
};

static bool inst_add(struct inst_list *L, const char *name, const char *k0, const char *k1,
		     const char *k2, int where)
{
	if (L->n == L->cap) {
		int cap = L->cap ? 2 * L->cap : 64;
		const char **nn = realloc(L->names, (size_t)cap * sizeof(*nn));
		const char **nk;
		int *nw;

		if (nn)
			L->names = nn;
		nk = nn ? realloc(L->keys, (size_t)cap * PLACEMENT_LEVELS * sizeof(*nk)) : NULL;
		if (nk)
			L->keys = nk;
		nw = nk ? realloc(L->where, (size_t)cap * sizeof(*nw)) : NULL;
		if (!nw) {
			L->oom = true;
			return false;
		}
		L->where = nw;
		L->cap = cap;
	}
	L->names[L->n] = name;
	L->keys[L->n * PLACEMENT_LEVELS + 0] = k0;
	L->keys[L->n * PLACEMENT_LEVELS + 1] = k1;
	L->keys[L->n * PLACEMENT_LEVELS + 2] = k2;
	L->where[L->n] = where;
	L->n++;
	return true;
}

static void inst_free(struct inst_list *L)
{
	free(L->names);
	free(L->keys);
	free(L->where);
	memset(L, 0, sizeof(*L));
}

/* Where instance i of a file is, for messages. */
static void inst_where(enum placement_format fmt, const struct inst_list *L, int i, char *out, size_t n)
{
	if (fmt == PLACEMENT_FMT_SLURM)
		snprintf(out, n, "line %d", L->where[i]);
	else
		snprintf(out, n, fmt == PLACEMENT_FMT_EC2 ? "/Instances/%d" : "/items/%d", L->where[i]);
}

/* Select the job's nodes from L and build out. */
static enum sc_status select_build(enum placement_format fmt, const char *name, struct inst_list *L,
				   const char *const *instances, int n_instances, int nodes,
				   int leaf_capacity, struct placement *out, struct sc_error *err)
{
	const char **keys = NULL, **names = NULL;
	int want = n_instances > 0 ? n_instances : nodes > 0 ? nodes : L->n;
	enum sc_status st;
	char src[PLACEMENT_SOURCE_MAX], at[64], at2[64];

	if (L->oom)
		return sc_error_set(err, SC_ENOMEM, name, NULL, "out of memory reading the placement");
	if (L->n == 0)
		return sc_error_set(err, SC_EINVAL, name, fmt == PLACEMENT_FMT_SLURM ? NULL
						       : fmt == PLACEMENT_FMT_EC2 ? "/Instances" : "/items",
				    "no instances with a network topology in the file");
	/* one name, one place */
	for (int i = 0; i < L->n; i++)
		for (int j = i + 1; j < L->n; j++)
			if (strcmp(L->names[i], L->names[j]) == 0) {
				inst_where(fmt, L, i, at, sizeof(at));
				inst_where(fmt, L, j, at2, sizeof(at2));
				return sc_error_set(err, SC_EINVAL, name, fmt == PLACEMENT_FMT_SLURM ? NULL : at2,
						    "instance \"%s\" appears twice (%s and %s)", L->names[i], at,
						    at2);
			}
	if (n_instances == 0 && want > L->n)
		return sc_error_set(err, SC_EINVAL, name, NULL,
				    "the file describes %d instances, the cluster has %d nodes", L->n, want);
	if (n_instances > 0 && nodes > 0 && n_instances != nodes)
		return sc_error_set(err, SC_EINVAL, name, NULL,
				    "\"instances\" lists %d instances, the cluster has %d nodes", n_instances, nodes);
	keys = malloc((size_t)want * PLACEMENT_LEVELS * sizeof(*keys));
	names = malloc((size_t)want * sizeof(*names));
	if (!keys || !names) {
		free(keys);
		free(names);
		return sc_error_set(err, SC_ENOMEM, name, NULL, "out of memory reading the placement");
	}
	for (int k = 0; k < want; k++) {
		int i = k;

		if (n_instances > 0) {
			for (i = 0; i < L->n && strcmp(L->names[i], instances[k]) != 0; i++)
				;
			for (int q = 0; q < k && i < L->n; q++)
				if (strcmp(instances[q], instances[k]) == 0) {
					free(keys);
					free(names);
					return sc_error_set(err, SC_EINVAL, name, NULL,
							    "instance \"%s\" is listed twice in \"instances\" (%d and %d)",
							    instances[k], q, k);
				}
			if (i == L->n) {
				free(keys);
				free(names);
				return sc_error_set(err, SC_EINVAL, name, NULL,
						    "instance \"%s\" (\"instances\" item %d) is not in the file",
						    instances[k], k);
			}
		}
		names[k] = L->names[i];
		for (int l = 0; l < PLACEMENT_LEVELS; l++)
			keys[k * PLACEMENT_LEVELS + l] = L->keys[i * PLACEMENT_LEVELS + l];
	}
	{
		const char *base = strrchr(name, '/');

		snprintf(src, sizeof(src), "%s (%s)", base ? base + 1 : name, placement_format_names[fmt]);
	}
	st = placement_build(out, want, keys, names, leaf_capacity, src, err);
	if (st != SC_OK && !err->file[0])
		snprintf(err->file, sizeof(err->file), "%s", name);
	free(keys);
	free(names);
	return st;
}

/* ---- EC2 describe-instance-topology ------------------------------------------------ */

/* {"Instances": [{"InstanceId": "i-...", "NetworkNodes": ["nn-L1", "nn-L2",
 * "nn-L3"], "InstanceType", "GroupName", "ZoneId", "AvailabilityZone",
 * "CapacityBlockId"...}], "NextToken"}: the node set is top-down (AWS EC2
 * User Guide, "How Amazon EC2 topology works"; API reference,
 * InstanceTopology); 1 to 4 nodes.  Level 0 is the last node. */
static enum sc_status read_ec2(const char *name, const cJSON *root, struct inst_list *L,
			       struct sc_error *err)
{
	const cJSON *arr = cJSON_GetObjectItemCaseSensitive(root, "Instances"), *it;
	int i = 0;

	if (!cJSON_IsObject(root))
		return sc_error_set(err, SC_EINVAL, name, "", "expected the JSON object of `aws ec2 "
				    "describe-instance-topology`, got %s", cfg_json_type_name(root));
	if (!cJSON_IsArray(arr))
		return sc_error_set(err, SC_EINVAL, name, "/Instances",
				    arr ? "expected an array of instances, got %s"
					: "missing \"Instances\" (the output of `aws ec2 describe-instance-topology`)%s",
				    arr ? cfg_json_type_name(arr) : "");
	cJSON_ArrayForEach(it, arr) {
		char at[SC_ERROR_PTR_MAX];
		const cJSON *id = cJSON_GetObjectItemCaseSensitive(it, "InstanceId");
		const cJSON *nn = cJSON_GetObjectItemCaseSensitive(it, "NetworkNodes"), *e;
		const char *k[4] = { NULL, NULL, NULL, NULL };
		int n = 0;

		snprintf(at, sizeof(at), "/Instances/%d", i);
		if (!cJSON_IsObject(it))
			return sc_error_set(err, SC_EINVAL, name, at, "expected an instance object, got %s",
					    cfg_json_type_name(it));
		if (!cJSON_IsString(id) || !id->valuestring[0])
			return sc_error_set(err, SC_EINVAL, name, at, "missing \"InstanceId\" (a string)");
		snprintf(at, sizeof(at), "/Instances/%d/NetworkNodes", i);
		if (!cJSON_IsArray(nn))
			return sc_error_set(err, SC_EINVAL, name, at, "expected the instance's network nodes, got %s",
					    nn ? cfg_json_type_name(nn) : "nothing");
		cJSON_ArrayForEach(e, nn) {
			if (!cJSON_IsString(e) || !e->valuestring[0]) {
				snprintf(at, sizeof(at), "/Instances/%d/NetworkNodes/%d", i, n);
				return sc_error_set(err, SC_EINVAL, name, at, "expected a network node id, got %s",
						    cfg_json_type_name(e));
			}
			if (n < 4)
				k[n] = e->valuestring;
			n++;
		}
		if (n < 1 || n > 4)
			return sc_error_set(err, SC_EINVAL, name, at,
					    "expected 1 to 4 network nodes (top layer first), got %d", n);
		/* bottom-up: the last node is the instance's own switch */
		if (!inst_add(L, id->valuestring, k[n - 1], n >= 2 ? k[n - 2] : NULL, n >= 3 ? k[n - 3] : NULL, i))
			break;
		i++;
	}
	return SC_OK;
}

/* ---- Kubernetes nodes ----------------------------------------------------------------- */

#define K8S_LAYER "topology.k8s.aws/network-node-layer-"

/* A v1 List of Nodes (`kubectl get nodes -o json`): items[].metadata.name
 * and its labels topology.k8s.aws/network-node-layer-1..3 (layer 3 the
 * closest).  Nodes without a layer-3 label (no topology: CPU nodes, types
 * EC2 topology does not cover) are left out. */
static enum sc_status read_k8s(const char *name, const cJSON *root, struct inst_list *L,
			       struct sc_error *err)
{
	const cJSON *arr = cJSON_GetObjectItemCaseSensitive(root, "items"), *it;
	int i = 0;

	if (!cJSON_IsObject(root))
		return sc_error_set(err, SC_EINVAL, name, "", "expected the JSON object of `kubectl get nodes "
				    "-o json`, got %s", cfg_json_type_name(root));
	if (!cJSON_IsArray(arr))
		return sc_error_set(err, SC_EINVAL, name, "/items",
				    "expected the List's \"items\" array (the output of `kubectl get nodes -o json`)");
	cJSON_ArrayForEach(it, arr) {
		char at[SC_ERROR_PTR_MAX];
		const cJSON *md = cJSON_GetObjectItemCaseSensitive(it, "metadata");
		const cJSON *nm = cJSON_GetObjectItemCaseSensitive(md, "name");
		const cJSON *lb = cJSON_GetObjectItemCaseSensitive(md, "labels");
		const char *k[3];

		snprintf(at, sizeof(at), "/items/%d/metadata/name", i);
		if (!cJSON_IsString(nm) || !nm->valuestring[0])
			return sc_error_set(err, SC_EINVAL, name, at, "missing the node's name (a string)");
		for (int l = 0; l < 3; l++) {
			char key[64];
			const cJSON *v;

			snprintf(key, sizeof(key), K8S_LAYER "%d", 3 - l);
			v = cJSON_GetObjectItemCaseSensitive(lb, key);
			if (v && !cJSON_IsString(v)) {
				snprintf(at, sizeof(at), "/items/%d/metadata/labels/topology.k8s.aws~1network-node-layer-%d",
					 i, 3 - l);
				return sc_error_set(err, SC_EINVAL, name, at, "expected a label value, got %s",
						    cfg_json_type_name(v));
			}
			k[l] = v ? v->valuestring : NULL;
		}
		if (k[0] && k[0][0] && !inst_add(L, nm->valuestring, k[0], k[1], k[2], i))
			break;
		i++;
	}
	return SC_OK;
}

/* ---- Slurm topology.conf ---------------------------------------------------------------- */

/* Expand a Slurm hostlist ("node[001-016,020],gpu7") calling add for each
 * host; false (with msg) on a malformed list. */
static bool hostlist_expand(const char *s, bool (*add)(void *, const char *), void *ctx, char *msg,
			    size_t msgn)
{
	while (*s) {
		const char *end = s, *lb;
		int depth = 0;

		while (*end && (depth > 0 || *end != ',')) {
			depth += *end == '[' ? 1 : *end == ']' ? -1 : 0;
			if (depth < 0 || depth > 1) {
				snprintf(msg, msgn, "unbalanced brackets in hostlist \"%s\"", s);
				return false;
			}
			end++;
		}
		if (depth != 0) {
			snprintf(msg, msgn, "unbalanced brackets in hostlist \"%s\"", s);
			return false;
		}
		lb = memchr(s, '[', (size_t)(end - s));
		if (!lb) {
			char host[PLACEMENT_NAME_MAX];

			if (end - s < 1 || end - s >= (long)sizeof(host)) {
				snprintf(msg, msgn, "bad host name in hostlist");
				return false;
			}
			memcpy(host, s, (size_t)(end - s));
			host[end - s] = '\0';
			if (!add(ctx, host))
				return false;
		} else {
			const char *rb = memchr(lb, ']', (size_t)(end - lb)), *r = lb + 1;
			int plen = (int)(lb - s), slen = (int)(end - rb - 1);

			while (r < rb) {
				char *e1, *e2;
				long a = strtol(r, &e1, 10), b = a;
				int width = (int)(e1 - r);

				if (e1 == r || a < 0) {
					snprintf(msg, msgn, "bad range in hostlist \"%.*s\"", (int)(end - s), s);
					return false;
				}
				if (*e1 == '-') {
					b = strtol(e1 + 1, &e2, 10);
					if (e2 == e1 + 1 || b < a || b - a > SC_MAX_NODES) {
						snprintf(msg, msgn, "bad range in hostlist \"%.*s\"", (int)(end - s), s);
						return false;
					}
					e1 = e2;
				}
				if (e1 != rb && *e1 != ',') {
					snprintf(msg, msgn, "bad range in hostlist \"%.*s\"", (int)(end - s), s);
					return false;
				}
				for (long v = a; v <= b; v++) {
					char host[PLACEMENT_NAME_MAX];
					int n = snprintf(host, sizeof(host), "%.*s%0*ld%.*s", plen, s, width, v, slen,
							 rb + 1);

					if (n < 0 || n >= (int)sizeof(host)) {
						snprintf(msg, msgn, "host name too long in hostlist");
						return false;
					}
					if (!add(ctx, host))
						return false;
				}
				r = *e1 == ',' ? e1 + 1 : e1;
			}
		}
		s = *end == ',' ? end + 1 : end;
	}
	return true;
}

struct slurm_sw {
	char *name;
	int parent;               /* index, -1 none */
	int line;
};

struct slurm_ctx {
	struct slurm_sw *sw;
	int n_sw, cap_sw;
	char **host;              /* owned */
	int *host_sw, *host_line;
	int n_host, cap_host;
	int cur_sw, cur_line;
	bool oom;
	char **child;             /* pending "Switches=" names: child[i] under child_parent[i] */
	int *child_parent, *child_line;
	int n_child, cap_child;
};

static int sw_find(const struct slurm_ctx *c, const char *name)
{
	for (int i = 0; i < c->n_sw; i++)
		if (strcmp(c->sw[i].name, name) == 0)
			return i;
	return -1;
}

static bool grow(void **p, int *cap, int n, size_t elem)
{
	if (n < *cap)
		return true;
	{
		int nc = *cap ? 2 * *cap : 64;
		void *q = realloc(*p, (size_t)nc * elem);

		if (!q)
			return false;
		*p = q;
		*cap = nc;
	}
	return true;
}

/* Room for one more of the parallel arrays a (n elements, capacity *cap). */
#define GROW3(c, A, B, C, n, cap)                                                            \
	do {                                                                                 \
		if ((n) == (cap)) {                                                          \
			int nc_ = (cap) ? 2 * (cap) : 64;                                    \
			void *a_ = realloc((c)->A, (size_t)nc_ * sizeof(*(c)->A));           \
			if (a_)                                                              \
				(c)->A = a_;                                                 \
			void *b_ = a_ ? realloc((c)->B, (size_t)nc_ * sizeof(*(c)->B)) : NULL; \
			if (b_)                                                              \
				(c)->B = b_;                                                 \
			void *c_ = b_ ? realloc((c)->C, (size_t)nc_ * sizeof(*(c)->C)) : NULL; \
			if (!c_) {                                                           \
				(c)->oom = true;                                             \
				return false;                                                \
			}                                                                    \
			(c)->C = c_;                                                         \
			(cap) = nc_;                                                         \
		}                                                                            \
	} while (0)

static bool slurm_add_host(void *ctx, const char *host)
{
	struct slurm_ctx *c = ctx;

	if (c->n_host >= SC_MAX_NODES)
		return false;
	GROW3(c, host, host_sw, host_line, c->n_host, c->cap_host);
	if (!(c->host[c->n_host] = strdup(host))) {
		c->oom = true;
		return false;
	}
	c->host_sw[c->n_host] = c->cur_sw;
	c->host_line[c->n_host] = c->cur_line;
	c->n_host++;
	return true;
}

static bool slurm_add_child(void *ctx, const char *name)
{
	struct slurm_ctx *c = ctx;

	if (c->n_child >= SC_MAX_NODES)
		return false;
	GROW3(c, child, child_parent, child_line, c->n_child, c->cap_child);
	if (!(c->child[c->n_child] = strdup(name))) {
		c->oom = true;
		return false;
	}
	c->child_parent[c->n_child] = c->cur_sw;
	c->child_line[c->n_child] = c->cur_line;
	c->n_child++;
	return true;
}

static void slurm_free(struct slurm_ctx *c)
{
	for (int i = 0; i < c->n_sw; i++)
		free(c->sw[i].name);
	for (int i = 0; i < c->n_host; i++)
		free(c->host[i]);
	for (int i = 0; i < c->n_child; i++)
		free(c->child[i]);
	free(c->sw);
	free(c->host);
	free(c->host_sw);
	free(c->host_line);
	free(c->child);
	free(c->child_parent);
	free(c->child_line);
	memset(c, 0, sizeof(*c));
}

/* One "Key=Value" token of a line: key into k, value into v. */
static bool kv_split(const char *tok, char *k, size_t kn, const char **v)
{
	const char *eq = strchr(tok, '=');

	if (!eq || eq == tok || (size_t)(eq - tok) >= kn)
		return false;
	memcpy(k, tok, (size_t)(eq - tok));
	k[eq - tok] = '\0';
	*v = eq + 1;
	return true;
}

/* topology.conf, tree or block plugin (topology.conf(5)): every line is
 * whitespace-separated Key=Value tokens; SwitchName (or BlockName) opens a
 * switch; Nodes= its hosts, Switches= its children (tree); LinkSpeed=,
 * BlockSizes= carry nothing a placement needs. */
static enum sc_status read_slurm(const char *name, char *text, struct slurm_ctx *c, struct inst_list *L,
				 struct sc_error *err)
{
	char msg[256];
	int line = 0;
	bool tree = false, block = false;

	for (char *ln = text, *next; ln; ln = next) {
		char *hash, *save = NULL, *tok;

		next = strchr(ln, '\n');
		if (next)
			*next++ = '\0';
		line++;
		if ((hash = strchr(ln, '#')))
			*hash = '\0';
		c->cur_sw = -1;
		c->cur_line = line;
		for (tok = strtok_r(ln, " \t\r", &save); tok; tok = strtok_r(NULL, " \t\r", &save)) {
			char k[32], where[32];
			const char *v;

			snprintf(where, sizeof(where), "line %d", line);
			if (!kv_split(tok, k, sizeof(k), &v))
				return sc_error_set(err, SC_EINVAL, name, NULL, "%s: expected Key=Value, got \"%s\"",
						    where, tok);
			if (strcasecmp(k, "SwitchName") == 0 || strcasecmp(k, "BlockName") == 0) {
				bool is_block = strcasecmp(k, "BlockName") == 0;

				if (c->cur_sw >= 0)
					return sc_error_set(err, SC_EINVAL, name, NULL, "%s: a second %s on one line",
							    where, k);
				if (!*v)
					return sc_error_set(err, SC_EINVAL, name, NULL, "%s: empty %s", where, k);
				if ((is_block && tree) || (!is_block && block))
					return sc_error_set(err, SC_EINVAL, name, NULL,
							    "%s: SwitchName (tree plugin) and BlockName (block plugin) "
							    "lines in one file", where);
				tree |= !is_block;
				block |= is_block;
				if (sw_find(c, v) >= 0)
					return sc_error_set(err, SC_EINVAL, name, NULL, "%s: %s \"%s\" defined twice",
							    where, k, v);
				if (!grow((void **)&c->sw, &c->cap_sw, c->n_sw, sizeof(*c->sw)) ||
				    !(c->sw[c->n_sw].name = strdup(v)))
					return sc_error_set(err, SC_ENOMEM, name, NULL, "out of memory");
				c->sw[c->n_sw].parent = -1;
				c->sw[c->n_sw].line = line;
				c->cur_sw = c->n_sw++;
			} else if (strcasecmp(k, "Nodes") == 0 || strcasecmp(k, "Switches") == 0) {
				bool nodes = strcasecmp(k, "Nodes") == 0;

				if (c->cur_sw < 0)
					return sc_error_set(err, SC_EINVAL, name, NULL, "%s: %s= before SwitchName=",
							    where, k);
				if (!nodes && block)
					return sc_error_set(err, SC_EINVAL, name, NULL,
							    "%s: Switches= belongs to the tree plugin, not BlockName", where);
				msg[0] = '\0';
				if (!hostlist_expand(v, nodes ? slurm_add_host : slurm_add_child, c, msg, sizeof(msg))) {
					if (c->oom)
						return sc_error_set(err, SC_ENOMEM, name, NULL, "out of memory");
					return sc_error_set(err, SC_EINVAL, name, NULL, "%s: %s", where,
							    msg[0] ? msg : "too many hosts");
				}
			} else if (strcasecmp(k, "LinkSpeed") != 0 && strcasecmp(k, "BlockSizes") != 0) {
				return sc_error_set(err, SC_EINVAL, name, NULL,
						    "%s: unknown key \"%s\" (SwitchName, Switches, Nodes, LinkSpeed, "
						    "BlockName, BlockSizes)", where, k);
			}
		}
	}
	for (int i = 0; i < c->n_child; i++) {
		int s = sw_find(c, c->child[i]);

		if (s < 0)
			return sc_error_set(err, SC_EINVAL, name, NULL, "line %d: switch \"%s\" is not defined",
					    c->child_line[i], c->child[i]);
		if (c->sw[s].parent >= 0 && c->sw[s].parent != c->child_parent[i])
			return sc_error_set(err, SC_EINVAL, name, NULL,
					    "line %d: switch \"%s\" is already under \"%s\"", c->child_line[i],
					    c->child[i], c->sw[c->sw[s].parent].name);
		c->sw[s].parent = c->child_parent[i];
	}
	for (int s = 0; s < c->n_sw; s++) {
		int depth = 0;

		for (int p = c->sw[s].parent; p >= 0; p = c->sw[p].parent)
			if (++depth > c->n_sw)
				return sc_error_set(err, SC_EINVAL, name, NULL,
						    "line %d: switch \"%s\" is its own ancestor", c->sw[s].line,
						    c->sw[s].name);
	}
	for (int h = 0; h < c->n_host; h++) {
		int s = c->host_sw[h], p1 = c->sw[s].parent, p2 = p1 >= 0 ? c->sw[p1].parent : -1;

		if (!inst_add(L, c->host[h], c->sw[s].name, p1 >= 0 ? c->sw[p1].name : NULL,
			      p2 >= 0 ? c->sw[p2].name : NULL, c->host_line[h]))
			break;
	}
	return SC_OK;
}

/* ---- files ------------------------------------------------------------------------------ */

static char *read_text(const char *path, size_t *len, struct sc_error *err)
{
	struct stat st;
	FILE *f;
	char *buf;

	if (stat(path, &st) != 0) {
		sc_error_set(err, SC_EIO, path, NULL, "cannot read: %s", strerror(errno));
		return NULL;
	}
	if (!S_ISREG(st.st_mode)) {
		sc_error_set(err, SC_EIO, path, NULL, "not a regular file");
		return NULL;
	}
	if (st.st_size > CFG_MAX_FILE_BYTES) {
		sc_error_set(err, SC_EINVAL, path, NULL, "file is %lld bytes, more than the %ld-byte limit",
			     (long long)st.st_size, CFG_MAX_FILE_BYTES);
		return NULL;
	}
	if (!(f = fopen(path, "rb"))) {
		sc_error_set(err, SC_EIO, path, NULL, "cannot read: %s", strerror(errno));
		return NULL;
	}
	buf = malloc((size_t)st.st_size + 1);
	if (!buf) {
		fclose(f);
		sc_error_set(err, SC_ENOMEM, path, NULL, "out of memory");
		return NULL;
	}
	*len = fread(buf, 1, (size_t)st.st_size, f);
	fclose(f);
	buf[*len] = '\0';
	return buf;
}

enum sc_status placement_parse(enum placement_format fmt, const char *name, const char *buf,
			       size_t len, const char *const *instances, int n_instances, int nodes,
			       int leaf_capacity, struct placement *out, struct sc_error *err)
{
	struct inst_list L;
	enum sc_status st;

	memset(&L, 0, sizeof(L));
	memset(out, 0, sizeof(*out));
	if (fmt == PLACEMENT_FMT_SLURM) {
		struct slurm_ctx c;
		char *text = malloc(len + 1);

		if (!text)
			return sc_error_set(err, SC_ENOMEM, name, NULL, "out of memory");
		memcpy(text, buf, len);
		text[len] = '\0';
		if (memchr(buf, '\0', len)) {
			free(text);
			return sc_error_set(err, SC_EINVAL, name, NULL, "a NUL byte in a topology.conf");
		}
		memset(&c, 0, sizeof(c));
		st = read_slurm(name, text, &c, &L, err);
		if (st == SC_OK)
			st = select_build(fmt, name, &L, instances, n_instances, nodes, leaf_capacity, out, err);
		slurm_free(&c);
		free(text);
	} else {
		cJSON *root = cfg_parse_buffer(name, buf, len, err);

		if (!root)
			return err->status ? err->status : SC_EINVAL;
		st = fmt == PLACEMENT_FMT_EC2 ? read_ec2(name, root, &L, err) : read_k8s(name, root, &L, err);
		if (st == SC_OK)
			st = select_build(fmt, name, &L, instances, n_instances, nodes, leaf_capacity, out, err);
		cJSON_Delete(root);
	}
	inst_free(&L);
	return st;
}

enum sc_status placement_load_file(enum placement_format fmt, const char *path,
				   const char *const *instances, int n_instances, int nodes,
				   int leaf_capacity, struct placement *out, struct sc_error *err)
{
	size_t len = 0;
	char *buf = read_text(path, &len, err);
	enum sc_status st;

	memset(out, 0, sizeof(*out));
	if (!buf)
		return err->status;
	st = placement_parse(fmt, path, buf, len, instances, n_instances, nodes, leaf_capacity, out, err);
	free(buf);
	return st;
}

/* ---- kept placements -------------------------------------------------------------------- */

struct kept {
	struct kept *next;
	struct placement pl;
};

static struct kept *kept_list;

static void kept_free_all(void)
{
	while (kept_list) {
		struct kept *k = kept_list;

		kept_list = k->next;
		placement_free(&k->pl);
		free(k);
	}
}

const struct placement *placement_keep(struct placement *pl)
{
	struct kept *k = malloc(sizeof(*k));

	if (!k) {
		placement_free(pl);
		return NULL;
	}
	if (!kept_list)
		atexit(kept_free_all);
	k->pl = *pl;
	memset(pl, 0, sizeof(*pl));
	k->next = kept_list;
	kept_list = k;
	return &k->pl;
}

/* ---- the scenario's "cluster.placement" --------------------------------------------------- */

/* Only for the schema and cfg_read_object's key check: the values are read
 * by placement_resolve (which needs the whole cluster). */
struct placement_spec_doc {
	char file[SC_ERROR_FILE_MAX];
	int format, generate, blocks, seed;
	char instances[8];
};


static enum sc_status accept_any(struct cfg_reader *rd, const cJSON *item, void *slot, const char *where)
{
	(void)rd;
	(void)item;
	(void)slot;
	(void)where;
	return SC_OK;
}

const struct cfg_field cfg_placement_fields[] = {
	CFG_F_STR(struct placement_spec_doc, file, 0,
		  "topology file, relative to the scenario (with format; or generate)"),
	CFG_F_ENUM(struct placement_spec_doc, format, 0, placement_format_names,
		   "ec2-instance-topology, slurm-topology or k8s-nodes"),
	CFG_F_CUSTOM(struct placement_spec_doc, instances, 0, accept_any, NULL,
		     "the job's instances (ids or host names), in rank order (default: the file's first nodes)"),
	CFG_F_ENUM(struct placement_spec_doc, generate, 0, placement_gen_names, "packed, random or spread (instead of a file)"),
	CFG_F_INT_RANGE(struct placement_spec_doc, blocks, 0, 1, SC_MAX_NODES,
			"generate: leaves of the fabric's nodes_per_leaf nodes to place on (default: as few as hold the job)"),
	CFG_F_INT_RANGE(struct placement_spec_doc, seed, 0, 0, 2147483647, "generate random: the seed (default 1)"),
	CFG_END
};

static enum sc_status bad(struct sc_error *err, const char *file, const char *base, const char *key,
			  const char *fmt, const char *v)
{
	char at[SC_ERROR_PTR_MAX];

	snprintf(at, sizeof(at), "%s%s%s", base, key[0] ? "/" : "", key);
	return sc_error_set(err, SC_EINVAL, file, at, fmt, v);
}

enum sc_status placement_read(const char *file, const cJSON *o, const char *base, int nodes, int npl,
			      struct placement *pl, struct sc_error *err)
{
	static const char *const keys[] = { "file", "format", "instances", "generate", "blocks", "seed", NULL };
	const cJSON *f, *fm, *g, *ins, *bl, *sd;
	struct cfg_reader rd = { file, err, NULL };
	enum sc_status st;

	memset(pl, 0, sizeof(*pl));
	if (cJSON_IsString(o) && o->valuestring[0]) {
		/* the shorthand: an EC2 instance topology file */
		char path[SC_ERROR_FILE_MAX];
		const char *slash = strrchr(file, '/');

		if (o->valuestring[0] == '/' || !slash)
			snprintf(path, sizeof(path), "%s", o->valuestring);
		else
			snprintf(path, sizeof(path), "%.*s/%s", (int)(slash - file), file, o->valuestring);
		return placement_load_file(PLACEMENT_FMT_EC2, path, NULL, 0, nodes, npl, pl, err);
	}
	if (!cJSON_IsObject(o))
		return bad(err, file, base, "", "expected an EC2 topology file name or a placement object ({\"file\", \"format\"} or {\"generate\"}), got %s",
			   cfg_json_type_name(o));
	if ((st = cfg_check_keys(&rd, o, keys, base)) != SC_OK)
		return st;
	f = cJSON_GetObjectItemCaseSensitive(o, "file");
	fm = cJSON_GetObjectItemCaseSensitive(o, "format");
	g = cJSON_GetObjectItemCaseSensitive(o, "generate");
	ins = cJSON_GetObjectItemCaseSensitive(o, "instances");
	bl = cJSON_GetObjectItemCaseSensitive(o, "blocks");
	sd = cJSON_GetObjectItemCaseSensitive(o, "seed");
	if ((f != NULL) == (g != NULL))
		return bad(err, file, base, "", "give either \"file\" (with \"format\") or \"generate\"%s", "");
	if (g) {
		int kind, blocks = 0;
		double seed = 1;

		if (!cJSON_IsString(g) || (kind = sc_enum_parse(placement_gen_names, g->valuestring)) < 0)
			return bad(err, file, base, "generate", "expected packed, random or spread, got %s",
				   cJSON_IsString(g) ? g->valuestring : cfg_json_type_name(g));
		if (fm || ins)
			return bad(err, file, base, fm ? "format" : "instances", "\"%s\" goes with \"file\", not \"generate\"",
				   fm ? "format" : "instances");
		if (bl) {
			if (!cJSON_IsNumber(bl) || bl->valuedouble != (int)bl->valuedouble || bl->valuedouble < 1 ||
			    bl->valuedouble > SC_MAX_NODES)
				return bad(err, file, base, "blocks", "expected a whole number of leaves >= 1%s", "");
			blocks = (int)bl->valuedouble;
		}
		if (sd) {
			if (!cJSON_IsNumber(sd) || sd->valuedouble != (double)(long long)sd->valuedouble ||
			    sd->valuedouble < 0 || sd->valuedouble > 2147483647.0)
				return bad(err, file, base, "seed", "expected a whole number >= 0%s", "");
			seed = sd->valuedouble;
		}
		st = placement_generate(pl, (enum placement_gen)kind, nodes, blocks, npl > 0 ? npl : nodes,
					(uint64_t)seed, err);
		if (st != SC_OK) {
			snprintf(err->file, sizeof(err->file), "%s", file);
			snprintf(err->pointer, sizeof(err->pointer), "%s/blocks", base);
			return st;
		}
	} else {
		char path[SC_ERROR_FILE_MAX];
		const char *slash = strrchr(file, '/');
		const char **names = NULL;
		int n = 0, fmt;

		if (!cJSON_IsString(f) || !f->valuestring[0])
			return bad(err, file, base, "file", "expected a file name, got %s", cfg_json_type_name(f));
		if (!fm)
			return bad(err, file, base, "format", "missing \"format\" (%s)",
				   "ec2-instance-topology, slurm-topology or k8s-nodes");
		if (!cJSON_IsString(fm) || (fmt = sc_enum_parse(placement_format_names, fm->valuestring)) < 0)
			return bad(err, file, base, "format",
				   "expected ec2-instance-topology, slurm-topology or k8s-nodes, got %s",
				   cJSON_IsString(fm) ? fm->valuestring : cfg_json_type_name(fm));
		if (bl || sd)
			return bad(err, file, base, bl ? "blocks" : "seed", "\"%s\" goes with \"generate\", not \"file\"",
				   bl ? "blocks" : "seed");
		if (f->valuestring[0] == '/' || !slash)
			snprintf(path, sizeof(path), "%s", f->valuestring);
		else
			snprintf(path, sizeof(path), "%.*s/%s", (int)(slash - file), file, f->valuestring);
		if (ins) {
			const cJSON *e;

			if (!cJSON_IsArray(ins) || cJSON_GetArraySize(ins) < 1)
				return bad(err, file, base, "instances", "expected a non-empty array of instance names%s", "");
			names = calloc((size_t)cJSON_GetArraySize(ins), sizeof(*names));
			if (!names)
				return sc_error_set(err, SC_ENOMEM, file, NULL, "out of memory");
			cJSON_ArrayForEach(e, ins) {
				if (!cJSON_IsString(e)) {
					char key[32];

					free(names);
					snprintf(key, sizeof(key), "instances/%d", n);
					return bad(err, file, base, key, "expected an instance name, got %s", cfg_json_type_name(e));
				}
				names[n++] = e->valuestring;
			}
		}
		st = placement_load_file((enum placement_format)fmt, path, names, n, nodes, npl, pl, err);
		free(names);
		if (st != SC_OK)
			return st;
	}
	return SC_OK;
}

enum sc_status placement_resolve(const char *file, const cJSON *root, struct scenario *sc,
				 struct sc_error *err)
{
	const cJSON *cl = cJSON_GetObjectItemCaseSensitive(root, "cluster");
	const cJSON *o = cJSON_GetObjectItemCaseSensitive(cl, "placement");
	struct placement pl;
	int npl = sc->cluster.fabric.nodes_per_leaf > 0 ? sc->cluster.fabric.nodes_per_leaf : 0;
	enum sc_status st;

	sc->cluster.placement = NULL;
	if (!o)
		return SC_OK;
	if ((st = placement_read(file, o, "/cluster/placement", sc->cluster.nodes, npl, &pl, err)) != SC_OK)
		return st;
	if (!(sc->cluster.placement = placement_keep(&pl)))
		return sc_error_set(err, SC_ENOMEM, file, NULL, "out of memory");
	return SC_OK;
}

enum sc_status placement_use_ec2_file(const char *path, struct scenario *sc, struct sc_error *err)
{
	struct placement pl;
	int npl = sc->cluster.fabric.nodes_per_leaf > 0 ? sc->cluster.fabric.nodes_per_leaf : 0;
	enum sc_status st = placement_load_file(PLACEMENT_FMT_EC2, path, NULL, 0, sc->cluster.nodes, npl, &pl, err);

	if (st != SC_OK)
		return st;
	if (!(sc->cluster.placement = placement_keep(&pl)))
		return sc_error_set(err, SC_ENOMEM, path, NULL, "out of memory");
	return SC_OK;
}
