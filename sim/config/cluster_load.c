/* cluster_load.c: several jobs on one fabric (see cluster_load.h). */
#include "cluster_load.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cfg_json.h"
#include "placement_load.h"
#include "scenario_load.h"

/* A job's "kind" (absent: training); a checkpoint job needs somewhere to
 * write its checkpoint. */
static enum sc_status job_kind(const char *path, int k, const cJSON *kd, const struct scenario *sc,
			       enum cluster_job_kind *out, struct sc_error *err)
{
	char at[64];

	snprintf(at, sizeof(at), "/jobs/%d/kind", k);
	*out = CLUSTER_JOB_TRAINING;
	if (!kd)
		return SC_OK;
	if (!cJSON_IsString(kd) ||
	    (strcmp(kd->valuestring, "training") != 0 && strcmp(kd->valuestring, "checkpoint") != 0))
		return sc_error_set(err, SC_EINVAL, path, at, "expected \"training\" or \"checkpoint\"");
	if (strcmp(kd->valuestring, "checkpoint") == 0) {
		if (!sc->storage.enabled)
			return sc_error_set(err, SC_EINVAL, path, at,
					    "a checkpoint job needs its scenario's \"storage\" object (the tier it writes to)");
		*out = CLUSTER_JOB_CHECKPOINT;
	}
	return SC_OK;
}

void cluster_jobs_free(struct cluster_jobs *c)
{
	free(c->sc);
	c->sc = NULL;
	c->n = 0;
}

enum sc_status cluster_jobs_load(const char *path, const struct catalog *cat, struct cluster_jobs *out,
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
	int k = 0, npl;

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
		char at[64], file[SC_ERROR_FILE_MAX];
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
			snprintf(file, sizeof(file), "%s", s->valuestring);
		else
			snprintf(file, sizeof(file), "%.*s/%s", (int)(slash - path), path, s->valuestring);
		if ((st = scenario_load(file, cat, &out->sc[k], err)) != SC_OK)
			goto done;
		snprintf(out->job_name[k], sizeof(out->job_name[k]), "%s",
			 cJSON_IsString(n) ? n->valuestring : s->valuestring);
		if ((st = job_kind(path, k, kd, &out->sc[k], &out->kind[k], err)) != SC_OK)
			goto done;
		if (k > 0 && (strcmp(out->sc[k].cluster.instance.name, out->sc[0].cluster.instance.name) != 0 ||
			      strcmp(out->sc[k].cluster.fabric.name, out->sc[0].cluster.fabric.name) != 0)) {
			snprintf(at, sizeof(at), "/jobs/%d/scenario", k);
			st = sc_error_set(err, SC_EINVAL, path, at,
					  "job \"%s\" runs on %s / %s; the cluster's jobs share job 0's %s / %s",
					  out->job_name[k], out->sc[k].cluster.instance.name, out->sc[k].cluster.fabric.name,
					  out->sc[0].cluster.instance.name, out->sc[0].cluster.fabric.name);
			goto done;
		}
		out->first_node[k] = out->nodes;
		out->nodes += out->sc[k].cluster.nodes;
		k++;
	}
	out->n = k;
	npl = out->sc[0].cluster.fabric.nodes_per_leaf > 0 ? out->sc[0].cluster.fabric.nodes_per_leaf : 0;
	if (pl)
		st = placement_read(path, pl, "/placement", out->nodes, npl, &whole, err);
	else
		st = placement_generate(&whole, PLACEMENT_GEN_PACKED, out->nodes, 0, npl > 0 ? npl : out->nodes, 1, err);
	if (st != SC_OK)
		goto done;
	out->fabric = out->sc[0].cluster;
	out->fabric.nodes = out->nodes;
	for (k = 0; k < out->n; k++) {
		int *idx = malloc((size_t)out->sc[k].cluster.nodes * sizeof(*idx));
		char src[PLACEMENT_SOURCE_MAX];

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
