/* cluster_load.c: several jobs on one fabric (see cluster_load.h). */
#include "cluster_load.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cfg_json.h"
#include "placement_load.h"
#include "scenario_load.h"

/* A job's "kind" (absent: training). */
static enum sc_status job_kind(const char *path, int k, const cJSON *kd, enum cluster_job_kind *out,
			       struct sc_error *err)
{
	static const char *const names[] = { "training", "checkpoint", "serving" };
	char at[64];

	snprintf(at, sizeof(at), "/jobs/%d/kind", k);
	*out = CLUSTER_JOB_TRAINING;
	if (!kd)
		return SC_OK;
	for (int i = 0; cJSON_IsString(kd) && i < 3; i++)
		if (strcmp(kd->valuestring, names[i]) == 0) {
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

enum sc_status cluster_jobs_load(const char *path, const struct catalog *cat,
				 const struct cluster_serving_hook *serving, struct cluster_jobs *out,
				 struct sc_error *err)
{
	static const char *const keys[] = { "name", "jobs", "placement", NULL };
	static const char *const job_keys[] = { "scenario", "name", "kind", NULL };
	cJSON *root = cfg_parse_file(path, err);
	const cJSON *jobs, *nm, *pl, *j;
	struct cfg_reader rd = { path, err, NULL };
	struct placement whole, slice;
	const struct placement *kept;
	enum sc_status st = SC_OK;
	const char *slash = strrchr(path, '/');
	int k = 0, npl, t0 = -1;

	memset(out, 0, sizeof(*out));
	memset(&whole, 0, sizeof(whole));
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
	pl = cJSON_GetObjectItemCaseSensitive(root, "placement");
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
		char at[64];
		char *file = out->file[k];
		const cJSON *s, *n, *kd;

		snprintf(at, sizeof(at), "/jobs/%d", k);
		if (!cJSON_IsObject(j)) {
			st = sc_error_set(err, SC_EINVAL, path, at, "expected a job object, got %s", cfg_json_type_name(j));
			goto done;
		}
		if ((st = cfg_check_keys(&rd, j, job_keys, at)) != SC_OK)
			goto done;
		s = cJSON_GetObjectItemCaseSensitive(j, "scenario");
		n = cJSON_GetObjectItemCaseSensitive(j, "name");
		kd = cJSON_GetObjectItemCaseSensitive(j, "kind");
		if (!cJSON_IsString(s) || !s->valuestring[0]) {
			snprintf(at, sizeof(at), "/jobs/%d/scenario", k);
			st = sc_error_set(err, SC_EINVAL, path, at, "expected a scenario file name");
			goto done;
		}
		if (s->valuestring[0] == '/' || !slash)
			snprintf(file, SC_ERROR_FILE_MAX, "%s", s->valuestring);
		else
			snprintf(file, SC_ERROR_FILE_MAX, "%.*s/%s", (int)(slash - path), path, s->valuestring);
		snprintf(out->job_name[k], sizeof(out->job_name[k]), "%s",
			 cJSON_IsString(n) ? n->valuestring : s->valuestring);
		if ((st = job_kind(path, k, kd, &out->kind[k], err)) != SC_OK)
			goto done;
		if (out->kind[k] == CLUSTER_JOB_SERVING) {
			k++;
			continue;
		}
		if ((st = scenario_load(file, cat, &out->sc[k], err)) != SC_OK)
			goto done;
		if (out->kind[k] == CLUSTER_JOB_CHECKPOINT && !out->sc[k].storage.enabled) {
			snprintf(at, sizeof(at), "/jobs/%d/kind", k);
			st = sc_error_set(err, SC_EINVAL, path, at,
					  "a checkpoint job needs its scenario's \"storage\" object (the tier it writes to)");
			goto done;
		}
		if (t0 >= 0 && (strcmp(out->sc[k].cluster.instance.name, out->sc[t0].cluster.instance.name) != 0 ||
				strcmp(out->sc[k].cluster.fabric.name, out->sc[t0].cluster.fabric.name) != 0)) {
			snprintf(at, sizeof(at), "/jobs/%d/scenario", k);
			st = sc_error_set(err, SC_EINVAL, path, at,
					  "job \"%s\" runs on %s / %s; the cluster's jobs share job %d's %s / %s",
					  out->job_name[k], out->sc[k].cluster.instance.name, out->sc[k].cluster.fabric.name,
					  t0, out->sc[t0].cluster.instance.name, out->sc[t0].cluster.fabric.name);
			goto done;
		}
		if (t0 < 0)
			t0 = k;
		out->job_nodes[k] = out->sc[k].cluster.nodes;
		k++;
	}
	out->n = k;
	if (t0 < 0) {
		st = sc_error_set(err, SC_EINVAL, path, "/jobs",
				  "expected at least one training or checkpoint job (the fabric is its cluster)");
		goto done;
	}
	/* serving jobs: their nodes from the hook; every training job's
	 * nodes first, in file order, then the serving jobs' */
	for (int i = 0; i < out->n; i++) {
		char at[64];

		if (out->kind[i] != CLUSTER_JOB_SERVING)
			continue;
		snprintf(at, sizeof(at), "/jobs/%d/kind", i);
		if (!serving || !serving->nodes) {
			st = sc_error_set(err, SC_EUNSUPPORTED, path, at, "serving jobs are not simulated here");
			goto done;
		}
		if ((st = serving->nodes(serving->ctx, i, out->file[i], &out->sc[t0].cluster, &out->job_nodes[i],
					 err)) != SC_OK)
			goto done;
	}
	for (int pass = 0; pass < 2; pass++)
		for (int i = 0; i < out->n; i++)
			if ((out->kind[i] == CLUSTER_JOB_SERVING) == (pass == 1)) {
				out->first_node[i] = out->nodes;
				out->nodes += out->job_nodes[i];
			}
	npl = out->sc[t0].cluster.fabric.nodes_per_leaf > 0 ? out->sc[t0].cluster.fabric.nodes_per_leaf : 0;
	if (pl)
		st = placement_read(path, pl, "/placement", out->nodes, npl, &whole, err);
	else
		st = placement_generate(&whole, PLACEMENT_GEN_PACKED, out->nodes, 0, npl > 0 ? npl : out->nodes, 1, err);
	if (st != SC_OK)
		goto done;
	out->fabric = out->sc[t0].cluster;
	out->fabric.nodes = out->nodes;
	out->fabric_job = t0;
	for (k = 0; k < out->n; k++) {
		int *idx;
		char src[PLACEMENT_SOURCE_MAX];

		if (out->kind[k] == CLUSTER_JOB_SERVING)
			continue;
		idx = malloc((size_t)out->sc[k].cluster.nodes * sizeof(*idx));
		if (!idx) {
			st = sc_error_set(err, SC_ENOMEM, path, NULL, "out of memory");
			goto done;
		}
		for (int i = 0; i < out->sc[k].cluster.nodes; i++)
			idx[i] = out->first_node[k] + i;
		snprintf(src, sizeof(src), "nodes %d-%d of %s", out->first_node[k],
			 out->first_node[k] + out->sc[k].cluster.nodes - 1, whole.source);
		st = placement_subset(&whole, idx, out->sc[k].cluster.nodes, src, &slice, err);
		free(idx);
		if (st != SC_OK)
			goto done;
		if (!(out->sc[k].cluster.placement = placement_keep(&slice))) {
			st = sc_error_set(err, SC_ENOMEM, path, NULL, "out of memory");
			goto done;
		}
	}
	if (!(kept = placement_keep(&whole))) {
		st = sc_error_set(err, SC_ENOMEM, path, NULL, "out of memory");
		goto done;
	}
	out->fabric.placement = kept;
done:
	placement_free(&whole);
	cJSON_Delete(root);
	if (st != SC_OK)
		cluster_jobs_free(out);
	return st;
}
