/* stepcast.h: the public C API of libstepcast.
 *
 * Load the catalogue (configs/: GPUs, instances, fabrics, models,
 * calibration profiles), load a scenario (a training job on a cluster), and
 * predict one training step: step time, tokens/s, MFU, memory per GPU and
 * the bottleneck, as `stepcast predict` does with the analytical engine.
 *
 *   sc_library_init();
 *   struct sc_error err;
 *   struct sc_catalogue *cat;
 *   struct sc_scenario *sc;
 *   struct sc_prediction *p;
 *   if (sc_catalogue_load(NULL, &cat, &err) != SC_OK) ... err.file, err.pointer, err.message
 *   if (sc_scenario_load(cat, "job.json", &sc, &err) != SC_OK) ...
 *   if (sc_predict(sc, &p, &err) != SC_OK) ...
 *   printf("%g s\n", sc_prediction_step_time_s(p));
 *   sc_prediction_free(p); sc_scenario_free(sc); sc_catalogue_free(cat);
 *
 * Errors are values: every function that can fail returns an enum sc_status
 * and fills the caller's struct sc_error (<stepcast/status.h>) with the
 * file, the RFC 6901 JSON pointer inside it and a message.  The library
 * never prints and never exits.  Handles are opaque; each *_free accepts
 * NULL.  A scenario keeps what it needs of the catalogue: the catalogue may
 * be freed once the scenarios are loaded.
 *
 * Build with `pkg-config --cflags --libs stepcast`, or in CMake
 * `find_package(stepcast)` and link stepcast::stepcast.
 */
#ifndef STEPCAST_STEPCAST_H
#define STEPCAST_STEPCAST_H

#include <stepcast/status.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Bumped when a declaration here changes incompatibly. */
#define SC_API_VERSION 1

struct sc_catalogue;
struct sc_scenario;
struct sc_prediction;

/* Prepare the library: switch GSL's error handler (which calls abort())
 * off, so that a numerical failure comes back as a status, and find the
 * data directory.  Call it once, before starting threads; every function
 * below calls it too if the caller has not, so it cannot be forgotten.
 * Returns SC_OK. */
enum sc_status sc_library_init(void);

/* The library's version, e.g. "0.1.0" (static string). */
const char *sc_version(void);

/* The installed data directory (configs/, scenarios/, validation/): the
 * environment's $STEPCAST_DATADIR, else PREFIX/share/stepcast next to the
 * library; NULL when there is none. */
const char *sc_data_dir(void);

/* Load the catalogue of dir (NULL: $STEPCAST_CONFIG_DIR, else the data
 * directory's configs/) into a new handle *out. */
enum sc_status sc_catalogue_load(const char *dir, struct sc_catalogue **out,
				 struct sc_error *err);
void sc_catalogue_free(struct sc_catalogue *cat);

/* Load the scenario file path against cat into a new handle *out. */
enum sc_status sc_scenario_load(const struct sc_catalogue *cat, const char *path,
				struct sc_scenario **out, struct sc_error *err);
void sc_scenario_free(struct sc_scenario *sc);

/* Predict one training step of sc with the analytical engine into a new
 * handle *out.  A layout that does not fit in memory is a prediction
 * (sc_prediction_oom), not an error. */
enum sc_status sc_predict(const struct sc_scenario *sc, struct sc_prediction **out,
			  struct sc_error *err);
void sc_prediction_free(struct sc_prediction *p);

/* Wall-clock time of one optimizer step, seconds. */
double sc_prediction_step_time_s(const struct sc_prediction *p);
/* Tokens per second over the whole cluster. */
double sc_prediction_tokens_per_s(const struct sc_prediction *p);
/* Model FLOP utilisation: model FLOPs / peak FLOP/s of the precision (0..1). */
double sc_prediction_mfu(const struct sc_prediction *p);
/* Bytes per GPU on the worst pipeline stage, and the GPU's HBM bytes. */
double sc_prediction_memory_bytes(const struct sc_prediction *p);
double sc_prediction_memory_capacity_bytes(const struct sc_prediction *p);
/* 1 when the layout does not fit in the GPU's memory, else 0. */
int sc_prediction_oom(const struct sc_prediction *p);
/* What limits the step: "tensor_cores", "hbm", "nvlink", "efa",
 * "pipeline_bubble" or "overhead" (static string). */
const char *sc_prediction_bottleneck(const struct sc_prediction *p);

#ifdef __cplusplus
}
#endif

#endif
