/* scenario_storage.c: a scenario's "storage" and "stragglers" objects (see
 * scenario_storage.h). */
#include "scenario_storage.h"

#include <stdio.h>
#include <string.h>

#include "../../models/resilience.h"
#include "../../models/storage.h"

#define POS CFG_POSITIVE


/* "data_tier", "checkpoint_tier": a storage tier name from configs/storage.json. */
static enum sc_status read_tier_ref(struct cfg_reader *rd, const cJSON *item, void *slot,
				    const char *where)
{
	return cfg_ref_storage(rd, rd->ctx, item, slot, where);
}

/* "failures": a failure profile name from configs/resilience.json, turned
 * into per-cause rates. */
static enum sc_status read_failures_ref(struct cfg_reader *rd, const cJSON *item, void *slot,
					const char *where)
{
	const struct catalog *cat = rd->ctx;
	const struct resilience_catalog *rc = &cat->resilience;
	const struct failure_profile_spec *p;
	enum sc_status st;

	if (!cJSON_IsString(item))
		return sc_error_set(rd->err, SC_EINVAL, rd->file, where,
				    "expected a failure profile name, got %s", cfg_json_type_name(item));
	p = resilience_profile(rc, item->valuestring);
	if (!p) {
		const char *names[64];
		const char *hint;
		int n = 0;

		for (int i = 0; i < rc->n_profiles && n < 63; i++)
			names[n++] = rc->profiles[i].name;
		names[n] = NULL;
		hint = cfg_did_you_mean(item->valuestring, names);
		if (hint)
			return sc_error_set(rd->err, SC_ENOTFOUND, rd->file, where,
					    "unknown failure profile \"%s\" (did you mean \"%s\"?)",
					    item->valuestring, hint);
		return sc_error_set(rd->err, SC_ENOTFOUND, rd->file, where,
				    "unknown failure profile \"%s\" (see `stepcast catalog failures`)",
				    item->valuestring);
	}
	st = res_failure_rates(p, rc->causes, rc->n_causes, slot, rd->err);
	if (st != SC_OK && rd->err) {
		snprintf(rd->err->file, sizeof(rd->err->file), "%s", rd->file);
		snprintf(rd->err->pointer, sizeof(rd->err->pointer), "%s", where);
	}
	return st;
}

const struct cfg_field cfg_storage_cfg_fields[] = {
	CFG_F_CUSTOM(struct storage_cfg, data_tier, 0, read_tier_ref, NULL,
		     "storage tier the training data is read from (absent: data loading not modelled)"),
	CFG_F_CUSTOM(struct storage_cfg, checkpoint_tier, CFG_REQUIRED, read_tier_ref, NULL,
		     "storage tier checkpoints are written to"),
	CFG_F_NUM(struct storage_cfg, provisioned_TiB, POS,
		  "capacity of the FSx for Lustre tier(s), TiB (default: the tier's default_provisioned_TiB)"),
	CFG_F_INT(struct storage_cfg, checkpoint_every_steps, POS,
		  "steps between checkpoints (default: Daly's optimal interval)"),
	CFG_F_BOOL(struct storage_cfg, async_checkpoint, 0,
		   "copy to host memory, then write in the background (default false)"),
	CFG_F_NUM(struct storage_cfg, bytes_per_token, POS,
		  "bytes of tokenised data per token (default 2 below a 65,500 vocabulary, else 4)"),
	CFG_F_INT_RANGE(struct storage_cfg, prefetch_batches, 0, 0, 64,
			"batches the data loader keeps in flight (default 2; 0 reads on demand)"),
	CFG_F_INT_RANGE(struct storage_cfg, s3_prefixes, 0, 1, 1000000,
			"partitioned S3 prefixes the job spreads its keys over (default 1)"),
	CFG_F_ENUM(struct storage_cfg, checkpoint_moments, 0, ckpt_moments_names,
		   "optimizer moments saved as fp32 (default) or bf16"),
	CFG_F_ENUM(struct storage_cfg, recovery, 0, ckpt_recovery_names,
		   "checkpoint (restart from the last checkpoint, default) or checkpointless (peer replicas)"),
	CFG_F_CUSTOM(struct storage_cfg, failures, 0, read_failures_ref, NULL,
		     "failure profile from configs/resilience.json (default: the first)"),
	CFG_END
};

const struct cfg_field cfg_straggler_fields[] = {
	CFG_F_ENUM(struct straggler_cfg, distribution, 0, straggler_dist_names,
		   "per-GPU slowdown factor: lognormal (default), normal or exponential"),
	CFG_F_NUM_RANGE(struct straggler_cfg, sigma, CFG_REQUIRED | POS, 0.0, 1.0,
			"spread of the slowdown factor (lognormal and normal: sigma; exponential: mean excess)"),
	CFG_F_INT_RANGE(struct straggler_cfg, monte_carlo_steps, 0, 0, 100000,
			"sampled steps for a Monte-Carlo estimate (default 0: the exact integral)"),
	CFG_F_INT_RANGE(struct straggler_cfg, seed, 0, 0, 2147483647,
			"seed of the sampler (default 1)"),
	CFG_END
};

void scenario_storage_defaults(struct scenario *sc)
{
	sc->storage.prefetch_batches = 2;
	sc->storage.s3_prefixes = 1;
	sc->storage.checkpoint_moments = MOMENTS_FP32;
	sc->storage.recovery = RECOVERY_CHECKPOINT;
	sc->stragglers.distribution = STRAGGLER_LOGNORMAL;
	sc->stragglers.seed = 1;
}

/* The tiers must give what their kind needs on this cluster. */
static enum sc_status check_tier(const char *file, const struct scenario *sc,
				 const struct storage_spec *tier, const char *key,
				 struct sc_error *err)
{
	struct storage_bw bw;
	const struct storage_cfg *s = &sc->storage;
	char where[SC_ERROR_PTR_MAX];
	enum sc_status st;

	snprintf(where, sizeof(where), "/storage/%s", key);
	st = storage_bandwidth(tier, &sc->cluster.instance, sc->cluster.nodes, s->provisioned_TiB,
			       s->s3_prefixes, &bw, err);
	if (st != SC_OK && err) {
		snprintf(err->file, sizeof(err->file), "%s", file);
		snprintf(err->pointer, sizeof(err->pointer), "%s", where);
	}
	return st;
}

enum sc_status scenario_storage_resolve(const char *file, const cJSON *root,
					const struct catalog *cat, struct scenario *sc,
					struct sc_error *err)
{
	const cJSON *obj = cJSON_GetObjectItemCaseSensitive(root, "storage");
	struct storage_cfg *s = &sc->storage;
	const struct resilience_catalog *rc = &cat->resilience;
	const struct recovery_spec *r;
	const struct host_link_spec *link;
	enum sc_status st;

	sc->stragglers.enabled = cJSON_GetObjectItemCaseSensitive(root, "stragglers") != NULL;
	if (!obj)
		return SC_OK;
	s->enabled = true;
	s->has_data_tier = cJSON_GetObjectItemCaseSensitive(obj, "data_tier") != NULL;
	if (!cJSON_GetObjectItemCaseSensitive(obj, "failures")) {
		if (rc->n_profiles < 1)
			return sc_error_set(err, SC_EINVAL, file, "/storage",
					    "the catalogue has no failure profile");
		st = res_failure_rates(&rc->profiles[0], rc->causes, rc->n_causes, &s->failures, err);
		if (st != SC_OK)
			return st;
	}
	if (!(r = resilience_recovery(rc, "checkpoint")))
		return sc_error_set(err, SC_EINVAL, file, "/storage/recovery",
				    "the catalogue has no \"checkpoint\" recovery method");
	s->restart = *r;
	if (!(r = resilience_recovery(rc, "checkpointless")))
		return sc_error_set(err, SC_EINVAL, file, "/storage/recovery",
				    "the catalogue has no \"checkpointless\" recovery method");
	s->checkpointless = *r;
	link = resilience_host_link(rc, sc->cluster.gpu.family);
	if (!link)
		return sc_error_set(err, SC_EINVAL, file, "/storage",
				    "configs/resilience.json has no host link for GPU family \"%s\"",
				    sc->cluster.gpu.family);
	s->d2h_GBps = link->d2h_GBps;
	s->h2d_GBps = link->h2d_GBps;
	if (!(s->bytes_per_token > 0))
		s->bytes_per_token = storage_default_bytes_per_token(sc->model.vocab);

	if (cJSON_GetObjectItemCaseSensitive(obj, "provisioned_TiB") &&
	    strcmp(s->checkpoint_tier.kind, "fsx-lustre") != 0 &&
	    !(s->has_data_tier && strcmp(s->data_tier.kind, "fsx-lustre") == 0))
		return sc_error_set(err, SC_EINVAL, file, "/storage/provisioned_TiB",
				    "provisioned_TiB applies to an fsx-lustre tier, but neither tier is one (checkpoint tier \"%s\")",
				    s->checkpoint_tier.name);
	if (cJSON_GetObjectItemCaseSensitive(obj, "s3_prefixes") &&
	    strcmp(s->checkpoint_tier.kind, "s3") != 0 &&
	    !(s->has_data_tier && strcmp(s->data_tier.kind, "s3") == 0))
		return sc_error_set(err, SC_EINVAL, file, "/storage/s3_prefixes",
				    "s3_prefixes applies to an s3 tier, but neither tier is one (checkpoint tier \"%s\")",
				    s->checkpoint_tier.name);
	if ((st = check_tier(file, sc, &s->checkpoint_tier, "checkpoint_tier", err)) != SC_OK)
		return st;
	if (s->has_data_tier && (st = check_tier(file, sc, &s->data_tier, "data_tier", err)) != SC_OK)
		return st;

	if (s->recovery == RECOVERY_CHECKPOINTLESS &&
	    (st = res_checkpointless_check(sc, s->checkpointless.state_replicas, err)) != SC_OK) {
		snprintf(err->file, sizeof(err->file), "%s", file);
		return st;
	}
	return SC_OK;
}
