/* catalog_load.c: strict loading of configs/ (see catalog_load.h). */
#include "catalog_load.h"
#include "../../models/limits.h"
#include "datadir.h"
#include "../../models/uncertainty.h"
#include "../../models/storage.h"

#include <dirent.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define REQ CFG_REQUIRED
#define POS CFG_POSITIVE
#define OPT_POS (CFG_POSITIVE | CFG_NULLABLE)
#define OPT_NONNEG (CFG_NONNEG | CFG_NULLABLE)

const char *const cfg_gpu_family_names[] = { "ampere", "hopper", "blackwell", NULL };
static const char *const activations[] = { "gelu", "swiglu", "geglu", "squared-relu", NULL };

/* Enum fields store an int; the family is kept as its string. */
static enum sc_status read_family(struct cfg_reader *rd, const cJSON *item,
				  void *slot, const char *where)
{
	const char *hint;

	if (!cJSON_IsString(item))
		return sc_error_set(rd->err, SC_EINVAL, rd->file, where,
				    "expected a string, got %s", cfg_json_type_name(item));
	for (int i = 0; cfg_gpu_family_names[i]; i++) {
		if (strcmp(cfg_gpu_family_names[i], item->valuestring) == 0) {
			snprintf(slot, SC_NAME_MAX, "%s", item->valuestring);
			return SC_OK;
		}
	}
	hint = cfg_did_you_mean(item->valuestring, cfg_gpu_family_names);
	return sc_error_set(rd->err, SC_EINVAL, rd->file, where,
			    "unknown GPU family \"%s\"%s%s%s", item->valuestring,
			    hint ? " (did you mean \"" : "; expected \"ampere\", \"hopper\" or \"blackwell\"",
			    hint ? hint : "", hint ? "\"?)" : "");
}

const struct cfg_field cfg_gpu_fields[] = {
	CFG_F_STR(struct gpu_spec, name, REQ, "catalogue name, e.g. h100-sxm"),
	CFG_F_CUSTOM(struct gpu_spec, family, REQ, read_family, NULL, "architecture family: ampere, hopper or blackwell"),
	CFG_F_NUM(struct gpu_spec, peak_fp16_flops, REQ | POS, "dense FP16 tensor-core peak, FLOP/s"),
	CFG_F_NUM(struct gpu_spec, peak_bf16_flops, REQ | POS, "dense BF16 tensor-core peak, FLOP/s"),
	CFG_F_NUM(struct gpu_spec, peak_fp8_flops, OPT_POS, "dense FP8 tensor-core peak, FLOP/s (absent: no FP8)"),
	CFG_F_NUM(struct gpu_spec, peak_fp4_flops, OPT_POS, "dense FP4 tensor-core peak, FLOP/s (absent: no FP4)"),
	CFG_F_NUM(struct gpu_spec, achievable_bf16_flops, OPT_POS, "measured maximum achievable BF16 matmul rate of this part, FLOP/s (absent: the profile's gemm_eta_max_bf16 of the peak)"),
	CFG_F_NUM(struct gpu_spec, achievable_fp8_flops, OPT_POS, "measured maximum achievable FP8 matmul rate of this part, FLOP/s (absent: the profile's gemm_eta_max_fp8 of the peak)"),
	CFG_F_STR(struct gpu_spec, achievable_source, 0, "where the achievable matmul rates come from"),
	CFG_F_NUM(struct gpu_spec, hbm_bytes, REQ | POS, "HBM capacity as nvidia-smi reports it (memory.total MiB x 2^20), bytes"),
	CFG_F_NUM(struct gpu_spec, driver_reserved_bytes, CFG_NONNEG, "of hbm_bytes, what the driver keeps (nvidia-smi -q FB Memory Usage Reserved), bytes"),
	CFG_F_STR(struct gpu_spec, hbm_source, 0, "where hbm_bytes and driver_reserved_bytes come from"),
	CFG_F_NUM(struct gpu_spec, hbm_GBps, REQ | POS, "HBM bandwidth, GB/s"),
	CFG_F_NUM(struct gpu_spec, nvlink_GBps, REQ | POS, "NVLink bandwidth per GPU per direction, GB/s"),
	CFG_F_STR(struct gpu_spec, calibration, REQ, "default calibration profile"),
	CFG_F_STR(struct gpu_spec, source, REQ, "where the numbers come from"),
	CFG_END
};

static const char *const sale_units[] = { "instance", "ultraserver", NULL };

const struct cfg_field cfg_ultraserver_fields[] = {
	CFG_F_STR(struct ultraserver_spec, name, REQ, "UltraServer type, e.g. u-p6e-gb200x72"),
	CFG_F_INT(struct ultraserver_spec, instances, REQ | POS, "instances in one UltraServer"),
	CFG_F_NUM(struct ultraserver_spec, capacity_block_usd_per_h, REQ | POS, "capacity-block price of the whole UltraServer, USD per hour"),
	CFG_F_STR(struct ultraserver_spec, date, REQ, "date the price was read, YYYY-MM-DD"),
	CFG_F_STR(struct ultraserver_spec, source, REQ, "where the price comes from"),
	CFG_END
};

const struct cfg_field cfg_price_fields[] = {
	CFG_F_NUM(struct instance_price, on_demand_usd_per_h, OPT_POS, "on-demand price of the whole instance, USD per hour (absent or null: not sold on demand)"),
	CFG_F_NUM(struct instance_price, capacity_block_usd_per_h, OPT_POS, "capacity-block price of the whole instance, USD per hour (absent or null: no per-instance capacity blocks)"),
	CFG_F_ENUM(struct instance_price, sold_as, 0, sale_units, "how the instance is bought: one at a time (default) or only as whole UltraServers"),
	CFG_F_ARRAY(struct instance_price, ultraservers, n_ultraservers, 0, cfg_ultraserver_fields, "the UltraServer products (sold_as ultraserver)"),
	CFG_F_STR(struct instance_price, date, REQ, "date the price was read, YYYY-MM-DD"),
	CFG_F_STR(struct instance_price, region, REQ, "region the price applies to"),
	CFG_F_STR(struct instance_price, source, REQ, "where the price comes from"),
	CFG_END
};

static const char *const efa_tuner_platforms[] = { "none", "P5_P5E", "P5EN", "P6", "P6_B300", NULL };

static const struct cfg_field cfg_efa_fields[] = {
	CFG_F_INT_RANGE(struct efa_spec, generation, REQ | POS, 1, 9, "EFA generation (1 on p4d, 2 on p5, 3 on p5en and p6)"),
	CFG_F_ENUM(struct efa_spec, tuner_platform, REQ, efa_tuner_platforms, "aws-ofi-nccl tuner platform (NCCL_OFI_TUNER_*): P5_P5E, P5EN, P6, P6_B300, or none (NCCL's own tuner)"),
	CFG_F_NUM_RANGE(struct efa_spec, nccl_net_latency_s, REQ, 0, 1e-3, "NCCL network latency from the aws-ofi-nccl platform table, s"),
	CFG_F_BOOL(struct efa_spec, hw_completion_counter, 0, "EFA hardware completion counter (aws-ofi-nccl efa_hw_comp_cntr), needed by EFA-GDA"),
	CFG_F_STR(struct efa_spec, source, REQ, "where the EFA facts come from"),
	CFG_END
};

const struct cfg_field cfg_instance_fields[] = {
	CFG_F_STR(struct instance_spec, name, REQ, "instance type, e.g. p5.48xlarge"),
	CFG_F_STR(struct instance_spec, gpu, REQ, "GPU catalogue name"),
	CFG_F_INT_RANGE(struct instance_spec, gpus_per_node, REQ | POS, 1, SC_MAX_GPUS_PER_NODE, "GPUs per instance"),
	CFG_F_INT_RANGE(struct instance_spec, nvlink_domain_gpus, REQ | POS, 1, SC_MAX_GPUS_PER_NODE, "GPUs in one NVLink domain"),
	CFG_F_INT(struct instance_spec, efa_nics, REQ | POS, "EFA interfaces per instance"),
	CFG_F_NUM(struct instance_spec, efa_nic_Gbps, REQ | POS, "bandwidth per EFA interface, Gb/s"),
	CFG_F_INT(struct instance_spec, nvme_drives, REQ | CFG_NONNEG, "local NVMe drives"),
	CFG_F_NUM(struct instance_spec, nvme_drive_bytes, REQ | CFG_NONNEG, "capacity per NVMe drive, bytes"),
	CFG_F_INT(struct instance_spec, vcpus, REQ | POS, "vCPUs"),
	CFG_F_NUM(struct instance_spec, memory_GiB, REQ | POS, "host memory, GiB"),
	CFG_F_OBJ(struct instance_spec, price, REQ, cfg_price_fields, "price with its date and source"),
	CFG_F_OBJ(struct instance_spec, efa, 0, cfg_efa_fields, "the EFA transport (generation, aws-ofi-nccl tuner platform, NCCL net latency); absent: not described"),
	CFG_F_STR(struct instance_spec, source, REQ, "where the numbers come from"),
	CFG_END
};

const struct cfg_field cfg_fabric_fields[] = {
	CFG_F_STR(struct fabric_spec, name, REQ, "fabric name"),
	CFG_F_BOOL(struct fabric_spec, rail_optimized, REQ, "rail-optimised leaves (NIC i of every node on leaf i)"),
	CFG_F_INT(struct fabric_spec, nodes_per_leaf, REQ | POS, "nodes under one leaf switch"),
	CFG_F_NUM_RANGE(struct fabric_spec, leaf_spine_oversubscription, REQ, 1.0, 64.0, "leaf-to-spine oversubscription ratio (1 = non-blocking)"),
	CFG_F_NUM(struct fabric_spec, nvlink_latency_s, REQ | POS, "one NVLink/NVSwitch hop, s"),
	CFG_F_NUM(struct fabric_spec, efa_latency_s, REQ | POS, "one EFA message between nodes under one leaf, s"),
	CFG_F_NUM(struct fabric_spec, spine_hop_latency_s, REQ | CFG_NONNEG, "latency added when a path crosses the spine, s"),
	CFG_F_STR(struct fabric_spec, source, REQ, "where the numbers come from"),
	CFG_END
};


static enum sc_status read_storage_kind(struct cfg_reader *rd, const cJSON *item,
					void *slot, const char *where)
{
	if (cJSON_IsString(item))
		for (int i = 0; storage_kind_names[i]; i++)
			if (strcmp(storage_kind_names[i], item->valuestring) == 0) {
				snprintf(slot, SC_NAME_MAX, "%s", item->valuestring);
				return SC_OK;
			}
	return sc_error_set(rd->err, SC_EINVAL, rd->file, where,
			    "expected one of \"nvme\", \"fsx-lustre\", \"s3\", got %s%s%s%s",
			    cfg_json_type_name(item), cJSON_IsString(item) ? " \"" : "",
			    cJSON_IsString(item) ? item->valuestring : "",
			    cJSON_IsString(item) ? "\"" : "");
}

const struct cfg_field cfg_storage_fields[] = {
	CFG_F_STR(struct storage_spec, name, REQ, "storage tier name"),
	CFG_F_CUSTOM(struct storage_spec, kind, REQ, read_storage_kind, NULL, "nvme, fsx-lustre or s3"),
	CFG_F_NUM(struct storage_spec, read_MBps_per_TiB, OPT_POS, "read throughput per provisioned TiB, MB/s"),
	CFG_F_NUM(struct storage_spec, write_MBps_per_TiB, OPT_POS, "write throughput per provisioned TiB, MB/s"),
	CFG_F_NUM(struct storage_spec, default_provisioned_TiB, OPT_POS, "provisioned capacity assumed when a scenario gives none, TiB"),
	CFG_F_NUM(struct storage_spec, per_drive_read_GBps, OPT_POS, "read throughput per NVMe drive, GB/s"),
	CFG_F_NUM(struct storage_spec, per_drive_write_GBps, OPT_POS, "write throughput per NVMe drive, GB/s"),
	CFG_F_NUM(struct storage_spec, requests_per_s_per_prefix, OPT_POS, "S3 GET requests per second per prefix"),
	CFG_F_NUM(struct storage_spec, put_requests_per_s_per_prefix, OPT_POS, "S3 PUT requests per second per prefix"),
	CFG_F_NUM(struct storage_spec, request_bytes, OPT_POS, "S3 bytes moved per GET or PUT request (multipart part size)"),
	CFG_F_NUM(struct storage_spec, per_client_GBps, OPT_POS, "throughput cap per client node, GB/s"),
	CFG_F_NUM(struct storage_spec, latency_s, REQ | POS, "first-byte or metadata latency, s"),
	CFG_F_STR(struct storage_spec, source, REQ, "where the numbers come from"),
	CFG_END
};

const struct cfg_field cfg_model_fields[] = {
	CFG_F_STR(struct model_arch, name, REQ, "model name"),
	CFG_F_INT_RANGE(struct model_arch, layers, REQ | POS, 1, SC_MAX_MODEL_COUNT, "transformer blocks"),
	CFG_F_INT_RANGE(struct model_arch, hidden, REQ | POS, 1, SC_MAX_MODEL_WIDTH, "model width"),
	CFG_F_INT_RANGE(struct model_arch, ffn_hidden, REQ | POS, 1, SC_MAX_MODEL_WIDTH, "dense MLP inner width (one of the two gated inputs)"),
	CFG_F_INT_RANGE(struct model_arch, heads, REQ | POS, 1, SC_MAX_MODEL_COUNT, "query heads"),
	CFG_F_INT_RANGE(struct model_arch, kv_heads, REQ | POS, 1, SC_MAX_MODEL_COUNT, "key/value heads"),
	CFG_F_INT_RANGE(struct model_arch, head_dim, OPT_POS, 1, SC_MAX_MODEL_WIDTH, "head width when not hidden/heads"),
	CFG_F_INT_RANGE(struct model_arch, vocab, REQ | POS, 1, SC_MAX_MODEL_WIDTH, "vocabulary size"),
	CFG_F_BOOL(struct model_arch, gated_mlp, REQ, "gated MLP (three matrices)"),
	CFG_F_ENUM(struct model_arch, activation, REQ, activations, "gelu, swiglu, geglu or squared-relu"),
	CFG_F_BOOL(struct model_arch, tied_embeddings, REQ, "input embedding and output projection share weights"),
	CFG_F_NUM(struct model_arch, params_billion, OPT_POS, "published total parameters, billions"),
	CFG_F_NUM(struct model_arch, active_params_billion, OPT_POS, "published active parameters per token (MoE), billions"),
	CFG_F_INT_RANGE(struct model_arch, experts, OPT_POS, 1, SC_MAX_MODEL_COUNT, "routed experts (MoE)"),
	CFG_F_INT_RANGE(struct model_arch, top_k, OPT_POS, 1, SC_MAX_MODEL_COUNT, "experts per token (MoE)"),
	CFG_F_INT_RANGE(struct model_arch, moe_ffn_hidden, OPT_POS, 1, SC_MAX_MODEL_WIDTH, "expert MLP width (MoE)"),
	CFG_F_INT(struct model_arch, shared_experts, OPT_NONNEG, "always-active shared experts (MoE)"),
	CFG_F_INT(struct model_arch, first_dense_layers, OPT_NONNEG, "leading dense layers (MoE)"),
	CFG_F_INT(struct model_arch, moe_layer_freq, OPT_POS, "every n-th layer is MoE"),
	CFG_F_INT(struct model_arch, q_lora_rank, OPT_POS, "MLA query compression rank"),
	CFG_F_INT(struct model_arch, kv_lora_rank, OPT_POS, "MLA key/value compression rank"),
	CFG_F_INT(struct model_arch, qk_rope_head_dim, OPT_POS, "MLA rotary head width"),
	CFG_F_INT(struct model_arch, qk_nope_head_dim, OPT_POS, "MLA non-rotary head width"),
	CFG_F_INT(struct model_arch, v_head_dim, OPT_POS, "MLA value head width"),
	CFG_F_INT(struct model_arch, mtp_layers, OPT_NONNEG, "multi-token-prediction modules"),
	CFG_F_INT(struct model_arch, sliding_window, OPT_POS, "sliding-window attention width, tokens"),
	CFG_F_INT(struct model_arch, sliding_window_layer_freq, OPT_POS, "every n-th layer uses the window"),
	CFG_F_STR(struct model_arch, source, REQ, "where the architecture comes from"),
	CFG_END
};

const char *catalog_default_dir(void)
{
	const char *env = getenv("STEPCAST_CONFIG_DIR");

	static char dir[1024];

	if (env && env[0])
		return env;
	/* the installed catalogue, relative to the code's prefix (datadir.h) */
	cfg_data_path(dir, sizeof(dir), "configs");
	return dir;
}

enum sc_status cfg_read_model(struct cfg_reader *rd, const cJSON *obj,
			      struct model_arch *m, const char *pointer)
{
	enum sc_status st;

	memset(m, 0, sizeof(*m));
	if ((st = cfg_read_object(rd, obj, cfg_model_fields, m, pointer)) != SC_OK)
		return st;
	if (m->head_dim == 0 && m->hidden % m->heads != 0)
		return cfg_key_invalid(rd, pointer, "heads",
				       "heads (%d) must divide hidden (%d) unless head_dim is given",
				       m->heads, m->hidden);
	if (m->heads % m->kv_heads != 0)
		return cfg_key_invalid(rd, pointer, "kv_heads",
				       "kv_heads (%d) must divide heads (%d)", m->kv_heads, m->heads);
	if (m->experts > 0 && (m->top_k <= 0 || m->moe_ffn_hidden <= 0))
		return sc_error_set(rd->err, SC_EINVAL, rd->file, pointer[0] ? pointer : "/",
				    "an MoE model (experts > 0) needs top_k and moe_ffn_hidden");
	if (m->experts > 0 && m->top_k > m->experts)
		return cfg_key_invalid(rd, pointer, "top_k",
				       "top_k (%d) is larger than experts (%d)", m->top_k, m->experts);
	if (m->experts == 0 && (m->top_k || m->moe_ffn_hidden || m->shared_experts))
		return sc_error_set(rd->err, SC_EINVAL, rd->file, pointer[0] ? pointer : "/",
				    "MoE fields given without \"experts\"");
	if (m->experts > 0 && m->moe_layer_freq == 0)
		m->moe_layer_freq = 1;
	if (m->kv_lora_rank > 0 && (m->qk_rope_head_dim <= 0 || m->qk_nope_head_dim <= 0 || m->v_head_dim <= 0))
		return sc_error_set(rd->err, SC_EINVAL, rd->file, pointer[0] ? pointer : "/",
				    "an MLA model (kv_lora_rank) needs qk_rope_head_dim, qk_nope_head_dim and v_head_dim");
	if (m->first_dense_layers > m->layers)
		return cfg_key_invalid(rd, pointer, "first_dense_layers",
				       "first_dense_layers (%d) is more than layers (%d)",
				       m->first_dense_layers, m->layers);
	return SC_OK;
}

/* The purchase options must be ones that exist together: an instance sold
 * one at a time has an on-demand or a capacity-block price and no
 * UltraServers; one sold only as UltraServers has no per-instance price (a
 * per-instance rate would be made up) and lists its UltraServers, each no
 * larger than the NVLink domain and one exactly the domain (the unit its
 * clusters are bought in, models/purchase.h). */
static enum sc_status check_purchase(struct cfg_reader *rd, const struct instance_spec *in,
				     const char *pointer)
{
	const struct instance_price *p = &in->price;
	char where[SC_ERROR_PTR_MAX];
	bool unit = false;

	if (p->sold_as == SOLD_PER_INSTANCE) {
		if (p->n_ultraservers > 0)
			return cfg_key_invalid(rd, pointer, "ultraservers",
					       "UltraServers are listed but sold_as is \"instance\" (use \"ultraserver\")");
		if (!(p->on_demand_usd_per_h > 0) && !(p->capacity_block_usd_per_h > 0))
			return sc_error_set(rd->err, SC_EINVAL, rd->file, pointer,
					    "no purchase option: give on_demand_usd_per_h, capacity_block_usd_per_h "
					    "or sold_as \"ultraserver\" with ultraservers");
		return SC_OK;
	}
	if (p->on_demand_usd_per_h > 0 || p->capacity_block_usd_per_h > 0)
		return cfg_key_invalid(rd, pointer, p->on_demand_usd_per_h > 0
				       ? "on_demand_usd_per_h" : "capacity_block_usd_per_h",
				       "\"%s\" is sold only as whole UltraServers: give the price per UltraServer "
				       "in ultraservers, not a per-instance price", in->name);
	if (p->n_ultraservers < 1)
		return sc_error_set(rd->err, SC_EINVAL, rd->file, pointer,
				    "missing required key \"ultraservers\" (sold_as is \"ultraserver\")");
	for (int i = 0; i < p->n_ultraservers; i++) {
		const struct ultraserver_spec *u = &p->ultraservers[i];
		long long gpus = (long long)u->instances * in->gpus_per_node;

		snprintf(where, sizeof(where), "%s/ultraservers/%d/instances", pointer, i);
		if (gpus > in->nvlink_domain_gpus)
			return sc_error_set(rd->err, SC_EINVAL, rd->file, where,
					    "%d instances of %d GPUs (%lld) exceed the NVLink domain of %d GPUs",
					    u->instances, in->gpus_per_node, gpus, in->nvlink_domain_gpus);
		unit |= gpus == in->nvlink_domain_gpus;
		for (int j = 0; j < i; j++)
			if (strcmp(u->name, p->ultraservers[j].name) == 0) {
				snprintf(where, sizeof(where), "%s/ultraservers/%d/name", pointer, i);
				return sc_error_set(rd->err, SC_EINVAL, rd->file, where,
						    "UltraServer \"%s\" is listed twice", u->name);
			}
	}
	if (!unit)
		return cfg_key_invalid(rd, pointer, "ultraservers",
				       "no UltraServer spans the NVLink domain of %d GPUs (%d instances of %d GPUs)",
				       in->nvlink_domain_gpus, in->nvlink_domain_gpus / in->gpus_per_node,
				       in->gpus_per_node);
	return SC_OK;
}

enum sc_status cfg_read_instance(struct cfg_reader *rd, const cJSON *obj,
				 struct instance_spec *in, const char *pointer)
{
	enum sc_status st;
	char where[SC_ERROR_PTR_MAX];

	memset(in, 0, sizeof(*in));
	if ((st = cfg_read_object(rd, obj, cfg_instance_fields, in, pointer)) != SC_OK)
		return st;
	if (in->nvlink_domain_gpus < in->gpus_per_node ||
	    in->nvlink_domain_gpus % in->gpus_per_node != 0)
		return cfg_key_invalid(rd, pointer, "nvlink_domain_gpus",
				       "nvlink_domain_gpus (%d) must be a multiple of gpus_per_node (%d)",
				       in->nvlink_domain_gpus, in->gpus_per_node);
	cfg_pointer_key(where, sizeof(where), pointer, "price");
	return check_purchase(rd, in, where);
}

/* The calibration profile: metadata plus "parameters": { NAME: { "value":
 * number, "source": string } } with every parameter of SC_CALIB_PARAMS.
 * schema_version 2 adds, all optional: a "range" per parameter, a top-level
 * "provenance" object and a "fits" array (see calibration.h). */
struct calib_entry {
	double value;
	char source[SC_CALIB_SOURCE_MAX];
	struct cfg_calib_range range;
	struct cfg_calib_bounds bounds;
	double prior;
	char on_bound[SC_CALIB_BOUND_SOURCE_MAX];
};

const struct cfg_field cfg_calib_bounds_fields[] = {
	CFG_F_NUM(struct cfg_calib_bounds, min, REQ, "smallest physical value for this GPU class"),
	CFG_F_NUM(struct cfg_calib_bounds, max, REQ, "largest physical value for this GPU class"),
	CFG_F_STR(struct cfg_calib_bounds, source, REQ, "the measurement or limit each end stands for"),
	CFG_END
};

const struct cfg_field cfg_calib_range_fields[] = {
	/* a file names a measured quantity: every one but CALIB_RANGE_NONE (index 0) */
	CFG_F_ENUM(struct cfg_calib_range, quantity, REQ, calib_range_quantity_names + 1,
		   "what min and max measure: message_bytes, gemm_dim or copy_bytes"),
	CFG_F_NUM(struct cfg_calib_range, min, REQ | CFG_NONNEG, "smallest value in the fitted data"),
	CFG_F_NUM(struct cfg_calib_range, max, REQ | CFG_NONNEG, "largest value in the fitted data"),
	CFG_F_INT(struct cfg_calib_range, ranks_min, OPT_POS, "smallest group size measured (message_bytes)"),
	CFG_F_INT(struct cfg_calib_range, ranks_max, OPT_POS, "largest group size measured (message_bytes)"),
	CFG_END
};

const struct cfg_field cfg_calib_provenance_fields[] = {
	CFG_F_STR(struct calib_provenance, created, REQ, "UTC date and time of the fit"),
	CFG_F_STR(struct calib_provenance, tool, REQ, "tool and version that wrote the profile"),
	CFG_F_STR(struct calib_provenance, gpu, 0, "GPU name as the measuring tool printed it"),
	CFG_F_STR(struct calib_provenance, driver, 0, "GPU driver version"),
	CFG_F_STR(struct calib_provenance, cuda, 0, "CUDA version"),
	CFG_F_STR(struct calib_provenance, nccl, 0, "NCCL version"),
	CFG_F_STR(struct calib_provenance, instance, 0, "instance type the data was fitted against"),
	CFG_F_STR(struct calib_provenance, base_profile, 0, "profile the unfitted parameters come from"),
	CFG_F_STR(struct calib_provenance, inputs, 0, "measurement files"),
	CFG_END
};

const struct cfg_field cfg_calib_fit_fields[] = {
	CFG_F_STR(struct calib_fit, name, REQ, "what was fitted"),
	CFG_F_ENUM(struct calib_fit, kind, REQ, calib_fit_kind_names, "curve, segment, gemm or hbm"),
	CFG_F_STR(struct calib_fit, tier, 0, "nvlink or efa (collectives)"),
	CFG_F_STR(struct calib_fit, algorithm, 0, "the model's algorithm over a segment"),
	CFG_F_STR(struct calib_fit, params, 0, "parameters the fit moved, comma-separated"),
	CFG_F_INT(struct calib_fit, points, REQ | POS, "measurements fitted"),
	CFG_F_NUM(struct calib_fit, x_min, REQ | CFG_NONNEG, "smallest independent variable (bytes or elements)"),
	CFG_F_NUM(struct calib_fit, x_max, REQ | CFG_NONNEG, "largest independent variable"),
	CFG_F_NUM(struct calib_fit, r2, REQ, "coefficient of determination"),
	CFG_F_NUM(struct calib_fit, rms_rel_residual, REQ | CFG_NONNEG, "root mean square relative residual"),
	CFG_F_NUM(struct calib_fit, max_rel_residual, REQ | CFG_NONNEG, "largest absolute relative residual"),
	CFG_F_NUM(struct calib_fit, alpha_s, OPT_NONNEG, "intercept of a segment or HBM fit, s"),
	CFG_F_NUM(struct calib_fit, busbw_GBps, OPT_NONNEG, "bus bandwidth of a segment, bandwidth of an HBM fit, GB/s"),
	CFG_END
};

/* A number array of at most max entries into out; the count into *n. */
static enum sc_status read_number_array(struct cfg_reader *rd, const cJSON *arr,
					double *out, int max, int *n, const char *where)
{
	const cJSON *v;
	char w[SC_ERROR_PTR_MAX];
	int i = 0;

	if (!cJSON_IsArray(arr))
		return sc_error_set(rd->err, SC_EINVAL, rd->file, where,
				    "expected an array, got %s", cfg_json_type_name(arr));
	cJSON_ArrayForEach(v, arr) {
		cfg_pointer_index(w, sizeof(w), where, i);
		if (i >= max)
			return sc_error_set(rd->err, SC_EINVAL, rd->file, w,
					    "more than %d entries", max);
		if (!cJSON_IsNumber(v) || !isfinite(v->valuedouble))
			return sc_error_set(rd->err, SC_EINVAL, rd->file, w,
					    "expected a finite number, got %s", cfg_json_type_name(v));
		out[i++] = v->valuedouble;
	}
	*n = i;
	return SC_OK;
}

enum sc_status cfg_read_calibration_fit(struct cfg_reader *rd, const cJSON *obj,
					struct calib_fit *fit, const char *pointer)
{
	static const char *const arrays[] = { "x", "residuals" };
	cJSON *copy;
	enum sc_status st;
	char where[SC_ERROR_PTR_MAX];
	int nx = 0, nr = 0;

	memset(fit, 0, sizeof(*fit));
	if (!cJSON_IsObject(obj))
		return sc_error_set(rd->err, SC_EINVAL, rd->file, pointer,
				    "expected an object, got %s", cfg_json_type_name(obj));
	/* The two arrays are read here; the table covers the rest. */
	copy = cJSON_Duplicate(obj, true);
	if (!copy)
		return sc_error_set(rd->err, SC_ENOMEM, rd->file, pointer, "out of memory");
	for (int i = 0; i < 2; i++)
		cJSON_DeleteItemFromObjectCaseSensitive(copy, arrays[i]);
	st = cfg_read_object(rd, copy, cfg_calib_fit_fields, fit, pointer);
	cJSON_Delete(copy);
	if (st != SC_OK)
		return st;
	if (fit->x_min > fit->x_max)
		return cfg_key_invalid(rd, pointer, "x_min",
				       "x_min (%g) is more than x_max (%g)", fit->x_min, fit->x_max);
	for (int i = 0; i < 2; i++) {
		const cJSON *arr = cJSON_GetObjectItemCaseSensitive(obj, arrays[i]);
		if (!arr)
			continue;
		cfg_pointer_key(where, sizeof(where), pointer, arrays[i]);
		st = read_number_array(rd, arr, i ? fit->residual : fit->x, CALIB_FIT_MAX_POINTS,
				       i ? &nr : &nx, where);
		if (st != SC_OK)
			return st;
	}
	if (nx != nr)
		return cfg_key_invalid(rd, pointer, "residuals",
				       "%d residuals for %d x values", nr, nx);
	fit->n_residuals = nx;
	return SC_OK;
}

enum sc_status cfg_read_calibration_fits(struct cfg_reader *rd, const cJSON *arr,
					 struct calib_fit *fits, int max, int *n,
					 const char *pointer)
{
	const cJSON *item;
	char where[SC_ERROR_PTR_MAX];
	enum sc_status st = SC_OK;
	struct calib_fit *scratch = NULL;
	int i = 0;

	*n = 0;
	if (!cJSON_IsArray(arr))
		return sc_error_set(rd->err, SC_EINVAL, rd->file, pointer,
				    "expected an array, got %s", cfg_json_type_name(arr));
	if (!fits && !(scratch = malloc(sizeof(*scratch))))
		return sc_error_set(rd->err, SC_ENOMEM, rd->file, pointer, "out of memory");
	cJSON_ArrayForEach(item, arr) {
		cfg_pointer_index(where, sizeof(where), pointer, i);
		if (fits && i >= max) {
			st = sc_error_set(rd->err, SC_EINVAL, rd->file, where,
					  "more than %d fits", max);
			break;
		}
		st = cfg_read_calibration_fit(rd, item, fits ? &fits[i] : scratch, where);
		if (st != SC_OK)
			break;
		i++;
	}
	free(scratch);
	*n = i;
	return st;
}

/* The profile's metadata (schema version, name, GPU family, description),
 * each required key present, read with a table that omits "parameters"
 * and the schema_version 2 objects (read after). */
static enum sc_status calib_read_meta(struct cfg_reader *rd, const cJSON *obj, struct calibration *cal,
				      const char *pointer)
{
	static const char *const top_keys[] = { "schema_version", "name", "gpu_family",
						"description", "parameters", "provenance",
						"fits", NULL };
	const struct cfg_field meta[] = {
		CFG_F_INT_RANGE(struct calibration, schema_version, REQ, 1, 2, "profile schema version (1, or 2 with ranges, provenance and fits)"),
		CFG_F_STR(struct calibration, name, REQ, "profile name"),
		CFG_F_CUSTOM(struct calibration, gpu_family, REQ, read_family, NULL, "GPU family"),
		CFG_F_STR(struct calibration, description, REQ, "what the profile is and where it comes from"),
		CFG_END
	};
	enum sc_status st;
	cJSON *copy;

	if ((st = cfg_check_keys(rd, obj, top_keys, pointer)) != SC_OK)
		return st;
	for (const struct cfg_field *f = meta; f->key; f++) {
		if (!cJSON_GetObjectItemCaseSensitive(obj, f->key))
			return sc_error_set(rd->err, SC_EINVAL, rd->file, pointer[0] ? pointer : "/",
					    "missing required key \"%s\"", f->key);
	}
	if (!(copy = cJSON_Duplicate(obj, true)))
		return sc_error_set(rd->err, SC_ENOMEM, rd->file, pointer, "out of memory");
	cJSON_DeleteItemFromObjectCaseSensitive(copy, "parameters");
	cJSON_DeleteItemFromObjectCaseSensitive(copy, "provenance");
	cJSON_DeleteItemFromObjectCaseSensitive(copy, "fits");
	st = cfg_read_object(rd, copy, meta, cal, pointer);
	cJSON_Delete(copy);
	return st;
}

/* The schema_version 2 objects: "provenance" (created and tool not empty)
 * and "fits" (each record checked). */
static enum sc_status calib_read_v2_objects(struct cfg_reader *rd, const cJSON *obj,
					    struct calibration *cal, const char *pointer)
{
	char where[SC_ERROR_PTR_MAX];
	enum sc_status st;

	for (int i = 0; i < 2; i++) {
		const char *key = i ? "fits" : "provenance";
		const cJSON *item = cJSON_GetObjectItemCaseSensitive(obj, key);

		if (!item)
			continue;
		cfg_pointer_key(where, sizeof(where), pointer, key);
		if (cal->schema_version < 2)
			return sc_error_set(rd->err, SC_EINVAL, rd->file, where,
					    "\"%s\" needs schema_version 2", key);
		if (i == 0) {
			st = cfg_read_object(rd, item, cfg_calib_provenance_fields,
					     &cal->provenance, where);
			cal->has_provenance = true;
		} else {
			int n;
			st = cfg_read_calibration_fits(rd, item, NULL, 0, &n, where);
		}
		if (st != SC_OK)
			return st;
		if (i == 0 && (!cal->provenance.created[0] || !cal->provenance.tool[0]))
			return sc_error_set(rd->err, SC_EINVAL, rd->file, where,
					    "\"created\" and \"tool\" must not be empty");
	}
	return SC_OK;
}

/* A parameter's own bounds: an interval inside the catalogue's range. */
static enum sc_status calib_param_bounds(struct cfg_reader *rd, const struct calib_param_info *info,
					 int i, const struct calib_entry *e, struct calibration *cal,
					 const char *pwhere)
{
	char bwhere[SC_ERROR_PTR_MAX];

	cfg_pointer_key(bwhere, sizeof(bwhere), pwhere, "bounds");
	if (!(e->bounds.min >= info->min && e->bounds.max <= info->max &&
	      e->bounds.min < e->bounds.max))
		return sc_error_set(rd->err, SC_EINVAL, rd->file, bwhere,
				    "bounds [%g, %g] must be an interval inside the catalogue's "
				    "range [%g, %g] of %s", e->bounds.min, e->bounds.max,
				    info->min, info->max, info->name);
	cal->has_bounds[i] = true;
	cal->bound_min[i] = e->bounds.min;
	cal->bound_max[i] = e->bounds.max;
	memcpy(cal->bound_source[i], e->bounds.source, sizeof(e->bounds.source));
	return SC_OK;
}

/* A parameter's value and prior: inside the profile's bounds. */
static enum sc_status calib_param_in_bounds(struct cfg_reader *rd, int i, const struct calib_entry *e,
					    const struct calibration *cal, const char *pwhere)
{
	double lo, hi;

	calib_bounds(cal, (enum calib_param)i, &lo, &hi, NULL);
	if (!(e->value >= lo && e->value <= hi)) {
		char vwhere[SC_ERROR_PTR_MAX];

		cfg_pointer_key(vwhere, sizeof(vwhere), pwhere, "value");
		return sc_error_set(rd->err, SC_EINVAL, rd->file, vwhere,
				    "value %g is outside the profile's bounds [%g, %g]",
				    e->value, lo, hi);
	}
	if (cal->has_prior[i] && !(e->prior >= lo && e->prior <= hi)) {
		char vwhere[SC_ERROR_PTR_MAX];

		cfg_pointer_key(vwhere, sizeof(vwhere), pwhere, "prior");
		return sc_error_set(rd->err, SC_EINVAL, rd->file, vwhere,
				    "prior %g is outside the profile's bounds [%g, %g]",
				    e->prior, lo, hi);
	}
	return SC_OK;
}

/* A parameter's fitted data range (schema_version 2): ordered sizes and
 * rank counts. */
static enum sc_status calib_param_range(struct cfg_reader *rd, int i, const struct calib_entry *e,
					struct calibration *cal, const char *pwhere)
{
	char rwhere[SC_ERROR_PTR_MAX];
	struct calib_range *r = &cal->range[i];

	cfg_pointer_key(rwhere, sizeof(rwhere), pwhere, "range");
	if (cal->schema_version < 2)
		return sc_error_set(rd->err, SC_EINVAL, rd->file, rwhere,
				    "\"range\" needs schema_version 2");
	if (e->range.min > e->range.max)
		return sc_error_set(rd->err, SC_EINVAL, rd->file, rwhere,
				    "min (%g) is more than max (%g)",
				    e->range.min, e->range.max);
	if (e->range.ranks_min > e->range.ranks_max)
		return sc_error_set(rd->err, SC_EINVAL, rd->file, rwhere,
				    "ranks_min (%d) is more than ranks_max (%d)",
				    e->range.ranks_min, e->range.ranks_max);
	r->quantity = (enum calib_range_quantity)(e->range.quantity + 1);
	r->min = e->range.min;
	r->max = e->range.max;
	r->ranks_min = e->range.ranks_min;
	r->ranks_max = e->range.ranks_max;
	return SC_OK;
}

/* Calibration parameter i from the "parameters" object at where: value,
 * source, prior, on-bound note, bounds and range, each checked. */
static enum sc_status calib_read_param(struct cfg_reader *rd, const cJSON *params, int i,
				       struct calibration *cal, const char *where)
{
	const struct calib_param_info *info = &calib_params[i];
	const struct cfg_field entry_fields[] = {
		CFG_F_NUM_RANGE(struct calib_entry, value, REQ, info->min, info->max, "parameter value"),
		CFG_F_STR(struct calib_entry, source, REQ, "where the value comes from"),
		CFG_F_OBJ(struct calib_entry, range, 0, cfg_calib_range_fields,
			  "the fitted data's range (schema_version 2)"),
		CFG_F_OBJ(struct calib_entry, bounds, 0, cfg_calib_bounds_fields,
			  "this profile's physical range, inside the catalogue's"),
		CFG_F_NUM_RANGE(struct calib_entry, prior, 0, info->min, info->max,
				"the value before any fit (centre of validate --fit's prior)"),
		CFG_F_STR(struct calib_entry, on_bound, 0,
			  "the measurement that puts the value on its bound"),
		CFG_END
	};
	char pwhere[SC_ERROR_PTR_MAX];
	const cJSON *item;
	struct calib_entry e;
	enum sc_status st;

	memset(&e, 0, sizeof(e));
	item = cJSON_GetObjectItemCaseSensitive(params, info->name);
	if (!item)
		return sc_error_set(rd->err, SC_EINVAL, rd->file, where,
				    "missing calibration parameter \"%s\" (%s)",
				    info->name, info->description);
	cfg_pointer_key(pwhere, sizeof(pwhere), where, info->name);
	if ((st = cfg_read_object(rd, item, entry_fields, &e, pwhere)) != SC_OK)
		return st;
	*calib_value(cal, (enum calib_param)i) = e.value;
	memcpy(cal->source[i], e.source, sizeof(e.source));
	memcpy(cal->on_bound[i], e.on_bound, sizeof(e.on_bound));
	if (cJSON_GetObjectItemCaseSensitive(item, "prior")) {
		cal->has_prior[i] = true;
		cal->prior[i] = e.prior;
	}
	if (cJSON_GetObjectItemCaseSensitive(item, "bounds") &&
	    (st = calib_param_bounds(rd, info, i, &e, cal, pwhere)) != SC_OK)
		return st;
	if ((st = calib_param_in_bounds(rd, i, &e, cal, pwhere)) != SC_OK)
		return st;
	if (cJSON_GetObjectItemCaseSensitive(item, "range"))
		return calib_param_range(rd, i, &e, cal, pwhere);
	return SC_OK;
}

enum sc_status cfg_read_calibration(struct cfg_reader *rd, const cJSON *obj,
				    struct calibration *cal, const char *pointer)
{
	const char *names[CALIB_COUNT + 1];
	const cJSON *params;
	char where[SC_ERROR_PTR_MAX];
	enum sc_status st;

	memset(cal, 0, sizeof(*cal));
	if ((st = calib_read_meta(rd, obj, cal, pointer)) != SC_OK ||
	    (st = calib_read_v2_objects(rd, obj, cal, pointer)) != SC_OK)
		return st;
	params = cJSON_GetObjectItemCaseSensitive(obj, "parameters");
	cfg_pointer_key(where, sizeof(where), pointer, "parameters");
	if (!params)
		return sc_error_set(rd->err, SC_EINVAL, rd->file, pointer[0] ? pointer : "/",
				    "missing required key \"parameters\"");
	for (int i = 0; i < CALIB_COUNT; i++)
		names[i] = calib_params[i].name;
	names[CALIB_COUNT] = NULL;
	if ((st = cfg_check_keys(rd, params, names, where)) != SC_OK)
		return st;
	for (int i = 0; i < CALIB_COUNT; i++)
		if ((st = calib_read_param(rd, params, i, cal, where)) != SC_OK)
			return st;
	return SC_OK;
}

/* A profile file, with the overrides that name its stem. */
static enum sc_status calibration_load_ov(const char *path, const char *stem,
					  struct cfg_overrides *ov, struct calibration *cal,
					  struct sc_error *err)
{
	struct cfg_reader rd = { path, err, NULL };
	cJSON *root = cfg_parse_file(path, err);
	enum sc_status st;

	if (!root)
		return err ? err->status : SC_EINVAL;
	if ((st = cfg_overrides_apply(ov, CFG_OV_CALIBRATIONS, NULL, stem, root, path, err)) != SC_OK) {
		cJSON_Delete(root);
		return st;
	}
	st = cfg_read_calibration(&rd, root, cal, "");
	cJSON_Delete(root);
	return st;
}

enum sc_status calibration_load_file(const char *path, struct calibration *cal,
				     struct sc_error *err)
{
	struct cfg_reader rd = { path, err, NULL };
	cJSON *root = cfg_parse_file(path, err);
	enum sc_status st;

	if (!root)
		return err ? err->status : SC_EINVAL;
	st = cfg_read_calibration(&rd, root, cal, "");
	cJSON_Delete(root);
	return st;
}

/* Read "{ schema_version: 1, KEY: [ objects ] }" with one reader per entry;
 * entries are written into a calloc'd array of elem_size bytes each. */
typedef enum sc_status (*entry_reader)(struct cfg_reader *rd, const cJSON *obj,
				      void *dst, const char *pointer);

static enum sc_status read_list_file(const char *dir, const char *file, const char *key,
				     entry_reader reader, size_t elem_size,
				     size_t name_offset, void **out, int *n_out,
				     struct cfg_overrides *ov, enum cfg_ov_doc doc,
				     struct sc_error *err)
{
	char path[1024];
	const char *allowed[] = { "schema_version", key, NULL };
	struct cfg_reader rd = { path, err, NULL };
	cJSON *root, *list, *item;
	char where[SC_ERROR_PTR_MAX], ewhere[SC_ERROR_PTR_MAX];
	enum sc_status st;
	char *arr = NULL;
	int n, i = 0;

	snprintf(path, sizeof(path), "%s/%s", dir, file);
	root = cfg_parse_file(path, err);
	if (!root)
		return err ? err->status : SC_EINVAL;
	if ((st = cfg_overrides_apply(ov, doc, key, NULL, root, path, err)) != SC_OK)
		goto out;
	if ((st = cfg_check_keys(&rd, root, allowed, "")) != SC_OK)
		goto out;
	if ((st = cfg_check_schema_version(root, path, err)) != SC_OK)
		goto out;
	list = cJSON_GetObjectItemCaseSensitive(root, key);
	cfg_pointer_key(where, sizeof(where), "", key);
	if (!list) {
		st = sc_error_set(err, SC_EINVAL, path, "/", "missing required key \"%s\"", key);
		goto out;
	}
	if (!cJSON_IsArray(list)) {
		st = sc_error_set(err, SC_EINVAL, path, where, "expected an array, got %s",
				  cfg_json_type_name(list));
		goto out;
	}
	n = cJSON_GetArraySize(list);
	arr = calloc(n > 0 ? (size_t)n : 1, elem_size);
	if (!arr) {
		st = sc_error_set(err, SC_ENOMEM, path, where, "out of memory");
		goto out;
	}
	cJSON_ArrayForEach(item, list) {
		char *slot = arr + (size_t)i * elem_size;
		cfg_pointer_index(ewhere, sizeof(ewhere), where, i);
		if ((st = reader(&rd, item, slot, ewhere)) != SC_OK)
			goto out;
		for (int j = 0; j < i; j++) {
			if (strcmp(arr + (size_t)j * elem_size + name_offset, slot + name_offset) == 0) {
				char nwhere[SC_ERROR_PTR_MAX];
				cfg_pointer_key(nwhere, sizeof(nwhere), ewhere, "name");
				st = sc_error_set(err, SC_EINVAL, path, nwhere,
						  "duplicate name \"%s\" (also at %s/%d)",
						  slot + name_offset, where, j);
				goto out;
			}
		}
		i++;
	}
	*out = arr;
	*n_out = n;
	arr = NULL;
	st = SC_OK;
out:
	free(arr);
	cJSON_Delete(root);
	return st;
}

static enum sc_status read_gpu(struct cfg_reader *rd, const cJSON *o, void *d, const char *p)
{
	struct gpu_spec *g = d;
	enum sc_status st;

	memset(g, 0, sizeof(*g));
	if ((st = cfg_read_object(rd, o, cfg_gpu_fields, g, p)) != SC_OK)
		return st;
	if (g->peak_fp8_flops > 0 && g->peak_fp8_flops < g->peak_bf16_flops) {
		char where[SC_ERROR_PTR_MAX];
		cfg_pointer_key(where, sizeof(where), p, "peak_fp8_flops");
		return sc_error_set(rd->err, SC_EINVAL, rd->file, where,
				    "FP8 peak (%g) is below the BF16 peak (%g)",
				    g->peak_fp8_flops, g->peak_bf16_flops);
	}
	{
		static const char *const key[] = { "achievable_bf16_flops", "achievable_fp8_flops" };
		const double got[] = { g->achievable_bf16_flops, g->achievable_fp8_flops };
		const double peak[] = { g->peak_bf16_flops, g->peak_fp8_flops };

		for (int i = 0; i < 2; i++)
			if (got[i] > 0 && !(got[i] <= peak[i])) {
				char where[SC_ERROR_PTR_MAX];
				cfg_pointer_key(where, sizeof(where), p, key[i]);
				return sc_error_set(rd->err, SC_EINVAL, rd->file, where,
						    "achievable rate (%g) is above the peak (%g)", got[i], peak[i]);
			}
	}
	return SC_OK;
}

static enum sc_status read_instance(struct cfg_reader *rd, const cJSON *o, void *d, const char *p)
{
	return cfg_read_instance(rd, o, d, p);
}

static enum sc_status read_fabric(struct cfg_reader *rd, const cJSON *o, void *d, const char *p)
{
	memset(d, 0, sizeof(struct fabric_spec));
	return cfg_read_object(rd, o, cfg_fabric_fields, d, p);
}

static enum sc_status read_storage(struct cfg_reader *rd, const cJSON *o, void *d, const char *p)
{
	memset(d, 0, sizeof(struct storage_spec));
	return cfg_read_object(rd, o, cfg_storage_fields, d, p);
}

static enum sc_status read_model(struct cfg_reader *rd, const cJSON *o, void *d, const char *p)
{
	return cfg_read_model(rd, o, d, p);
}

static int name_cmp(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

static enum sc_status load_calibrations(const char *dir, struct catalog *cat,
					struct cfg_overrides *ov, struct sc_error *err)
{
	char cdir[1024], path[1536];
	char *names[256];
	int n = 0;
	DIR *d;
	struct dirent *e;
	enum sc_status st = SC_OK;

	snprintf(cdir, sizeof(cdir), "%s/calibration", dir);
	d = opendir(cdir);
	if (!d)
		return sc_error_set(err, SC_EIO, cdir, NULL, "cannot open the calibration directory");
	while ((e = readdir(d)) && n < 256) {
		size_t len = strlen(e->d_name);
		if (len > 5 && strcmp(e->d_name + len - 5, ".json") == 0)
			names[n++] = strdup(e->d_name);
	}
	closedir(d);
	qsort(names, (size_t)n, sizeof(names[0]), name_cmp);
	cat->calibrations = calloc(n > 0 ? (size_t)n : 1, sizeof(*cat->calibrations));
	if (!cat->calibrations)
		st = sc_error_set(err, SC_ENOMEM, cdir, NULL, "out of memory");
	for (int i = 0; i < n && st == SC_OK; i++) {
		struct calibration *cal = &cat->calibrations[i];
		size_t stem = strlen(names[i]) - 5;

		snprintf(path, sizeof(path), "%s/%s", cdir, names[i]);
		names[i][stem] = '\0';
		st = calibration_load_ov(path, names[i], ov, cal, err);
		names[i][stem] = '.';
		if (st == SC_OK && (strlen(cal->name) != stem || strncmp(cal->name, names[i], stem) != 0))
			st = sc_error_set(err, SC_EINVAL, path, "/name",
					  "profile name \"%s\" does not match the file name", cal->name);
		if (st == SC_OK)
			cat->n_calibrations++;
	}
	for (int i = 0; i < n; i++)
		free(names[i]);
	return st;
}

/* configs/uncertainty-bands.json (optional; written by `stepcast validate
 * --out-of-sample --bands-output`): one band per regime, attached to every
 * profile of the catalogue (calibration.h, regime_band). */
struct cfg_regime_entry {
	char family[SC_NAME_MAX];
	char name[48];
	int cases;
	double p10, p50, p90;
	double coverage_out_of_sample;
	int coverage_cases;
};

static const struct cfg_field regime_entry_fields[] = {
	CFG_F_STR(struct cfg_regime_entry, family, 0, "GPU family (gpu_family of the profiles), or \"all\": pooled, the fallback"),
	CFG_F_STR(struct cfg_regime_entry, name, REQ, "regime name (models/uncertainty.h)"),
	CFG_F_INT(struct cfg_regime_entry, cases, REQ | POS, "residuals behind the band"),
	CFG_F_NUM(struct cfg_regime_entry, p10, REQ | POS, "P10 of measured / predicted"),
	CFG_F_NUM(struct cfg_regime_entry, p50, REQ | POS, "P50 of measured / predicted"),
	CFG_F_NUM(struct cfg_regime_entry, p90, REQ | POS, "P90 of measured / predicted"),
	CFG_F_NUM(struct cfg_regime_entry, coverage_out_of_sample, OPT_NONNEG,
		  "fraction of cases inside the other groups' P10-P90"),
	CFG_F_INT(struct cfg_regime_entry, coverage_cases, OPT_POS, "cases the coverage checked"),
	CFG_END
};

static enum sc_status load_regime_bands(const char *dir, struct catalog *cat, struct sc_error *err)
{
	static const char *const keys[] = { "schema_version", "provenance", "regimes",
					    "coverage_shown", NULL };
	char path[1024], where[SC_ERROR_PTR_MAX];
	struct cfg_reader rd = { path, err, NULL };
	/* [0]: pooled ("all"), [1 + k]: family of cat->calibrations[k]'s
	 * family (resolved below) */
	static struct model_regime_band pooled[REGIME_COUNT];
	static char fam[16][SC_NAME_MAX];
	static struct model_regime_band famb[16][REGIME_COUNT];
	int n_fam = 0;
	const cJSON *arr, *item;
	enum sc_status st;
	cJSON *root;
	int i = 0;

	snprintf(path, sizeof(path), "%s/uncertainty-bands.json", dir);
	if (access(path, F_OK) != 0)
		return SC_OK;
	if (!(root = cfg_parse_file(path, err)))
		return err ? err->status : SC_EINVAL;
	memset(pooled, 0, sizeof(pooled));
	memset(famb, 0, sizeof(famb));
	if ((st = cfg_check_keys(&rd, root, keys, "")) != SC_OK)
		goto out;
	if ((st = cfg_check_schema_version(root, path, err)) != SC_OK)
		goto out;
	arr = cJSON_GetObjectItemCaseSensitive(root, "regimes");
	if (!cJSON_IsArray(arr)) {
		st = sc_error_set(err, SC_EINVAL, path, "/regimes", "expected an array");
		goto out;
	}
	cJSON_ArrayForEach(item, arr) {
		struct cfg_regime_entry e;
		int r;

		memset(&e, 0, sizeof(e));
		e.coverage_out_of_sample = -1;
		snprintf(where, sizeof(where), "/regimes/%d", i++);
		if ((st = cfg_read_object(&rd, item, regime_entry_fields, &e, where)) != SC_OK)
			goto out;
		struct model_regime_band *bands = pooled;

		if (e.family[0] && strcmp(e.family, "all") != 0) {
			int f;

			for (f = 0; f < n_fam; f++)
				if (strcmp(fam[f], e.family) == 0)
					break;
			if (f == n_fam) {
				if (n_fam == 16) {
					st = sc_error_set(err, SC_EINVAL, path, where, "more than 16 families");
					goto out;
				}
				snprintf(fam[n_fam++], SC_NAME_MAX, "%s", e.family);
			}
			bands = famb[f];
		}
		r = sc_enum_parse(model_regime_names, e.name);
		if (r < 0 || bands[r].present) {
			st = sc_error_set(err, SC_EINVAL, path, where, r < 0 ?
					  "unknown regime \"%s\"" : "regime \"%s\" given twice", e.name);
			goto out;
		}
		if (!(e.p10 <= e.p50 && e.p50 <= e.p90)) {
			st = sc_error_set(err, SC_EINVAL, path, where, "needs p10 <= p50 <= p90");
			goto out;
		}
		bands[r].present = true;
		bands[r].cases = e.cases;
		bands[r].p10 = e.p10;
		bands[r].p50 = e.p50;
		bands[r].p90 = e.p90;
		bands[r].coverage = cJSON_GetObjectItemCaseSensitive(item, "coverage_out_of_sample") &&
				    cJSON_IsNumber(cJSON_GetObjectItemCaseSensitive(item, "coverage_out_of_sample"))
				    ? e.coverage_out_of_sample : -1;
	}
	/* a profile takes its family's band of a regime, else the pooled one */
	for (int k = 0; k < cat->n_calibrations; k++) {
		struct calibration *c = &cat->calibrations[k];

		memcpy(c->regime_band, pooled, sizeof(pooled));
		for (int f = 0; f < n_fam; f++)
			if (strcmp(fam[f], c->gpu_family) == 0)
				for (int r = 0; r < REGIME_COUNT; r++)
					if (famb[f][r].present)
						c->regime_band[r] = famb[f][r];
	}
	st = SC_OK;
out:
	cJSON_Delete(root);
	return st;
}

enum sc_status catalog_load(const char *dir, struct catalog *cat, struct sc_error *err)
{
	return catalog_load_ov(dir, NULL, cat, err);
}

/* A calibration override whose profile no file had. */
static enum sc_status unapplied_calibration(const struct catalog *cat,
					    const struct cfg_overrides *ov, struct sc_error *err)
{
	for (int i = 0; ov && i < ov->n; i++) {
		const struct cfg_override *o = &ov->item[i];
		const char *names[257];
		const char *hint;
		char file[SC_ERROR_FILE_MAX];
		int n = 0;

		if (o->doc != CFG_OV_CALIBRATIONS || o->applied_file[0])
			continue;
		for (int k = 0; k < cat->n_calibrations && n < 256; k++)
			names[n++] = cat->calibrations[k].name;
		names[n] = NULL;
		hint = NULL;
		for (const char *d = strchr(o->path, '.'); d && !hint; d = strchr(d + 1, '.')) {
			char cand[CFG_OVERRIDE_TEXT_MAX];

			snprintf(cand, sizeof(cand), "%.*s", (int)(d - o->path), o->path);
			hint = cfg_did_you_mean(cand, names);
		}
		snprintf(file, sizeof(file), "--set %s", o->text);
		if (hint)
			return sc_error_set(err, SC_EINVAL, file, NULL,
					    "no calibration profile named by \"%s\" (did you mean \"%s\"?)",
					    o->path, hint);
		return sc_error_set(err, SC_EINVAL, file, NULL,
				    "no calibration profile named by \"%s\" (see `stepcast catalog calibrations`)",
				    o->path);
	}
	return SC_OK;
}

enum sc_status catalog_load_ov(const char *dir, struct cfg_overrides *ov, struct catalog *cat,
			       struct sc_error *err)
{
	enum sc_status st;
	char path[1024];

	for (int i = 0; ov && i < ov->n; i++)
		ov->item[i].applied_file[0] = '\0';

	memset(cat, 0, sizeof(*cat));
	snprintf(cat->dir, sizeof(cat->dir), "%s", dir);
	{
		DIR *d = opendir(dir);
		if (!d)
			return sc_error_set(err, SC_EIO, dir, NULL,
					    "cannot open the catalogue directory: %s", strerror(errno));
		closedir(d);
	}
	if ((st = read_list_file(dir, "gpus.json", "gpus", read_gpu, sizeof(struct gpu_spec),
				 offsetof(struct gpu_spec, name), (void **)&cat->gpus, &cat->n_gpus, ov, CFG_OV_GPUS, err)) ||
	    (st = read_list_file(dir, "instances.json", "instances", read_instance,
				 sizeof(struct instance_spec), offsetof(struct instance_spec, name),
				 (void **)&cat->instances, &cat->n_instances, ov, CFG_OV_INSTANCES, err)) ||
	    (st = read_list_file(dir, "fabrics.json", "fabrics", read_fabric,
				 sizeof(struct fabric_spec), offsetof(struct fabric_spec, name),
				 (void **)&cat->fabrics, &cat->n_fabrics, ov, CFG_OV_FABRICS, err)) ||
	    (st = read_list_file(dir, "storage.json", "storage", read_storage,
				 sizeof(struct storage_spec), offsetof(struct storage_spec, name),
				 (void **)&cat->storage, &cat->n_storage, ov, CFG_OV_STORAGE, err)) ||
	    (st = read_list_file(dir, "models.json", "models", read_model,
				 sizeof(struct model_arch), offsetof(struct model_arch, name),
				 (void **)&cat->models, &cat->n_models, ov, CFG_OV_MODELS, err)) ||
	    (st = load_calibrations(dir, cat, ov, err)) ||
	    (st = load_regime_bands(dir, cat, err)) ||
	    (st = resilience_load(dir, &cat->resilience, err)) ||
	    (st = unapplied_calibration(cat, ov, err)))
		goto fail;

	/* Cross references. */
	for (int i = 0; i < cat->n_instances; i++) {
		char where[SC_ERROR_PTR_MAX];
		snprintf(path, sizeof(path), "%s/instances.json", dir);
		snprintf(where, sizeof(where), "/instances/%d/gpu", i);
		if (!catalog_gpu(cat, cat->instances[i].gpu)) {
			st = catalog_unknown(cat, "gpu", cat->instances[i].gpu, path, where, err);
			goto fail;
		}
	}
	for (int i = 0; i < cat->n_gpus; i++) {
		char where[SC_ERROR_PTR_MAX];
		const struct calibration *cal = catalog_calibration(cat, cat->gpus[i].calibration);
		snprintf(path, sizeof(path), "%s/gpus.json", dir);
		snprintf(where, sizeof(where), "/gpus/%d/calibration", i);
		if (!cal) {
			st = catalog_unknown(cat, "calibration", cat->gpus[i].calibration, path, where, err);
			goto fail;
		}
		if (strcmp(cal->gpu_family, cat->gpus[i].family) != 0) {
			st = sc_error_set(err, SC_EINVAL, path, where,
					  "profile \"%s\" is for %s GPUs, not %s",
					  cal->name, cal->gpu_family, cat->gpus[i].family);
			goto fail;
		}
	}
	return SC_OK;
fail:
	cfg_overrides_blame(ov, err);
	catalog_free(cat);
	return st;
}

void catalog_free(struct catalog *cat)
{
	free(cat->gpus);
	free(cat->instances);
	free(cat->fabrics);
	free(cat->storage);
	free(cat->models);
	free(cat->calibrations);
	resilience_free(&cat->resilience);
	memset(cat, 0, sizeof(*cat));
}

CFG_LOOKUP(catalog_gpu, struct catalog, struct gpu_spec, gpus, n_gpus, name)
CFG_LOOKUP(catalog_instance, struct catalog, struct instance_spec, instances, n_instances, name)
CFG_LOOKUP(catalog_fabric, struct catalog, struct fabric_spec, fabrics, n_fabrics, name)
CFG_LOOKUP(catalog_storage, struct catalog, struct storage_spec, storage, n_storage, name)
CFG_LOOKUP(catalog_model, struct catalog, struct model_arch, models, n_models, name)
CFG_LOOKUP(catalog_calibration, struct catalog, struct calibration, calibrations, n_calibrations, name)

enum sc_status catalog_unknown(const struct catalog *cat, const char *kind,
			       const char *name, const char *file,
			       const char *pointer, struct sc_error *err)
{
	const char *names[512];
	int n = 0;
	const char *hint;

#define COLLECT(arr, count) \
	for (int i = 0; i < cat->count && n < 511; i++) \
		names[n++] = cat->arr[i].name;
	if (strcmp(kind, "gpu") == 0) {
		COLLECT(gpus, n_gpus)
	} else if (strcmp(kind, "instance") == 0) {
		COLLECT(instances, n_instances)
	} else if (strcmp(kind, "fabric") == 0) {
		COLLECT(fabrics, n_fabrics)
	} else if (strcmp(kind, "storage") == 0) {
		COLLECT(storage, n_storage)
	} else if (strcmp(kind, "model") == 0) {
		COLLECT(models, n_models)
	} else if (strcmp(kind, "calibration") == 0) {
		COLLECT(calibrations, n_calibrations)
	}
#undef COLLECT
	names[n] = NULL;
	hint = cfg_did_you_mean(name, names);
	if (hint)
		return sc_error_set(err, SC_ENOTFOUND, file, pointer,
				    "unknown %s \"%s\" (did you mean \"%s\"?)", kind, name, hint);
	return sc_error_set(err, SC_ENOTFOUND, file, pointer,
			    "unknown %s \"%s\" (see `stepcast catalog %s`)", kind, name,
			    strcmp(kind, "storage") == 0 ? "storage" :
			    strcmp(kind, "calibration") == 0 ? "calibrations" :
			    strcmp(kind, "gpu") == 0 ? "gpus" : strcmp(kind, "instance") == 0 ? "instances" :
			    strcmp(kind, "fabric") == 0 ? "fabrics" : "models");
}
