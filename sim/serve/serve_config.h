/* serve_config.h: strict reading of serving inputs: the engine catalogue
 * (configs/engines.json), serving scenarios (scenarios/serve-*.json, schema
 * configs/schema/serve-scenario.schema.json) and request traces (CSV).
 *
 * Errors name the file and JSON pointer (or CSV line).  The field tables
 * are exported for the schema test.  struct srv_engines and struct
 * srv_trace own heap arrays: release them with srv_engines_free() and
 * srv_trace_free(); struct srv_scenario holds no pointers.
 */
#ifndef SC_SERVE_CONFIG_H
#define SC_SERVE_CONFIG_H

#include "../config/catalog_load.h"
#include "serve.h"

extern const struct cfg_field cfg_engine_fields[];          /* a catalogue entry */
extern const struct cfg_field cfg_engine_override_fields[]; /* a scenario's "engine" object */
extern const struct cfg_field cfg_engine_wrapper_fields[];  /* a catalogue entry that wraps another (NIM) */
extern const struct cfg_field cfg_serve_scenario_fields[];
extern const struct cfg_field cfg_serve_replica_fields[];
extern const struct cfg_field cfg_serve_precision_fields[];
extern const struct cfg_field cfg_serve_workload_fields[];
extern const struct cfg_field cfg_serve_length_fields[];
extern const struct cfg_field cfg_serve_slo_fields[];
extern const struct cfg_field cfg_serve_speculative_fields[];
extern const struct cfg_field cfg_serve_disagg_fields[];

struct srv_engines {
	struct srv_engine *engines;
	int n;
};

/* Read DIR/engines.json ({ "schema_version": 1, "engines": [ ... ] }). */
enum sc_status srv_engines_load(const char *dir, struct srv_engines *out, struct sc_error *err);
void srv_engines_free(struct srv_engines *e);
const struct srv_engine *srv_engine_find(const struct srv_engines *e, const char *name);
/* Applies e's smaller-GPU defaults (small_gpu_*) when gpu qualifies, to
 * the settings not set explicitly; true when a setting changed. */
/* With attention_dp > 1 ranks and an engine whose batch limits are per
 * attention rank (configs/engines.json attention_dp_per_rank_limits), the
 * replica's limits become attention_dp times them (capped at the limits of
 * models/limits.h).  Returns the factor applied (1: none). */
int srv_engine_attention_dp_limits(struct srv_engine *e, int attention_dp);
/* The batch limits one replica of layout lay runs at: the engine's, or,
 * when the engine's limits are per attention rank, its per-rank limits
 * times lay's own attention_dp (a disaggregated pool may differ from the
 * replica). */
void srv_engine_pool_limits(const struct srv_engine *e, const struct srv_layout *lay, int *max_num_seqs,
			    int *max_num_batched_tokens);

bool srv_engine_gpu_defaults(struct srv_engine *e, const struct gpu_spec *gpu, bool seqs_set,
			     bool tokens_set);

/* Load a serving scenario against the catalogue and engines.  Defaults:
 * fabric "ultracluster"; replica pp 1, ep 1; precision activations = the
 * weights' format (bf16 for a weight-only format), kv_cache bf16 (fp16 with
 * fp16 weights); workload requests 1000, warmup_requests requests/10 (0
 * for a burst), seed 1, prefix_cache_hit_rate 0; router least-loaded;
 * calibration the GPU's profile.  Cross-field rules (arrival kind and its
 * parameter, replicas versus disaggregated) are checked here. */
enum sc_status srv_scenario_load(const char *path, const struct catalog *cat,
				 const struct srv_engines *engines, struct srv_scenario *sc,
				 struct sc_error *err);
enum sc_status srv_scenario_read(const char *file, const cJSON *root, const struct catalog *cat,
				 const struct srv_engines *engines, struct srv_scenario *sc,
				 struct sc_error *err);

/* One request of a trace. */
struct srv_trace_req {
	double arrival_s;
	int input_tokens;
	int output_tokens;
};

struct srv_trace {
	struct srv_trace_req *reqs;
	int n;
};

/* Read a CSV trace with the header "arrival_s,input_tokens,output_tokens",
 * one request per line, arrival times non-decreasing.  Errors say the
 * line ("line 7: ..."). */
enum sc_status srv_trace_load(const char *path, struct srv_trace *out, struct sc_error *err);
void srv_trace_free(struct srv_trace *t);

/* The trace path of a scenario resolved against the scenario's directory
 * (an absolute path is kept). */
void srv_trace_path(const struct srv_scenario *sc, char *out, size_t n);

#endif
