/* mem_validate.c: published per-GPU peak memory as scenarios (see
 * mem_validate.h).
 *
 * What a memory case states beyond the training-case fields, and how it is
 * honoured (never per source, per model or per case):
 *   framework "Megatron..." / "NVIDIA Megatron-Bridge..." -> megatron-core,
 *     "torchtitan..." -> torchtitan ("torch.compile" in it: compile on),
 *     "DeepSpeed..." -> deepspeed; any other framework: not expressed;
 *   optimizer: Muon is not modelled (not expressed); "bf16 master weights",
 *     "bf16 moments" / "bf16 Adam moments", "bf16 main grads" /
 *     "bf16 gradients" set those dtypes, FP32 otherwise;
 *   framework_args (Megatron): without --use-distributed-optimizer (nor
 *     --use-megatron-fsdp) -> ZeRO stage 0; --attention-backend unfused or
 *     --transformer-impl local -> unfused attention; --recompute-modules ->
 *     those modules; dropout on unless --attention-dropout and --hidden-dropout
 *     are both 0 (Megatron's defaults are 0.1); flag eager_attention ->
 *     unfused attention;
 *   loss_chunks, recompute_layer_interval, no_compile_loss,
 *     no_mem_efficient_linear, no_loss_upcast and sac_attention_recomputed:
 *     the scenario's training fields of the same names (what the case's
 *     configuration and framework version state: torchtitan's
 *     ChunkedLossWrapper, selective_ac_option "N", a torchtitan that
 *     compiled only the blocks, a DeepSpeed model built outside
 *     deepspeed.zero.Init, a script's loss on the BF16 logits, a torchtitan
 *     whose op-SAC save list lacked the cuDNN attention it ran);
 *     recompute_layer_interval only with recompute selective;
 *   measured_rank "last global rank..." -> the last pipeline stage, else
 *     the first (rank 0);
 *   the peak in GiB (peak_memory_GiB); a case without one (the unit is
 *     ambiguous, GB or GiB) is not expressed;
 *   gpu null -> h100-sxm, said per case: memory does not depend on the GPU
 *     type, only the verdict does; nvlink_domain null -> gpus_per_node.
 */
#include "mem_validate.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../analytic/step.h"
#include "../config/datadir.h"
#include "../config/scenario_load.h"
#include "../../models/units.h"

const char *mem_statistic_name(enum mem_statistic s)
{
	switch (s) {
	case MEM_STAT_ALLOCATED: return "max_allocated";
	case MEM_STAT_RESERVED: return "max_reserved";
	case MEM_STAT_DEVICE: return "nvidia_smi_used";
	}
	return "unknown";
}

const char *memval_default_path(void)
{
	static char path[1024];

	return cfg_validation_file("memory-cases.json", path, sizeof(path));
}

/* The memory file's own keys of a case, beside the training-case ones. */
static const char *const memory_keys[] = { "framework", "framework_version", "optimizer",
					   "activation_offload", "measured", "framework_args",
					   "framework_env", "loss_chunks", "recompute_layer_interval",
					   "no_compile_loss", "no_mem_efficient_linear", "no_loss_upcast",
					   "sac_attention_recomputed", NULL };

/* Of them, the scenario's training fields, read by the scenario's own
 * field table (its types and ranges). */
static const char *const training_keys[] = { "loss_chunks", "recompute_layer_interval",
					     "no_compile_loss", "no_mem_efficient_linear", "no_loss_upcast",
					     "sac_attention_recomputed", NULL };

static enum sc_status read_training_keys(const char *path, const char *where, const cJSON *item,
					 struct training *tr, struct sc_error *err)
{
	struct cfg_field fields[sizeof(training_keys) / sizeof(training_keys[0])];
	struct cfg_reader rd = { path, err, NULL };
	cJSON *obj = cJSON_CreateObject();
	enum sc_status st;
	int n = 0;

	if (!obj)
		return sc_error_set(err, SC_ENOMEM, path, NULL, "out of memory");
	for (int i = 0; training_keys[i]; i++) {
		const cJSON *v = cJSON_GetObjectItemCaseSensitive(item, training_keys[i]);

		for (const struct cfg_field *f = cfg_training_fields; f->key; f++)
			if (strcmp(f->key, training_keys[i]) == 0)
				fields[n++] = *f;
		if (v)
			cJSON_AddItemToObject(obj, training_keys[i], cJSON_Duplicate(v, true));
	}
	memset(&fields[n], 0, sizeof(fields[n]));
	st = cfg_read_object(&rd, obj, fields, tr, where);
	cJSON_Delete(obj);
	return st;
}

static void not_expressed(struct mem_case *mc, const char *why)
{
	mc->vc.expressible = false;
	snprintf(mc->vc.reason, sizeof(mc->vc.reason), "%s", why);
	free(mc->vc.scenario);
	mc->vc.scenario = NULL;
}

static void assume(struct mem_case *mc, const char *what)
{
	size_t n = strlen(mc->vc.assumptions);

	snprintf(mc->vc.assumptions + n, sizeof(mc->vc.assumptions) - n, "%s%s", n ? ", " : "", what);
}

static const char *string_of(const cJSON *o, const char *key)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);

	return cJSON_IsString(v) ? v->valuestring : NULL;
}

static bool arg_is(const cJSON *args, const char *key, const char *value)
{
	const char *v = string_of(args, key);

	return v && strcmp(v, value) == 0;
}

static bool arg_zero(const cJSON *args, const char *key)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(args, key);

	return cJSON_IsNumber(v) && v->valuedouble == 0;
}

static bool has_flag(const cJSON *item, const char *flag)
{
	const cJSON *flags = cJSON_GetObjectItemCaseSensitive(item, "flags"), *f;

	cJSON_ArrayForEach(f, flags)
		if (cJSON_IsString(f) && strcmp(f->valuestring, flag) == 0)
			return true;
	return false;
}

/* The memory keys of one case: type-checked, then honoured on the scenario. */
static enum sc_status apply_memory_keys(const char *path, const char *where, const cJSON *item,
					struct mem_case *mc, struct sc_error *err)
{
	const cJSON *measured = cJSON_GetObjectItemCaseSensitive(item, "measured");
	const cJSON *args = cJSON_GetObjectItemCaseSensitive(item, "framework_args");
	const cJSON *gib;
	const char *fw = string_of(item, "framework"), *opt = string_of(item, "optimizer");
	const char *stat, *rank;
	char ptr[SC_ERROR_PTR_MAX];
	struct training *tr;
	enum sc_status st;

	if (!fw || !opt) {
		cfg_pointer_key(ptr, sizeof(ptr), where, fw ? "optimizer" : "framework");
		return sc_error_set(err, SC_EINVAL, path, ptr, "expected a string");
	}
	if (!cJSON_IsObject(measured)) {
		cfg_pointer_key(ptr, sizeof(ptr), where, "measured");
		return sc_error_set(err, SC_EINVAL, path, ptr, "expected an object of measurements");
	}
	cfg_pointer_key(ptr, sizeof(ptr), where, "measured");
	stat = string_of(measured, "statistic");
	if (!stat || (strcmp(stat, "max_allocated") && strcmp(stat, "max_reserved") &&
		      strcmp(stat, "nvidia_smi_used"))) {
		cfg_pointer_key(ptr, sizeof(ptr), ptr, "statistic");
		return sc_error_set(err, SC_EINVAL, path, ptr,
				    "expected max_allocated, max_reserved or nvidia_smi_used");
	}
	mc->statistic = strcmp(stat, "max_allocated") == 0 ? MEM_STAT_ALLOCATED
			: strcmp(stat, "max_reserved") == 0 ? MEM_STAT_RESERVED : MEM_STAT_DEVICE;
	gib = cJSON_GetObjectItemCaseSensitive(measured, "peak_memory_GiB");
	if (gib && !cJSON_IsNull(gib) && !(cJSON_IsNumber(gib) && gib->valuedouble > 0)) {
		cfg_pointer_key(ptr, sizeof(ptr), ptr, "peak_memory_GiB");
		return sc_error_set(err, SC_EINVAL, path, ptr, "expected a positive number of GiB");
	}
	mc->measured_bytes = cJSON_IsNumber(gib) ? gib->valuedouble * SC_GiB_BYTES : 0;
	rank = string_of(measured, "measured_rank");
	mc->stage = rank && strncmp(rank, "last global rank", 16) == 0 ? 1 : 0;

	if (strncmp(fw, "Megatron", 8) == 0 || strncmp(fw, "NVIDIA Megatron", 15) == 0)
		snprintf(mc->framework, sizeof(mc->framework), "megatron-core");
	else if (strncmp(fw, "torchtitan", 10) == 0)
		snprintf(mc->framework, sizeof(mc->framework), "torchtitan");
	else if (strncmp(fw, "DeepSpeed", 9) == 0)
		snprintf(mc->framework, sizeof(mc->framework), "deepspeed");
	else {
		snprintf(mc->framework, sizeof(mc->framework), "%.*s", (int)strcspn(fw, " ("), fw);
		if (mc->vc.expressible)
			not_expressed(mc, "framework not modelled (megatron-core, torchtitan and deepspeed are)");
		return SC_OK;
	}
	if (!mc->vc.expressible)
		return SC_OK;
	if (strstr(opt, "Muon")) {
		not_expressed(mc, "optimizer Muon is not modelled (Adam and SGD are)");
		return SC_OK;
	}
	if (mc->measured_bytes <= 0) {
		not_expressed(mc, "no peak in GiB (the published unit is ambiguous: GB or GiB)");
		return SC_OK;
	}
	tr = &mc->vc.scenario->training;
	tr->framework = strcmp(mc->framework, "torchtitan") == 0 ? FW_TORCHTITAN
			: strcmp(mc->framework, "deepspeed") == 0 ? FW_DEEPSPEED : FW_MEGATRON_CORE;
	tr->compile = tr->framework == FW_TORCHTITAN && strstr(fw, "torch.compile") != NULL;
	if (strstr(opt, "bf16 master weights"))
		tr->master_dtype = DTYPE_BF16;
	if (strstr(opt, "bf16 moments") || strstr(opt, "bf16 Adam moments"))
		tr->moments_dtype = DTYPE_BF16;
	if (strstr(opt, "bf16 main grads") || strstr(opt, "bf16 gradients"))
		tr->grad_fp32 = false;
	/* Megatron's local (non-TE) layers run unfused attention */
	if (arg_is(args, "--attention-backend", "unfused") || arg_is(args, "--transformer-impl", "local") ||
	    has_flag(item, "eager_attention"))
		tr->attention = ATTN_UNFUSED;
	{
		/* --recompute-modules "[layernorm mla_up_proj mlp moe_act]" */
		const char *mods = string_of(args, "--recompute-modules");

		for (unsigned b = 1; mods && recompute_module_name(b); b <<= 1) {
			const char *name = recompute_module_name(b), *at = mods;
			size_t n = strlen(name);

			while ((at = strstr(at, name)) != NULL) {
				bool start = at == mods || at[-1] == '[' || at[-1] == ' ' || at[-1] == ',';
				bool end = at[n] == ']' || at[n] == ' ' || at[n] == ',' || at[n] == '\0';
				if (start && end) {
					tr->recompute_modules |= b;
					break;
				}
				at += n;
			}
		}
	}
	if ((st = read_training_keys(path, where, item, tr, err)) != SC_OK)
		return st;
	cfg_pointer_key(ptr, sizeof(ptr), where, "sac_attention_recomputed");
	if ((st = training_sac_check(tr, path, ptr, err)) != SC_OK)
		return st;
	if (tr->recompute != RECOMPUTE_SELECTIVE)
		tr->recompute_layer_interval = 0;
	/* Megatron's optimizer is not distributed unless
	 * --use-distributed-optimizer is given (megatron/training/arguments.py,
	 * default False): a case whose argument list lacks it (and is not
	 * Megatron-FSDP) keeps the whole optimizer state, ZeRO stage 0; the
	 * training cases' fsdp false stands for the recipes' distributed
	 * optimizer (validate.c), the argument list says what ran */
	if (tr->framework == FW_MEGATRON_CORE && cJSON_IsObject(args) &&
	    !cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(args, "--use-distributed-optimizer")) &&
	    !cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(args, "--use-megatron-fsdp")) &&
	    !mc->vc.scenario->layout.fsdp)
		mc->vc.scenario->layout.zero_stage = 0;
	if (tr->framework == FW_MEGATRON_CORE)
		tr->dropout = !(arg_zero(args, "--attention-dropout") && arg_zero(args, "--hidden-dropout"));
	return SC_OK;
}

/* A copy of the case holding only training-case keys, with the memory
 * file's conventions mapped onto them. */
static cJSON *training_view(const cJSON *item, struct mem_case *mc, bool *gpu_assumed)
{
	cJSON *copy = cJSON_Duplicate(item, true), *v;

	if (!copy)
		return NULL;
	for (int i = 0; memory_keys[i]; i++)
		cJSON_DeleteItemFromObjectCaseSensitive(copy, memory_keys[i]);
	cJSON_AddItemToObject(copy, "measured", cJSON_CreateObject());
	v = cJSON_GetObjectItemCaseSensitive(copy, "source");
	if (cJSON_IsObject(v)) {
		const char *title = string_of(v, "title");
		cJSON_ReplaceItemInObjectCaseSensitive(copy, "source",
						       cJSON_CreateString(title ? title : ""));
	}
	v = cJSON_GetObjectItemCaseSensitive(copy, "gpu");
	*gpu_assumed = cJSON_IsNull(v);
	if (*gpu_assumed)
		cJSON_ReplaceItemInObjectCaseSensitive(copy, "gpu", cJSON_CreateString("h100-sxm"));
	v = cJSON_GetObjectItemCaseSensitive(copy, "nvlink_domain");
	if (cJSON_IsNull(v)) {
		const cJSON *g = cJSON_GetObjectItemCaseSensitive(copy, "gpus_per_node");
		cJSON_ReplaceItemInObjectCaseSensitive(copy, "nvlink_domain",
						       cJSON_CreateNumber(cJSON_IsNumber(g) ? g->valuedouble : 1));
	}
	(void)mc;
	return copy;
}

/* cfg_item_reader for /cases/i: the training keys through val_read_case
 * (on training_view's copy), then the memory keys. */
static enum sc_status read_memory_case(struct cfg_reader *rd, const cJSON *item, int i,
				       const char *where, void *ctx)
{
	const struct val_loading *ld = ctx;
	struct mem_case *mc = &((struct mem_val_set *)ld->cases_set)->cases[i];
	bool gpu_assumed = false;
	enum sc_status st;
	cJSON *view;

	if (!cJSON_IsObject(item))
		return sc_error_set(rd->err, SC_EINVAL, rd->file, where, "expected a case object");
	view = training_view(item, mc, &gpu_assumed);
	if (!view)
		return sc_error_set(rd->err, SC_ENOMEM, rd->file, NULL, "out of memory");
	st = val_read_case(ld->set, ld->cat, rd->file, view, where, &mc->vc, rd->err);
	cJSON_Delete(view);
	if (st != SC_OK)
		return st;
	if (gpu_assumed)
		assume(mc, "gpu=h100-sxm (not stated)");
	return apply_memory_keys(rd->file, where, item, mc, rd->err);
}

enum sc_status memval_load(const char *path, const char *systems_path, const struct catalog *cat,
			   struct mem_val_set *set, struct sc_error *err)
{
	static const char *const top[] = { "about", "models", "cases", NULL };
	struct val_loading ld = { &set->base, cat, set };
	enum sc_status st;

	memset(set, 0, sizeof(*set));
	snprintf(set->path, sizeof(set->path), "%s", path);
	set->base.memory_cases = true;
	st = val_load_cases_file(path, systems_path, top, &ld, sizeof(*set->cases),
				 (void **)&set->cases, &set->n_cases, read_memory_case, err);
	if (st != SC_OK)
		memval_free(set);   /* also the systems or recipes read before the error */
	return st;
}

enum sc_status memval_run(struct mem_val_set *set, const struct catalog *cat,
			  struct sc_error *err)
{
	(void)err;
	for (int i = 0; i < set->n_cases; i++) {
		struct mem_case *mc = &set->cases[i];
		const struct calibration *c;
		struct step_result r;
		const struct mem_out *mo;
		struct sc_error cerr;

		if (!mc->vc.scenario)
			continue;
		c = catalog_calibration(cat, mc->vc.scenario->cluster.gpu.calibration);
		if (c)
			mc->vc.scenario->calibration = *c;
		sc_error_clear(&cerr);
		if (sim_step_predict(mc->vc.scenario, &r, &cerr) != SC_OK) {
			char why[VAL_REASON_MAX];
			snprintf(why, sizeof(why), "model cannot express it: %s%s%s", cerr.pointer,
				 cerr.pointer[0] ? ": " : "", cerr.message);
			not_expressed(mc, why);
			continue;
		}
		mo = &r.mem_stage[mc->stage];
		mc->predicted_bytes = mc->statistic == MEM_STAT_ALLOCATED ? mo->allocated_bytes
				      : mc->statistic == MEM_STAT_RESERVED ? mo->reserved_bytes
				      : mo->device_bytes;
		mc->device_bytes = mo->device_bytes;
		mc->usable_bytes = mo->usable_bytes;
		mc->fits = !mo->oom;
		mc->err_rel = (mc->predicted_bytes - mc->measured_bytes) / mc->measured_bytes;
		mc->vc.predicted_oom = mo->oom;
		mc->vc.err_rel = mc->err_rel;
	}
	return SC_OK;
}

void memval_free(struct mem_val_set *set)
{
	if (set->cases)
		for (int i = 0; i < set->n_cases; i++)
			free(set->cases[i].vc.scenario);
	free(set->cases);
	set->cases = NULL;
	val_free(&set->base);
	memset(set, 0, sizeof(*set));
}
