/* sc_api.c: the public API (include/stepcast/stepcast.h), a thin layer
 * over the catalogue and scenario loaders (sim/config) and the analytical
 * engine (sim/analytic).  It owns no rule of its own: each call is one call
 * of the function that owns it, wrapped in an opaque handle. */
#include "../../include/stepcast/stepcast.h"

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <gsl/gsl_errno.h>

#include "../analytic/step.h"
#include "../config/catalog_load.h"
#include "../config/datadir.h"
#include "../config/scenario_load.h"

struct sc_catalogue {
	struct catalog cat;
};

struct sc_scenario {
	struct scenario sc;
	char path[SC_ERROR_FILE_MAX];
};

struct sc_prediction {
	struct step_result r;
};

static bool initialised;

enum sc_status sc_library_init(void)
{
	if (!initialised) {
		/* GSL's default handler abort()s; its callers here check the
		 * status it returns instead (the CLI's main() does the same). */
		gsl_set_error_handler_off();
		(void)cfg_data_dir();
		initialised = true;
	}
	return SC_OK;
}

const char *sc_version(void)
{
	return STEPCAST_VERSION;
}

const char *sc_data_dir(void)
{
	sc_library_init();
	return cfg_data_dir();
}

enum sc_status sc_catalogue_load(const char *dir, struct sc_catalogue **out,
				 struct sc_error *err)
{
	struct sc_catalogue *c;
	enum sc_status st;

	sc_library_init();
	sc_error_clear(err);
	if (!out)
		return sc_error_set(err, SC_EINVAL, NULL, NULL, "sc_catalogue_load: out is NULL");
	*out = NULL;
	if (!(c = calloc(1, sizeof(*c))))
		return sc_error_set(err, SC_ENOMEM, NULL, NULL, "out of memory");
	if ((st = catalog_load(dir ? dir : catalog_default_dir(), &c->cat, err)) != SC_OK) {
		free(c);
		return st;
	}
	*out = c;
	return SC_OK;
}

void sc_catalogue_free(struct sc_catalogue *cat)
{
	if (!cat)
		return;
	catalog_free(&cat->cat);
	free(cat);
}

enum sc_status sc_scenario_load(const struct sc_catalogue *cat, const char *path,
				struct sc_scenario **out, struct sc_error *err)
{
	struct sc_scenario *s;
	enum sc_status st;

	sc_library_init();
	sc_error_clear(err);
	if (!out || !cat || !path)
		return sc_error_set(err, SC_EINVAL, NULL, NULL,
				    "sc_scenario_load: catalogue, path and out must not be NULL");
	*out = NULL;
	if (!(s = calloc(1, sizeof(*s))))
		return sc_error_set(err, SC_ENOMEM, path, NULL, "out of memory");
	if ((st = scenario_load(path, &cat->cat, &s->sc, err)) != SC_OK) {
		free(s);
		return st;
	}
	snprintf(s->path, sizeof(s->path), "%s", path);
	*out = s;
	return SC_OK;
}

void sc_scenario_free(struct sc_scenario *sc)
{
	free(sc);
}

enum sc_status sc_predict(const struct sc_scenario *sc, struct sc_prediction **out,
			  struct sc_error *err)
{
	struct sc_prediction *p;
	enum sc_status st;

	sc_library_init();
	sc_error_clear(err);
	if (!out || !sc)
		return sc_error_set(err, SC_EINVAL, NULL, NULL,
				    "sc_predict: scenario and out must not be NULL");
	*out = NULL;
	if (!(p = calloc(1, sizeof(*p))))
		return sc_error_set(err, SC_ENOMEM, sc->path, NULL, "out of memory");
	if ((st = sim_step_predict(&sc->sc, &p->r, err)) != SC_OK) {
		/* the engine's errors point into the scenario: name its file */
		if (err && !err->file[0])
			snprintf(err->file, sizeof(err->file), "%s", sc->path);
		free(p);
		return st;
	}
	*out = p;
	return SC_OK;
}

void sc_prediction_free(struct sc_prediction *p)
{
	free(p);
}

double sc_prediction_step_time_s(const struct sc_prediction *p)
{
	return p ? p->r.step_time_s : 0.0;
}

double sc_prediction_tokens_per_s(const struct sc_prediction *p)
{
	return p ? p->r.tokens_per_s : 0.0;
}

double sc_prediction_mfu(const struct sc_prediction *p)
{
	return p ? p->r.mfu : 0.0;
}

double sc_prediction_memory_bytes(const struct sc_prediction *p)
{
	return p ? p->r.mem_total_bytes : 0.0;
}

double sc_prediction_memory_capacity_bytes(const struct sc_prediction *p)
{
	return p ? p->r.mem_capacity_bytes : 0.0;
}

int sc_prediction_oom(const struct sc_prediction *p)
{
	return p && p->r.oom ? 1 : 0;
}

const char *sc_prediction_bottleneck(const struct sc_prediction *p)
{
	return p ? bottleneck_name(p->r.bottleneck) : "unknown";
}
