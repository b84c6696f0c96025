/* cal_profile.c: fitted profiles: cluster lookup, JSON with fits, reading
 * the fits back, and predict's out-of-range check (see cal_profile.h). */
#include "cal_profile.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "../sim/config/calibration_json.h"
#include "../sim/config/cfg_json.h"
#include "fit/fit.h"
#include "../sim/config/rpt_num.h" /* after cJSON: output numbers checked */

enum sc_status cal_cluster_of(const struct catalog *cat, const char *instance,
			      const char *fabric, struct cluster *out, struct sc_error *err)
{
	const struct instance_spec *in = catalog_instance(cat, instance);
	const struct fabric_spec *fa;
	const struct gpu_spec *gpu;

	if (!fabric)
		fabric = "ultracluster";
	if (!in)
		return catalog_unknown(cat, "instance", instance, "--instance", NULL, err);
	if (!(fa = catalog_fabric(cat, fabric)))
		return catalog_unknown(cat, "fabric", fabric, "--fabric", NULL, err);
	if (!(gpu = catalog_gpu(cat, in->gpu)))
		return catalog_unknown(cat, "gpu", in->gpu, "--instance", NULL, err);
	memset(out, 0, sizeof(*out));
	out->instance = *in;
	out->gpu = *gpu;
	out->fabric = *fa;
	out->nodes = 1;
	return SC_OK;
}

static cJSON *numbers(const double *v, int n, const char *quantity)
{
	cJSON *a = cJSON_CreateArray();

	for (int i = 0; a && i < n; i++) {
		cJSON *x = cfg_json_push(a, rpt_json_number(v[i], quantity));
		if (!x) {
			cJSON_Delete(a);
			return NULL;
		}
	}
	return a;
}

cJSON *cal_profile_json(const struct calibration *cal, const struct calib_fit *fits, int n_fits)
{
	cJSON *o = cfg_calibration_json(cal), *arr;

	if (!o || n_fits <= 0)
		return o;
	/* "fits" needs schema_version 2 */
	cJSON_ReplaceItemInObjectCaseSensitive(o, "schema_version", cJSON_CreateNumber(2));
	arr = cJSON_CreateArray();
	if (!arr || !cJSON_AddItemToObject(o, "fits", arr)) {
		cJSON_Delete(arr);
		cJSON_Delete(o);
		return NULL;
	}
	for (int i = 0; i < n_fits; i++) {
		cJSON *f = cfg_json_push(arr, cfg_to_json(cfg_calib_fit_fields, &fits[i]));
		if (!f) {
			cJSON_Delete(o);
			return NULL;
		}
		if (fits[i].n_residuals > 0) {
			cJSON_AddItemToObject(f, "x", numbers(fits[i].x, fits[i].n_residuals, "fit x"));
			cJSON_AddItemToObject(f, "residuals", numbers(fits[i].residual, fits[i].n_residuals, "fit residual"));
		}
	}
	return o;
}

enum sc_status cal_profile_read_fits(const char *path, struct calib_fit *fits, int max,
				     int *n, struct sc_error *err)
{
	struct cfg_reader rd = { path, err, NULL };
	cJSON *root = cfg_parse_file(path, err);
	const cJSON *arr;
	enum sc_status st = SC_OK;

	*n = 0;
	if (!root)
		return err ? err->status : SC_EINVAL;
	arr = cJSON_GetObjectItemCaseSensitive(root, "fits");
	if (arr)
		st = cfg_read_calibration_fits(&rd, arr, fits, max, n, "/fits");
	cJSON_Delete(root);
	return st;
}

int cal_range_check(const struct calibration *cal, const struct step_result *r,
		    struct cal_range_warning *out, int max)
{
	int count = 0;

	for (int i = 0; i < r->n_collectives; i++) {
		const struct step_collective *c = &r->collectives[i];
		char names[256] = "", what[160] = "";
		int bad = 0;

		for (int p = 0; p < CALIB_COUNT; p++) {
			const struct calib_range *g = &cal->range[p];
			bool out_bytes, out_ranks;
			size_t len;

			if (g->quantity != CALIB_RANGE_MESSAGE_BYTES ||
			    !cal_algorithm_uses(c->algorithm, c->tier, (enum calib_param)p))
				continue;
			out_bytes = c->bytes < g->min || c->bytes > g->max;
			out_ranks = g->ranks_max > 0 && (c->ranks < g->ranks_min || c->ranks > g->ranks_max);
			if (!out_bytes && !out_ranks)
				continue;
			if (bad == 0)
				snprintf(what, sizeof(what), "fitted to %.4g-%.4g bytes, %d-%d ranks",
					 g->min, g->max, g->ranks_min, g->ranks_max);
			len = strlen(names);
			if (len + strlen(calib_params[p].name) + 3 < sizeof(names))
				snprintf(names + len, sizeof(names) - len, "%s%s", bad ? ", " : "",
					 calib_params[p].name);
			bad++;
		}
		if (!bad)
			continue;
		if (count < max)
			snprintf(out[count].text, sizeof(out[count].text),
				 "%s collective of %.4g bytes over %d ranks (%s, %s) is outside the data "
				 "profile \"%s\" was fitted to for %s (%s): the prediction extrapolates",
				 c->what, c->bytes, c->ranks, c->tier, c->algorithm, cal->name, names, what);
		count++;
	}
	return count;
}

enum sc_status cal_profile_output_path(const char *output, const char *cat_dir, const char *name, bool force,
				       char *path, size_t size, struct sc_error *err)
{
	struct stat sb;

	if (output)
		snprintf(path, size, "%s", output);
	else
		snprintf(path, size, "%s/calibration/%s.json", cat_dir, name);
	if (!force && stat(path, &sb) == 0)
		return sc_error_set(err, SC_EINVAL, NULL, NULL, "%s exists; pass --force to replace it", path);
	return SC_OK;
}

void cal_profile_describe(struct calibration *cal, const char *name, const char *description,
			  const struct cal_measurements *m, const struct cluster *cl,
			  const struct calibration *base, const char *created)
{
	struct calib_provenance *p = &cal->provenance;

	snprintf(cal->name, sizeof(cal->name), "%s", name);
	if (description)
		snprintf(cal->description, sizeof(cal->description), "%s", description);
	else
		snprintf(cal->description, sizeof(cal->description),
			 "Fitted by stepcast calibrate fit to %.400s on %s (%s); parameters not fitted "
			 "come from %s. Each fitted parameter records the range of the data that moved "
			 "it; predict warns outside it.", m->prov.inputs, cl->instance.name, cl->gpu.name,
			 base->name);
	cal->has_provenance = true;
	snprintf(p->created, sizeof(p->created), "%s", created);
	snprintf(p->tool, sizeof(p->tool), "stepcast %s calibrate fit", STEPCAST_VERSION);
	snprintf(p->gpu, sizeof(p->gpu), "%s", m->prov.gpu);
	snprintf(p->driver, sizeof(p->driver), "%s", m->prov.driver);
	snprintf(p->cuda, sizeof(p->cuda), "%s", m->prov.cuda);
	snprintf(p->nccl, sizeof(p->nccl), "%s", m->prov.nccl);
	snprintf(p->instance, sizeof(p->instance), "%s", cl->instance.name);
	snprintf(p->base_profile, sizeof(p->base_profile), "%s", base->name);
	snprintf(p->inputs, sizeof(p->inputs), "%s", m->prov.inputs);
}
