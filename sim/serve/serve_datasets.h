/* serve_datasets.h: the catalogue of named serving workloads
 * (configs/datasets.json, schema configs/schema/datasets.schema.json):
 * benchmark datasets with their published prompt and output length
 * statistics per tokenizer (ShareGPT as vLLM's benchmark_serving samples
 * it, the MLPerf Inference LLM datasets, synthetic fixed lengths), and for
 * the MLPerf ones the Server scenario's p99 TTFT and TPOT limits.
 *
 * A serving scenario names one in workload.dataset (and optionally
 * workload.tokenizer); srv_dataset_lengths() turns the statistics into the
 * length distributions the simulation samples, seeded, with one rule per
 * kind of published statistic (srv_length_of_stat).  struct srv_datasets
 * owns a heap array: release it with srv_datasets_free().
 */
#ifndef SC_SERVE_DATASETS_H
#define SC_SERVE_DATASETS_H

#include "../config/cfg_json.h"
#include "serve.h"

#define SRV_DATASET_TOKENIZERS 8
#define SRV_DATASET_TEXT_MAX 1024

/* A published length statistic; mean 0 and sd < 0: not published, max 0:
 * no bound published. */
struct srv_length_stat {
	double mean;
	double sd;
	int min;
	int max;
};

struct srv_dataset_tok {
	char tokenizer[SC_NAME_MAX];
	struct srv_length_stat input_tokens, output_tokens;
	char source[SRV_DATASET_TEXT_MAX];
};

struct srv_mlperf_server {
	double ttft_p99_ms;       /* 0: no limit (older benchmarks) */
	double tpot_p99_ms;
	double latency_p99_s;     /* the whole-query latency bound */
	char source[SRV_DATASET_TEXT_MAX];
};

struct srv_dataset {
	char name[SC_NAME_MAX];
	char description[SRV_DATASET_TEXT_MAX];
	int samples;              /* 0: not stated */
	int kind;                 /* enum srv_dataset_kind */
	struct srv_dataset_tok tokenizers[SRV_DATASET_TOKENIZERS];
	int n_tokenizers;
	bool has_mlperf_server;
	struct srv_mlperf_server mlperf_server;
};

enum srv_dataset_kind { SRV_DATASET_SAMPLED, SRV_DATASET_SYNTHETIC, SRV_DATASET_MLPERF };

struct srv_datasets {
	struct srv_dataset *d;
	int n;
};

extern const struct cfg_field cfg_dataset_fields[];        /* a catalogue entry */
extern const struct cfg_field cfg_dataset_tok_fields[];
extern const struct cfg_field cfg_dataset_length_fields[];
extern const struct cfg_field cfg_dataset_server_fields[];

/* Read DIR/datasets.json ({ "schema_version": 1, "datasets": [ ... ] });
 * names unique, tokenizers unique per dataset, min <= max. */
enum sc_status srv_datasets_load(const char *dir, struct srv_datasets *out, struct sc_error *err);
void srv_datasets_free(struct srv_datasets *d);
const struct srv_dataset *srv_dataset_find(const struct srv_datasets *d, const char *name);

/* The length distribution a published statistic stands for:
 *  - min = max, or sd 0: fixed;
 *  - a mean: lognormal with that mean and sd (not published: coefficient of
 *    variation 1, the rule of the serving validation for sampled datasets),
 *    clipped to [min, max] (no max: 8 x the mean), its uncapped mean chosen
 *    so the clipped one is the published mean;
 *  - only bounds: uniform on [min, max] (the least-informative
 *    distribution that respects them);
 * false when neither a mean nor a max is published. */
bool srv_length_of_stat(const struct srv_length_stat *s, struct srv_length *out);

/* Mean of min(X, c) for X lognormal with mean `mean` and coefficient of
 * variation cv (closed form); and the uncapped mean whose capped mean is
 * `capped` (bisection). */
double srv_capped_lognormal_mean(double mean, double cv, double c);
double srv_lognormal_mean_for_capped(double capped, double cv, double c);

/* The expected length the simulation's sampler draws from l: the mean of
 * the distribution after its clip to [min, max] (a lognormal's field
 * `mean` is the uncapped one, see srv_length_of_stat; a normal's clip at
 * both ends), rounding aside.  The one owner of "the mean length" that
 * sizing, capacity and the regimes use, so they agree with the sampler. */
double srv_length_mean(const struct srv_length *l);

/* Dataset ds's lengths for tokenizer tok (NULL or not listed: its first
 * entry; *used names the one taken) into in and out; SC_EINVAL naming the
 * dataset when a length cannot be sampled. */
enum sc_status srv_dataset_lengths(const struct srv_dataset *ds, const char *tok,
				   struct srv_length *in, struct srv_length *out,
				   const struct srv_dataset_tok **used, struct sc_error *err);

#endif
