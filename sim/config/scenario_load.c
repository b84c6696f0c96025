/* scenario_load.c: strict scenario reading (see scenario_load.h). */
#include "scenario_load.h"
#include "calibration_select.h"
#include "scenario_storage.h"
#include "placement_load.h"
#include "../../models/layout.h"
#include "../../models/limits.h"

#include <stdio.h>
#include <string.h>

#define REQ CFG_REQUIRED
#define POS CFG_POSITIVE

/* "model": a catalogue name or an inline model object. */
static enum sc_status read_model_ref(struct cfg_reader *rd, const cJSON *item,
				     void *slot, const char *where)
{
	return cfg_ref_model(rd, rd->ctx, item, slot, where);
}

static enum sc_status read_instance_ref(struct cfg_reader *rd, const cJSON *item,
					void *slot, const char *where)
{
	return cfg_ref_instance(rd, rd->ctx, item, slot, where);
}

static enum sc_status read_fabric_ref(struct cfg_reader *rd, const cJSON *item,
				      void *slot, const char *where)
{
	return cfg_ref_fabric(rd, rd->ctx, item, slot, where);
}

/* "placement": read by placement_resolve once the cluster is known. */
static enum sc_status placement_accept(struct cfg_reader *rd, const cJSON *item, void *slot,
				       const char *where)
{
	(void)slot;
	if (!cJSON_IsObject(item) && !cJSON_IsString(item))
		return sc_error_set(rd->err, SC_EINVAL, rd->file, where,
				    "expected an EC2 topology file name or a placement object, got %s",
				    cfg_json_type_name(item));
	return SC_OK;
}

const struct cfg_field cfg_cluster_fields[] = {
	CFG_F_CUSTOM(struct cluster, instance, REQ, read_instance_ref, cfg_instance_fields,
		     "instance type name, or an inline instance object"),
	CFG_F_INT_RANGE(struct cluster, nodes, REQ | POS, 1, SC_MAX_NODES, "number of instances"),
	CFG_F_CUSTOM(struct cluster, fabric, REQ, read_fabric_ref, NULL, "fabric name"),
	CFG_F_CUSTOM(struct cluster, placement, 0, placement_accept, cfg_placement_fields,
		     "where the nodes sit: an EC2 topology file, {file, format(, instances)} or {generate(, blocks, seed)}; absent: packed"),
	CFG_END
};

/* "recompute_modules": a list of Megatron-Core's --recompute-modules names. */
static enum sc_status read_recompute_modules(struct cfg_reader *rd, const cJSON *item, void *slot,
					     const char *where)
{
	unsigned *bits = slot;
	const cJSON *e;
	int i = 0;

	if (!cJSON_IsArray(item))
		return sc_error_set(rd->err, SC_EINVAL, rd->file, where,
				    "expected an array of module names, got %s", cfg_json_type_name(item));
	*bits = 0;
	cJSON_ArrayForEach(e, item) {
		char at[SC_ERROR_PTR_MAX];
		unsigned b;

		cfg_pointer_index(at, sizeof(at), where, i++);
		if (!cJSON_IsString(e))
			return sc_error_set(rd->err, SC_EINVAL, rd->file, at, "expected a module name, got %s",
					    cfg_json_type_name(e));
		for (b = 1; recompute_module_name(b); b <<= 1)
			if (strcmp(recompute_module_name(b), e->valuestring) == 0)
				break;
		if (!recompute_module_name(b))
			return sc_error_set(rd->err, SC_EINVAL, rd->file, at,
					    "unknown module \"%s\" (core_attn, layernorm, mla_up_proj, mlp, "
					    "moe_act, moe or shared_experts)", e->valuestring);
		*bits |= b;
	}
	return SC_OK;
}

const struct cfg_field cfg_training_fields[] = {
	CFG_F_INT_RANGE(struct training, seq_len, REQ | POS, 1, SC_MAX_SEQ_LEN, "tokens per sequence"),
	CFG_F_INT_RANGE(struct training, global_batch_seqs, REQ | POS, 1, SC_MAX_BATCH_SEQS, "sequences per optimizer step"),
	CFG_F_INT_RANGE(struct training, micro_batch_seqs, REQ | POS, 1, SC_MAX_BATCH_SEQS, "sequences per micro-batch"),
	CFG_F_ENUM(struct training, precision, REQ, sc_precision_names, "bf16, fp16, fp8, mxfp8 or nvfp4"),
	CFG_F_ENUM(struct training, recompute, REQ, sc_recompute_names, "none, selective or full"),
	CFG_F_CUSTOM(struct training, recompute_modules, 0, read_recompute_modules, NULL,
		     "with selective: Megatron --recompute-modules (default [\"core_attn\"])"),
	CFG_F_ENUM(struct training, optimizer, 0, sc_optimizer_names, "adam (default) or sgd"),
	CFG_F_BOOL(struct training, grad_fp32, 0, "accumulate gradients in FP32 (default true, as Megatron)"),
	CFG_F_ENUM(struct training, framework, 0, sc_framework_names, "megatron-core (default; also NeMo, Megatron-Bridge), torchtitan (FSDP2) or deepspeed: how memory is allocated"),
	CFG_F_ENUM(struct training, master_dtype, 0, sc_dtype_names, "optimizer master weights: fp32 (default) or bf16 (Megatron --main-params-dtype, DeepSpeed bf16_master_weights_and_grads)"),
	CFG_F_ENUM(struct training, moments_dtype, 0, sc_dtype_names, "Adam moments: fp32 (default) or bf16 (Megatron --exp-avg-dtype/--exp-avg-sq-dtype, DeepSpeed bf16_optimizer_states)"),
	CFG_F_ENUM(struct training, attention, 0, sc_attention_names, "attention kernels: flash (default) or unfused (softmax output kept, Megatron --attention-backend unfused)"),
	CFG_F_ENUM(struct training, attention_kernel, 0, sc_attention_kernel_names, "flash-attention kernel for speed: fused (default; TE/cuDNN, FlashAttention-3 class) or portable (FlashAttention-2 or its Triton port)"),
	CFG_F_ENUM(struct training, cuda_graphs, 0, sc_cuda_graphs_names, "CUDA graphs: none (default; eager launches or per-module graphs) or full-iteration (Megatron --cuda-graph-impl full_iteration: kernels replayed without the host launch path, graph_kernel_overhead_s each)"),
	CFG_F_BOOL(struct training, dropout, 0, "dropout on, masks kept for the backward (default false)"),
	CFG_F_BOOL(struct training, compile, 0, "torch.compile of the model and loss (torchtitan; default false)"),
	CFG_F_BOOL(struct training, no_lp_weight_cache, 0, "Megatron --disable-parameter-transpose-cache: FP8/FP4 weight copies not kept (default false)"),
	CFG_F_BOOL(struct training, no_compile_loss, 0, "with compile: the loss runs eager (torchtitan compile.components without \"loss\"; its releases before April 2025 compiled only the blocks; default false)"),
	CFG_F_BOOL(struct training, sac_attention_recomputed, 0, "torchtitan op-level selective: the attention kernel's output recomputed, not kept (its save list lacked cuDNN attention, which runs first on Blackwell, from May to December 2025; default false)"),
	CFG_F_BOOL(struct training, no_loss_upcast, 0, "an eager loss on the BF16 logits as they are, no logits.float() nor autocast: its log-softmax kept in BF16 (default false: upcast to FP32, as Hugging Face and torchtitan)"),
	CFG_F_BOOL(struct training, no_mem_efficient_linear, 0, "DeepSpeed ZeRO-3 model built outside deepspeed.zero.Init: without recompute each gathered weight stays until its backward (default false)"),
	CFG_F_BOOL(struct training, activation_input_fp8, 0, "the MLP activation's (SwiGLU) input kept in FP8 for the backward, as DeepSeek-V3 (default false)"),
	CFG_F_INT_RANGE(struct training, recompute_layer_interval, POS, 1, SC_MAX_MODEL_COUNT, "with recompute selective: one decoder layer in every N fully recomputed, the others keep all (torchtitan selective_ac_option \"N\"; default off)"),
	CFG_F_INT_RANGE(struct training, loss_chunks, POS, 1, SC_MAX_SEQ_LEN, "the loss in this many sequence chunks, one chunk's logits at a time (torchtitan ChunkedLossWrapper; default 1)"),
	CFG_F_NUM(struct training, tokens_to_train, POS, "training budget, tokens"),
	CFG_END
};

const struct cfg_field cfg_layout_fields[] = {
	CFG_F_INT_RANGE(struct layout, tp, REQ | POS, 1, SC_MAX_GPUS, "tensor parallel size"),
	CFG_F_INT_RANGE(struct layout, pp, REQ | POS, 1, SC_MAX_GPUS, "pipeline parallel size"),
	CFG_F_INT_RANGE(struct layout, vpp, POS, 1, SC_MAX_GPUS, "virtual stages per pipeline rank (default 1)"),
	CFG_F_INT_RANGE(struct layout, dp, POS, 1, SC_MAX_GPUS, "data parallel size (default GPUs / (tp pp cp); checked if given)"),
	CFG_F_INT_RANGE(struct layout, cp, POS, 1, SC_MAX_GPUS, "context parallel size (default 1)"),
	CFG_F_INT_RANGE(struct layout, ep, POS, 1, SC_MAX_GPUS, "expert parallel size (default 1)"),
	CFG_F_INT_RANGE(struct layout, etp, POS, 1, SC_MAX_GPUS, "expert tensor parallel size (default tp)"),
	CFG_F_INT_RANGE(struct layout, zero_stage, 0, 0, 3, "ZeRO stage 0-3 (default 1, the distributed optimizer)"),
	CFG_F_BOOL(struct layout, fsdp, 0, "fully sharded data parallel (default false)"),
	CFG_F_INT_RANGE(struct layout, fsdp_group, POS, 1, SC_MAX_GPUS, "FSDP sharding group size for hybrid sharding (default all of DP)"),
	CFG_F_BOOL(struct layout, sequence_parallel, 0, "Megatron sequence parallelism with TP (default true when tp > 1)"),
	CFG_F_ENUM(struct layout, schedule, 0, sc_schedule_names, "1f1b, interleaved-1f1b, gpipe, zb-h1, zb-v or dualpipe (default 1f1b, interleaved-1f1b when vpp > 1)"),
	CFG_F_ENUM(struct layout, layer_split, 0, sc_layer_split_names, "how decoder layers split over the pp x vpp virtual stages: auto (default), even, slots (embedding and loss take a layer's slot), balanced (an explicit pipeline layout) or uneven"),
	CFG_F_INT_RANGE(struct layout, first_stage_layers, POS, 1, SC_MAX_MODEL_COUNT, "decoder layers on the first pipeline rank (Megatron --decoder-first-pipeline-num-layers; implies layer_split uneven)"),
	CFG_F_INT_RANGE(struct layout, last_stage_layers, POS, 1, SC_MAX_MODEL_COUNT, "decoder layers on the last pipeline rank (Megatron --decoder-last-pipeline-num-layers; implies layer_split uneven)"),
	CFG_F_BOOL(struct layout, tp_comm_overlap, 0, "overlap TP communication with GEMMs (default false)"),
	CFG_F_BOOL(struct layout, ep_comm_overlap, 0, "overlap EP all-to-all with computation (default false)"),
	CFG_F_ENUM(struct layout, moe_dispatcher, 0, sc_moe_dispatcher_names, "MoE token dispatcher: alltoall (default), flex (DeepEP/HybridEP, one copy per remote NVLink domain), uccl-ep or pplx-garden (CPU-proxy EP over EFA), allgather (Megatron all-gather dispatcher), efa-gda (GPU-initiated EFA, aws-ofi-nccl >= 1.21; p5en, p6-b200, p6-b300)"),
	CFG_F_NUM_RANGE(struct layout, moe_routing_imbalance, 0, 1, 64, "MoE routing: the busiest expert rank's tokens over the mean, 1 = forced balance (default: the calibration's moe_router_imbalance)"),
	CFG_F_NUM_RANGE(struct layout, moe_capacity_factor, 0, 0.01, 64, "MoE expert capacity factor (Megatron --moe-expert-capacity-factor): an expert keeps at most this times its mean tokens and drops the rest (default: dropless)"),
	CFG_END
};

const struct cfg_field cfg_scenario_fields[] = {
	CFG_F_STR(struct scenario, name, REQ, "what the scenario is"),
	CFG_F_CUSTOM(struct scenario, model, REQ, read_model_ref, cfg_model_fields,
		     "model name, or an inline model object"),
	CFG_F_OBJ(struct scenario, cluster, REQ, cfg_cluster_fields, "the cluster"),
	CFG_F_OBJ(struct scenario, training, REQ, cfg_training_fields, "training settings"),
	CFG_F_OBJ(struct scenario, layout, REQ, cfg_layout_fields, "parallelism layout"),
	CFG_F_CUSTOM(struct scenario, calibration, 0, cfg_ref_calibration, NULL,
		     "calibration profile name, or a profile file relative to the scenario (default: the GPU's)"),
	CFG_F_OBJ(struct scenario, storage, 0, cfg_storage_cfg_fields,
		  "data loading, checkpoints and failures (optional; see scenario_storage.h)"),
	CFG_F_OBJ(struct scenario, stragglers, 0, cfg_straggler_fields,
		  "per-GPU slowdown distribution (optional)"),
	CFG_END
};

enum sc_status training_sac_check(const struct training *t, const char *file, const char *ptr,
				  struct sc_error *err)
{
	/* only torchtitan's op-level SAC memory (models/memory.c,
	 * torchtitan_op_sac_bytes) reads it: elsewhere it would change nothing */
	if (t->sac_attention_recomputed &&
	    (t->framework != FW_TORCHTITAN || t->recompute != RECOMPUTE_SELECTIVE ||
	     t->recompute_layer_interval > 0))
		return sc_error_set(err, SC_EINVAL, file, ptr,
				    "sac_attention_recomputed needs framework \"torchtitan\" with recompute \"selective\" per op (no recompute_layer_interval); here framework \"%s\", recompute \"%s\"%s",
				    framework_name(t->framework), recompute_name(t->recompute),
				    t->recompute_layer_interval > 0 ? " per layer" : "");
	return SC_OK;
}

enum sc_status scenario_check(const struct scenario *sc, const char *file,
			      struct sc_error *err)
{
	const struct training *t = &sc->training;
	enum sc_status st;

	/* every layout rule has one owner: models/layout */
	if ((st = layout_derive(sc, file, NULL, err)) != SC_OK)
		return st;
	/* full-iteration capture is Megatron-Core's (cuda_graph_impl
	 * "full_iteration"); torchtitan and DeepSpeed train eagerly or with
	 * torch.compile's per-region graphs, which no launch term here models */
	if (t->cuda_graphs == CUDA_GRAPHS_FULL_ITERATION && t->framework != FW_MEGATRON_CORE)
		return sc_error_set(err, SC_EINVAL, file, "/training/cuda_graphs",
				    "cuda_graphs \"full-iteration\" is Megatron-Core's full-iteration capture; framework \"%s\" has none",
				    framework_name(t->framework));
	if (t->precision == PREC_NVFP4 && sc->cluster.gpu.peak_fp4_flops <= 0)
		return sc_error_set(err, SC_EINVAL, file, "/training/precision",
				    "nvfp4 needs a GPU with FP4 tensor cores; %s has none",
				    sc->cluster.gpu.name);
	if ((t->precision == PREC_FP8 || t->precision == PREC_MXFP8) && sc->cluster.gpu.peak_fp8_flops <= 0)
		return sc_error_set(err, SC_EINVAL, file, "/training/precision",
				    "%s needs a GPU with FP8 tensor cores; %s has none",
				    precision_name(t->precision), sc->cluster.gpu.name);
	return SC_OK;
}

enum sc_status scenario_read(const char *file, const cJSON *root,
			     const struct catalog *cat, struct scenario *sc,
			     struct sc_error *err)
{
	struct cfg_reader rd = { file, err, (void *)cat };
	const cJSON *layout, *calib;
	enum sc_status st;
	const struct gpu_spec *gpu;
	int given_dp;

	memset(sc, 0, sizeof(*sc));
	sc->training.optimizer = OPT_ADAM;
	sc->training.grad_fp32 = true;
	sc->layout.vpp = 1;
	sc->layout.cp = 1;
	sc->layout.ep = 1;
	sc->layout.zero_stage = 1;
	sc->layout.schedule = SCHED_1F1B;
	scenario_storage_defaults(sc);
	if ((st = cfg_read_object(&rd, root, cfg_scenario_fields, sc, "")) != SC_OK)
		return st;
	if ((st = training_sac_check(&sc->training, file, "/training/sac_attention_recomputed", err)) != SC_OK)
		return st;

	gpu = catalog_gpu(cat, sc->cluster.instance.gpu);
	if (!gpu)
		return catalog_unknown(cat, "gpu", sc->cluster.instance.gpu, file,
				       "/cluster/instance/gpu", err);
	sc->cluster.gpu = *gpu;
	calib = cJSON_GetObjectItemCaseSensitive(root, "calibration");
	if ((st = calibration_select(cat, gpu, calib ? calib->valuestring : NULL, file, file,
				     "/calibration", &sc->calibration, err)) != SC_OK)
		return st;

	/* Defaults that depend on other keys; explicit values are kept. */
	layout = cJSON_GetObjectItemCaseSensitive(root, "layout");
	given_dp = sc->layout.dp;
	if (!cJSON_GetObjectItemCaseSensitive(layout, "sequence_parallel"))
		sc->layout.sequence_parallel = layout_sp_default(sc->layout.tp);
	if (!cJSON_GetObjectItemCaseSensitive(layout, "schedule"))
		sc->layout.schedule = layout_schedule_default(sc->layout.vpp);
	if (given_dp == 0) {
		/* each factor <= SC_MAX_GPUS (the field table): 2^60 at most */
		long long denom = (long long)sc->layout.tp * sc->layout.pp * sc->layout.cp;
		int gpus;

		if ((st = layout_cluster_gpus(sc, file, &gpus, err)) != SC_OK)
			return st;
		if (gpus % denom != 0)
			return sc_error_set(err, SC_EINVAL, file, "/layout",
					    "tp x pp x cp (%lld) does not divide the cluster's %d GPUs",
					    denom, gpus);
		sc->layout.dp = (int)(gpus / denom);
	}
	if ((st = scenario_check(sc, file, err)) != SC_OK)
		return st;
	if ((st = scenario_storage_resolve(file, root, cat, sc, err)) != SC_OK)
		return st;
	return placement_resolve(file, root, sc, err);
}

enum sc_status scenario_load(const char *path, const struct catalog *cat,
			     struct scenario *sc, struct sc_error *err)
{
	cJSON *root = cfg_parse_file(path, err);
	enum sc_status st;

	if (!root)
		return err ? err->status : SC_EINVAL;
	st = scenario_read(path, root, cat, sc, err);
	cJSON_Delete(root);
	return st;
}
