/* validate.c: published training runs as scenarios (see validate.h).
 *
 * Each case states its layout and batch; what a case leaves unstated is
 * filled with one documented assumption for all cases (listed per case in
 * `assumptions`), never per source or per model:
 *   vpp null -> 1; micro_batch null -> 1; recompute null -> none;
 *   sequence_parallel null -> true when tp > 1 (Megatron-Core recipes);
 *   etp null -> tp (Megatron's default), or 1 when etp = tp cannot divide;
 *   MoE dispatcher not stated -> flex (DeepEP/HybridEP); stated -> that
 *   backend (models/moe_dispatch.h), or not expressed when unknown;
 *   fsdp false/null -> ZeRO stage 1 (the distributed optimizer, the default
 *   of the Megatron-Core, NeMo and MaxText recipes the cases come from).
 * The scale-out network of a case comes from the systems file, by GPU type;
 * a stated system must be that file's system for the GPU, or an instance
 * type of the catalogue (then that instance and its EFA on the AWS
 * fabric); anything else is not expressed, with the reason.
 */
#include "validate.h"

#include "../../models/layout.h"
#include "../../models/moe_dispatch.h"
#include "../../models/transformer.h"
#include "../../models/uncertainty.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../analytic/step.h"
#include "../config/calibration_select.h"
#include "../config/datadir.h"
#include "../config/scenario_load.h"

#define NOT_STATED (-1)

struct raw_measured {
	double step_time_s;
	double tokens_per_s_per_gpu;
	double model_tflops_per_gpu;
	double hardware_tflops_per_gpu;
	double mfu;
	double hfu;
};

struct raw_case {
	char id[VAL_ID_MAX];
	char source[SC_SOURCE_MAX * 2];
	char source_group[SC_NAME_MAX * 2];
	char trust[16];
	char task[16];
	char model[SC_NAME_MAX];
	int seq_len;
	char gpu[SC_NAME_MAX];
	int gpu_count;
	char system[SC_NAME_MAX];
	int gpus_per_node;
	int nvlink_domain;
	int tp, pp, vpp, dp, cp, ep, etp;
	int fsdp;                 /* -2 true, -1 not stated, 0 false, 1..3 ZeRO stage */
	int fsdp_group;
	int sequence_parallel;    /* -1 not stated, 0, 1 */
	int global_batch_seqs;
	int micro_batch;
	int grad_accum;
	char precision[16];
	char recompute[16];
	char moe_dispatcher[SC_NAME_MAX];
	int moe_a2a_overlap;      /* -1, 0, 1 */
	char cuda_graph_impl[SC_NAME_MAX]; /* Megatron --cuda-graph-impl; "" not stated */
	struct raw_measured measured;
	char flags[512];
};

#define FSDP_TRUE (-2)

static enum sc_status read_fsdp(struct cfg_reader *rd, const cJSON *item, void *slot,
				const char *where)
{
	int *v = slot;

	if (cJSON_IsBool(item)) {
		*v = cJSON_IsTrue(item) ? FSDP_TRUE : 0;
		return SC_OK;
	}
	if (cJSON_IsNumber(item) && item->valuedouble >= 1 && item->valuedouble <= 3 &&
	    item->valuedouble == floor(item->valuedouble)) {
		*v = (int)item->valuedouble;
		return SC_OK;
	}
	return sc_error_set(rd->err, SC_EINVAL, rd->file, where,
			    "expected true, false, null or a ZeRO stage 1-3, got %s",
			    cfg_json_type_name(item));
}

static enum sc_status read_tristate(struct cfg_reader *rd, const cJSON *item, void *slot,
				    const char *where)
{
	if (!cJSON_IsBool(item))
		return sc_error_set(rd->err, SC_EINVAL, rd->file, where,
				    "expected true, false or null, got %s", cfg_json_type_name(item));
	*(int *)slot = cJSON_IsTrue(item) ? 1 : 0;
	return SC_OK;
}

static enum sc_status read_string_list(struct cfg_reader *rd, const cJSON *item, void *slot,
				       const char *where)
{
	char *out = slot;
	const cJSON *e;
	size_t len = 0;

	if (!cJSON_IsArray(item))
		return sc_error_set(rd->err, SC_EINVAL, rd->file, where,
				    "expected an array of strings, got %s", cfg_json_type_name(item));
	out[0] = '\0';
	cJSON_ArrayForEach(e, item) {
		if (!cJSON_IsString(e))
			return sc_error_set(rd->err, SC_EINVAL, rd->file, where,
					    "expected an array of strings, found %s",
					    cfg_json_type_name(e));
		len += (size_t)snprintf(out + len, len < 512 ? 512 - len : 0, "%s%s",
					len ? "," : "", e->valuestring);
		if (len >= 512)
			len = 511;
	}
	return SC_OK;
}

static enum sc_status read_ignored(struct cfg_reader *rd, const cJSON *item, void *slot,
				   const char *where)
{
	(void)rd;
	(void)item;
	(void)slot;
	(void)where;
	return SC_OK;
}

#define NUL CFG_NULLABLE
#define REQ CFG_REQUIRED

static const struct cfg_field measured_fields[] = {
	CFG_F_NUM(struct raw_measured, step_time_s, CFG_POSITIVE | NUL, "s"),
	CFG_F_NUM(struct raw_measured, tokens_per_s_per_gpu, CFG_POSITIVE | NUL, "tokens/s/GPU"),
	CFG_F_NUM(struct raw_measured, model_tflops_per_gpu, CFG_POSITIVE | NUL, "TFLOP/s/GPU"),
	CFG_F_NUM(struct raw_measured, hardware_tflops_per_gpu, CFG_POSITIVE | NUL, "TFLOP/s/GPU"),
	CFG_F_NUM(struct raw_measured, mfu, CFG_POSITIVE | NUL, "fraction"),
	CFG_F_NUM(struct raw_measured, hfu, CFG_POSITIVE | NUL, "fraction"),
	CFG_END
};

static const struct cfg_field case_fields[] = {
	CFG_F_STR(struct raw_case, id, REQ, "case id"),
	CFG_F_STR(struct raw_case, source, REQ, "publication"),
	CFG_F_STR(struct raw_case, source_group, REQ, "publication group"),
	CFG_F_STR(struct raw_case, trust, REQ, "trust level"),
	CFG_F_STR(struct raw_case, task, REQ, "pretrain, sft or lora"),
	CFG_F_STR(struct raw_case, model, REQ, "key into models"),
	CFG_F_INT(struct raw_case, seq_len, REQ | CFG_POSITIVE, "tokens per sequence"),
	CFG_F_STR(struct raw_case, gpu, REQ, "GPU type"),
	CFG_F_INT(struct raw_case, gpu_count, REQ | CFG_POSITIVE, "GPUs"),
	CFG_F_STR(struct raw_case, system, NUL, "system type"),
	CFG_F_INT(struct raw_case, gpus_per_node, REQ | CFG_POSITIVE, "GPUs per node"),
	CFG_F_INT(struct raw_case, nvlink_domain, REQ | CFG_POSITIVE, "NVLink domain"),
	CFG_F_INT(struct raw_case, tp, REQ | CFG_POSITIVE, "tp"),
	CFG_F_INT(struct raw_case, pp, REQ | CFG_POSITIVE, "pp"),
	CFG_F_INT(struct raw_case, vpp, CFG_POSITIVE | NUL, "vpp"),
	CFG_F_INT(struct raw_case, dp, REQ | CFG_POSITIVE, "dp"),
	CFG_F_INT(struct raw_case, cp, REQ | CFG_POSITIVE, "cp"),
	CFG_F_INT(struct raw_case, ep, REQ | CFG_POSITIVE, "ep"),
	CFG_F_INT(struct raw_case, etp, CFG_POSITIVE | NUL, "etp"),
	CFG_F_CUSTOM(struct raw_case, fsdp, NUL, read_fsdp, NULL, "FSDP or ZeRO stage"),
	CFG_F_INT(struct raw_case, fsdp_group, CFG_POSITIVE | NUL, "FSDP group"),
	CFG_F_CUSTOM(struct raw_case, sequence_parallel, NUL, read_tristate, NULL, "SP"),
	CFG_F_INT(struct raw_case, global_batch_seqs, REQ | CFG_POSITIVE, "sequences per step"),
	CFG_F_INT(struct raw_case, micro_batch, CFG_POSITIVE | NUL, "sequences per micro-batch"),
	CFG_F_INT(struct raw_case, grad_accum, CFG_POSITIVE | NUL, "micro-batches per step"),
	CFG_F_STR(struct raw_case, precision, REQ, "precision"),
	CFG_F_STR(struct raw_case, recompute, NUL, "recompute"),
	CFG_F_STR(struct raw_case, moe_dispatcher, NUL, "MoE dispatcher"),
	CFG_F_CUSTOM(struct raw_case, moe_a2a_overlap, NUL, read_tristate, NULL, "a2a overlap"),
	CFG_F_STR(struct raw_case, cuda_graph_impl, NUL, "CUDA graphs (Megatron --cuda-graph-impl)"),
	CFG_F_OBJ(struct raw_case, measured, REQ, measured_fields, "measurements"),
	CFG_F_CUSTOM(struct raw_case, flags, 0, read_string_list, NULL, "flags"),
	{ "derived", CFG_CUSTOM, 0, 0, 0, NULL, NULL, read_ignored, 0, 0, "derived fields", 0, 0 },
	{ "notes", CFG_CUSTOM, 0, 0, 0, NULL, NULL, read_ignored, 0, 0, "notes", 0, 0 },
	CFG_END
};

static const struct cfg_field system_fields[] = {
	CFG_F_STR(struct val_system, gpu, REQ, "GPU type"),
	CFG_F_STR(struct val_system, system, REQ, "system the published runs used"),
	CFG_F_NUM(struct val_system, scaleout_Gbps_per_gpu, REQ | CFG_POSITIVE, "scale-out bandwidth per GPU, Gb/s"),
	CFG_F_STR(struct val_system, fabric, REQ, "fabric catalogue name"),
	CFG_F_STR(struct val_system, source, REQ, "where the numbers come from"),
	CFG_END
};

const char *val_default_cases_path(void)
{
	static char path[1024];

	return cfg_validation_file("training-cases.json", path, sizeof(path));
}

const char *val_default_systems_path(void)
{
	static char path[1024];

	return cfg_validation_file("systems.json", path, sizeof(path));
}

static enum sc_status load_recipes(const char *systems_path, struct val_set *set,
				   struct sc_error *err);

/* cfg_item_reader for /systems/i: its fields, on a fabric the catalogue has. */
static enum sc_status read_system(struct cfg_reader *rd, const cJSON *item, int i,
				  const char *where, void *ctx)
{
	const struct val_loading *ld = ctx;
	struct val_system *sys = &ld->set->systems[i];
	char fwhere[SC_ERROR_PTR_MAX];
	enum sc_status st;

	if ((st = cfg_read_object(rd, item, system_fields, sys, where)) != SC_OK)
		return st;
	if (catalog_fabric(ld->cat, sys->fabric))
		return SC_OK;
	cfg_pointer_key(fwhere, sizeof(fwhere), where, "fabric");
	return catalog_unknown(ld->cat, "fabric", sys->fabric, rd->file, fwhere, rd->err);
}

enum sc_status val_load_systems(const char *path, struct val_set *set,
				   const struct catalog *cat, struct sc_error *err)
{
	static const char *const top[] = { "schema_version", "systems", NULL };
	struct cfg_reader rd = { path, err, NULL };
	struct val_loading ld = { set, cat, set };
	cJSON *root = cfg_parse_file(path, err);
	enum sc_status st;

	if (!root)
		return err->status;
	if ((st = cfg_check_keys(&rd, root, top, "")) == SC_OK &&
	    (st = cfg_array_read(&rd, root, "systems", sizeof(*set->systems), (void **)&set->systems,
				 &set->n_systems, read_system, &ld)) == SC_OK)
		st = load_recipes(path, set, err);
	cJSON_Delete(root);
	return st;
}

static const struct cfg_field recipe_fields[] = {
	CFG_F_STR(struct val_recipe, source_group, REQ, "source group of the cases"),
	CFG_F_STR(struct val_recipe, framework, REQ, "megatron-core, torchtitan or deepspeed"),
	CFG_F_BOOL(struct val_recipe, tp_comm_overlap, REQ, "TP communication overlap with SP"),
	CFG_F_BOOL(struct val_recipe, grad_reduce_in_fp32, REQ, "FP32 gradient buffer"),
	CFG_F_BOOL(struct val_recipe, fused_kernels, 0, "fused loss and norms, as torch.compile (default false)"),
	CFG_F_STR(struct val_recipe, flop_convention, 0, "megatron-lm: the group's TFLOP/s count Megatron-LM's num_floating_point_operations (default none)"),
	CFG_F_BOOL(struct val_recipe, portable_attention, 0, "attention by FlashAttention-2 or its Triton port (training.attention_kernel portable; default false: fused)"),
	CFG_F_STR(struct val_recipe, source, REQ, "where the facts come from"),
	CFG_END
};

/* cfg_item_reader for /recipes/i: its fields, a framework and a FLOP
 * convention the model knows. */
static enum sc_status read_recipe(struct cfg_reader *rd, const cJSON *item, int i,
				  const char *where, void *ctx)
{
	struct val_recipe *r = &((struct val_set *)ctx)->recipes[i];
	char known[128];
	enum sc_status st;

	if ((st = cfg_read_object(rd, item, recipe_fields, r, where)) != SC_OK)
		return st;
	if (sc_enum_parse(sc_framework_names, r->framework) < 0)
		return cfg_key_invalid(rd, where, "framework", "unknown framework \"%s\" (%s)", r->framework,
				       sc_enum_prose(sc_framework_names, "or", known, sizeof(known)));
	if (r->flop_convention[0] && strcmp(r->flop_convention, "megatron-lm") != 0)
		return cfg_key_invalid(rd, where, "flop_convention",
				       "unknown FLOP convention \"%s\" (megatron-lm)", r->flop_convention);
	return SC_OK;
}

/* recipes.json beside the systems file; absent: no recipe facts. */
static enum sc_status load_recipes(const char *systems_path, struct val_set *set,
				   struct sc_error *err)
{
	static const char *const top[] = { "schema_version", "about", "recipes", NULL };
	char path[1024];
	const char *slash = strrchr(systems_path, '/');
	struct cfg_reader rd = { path, err, NULL };
	cJSON *root;
	enum sc_status st;
	FILE *f;

	snprintf(path, sizeof(path), "%.*srecipes.json", slash ? (int)(slash - systems_path + 1) : 0,
		 systems_path);
	f = fopen(path, "r");
	if (!f)
		return SC_OK;
	fclose(f);
	root = cfg_parse_file(path, err);
	if (!root)
		return err->status;
	if ((st = cfg_check_keys(&rd, root, top, "")) == SC_OK)
		st = cfg_array_read(&rd, root, "recipes", sizeof(*set->recipes), (void **)&set->recipes,
				    &set->n_recipes, read_recipe, set);
	cJSON_Delete(root);
	return st;
}

static const struct val_system *system_for(const struct val_set *set, const char *gpu)
{
	for (int i = 0; i < set->n_systems; i++)
		if (strcmp(set->systems[i].gpu, gpu) == 0)
			return &set->systems[i];
	return NULL;
}

/* The file's own models first, then the catalogue's (a cases file lists
 * only the architectures the catalogue lacks). */
static const struct model_arch *model_for(const struct val_set *set, const struct catalog *cat,
					  const char *name)
{
	for (int i = 0; i < set->n_models; i++)
		if (strcmp(set->model_names[i], name) == 0)
			return &set->models[i];
	return cat ? catalog_model(cat, name) : NULL;
}

static int not_expressible(struct val_case *vc, const char *fmt, const char *arg)
{
	vc->expressible = false;
	snprintf(vc->reason, sizeof(vc->reason), fmt, arg);
	return 0;
}

static void add_assumption(struct val_case *vc, const char *what)
{
	size_t len = strlen(vc->assumptions);
	snprintf(vc->assumptions + len, sizeof(vc->assumptions) - len, "%s%s", len ? "; " : "", what);
}

static bool parse_precision(const char *s, enum sc_precision *p)
{
	static const char *const names[] = { "bf16", "fp16", "fp8", "mxfp8", "nvfp4" };
	for (int i = 0; i < 5; i++)
		if (strcmp(s, names[i]) == 0) {
			*p = (enum sc_precision)i;
			return true;
		}
	return false;
}
static const struct val_recipe *recipe_for(const struct val_set *set, const char *group)
{
	for (int i = 0; i < set->n_recipes; i++)
		if (strcmp(set->recipes[i].source_group, group) == 0)
			return &set->recipes[i];
	return NULL;
}

/* The case's identity as the table prints it, and its measured step time:
 * published, or from the published model TFLOP/s under the group's
 * Megatron-LM FLOP count. */
static void case_identity(const struct val_set *set, const struct model_arch *m,
			  const struct val_recipe *rec, const struct raw_case *rc, struct val_case *vc)
{
	snprintf(vc->id, sizeof(vc->id), "%s", rc->id);
	snprintf(vc->source_group, sizeof(vc->source_group), "%s", rc->source_group);
	snprintf(vc->trust, sizeof(vc->trust), "%s", rc->trust);
	snprintf(vc->model, sizeof(vc->model), "%s", rc->model);
	snprintf(vc->gpu, sizeof(vc->gpu), "%s", rc->gpu);
	snprintf(vc->precision, sizeof(vc->precision), "%s", rc->precision);
	vc->gpu_count = rc->gpu_count;
	snprintf(vc->layout, sizeof(vc->layout), "tp%d pp%d vpp%d cp%d dp%d ep%d", rc->tp, rc->pp,
		 rc->vpp > 0 ? rc->vpp : 1, rc->cp, rc->dp, rc->ep);
	vc->measured_step_s = rc->measured.step_time_s;
	vc->expressible = true;

	if (!set->memory_cases && !(vc->measured_step_s > 0) && m && rec && rc->measured.model_tflops_per_gpu > 0 &&
	    strcmp(rec->flop_convention, "megatron-lm") == 0) {
		/* TFLOP/s only: the step time under the source's own FLOP count */
		double f = tf_megatron_flops_per_step(m, rc->seq_len, rc->global_batch_seqs);

		if (f > 0) {
			vc->measured_step_s = f / (rc->measured.model_tflops_per_gpu * 1e12 * rc->gpu_count);
			add_assumption(vc, "step time from model TFLOP/s under Megatron-LM's FLOP count (group recipe)");
		}
	}
}

/* Whether the case's measurement, task, model, GPU, system and MoE
 * dispatcher are ones the simulator expresses.
 * Returns 1, or 0 with the case marked not expressible. */
static int case_expressible(const struct val_set *set, const struct catalog *cat,
			    const struct model_arch *m, const struct gpu_spec *gpu,
			    const struct val_system *sys, const struct instance_spec *aws,
			    const struct raw_case *rc, struct val_case *vc)
{
	if (!set->memory_cases && !(vc->measured_step_s > 0))
		return not_expressible(vc, "%s", "no step time or throughput published (TFLOP/s only, "
				       "under the source's own FLOP convention)");
	if (strcmp(rc->task, "lora") == 0)
		return not_expressible(vc, "%s", "LoRA fine-tuning is not modelled (frozen weights, "
				       "adapter GEMMs)");
	if (!m)
		return not_expressible(vc, "model \"%s\" is neither in the file's models nor in the catalogue", rc->model);
	if (!gpu)
		return not_expressible(vc, "GPU \"%s\" is not in the catalogue", rc->gpu);
	if (!sys)
		return not_expressible(vc, "no scale-out network known for GPU \"%s\"", rc->gpu);
	/* A stated system is honoured: an instance type -> that instance with
	 * its EFA on the AWS fabric; else it must be the systems file's system
	 * for the GPU (DGX, NVL72 -> their InfiniBand). */
	if (aws) {
		if (strcmp(aws->gpu, rc->gpu) != 0)
			return not_expressible(vc, "system \"%s\" does not have the case's GPU", rc->system);
		if (aws->gpus_per_node != rc->gpus_per_node || aws->nvlink_domain_gpus != rc->nvlink_domain)
			return not_expressible(vc, "system \"%s\" has other GPUs per node or NVLink domain "
					       "than the case states", rc->system);
		if (!catalog_fabric(cat, "ultracluster"))
			return not_expressible(vc, "%s", "fabric \"ultracluster\" is not in the catalogue");
	} else if (rc->system[0] && strcmp(rc->system, sys->system) != 0) {
		return not_expressible(vc, "system \"%s\" is neither an instance type of the catalogue "
				       "nor the systems file's system for this GPU", rc->system);
	}
	if (rc->moe_dispatcher[0] && model_is_moe(m) &&
	    moe_backend_of_name(rc->moe_dispatcher) < 0)
		return not_expressible(vc, "MoE dispatcher \"%s\" is not modelled (alltoall, allgather, "
				       "flex/deepep/hybridep, uccl-ep, pplx-garden)", rc->moe_dispatcher);
	return 1;
}

/* The cluster the case ran on: the stated AWS instance on the
 * UltraCluster fabric, or the systems file's node for the GPU on its
 * network; whole nodes, or one node cut to the GPU count.
 * Returns 1, or 0 with the case marked not expressible. */
static int case_cluster(const struct catalog *cat, const struct gpu_spec *gpu,
			const struct val_system *sys, const struct instance_spec *aws,
			const struct raw_case *rc, struct val_case *vc, struct scenario *sc)
{
	sc->cluster.gpu = *gpu;
	sc->cluster.fabric = *catalog_fabric(cat, aws ? "ultracluster" : sys->fabric);
	if (aws) {
		sc->cluster.instance = *aws;
	} else {
		struct instance_spec *in = &sc->cluster.instance;
		snprintf(in->name, sizeof(in->name), "%s", rc->system[0] ? rc->system : sys->system);
		snprintf(in->gpu, sizeof(in->gpu), "%s", gpu->name);
		in->gpus_per_node = rc->gpus_per_node;
		in->nvlink_domain_gpus = rc->nvlink_domain;
		in->efa_nics = rc->gpus_per_node;
		in->efa_nic_Gbps = sys->scaleout_Gbps_per_gpu;
		snprintf(in->source, sizeof(in->source), "%s", sys->source);
	}
	if (rc->gpu_count % rc->gpus_per_node != 0 && rc->gpu_count > rc->gpus_per_node)
		return not_expressible(vc, "%s", "GPU count is not a whole number of nodes");
	sc->cluster.nodes = rc->gpu_count >= rc->gpus_per_node ? rc->gpu_count / rc->gpus_per_node : 1;
	if (rc->gpu_count < rc->gpus_per_node) {
		sc->cluster.instance.gpus_per_node = rc->gpu_count;
		if (sc->cluster.instance.nvlink_domain_gpus > rc->gpu_count)
			sc->cluster.instance.nvlink_domain_gpus = rc->gpu_count;
	}
	if (sc->cluster.instance.nvlink_domain_gpus > rc->gpu_count)
		sc->cluster.instance.nvlink_domain_gpus = rc->gpu_count;
	return 1;
}

/* The training settings: batch, precision, recompute, optimizer, and the
 * framework switches of the source group's recipe.
 * Returns 1, or 0 with the case marked not expressible. */
static int case_training(const struct val_recipe *rec, const struct raw_case *rc, struct val_case *vc,
			 struct scenario *sc)
{
	sc->training.seq_len = rc->seq_len;
	sc->training.global_batch_seqs = rc->global_batch_seqs;
	if (rc->micro_batch > 0) {
		sc->training.micro_batch_seqs = rc->micro_batch;
	} else {
		sc->training.micro_batch_seqs = 1;
		add_assumption(vc, "micro_batch=1");
	}
	if (!parse_precision(rc->precision, &sc->training.precision))
		return not_expressible(vc, "precision \"%s\" is not modelled", rc->precision);
	if (strcmp(rc->recompute, "full") == 0) {
		sc->training.recompute = RECOMPUTE_FULL;
	} else if (strcmp(rc->recompute, "selective") == 0) {
		sc->training.recompute = RECOMPUTE_SELECTIVE;
	} else if (strcmp(rc->recompute, "none") == 0) {
		sc->training.recompute = RECOMPUTE_NONE;
	} else {
		sc->training.recompute = RECOMPUTE_NONE;
		vc->unstated |= VAL_UNSTATED_RECOMPUTE;
	}
	/* Megatron --cuda-graph-impl: full_iteration captures the whole step;
	 * local and transformer_engine capture per-module scopes, whose share
	 * of the launches is not modelled (eager, as not stated) */
	if (strcmp(rc->cuda_graph_impl, "full_iteration") == 0)
		sc->training.cuda_graphs = CUDA_GRAPHS_FULL_ITERATION;
	else if (rc->cuda_graph_impl[0] && strcmp(rc->cuda_graph_impl, "none") != 0 &&
		 strcmp(rc->cuda_graph_impl, "local") != 0 && strcmp(rc->cuda_graph_impl, "transformer_engine") != 0)
		return not_expressible(vc, "cuda_graph_impl \"%s\" is not known (none, local, transformer_engine, "
				       "full_iteration)", rc->cuda_graph_impl);
	sc->training.optimizer = OPT_ADAM;
	sc->training.grad_fp32 = true;
	if (rec) {
		sc->training.framework = strcmp(rec->framework, "torchtitan") == 0 ? FW_TORCHTITAN
					 : strcmp(rec->framework, "deepspeed") == 0 ? FW_DEEPSPEED
					 : FW_MEGATRON_CORE;
		if (sc->training.framework != FW_MEGATRON_CORE) {
			char what[SC_NAME_MAX + 32];
			snprintf(what, sizeof(what), "framework=%s (group recipe)", rec->framework);
			add_assumption(vc, what);
		}
		if (rec->fused_kernels && sc->training.framework != FW_MEGATRON_CORE) {
			sc->training.compile = true;
			add_assumption(vc, "compile=true (fused loss and norms, group recipe)");
		}
		if (rec->portable_attention) {
			sc->training.attention_kernel = ATTN_KERNEL_PORTABLE;
			add_assumption(vc, "attention_kernel=portable (group recipe)");
		}
		if (!rec->grad_reduce_in_fp32) {
			sc->training.grad_fp32 = false;
			add_assumption(vc, "grad_reduce_in_fp32=false (group recipe)");
		}
	}
	return 1;
}

/* The parallel layout: degrees, pipeline schedule, expert TP, optimizer
 * sharding, sequence parallelism and communication overlap; unstated
 * settings take the Megatron-Core recipe defaults. */
static void case_layout(const struct model_arch *m, const struct val_recipe *rec,
			const struct raw_case *rc, struct val_case *vc, struct scenario *sc)
{
	sc->layout.tp = rc->tp;
	sc->layout.pp = rc->pp;
	sc->layout.dp = rc->dp;
	sc->layout.cp = rc->cp;
	sc->layout.ep = rc->ep;
	if (rc->vpp > 0) {
		sc->layout.vpp = rc->vpp;
	} else {
		sc->layout.vpp = 1;
		add_assumption(vc, "vpp=1");
	}
	sc->layout.schedule = layout_schedule_default(sc->layout.vpp);
	if (rc->etp > 0) {
		sc->layout.etp = rc->etp;
	} else if (model_is_moe(m) && (long long)rc->tp * rc->cp * rc->dp % ((long long)rc->tp * rc->ep) != 0) {
		/* Megatron's default etp = tp does not fit this layout, so the
		 * run must have used expert tensor parallelism 1. */
		sc->layout.etp = 1;
		add_assumption(vc, "etp=1 (etp=tp does not divide)");
	} else {
		sc->layout.etp = 0;
	}
	if (rc->fsdp == FSDP_TRUE) {
		sc->layout.fsdp = true;
		sc->layout.zero_stage = 3;
	} else if (rc->fsdp > 0) {
		sc->layout.zero_stage = rc->fsdp;
	} else {
		/* Not stated: the distributed optimizer (ZeRO-1) is the default
		 * of the Megatron-Core, NeMo and MaxText recipes these come from. */
		sc->layout.zero_stage = 1;
		vc->unstated |= VAL_UNSTATED_SHARDING;
	}
	sc->layout.fsdp_group = rc->fsdp_group > 0 ? rc->fsdp_group : 0;
	if (rc->sequence_parallel == NOT_STATED) {
		/* Megatron-Core recipes turn sequence parallelism on with TP. */
		sc->layout.sequence_parallel = rc->tp > 1;
		if (rc->tp > 1)
			add_assumption(vc, "sequence_parallel=true");
	} else {
		sc->layout.sequence_parallel = rc->sequence_parallel == 1 && rc->tp > 1;
	}
	sc->layout.ep_comm_overlap = rc->moe_a2a_overlap == 1;
	if (sc->layout.sequence_parallel && rec && rec->tp_comm_overlap) {
		sc->layout.tp_comm_overlap = true;
		add_assumption(vc, "tp_comm_overlap=true (NVIDIA performance recipe)");
	}
}

/* The MoE token dispatcher: the stated backend, else flex (the
 * Megatron-Core MoE recipes' default across nodes). */
static void case_moe_dispatcher(const struct model_arch *m, const struct raw_case *rc,
				struct val_case *vc, struct scenario *sc)
{
	if (model_is_moe(m) && rc->moe_dispatcher[0]) {
		static const enum sc_moe_dispatcher of_backend[] = {
			[MOE_BACKEND_ALLTOALL] = MOE_DISPATCH_ALLTOALL, [MOE_BACKEND_FLEX] = MOE_DISPATCH_FLEX,
			[MOE_BACKEND_UCCL_EP] = MOE_DISPATCH_UCCL_EP,
			[MOE_BACKEND_PPLX_GARDEN] = MOE_DISPATCH_PPLX_GARDEN,
			[MOE_BACKEND_ALLGATHER] = MOE_DISPATCH_ALLGATHER,
			[MOE_BACKEND_EFA_GDA] = MOE_DISPATCH_EFA_GDA
		};

		sc->layout.moe_dispatcher = of_backend[moe_backend_of_name(rc->moe_dispatcher)];
	} else if (model_is_moe(m)) {
		/* Not stated: the Megatron-Core MoE recipes these come from use
		 * the flex dispatcher (DeepEP/HybridEP) across nodes. */
		sc->layout.moe_dispatcher = MOE_DISPATCH_FLEX;
		if (rc->ep > 1)
			add_assumption(vc, "moe_dispatcher=flex");
	}
}

/* The GPU's calibration profile, then the whole scenario checked as the
 * loader checks one. Returns 1, or 0 with the case marked not expressible. */
static int case_calibration_and_check(const struct catalog *cat, const struct gpu_spec *gpu,
				      struct val_case *vc, struct scenario *sc)
{
	const struct calibration *cal = catalog_calibration(cat, gpu->calibration);
	struct sc_error cerr;

	if (!cal)
		return not_expressible(vc, "calibration profile \"%s\" missing", gpu->calibration);
	sc->calibration = *cal;
	sc_error_clear(&cerr);
	if (scenario_check(sc, NULL, &cerr) != SC_OK) {
		char msg[VAL_REASON_MAX];
		snprintf(msg, sizeof(msg), "%s: %s", cerr.pointer, cerr.message);
		return not_expressible(vc, "layout not valid for the model: %s", msg);
	}
	return 1;
}

/* Turn one raw case into a scenario; fills vc.  Returns 1 when expressible. */
static int build_case(const struct val_set *set, const struct catalog *cat,
		       const struct raw_case *rc, struct val_case *vc, struct sc_error *err)
{
	const struct model_arch *m = model_for(set, cat, rc->model);
	const struct gpu_spec *gpu = catalog_gpu(cat, rc->gpu);
	const struct val_system *sys = system_for(set, rc->gpu);
	const struct val_recipe *rec = recipe_for(set, rc->source_group);
	const struct instance_spec *aws = rc->system[0] ? catalog_instance(cat, rc->system) : NULL;
	struct scenario *sc;

	(void)err;
	case_identity(set, m, rec, rc, vc);
	if (!case_expressible(set, cat, m, gpu, sys, aws, rc, vc))
		return 0;
	sc = calloc(1, sizeof(*sc));
	if (!sc)
		return not_expressible(vc, "%s", "out of memory");
	snprintf(sc->name, sizeof(sc->name), "%s", rc->id);
	sc->model = *m;
	if (!case_cluster(cat, gpu, sys, aws, rc, vc, sc) || !case_training(rec, rc, vc, sc)) {
		free(sc);
		return 0;
	}
	case_layout(m, rec, rc, vc, sc);
	case_moe_dispatcher(m, rc, vc, sc);
	if (!case_calibration_and_check(cat, gpu, vc, sc)) {
		free(sc);
		return 0;
	}
	vc->scenario = sc;
	vc->assumptions_built = (int)strlen(vc->assumptions);
	return 1;
}

enum sc_status val_read_models(const char *path, const cJSON *models, struct val_set *set,
			       struct sc_error *err)
{
	struct cfg_reader rd = { path, err, NULL };
	const cJSON *item;
	enum sc_status st;
	int i = 0;

	if (!cJSON_IsObject(models) && !cJSON_IsArray(models))
		return sc_error_set(err, SC_EINVAL, path, "/models",
				    "expected an object of models keyed by name, or an array of models");
	set->n_models = cJSON_GetArraySize(models);
	set->models = calloc((size_t)set->n_models + 1, sizeof(*set->models));
	set->model_names = calloc((size_t)set->n_models + 1, sizeof(*set->model_names));
	if (!set->models || !set->model_names)
		return sc_error_set(err, SC_ENOMEM, path, NULL, "out of memory");
	if (cJSON_IsArray(models)) {
		/* configs/models.json's form: each model names itself */
		cJSON_ArrayForEach(item, models) {
			char where[SC_ERROR_PTR_MAX];

			cfg_pointer_index(where, sizeof(where), "/models", i);
			if ((st = cfg_read_model(&rd, item, &set->models[i], where)) != SC_OK)
				return st;
			snprintf(set->model_names[i], SC_NAME_MAX, "%s", set->models[i].name);
			i++;
		}
		return SC_OK;
	}
	cJSON_ArrayForEach(item, models) {
		char where[SC_ERROR_PTR_MAX];
		cJSON *copy;

		cfg_pointer_key(where, sizeof(where), "/models", item->string);
		if (strlen(item->string) >= SC_NAME_MAX)
			return sc_error_set(err, SC_EINVAL, path, where, "model name too long");
		/* The file keys models by name; the model table wants "name". */
		copy = cJSON_Duplicate(item, true);
		if (!copy || !cJSON_IsObject(copy)) {
			cJSON_Delete(copy);
			return sc_error_set(err, SC_EINVAL, path, where, "expected a model object");
		}
		if (cJSON_GetObjectItemCaseSensitive(copy, "name")) {
			cJSON_Delete(copy);
			cfg_pointer_key(where, sizeof(where), where, "name");
			return sc_error_set(err, SC_EINVAL, path, where,
					    "unknown key \"name\" (models are keyed by name)");
		}
		cJSON_AddStringToObject(copy, "name", item->string);
		st = cfg_read_model(&rd, copy, &set->models[i], where);
		cJSON_Delete(copy);
		if (st != SC_OK)
			return st;
		snprintf(set->model_names[i], SC_NAME_MAX, "%s", item->string);
		i++;
	}
	return SC_OK;
}

enum sc_status val_read_case(const struct val_set *set, const struct catalog *cat,
			     const char *path, const cJSON *item, const char *where,
			     struct val_case *vc, struct sc_error *err)
{
	struct cfg_reader rd = { path, err, NULL };
	struct raw_case *rc = calloc(1, sizeof(*rc));
	enum sc_status st;

	if (!rc)
		return sc_error_set(err, SC_ENOMEM, path, NULL, "out of memory");
	rc->vpp = rc->etp = rc->fsdp = rc->fsdp_group = NOT_STATED;
	rc->sequence_parallel = rc->micro_batch = rc->grad_accum = NOT_STATED;
	rc->moe_a2a_overlap = NOT_STATED;
	st = cfg_read_object(&rd, item, case_fields, rc, where);
	if (st == SC_OK && rc->tp * rc->pp * rc->cp * rc->dp != rc->gpu_count) {
		char dwhere[SC_ERROR_PTR_MAX];
		cfg_pointer_key(dwhere, sizeof(dwhere), where, "dp");
		st = sc_error_set(err, SC_EINVAL, path, dwhere,
				  "tp x pp x cp x dp (%d) is not gpu_count (%d)",
				  rc->tp * rc->pp * rc->cp * rc->dp, rc->gpu_count);
	}
	if (st == SC_OK)
		build_case(set, cat, rc, vc, err);
	free(rc);
	return st;
}

enum sc_status val_load_cases_file(const char *cases_path, const char *systems_path,
				   const char *const *top, struct val_loading *ld, size_t case_size,
				   void **cases, int *n_cases, cfg_item_reader read, struct sc_error *err)
{
	struct cfg_reader rd = { cases_path, err, NULL };
	enum sc_status st;
	cJSON *root;

	if ((st = val_load_systems(systems_path, ld->set, ld->cat, err)) != SC_OK)
		return st;
	if (!(root = cfg_parse_file(cases_path, err)))
		return err->status;
	if ((st = cfg_check_keys(&rd, root, top, "")) == SC_OK &&
	    (st = val_read_models(cases_path, cJSON_GetObjectItemCaseSensitive(root, "models"), ld->set,
				  err)) == SC_OK)
		st = cfg_array_read(&rd, root, "cases", case_size, cases, n_cases, read, ld);
	cJSON_Delete(root);
	return st;
}

/* cfg_item_reader for a training case. */
static enum sc_status read_training_case(struct cfg_reader *rd, const cJSON *item, int i,
					 const char *where, void *ctx)
{
	const struct val_loading *ld = ctx;

	return val_read_case(ld->set, ld->cat, rd->file, item, where, &ld->set->cases[i], rd->err);
}

enum sc_status val_load(const char *cases_path, const char *systems_path,
			const struct catalog *cat, struct val_set *set,
			struct sc_error *err)
{
	static const char *const top[] = { "models", "cases", NULL };
	struct val_loading ld = { set, cat, set };
	enum sc_status st;

	memset(set, 0, sizeof(*set));
	snprintf(set->path, sizeof(set->path), "%s", cases_path);
	st = val_load_cases_file(cases_path, systems_path, top, &ld, sizeof(*set->cases),
				 (void **)&set->cases, &set->n_cases, read_training_case, err);
	if (st != SC_OK)
		val_free(set);
	return st;
}

/* Predict vc at its stated settings and the defaults for the rest (the
 * step time, the memory verdict).  Where those do not fit and the case
 * leaves recompute or the ZeRO sharding open, the memory verdict is the
 * least of them that fits, in this order: FSDP (ZeRO-3 over DP), full
 * recompute, both: the published run ran, so a setting that would not fit
 * was not what it used.  The step time stays the defaults' (the case does
 * not say what it did instead); what fits is recorded in fits_with. */
static enum sc_status predict_case(struct val_case *vc, struct step_result *r,
				   struct sc_error *err)
{
	static const struct { enum sc_recompute rc; int zero; } steps[] = {
		{ RECOMPUTE_NONE, 3 }, { RECOMPUTE_FULL, 1 }, { RECOMPUTE_FULL, 3 },
	};
	struct scenario *sc = vc->scenario;
	struct scenario keep = *sc;
	enum sc_status st = sim_step_predict(sc, r, err);

	vc->fits_with[0] = '\0';
	vc->oom_at_defaults = st == SC_OK && r->oom;
	vc->predicted_oom = vc->oom_at_defaults;
	vc->predicted_memory_bytes = r->mem_total_bytes;
	vc->memory_capacity_bytes = r->mem_capacity_bytes;
	if (st != SC_OK || !r->oom || !vc->unstated)
		return st;
	for (size_t i = 0; i < sizeof(steps) / sizeof(steps[0]); i++) {
		struct step_result t;
		struct sc_error e;

		if (steps[i].rc != RECOMPUTE_NONE && !(vc->unstated & VAL_UNSTATED_RECOMPUTE))
			continue;
		if (steps[i].zero == 3 && !(vc->unstated & VAL_UNSTATED_SHARDING))
			continue;
		*sc = keep;
		sc->training.recompute = steps[i].rc;
		if (steps[i].zero == 3) {
			sc->layout.zero_stage = 3;
			sc->layout.fsdp = true;
		}
		sc_error_clear(&e);
		if (scenario_check(sc, NULL, &e) != SC_OK || sim_step_predict(sc, &t, &e) != SC_OK ||
		    t.oom)
			continue;
		snprintf(vc->fits_with, sizeof(vc->fits_with), "%s%s%s",
			 steps[i].zero == 3 ? "zero_stage=3" : "",
			 steps[i].zero == 3 && steps[i].rc != RECOMPUTE_NONE ? " " : "",
			 steps[i].rc != RECOMPUTE_NONE ? "recompute=full" : "");
		vc->predicted_oom = false;
		vc->predicted_memory_bytes = t.mem_total_bytes;
		break;
	}
	*sc = keep;
	return st;
}

enum sc_status val_run(struct val_set *set, const struct catalog *cat,
		       const struct calibration *calibration, struct sc_error *err)
{
	(void)err;
	for (int i = 0; i < set->n_cases; i++) {
		struct val_case *vc = &set->cases[i];
		struct step_result r;
		struct sc_error cerr;

		if (!vc->scenario)
			continue;
		if (calibration && calibration_fits_gpu(calibration, &vc->scenario->cluster.gpu)) {
			vc->scenario->calibration = *calibration;
		} else if (cat) {
			const struct calibration *c =
				catalog_calibration(cat, vc->scenario->cluster.gpu.calibration);
			if (c)
				vc->scenario->calibration = *c;
		}
		/* idempotent: the assumptions as built on every run */
		vc->assumptions[vc->assumptions_built] = '\0';
		sc_error_clear(&cerr);
		if (predict_case(vc, &r, &cerr) != SC_OK) {
			vc->expressible = false;
			snprintf(vc->reason, sizeof(vc->reason), "model cannot express it: %s%s%s",
				 cerr.pointer, cerr.pointer[0] ? ": " : "", cerr.message);
			continue;
		}
		vc->expressible = true;
		if (vc->unstated & VAL_UNSTATED_RECOMPUTE)
			add_assumption(vc, "recompute=none");
		if (vc->unstated & VAL_UNSTATED_SHARDING)
			add_assumption(vc, "zero_stage=1");
		if (vc->fits_with[0]) {
			char what[96];
			snprintf(what, sizeof(what), "memory fits with %s (not stated; the defaults do not fit)",
				 vc->fits_with);
			add_assumption(vc, what);
		}
		vc->predicted_step_s = r.step_time_s;
		vc->err_rel = (r.step_time_s - vc->measured_step_s) / vc->measured_step_s;
		vc->predicted_mfu = r.mfu;

		vc->bottleneck = (int)r.bottleneck;
	}
	return SC_OK;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

void val_stats_of_errors(const double *err_rel, const int *index, int n,
			 struct val_stats *out)
{
	double *ape = malloc(sizeof(double) * ((size_t)n + 1));
	double sum = 0, sum_signed = 0;

	memset(out, 0, sizeof(*out));
	out->worst_index = -1;
	if (!ape)
		return;
	for (int i = 0; i < n; i++) {
		double a = fabs(err_rel[i]);

		ape[i] = a;
		sum += a;
		sum_signed += err_rel[i];
		if (out->worst_index < 0 || a > out->worst_ape) {
			out->worst_ape = a;
			out->worst_index = index[i];
		}
	}
	out->count = n;
	if (n > 0) {
		qsort(ape, (size_t)n, sizeof(double), cmp_double);
		out->mape = sum / n;
		out->mean_err = sum_signed / n;
		out->median_ape = n % 2 ? ape[n / 2] : 0.5 * (ape[n / 2 - 1] + ape[n / 2]);
		/* Nearest-rank 90th percentile. */
		out->p90_ape = ape[(int)ceil(0.9 * n) - 1];
	}
	free(ape);
}

void val_stats_select(const struct val_set *set, bool (*filter)(const struct val_case *, const void *),
		      const void *arg, bool out_of_sample, struct val_stats *out)
{
	double *err = malloc(sizeof(double) * ((size_t)set->n_cases + 1));
	int *index = malloc(sizeof(int) * ((size_t)set->n_cases + 1));
	int n = 0;

	memset(out, 0, sizeof(*out));
	out->worst_index = -1;
	if (err && index) {
		for (int i = 0; i < set->n_cases; i++) {
			const struct val_case *vc = &set->cases[i];
			if (!vc->expressible || (out_of_sample && !vc->has_oos) || (filter && !filter(vc, arg)))
				continue;
			err[n] = out_of_sample ? vc->oos_err_rel : vc->err_rel;
			index[n++] = i;
		}
		val_stats_of_errors(err, index, n, out);
	}
	free(err);
	free(index);
}

void val_stats(const struct val_set *set, bool (*filter)(const struct val_case *, const void *),
	       const void *arg, struct val_stats *out)
{
	val_stats_select(set, filter, arg, false, out);
}

void val_band_coverage(const struct val_set *set, bool (*filter)(const struct val_case *, const void *),
		       const void *arg, struct val_band_cover *out)
{
	int below = 0, above = 0;

	memset(out, 0, sizeof(*out));
	for (int i = 0; i < set->n_cases; i++) {
		const struct val_case *vc = &set->cases[i];
		struct model_band b;
		double p10, p90;

		if (!vc->expressible || !vc->scenario || !(vc->predicted_step_s > 0) ||
		    (filter && !filter(vc, arg)))
			continue;
		b = model_band_of_calibration(&vc->scenario->calibration);
		p10 = model_band_quantile(&b, vc->predicted_step_s, 0.10);
		p90 = model_band_quantile(&b, vc->predicted_step_s, 0.90);
		out->count++;
		below += vc->measured_step_s < p10;
		above += vc->measured_step_s > p90;
	}
	if (out->count > 0) {
		out->below_p10 = (double)below / out->count;
		out->above_p90 = (double)above / out->count;
		out->inside = 1.0 - out->below_p10 - out->above_p90;
	}
}

void val_oom_count(const struct val_set *set, struct val_oom_count *out)
{
	memset(out, 0, sizeof(*out));
	for (int i = 0; i < set->n_cases; i++) {
		if (!set->cases[i].expressible)
			continue;
		out->expressed++;
		out->predicted_oom += set->cases[i].predicted_oom;
		out->oom_at_defaults += set->cases[i].oom_at_defaults;
	}
}

void val_free(struct val_set *set)
{
	if (set->cases)
		for (int i = 0; i < set->n_cases; i++)
			free(set->cases[i].scenario);
	free(set->cases);
	free(set->models);
	free(set->model_names);
	free(set->systems);
	free(set->recipes);
	memset(set, 0, sizeof(*set));
}
