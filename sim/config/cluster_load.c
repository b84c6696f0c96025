/* cluster_load.c: several jobs on one fabric (see cluster_load.h). */
#include "cluster_load.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cfg_json.h"
#include "placement_load.h"
#include "scenario_load.h"

SC_ENUM_DEFINE(cluster_job_kind_name, enum cluster_job_kind, cluster_job_kind_names, CLUSTER_JOB_KIND_LIST)

/* The JSON pointer of job k ("/jobs/k"), or of its key when key is not
 * NULL, built by cfg_json's pointer functions. */
static void job_pointer(char *at, size_t n, int k, const char *key)
{
	char job[SC_ERROR_PTR_MAX];

	cfg_pointer_index(job, sizeof(job), "/jobs", k);
	if (key)
		cfg_pointer_key(at, n, job, key);
	else
		snprintf(at, n, "%s", job);
}

/* A job's "kind" (absent: training). */
static enum sc_status job_kind(const char *path, int k, const cJSON *kd, enum cluster_job_kind *out,
			       struct sc_error *err)
{
	char at[SC_ERROR_PTR_MAX];
	int i;

	job_pointer(at, sizeof(at), k, "kind");
	*out = CLUSTER_JOB_TRAINING;
	if (!kd)
		return SC_OK;
	if (cJSON_IsString(kd) && (i = sc_enum_parse(cluster_job_kind_names, kd->valuestring)) >= 0) {
		*out = (enum cluster_job_kind)i;
		return SC_OK;
	}
	return sc_error_set(err, SC_EINVAL, path, at, "expected \"training\", \"checkpoint\" or \"serving\"");
}

void cluster_jobs_free(struct cluster_jobs *c)
{
	free(c->sc);
	c->sc = NULL;
	c->n = 0;
}

/* Job k of the file (object j at /jobs/k): its scenario file (relative to
 * the cluster file's folder), name and kind; a training or checkpoint job's
 * scenario loaded and checked against the first one's instance and fabric
 * (*t0: that job's index, -1 before it). */
static enum sc_status read_job(const char *path, const struct catalog *cat, const cJSON *j, int k,
			       struct cluster_jobs *out, int *t0, struct sc_error *err)
{
	static const char *const job_keys[] = { "scenario", "name", "kind", NULL };
	struct cfg_reader rd = { path, err, NULL };
	const char *slash = strrchr(path, '/');
	char at[SC_ERROR_PTR_MAX];
	char *file = out->file[k];
	const cJSON *s, *n, *kd;
	struct scenario *sc = &out->sc[k];
	enum sc_status st;

	job_pointer(at, sizeof(at), k, NULL);
	if (!cJSON_IsObject(j))
		return sc_error_set(err, SC_EINVAL, path, at, "expected a job object, got %s", cfg_json_type_name(j));
	if ((st = cfg_check_keys(&rd, j, job_keys, at)) != SC_OK)
		return st;
	s = cJSON_GetObjectItemCaseSensitive(j, "scenario");
	n = cJSON_GetObjectItemCaseSensitive(j, "name");
	kd = cJSON_GetObjectItemCaseSensitive(j, "kind");
	if (!cJSON_IsString(s) || !s->valuestring[0]) {
		job_pointer(at, sizeof(at), k, "scenario");
		return sc_error_set(err, SC_EINVAL, path, at, "expected a scenario file name");
	}
	if (s->valuestring[0] == '/' || !slash)
		snprintf(file, SC_ERROR_FILE_MAX, "%s", s->valuestring);
	else
		snprintf(file, SC_ERROR_FILE_MAX, "%.*s/%s", (int)(slash - path), path, s->valuestring);
	snprintf(out->job_name[k], sizeof(out->job_name[k]), "%s",
		 cJSON_IsString(n) ? n->valuestring : s->valuestring);
	if ((st = job_kind(path, k, kd, &out->kind[k], err)) != SC_OK)
		return st;
	if (out->kind[k] == CLUSTER_JOB_SERVING)
		return SC_OK;
	if ((st = scenario_load(file, cat, sc, err)) != SC_OK)
		return st;
	if (out->kind[k] == CLUSTER_JOB_CHECKPOINT && !sc->storage.enabled) {
		job_pointer(at, sizeof(at), k, "kind");
		return sc_error_set(err, SC_EINVAL, path, at,
				    "a checkpoint job needs its scenario's \"storage\" object (the tier it writes to)");
	}
	if (*t0 >= 0 && (strcmp(sc->cluster.instance.name, out->sc[*t0].cluster.instance.name) != 0 ||
			 strcmp(sc->cluster.fabric.name, out->sc[*t0].cluster.fabric.name) != 0)) {
		job_pointer(at, sizeof(at), k, "scenario");
		return sc_error_set(err, SC_EINVAL, path, at,
				    "job \"%s\" runs on %s / %s; the cluster's jobs share job %d's %s / %s",
				    out->job_name[k], sc->cluster.instance.name, sc->cluster.fabric.name, *t0,
				    out->sc[*t0].cluster.instance.name, out->sc[*t0].cluster.fabric.name);
	}
	if (*t0 < 0)
		*t0 = k;
	out->job_nodes[k] = sc->cluster.nodes;
	return SC_OK;
}

/* The serving jobs' node counts from the hook, then each job's first node:
 * every training job's nodes first, in file order, then the serving jobs'. */
static enum sc_status number_nodes(const char *path, const struct cluster_serving_hook *serving, int t0,
				   struct cluster_jobs *out, struct sc_error *err)
{
	enum sc_status st;

	for (int i = 0; i < out->n; i++) {
		char at[SC_ERROR_PTR_MAX];

		if (out->kind[i] != CLUSTER_JOB_SERVING)
			continue;
		job_pointer(at, sizeof(at), i, "kind");
		if (!serving || !serving->nodes)
			return sc_error_set(err, SC_EUNSUPPORTED, path, at, "serving jobs are not simulated here");
		if ((st = serving->nodes(serving->ctx, i, out->file[i], &out->sc[t0].cluster, &out->job_nodes[i],
					 err)) != SC_OK)
			return st;
	}
	for (int pass = 0; pass < 2; pass++)
		for (int i = 0; i < out->n; i++)
			if ((out->kind[i] == CLUSTER_JOB_SERVING) == (pass == 1)) {
				out->first_node[i] = out->nodes;
				out->nodes += out->job_nodes[i];
			}
	return SC_OK;
}

/* Each training or checkpoint job's slice of the whole placement: its
 * nodes first_node .. first_node + nodes - 1. */
static enum sc_status slice_placements(const char *path, const struct placement *whole,
				       struct cluster_jobs *out, struct sc_error *err)
{
	struct placement slice;
	enum sc_status st;

	for (int k = 0; k < out->n; k++) {
		int *idx;
		char src[PLACEMENT_SOURCE_MAX];

		if (out->kind[k] == CLUSTER_JOB_SERVING)
			continue;
		idx = malloc((size_t)out->sc[k].cluster.nodes * sizeof(*idx));
		if (!idx)
			return sc_error_set(err, SC_ENOMEM, path, NULL, "out of memory");
		for (int i = 0; i < out->sc[k].cluster.nodes; i++)
			idx[i] = out->first_node[k] + i;
		snprintf(src, sizeof(src), "nodes %d-%d of %s", out->first_node[k],
			 out->first_node[k] + out->sc[k].cluster.nodes - 1, whole->source);
		st = placement_subset(whole, idx, out->sc[k].cluster.nodes, src, &slice, err);
		free(idx);
		if (st != SC_OK)
			return st;
		if (!(out->sc[k].cluster.placement = placement_keep(&slice)))
			return sc_error_set(err, SC_ENOMEM, path, NULL, "out of memory");
	}
	return SC_OK;
}

/* The cluster's fabric (job t0's cluster at all the nodes) and its whole
 * placement (the file's, else packed), sliced per job. */
static enum sc_status place_jobs(const char *path, const cJSON *pl, int t0, struct cluster_jobs *out,
				 struct sc_error *err)
{
	struct placement whole;
	const struct placement *kept;
	enum sc_status st;
	int npl = out->sc[t0].cluster.fabric.nodes_per_leaf > 0 ? out->sc[t0].cluster.fabric.nodes_per_leaf : 0;

	memset(&whole, 0, sizeof(whole));
	if (pl)
		st = placement_read(path, pl, "/placement", out->nodes, npl, &whole, err);
	else
		st = placement_generate(&whole, PLACEMENT_GEN_PACKED, out->nodes, 0, npl > 0 ? npl : out->nodes, 1, err);
	if (st == SC_OK) {
		out->fabric = out->sc[t0].cluster;
		out->fabric.nodes = out->nodes;
		out->fabric_job = t0;
		st = slice_placements(path, &whole, out, err);
	}
	if (st == SC_OK && !(kept = placement_keep(&whole)))
		st = sc_error_set(err, SC_ENOMEM, path, NULL, "out of memory");
	else if (st == SC_OK)
		out->fabric.placement = kept;
	placement_free(&whole);
	return st;
}

enum sc_status cluster_jobs_load(const char *path, const struct catalog *cat,
				 const struct cluster_serving_hook *serving, struct cluster_jobs *out,
				 struct sc_error *err)
{
	static const char *const keys[] = { "name", "jobs", "placement", NULL };
	cJSON *root = cfg_parse_file(path, err);
	const cJSON *jobs, *nm, *j;
	struct cfg_reader rd = { path, err, NULL };
	enum sc_status st = SC_OK;
	int k = 0, t0 = -1;

	memset(out, 0, sizeof(*out));
	if (!root)
		return err->status;
	if (!cJSON_IsObject(root)) {
		st = sc_error_set(err, SC_EINVAL, path, "", "expected a cluster object, got %s", cfg_json_type_name(root));
		goto done;
	}
	if ((st = cfg_check_keys(&rd, root, keys, "")) != SC_OK)
		goto done;
	nm = cJSON_GetObjectItemCaseSensitive(root, "name");
	jobs = cJSON_GetObjectItemCaseSensitive(root, "jobs");
	if (!cJSON_IsString(nm)) {
		st = sc_error_set(err, SC_EINVAL, path, "/name", "expected the cluster's name (a string)");
		goto done;
	}
	snprintf(out->name, sizeof(out->name), "%s", nm->valuestring);
	if (!cJSON_IsArray(jobs) || cJSON_GetArraySize(jobs) < 1 || cJSON_GetArraySize(jobs) > CLUSTER_MAX_JOBS) {
		st = sc_error_set(err, SC_EINVAL, path, "/jobs", "expected an array of 1 to %d jobs", CLUSTER_MAX_JOBS);
		goto done;
	}
	out->sc = calloc((size_t)cJSON_GetArraySize(jobs), sizeof(*out->sc));
	if (!out->sc) {
		st = sc_error_set(err, SC_ENOMEM, path, NULL, "out of memory");
		goto done;
	}
	cJSON_ArrayForEach(j, jobs) {
		if ((st = read_job(path, cat, j, k, out, &t0, err)) != SC_OK)
			goto done;
		k++;
	}
	out->n = k;
	if (t0 < 0) {
		st = sc_error_set(err, SC_EINVAL, path, "/jobs",
				  "expected at least one training or checkpoint job (the fabric is its cluster)");
		goto done;
	}
	if ((st = number_nodes(path, serving, t0, out, err)) == SC_OK)
		st = place_jobs(path, cJSON_GetObjectItemCaseSensitive(root, "placement"), t0, out, err);
done:
	cJSON_Delete(root);
	if (st != SC_OK)
		cluster_jobs_free(out);
	return st;
}
