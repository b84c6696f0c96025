/* catalog.h: plain structs for the catalogue (GPUs, instance types, fabrics,
 * storage tiers, model architectures).
 *
 * These are filled by sim/config from the configs/ JSON files and read by the pure
 * models.  Every struct holds fixed-size buffers only: copy freely, nothing to
 * free.  Units live in field names; a value of 0 in an optional field means
 * "not given / does not exist" (e.g. peak_fp4_flops on Hopper).
 */
#ifndef SC_CATALOG_H
#define SC_CATALOG_H

#include <stdbool.h>

#define SC_NAME_MAX 96
#define SC_SOURCE_MAX 1024

struct gpu_spec {
	char name[SC_NAME_MAX];         /* e.g. "h100-sxm" */
	char family[SC_NAME_MAX];       /* "ampere", "hopper", "blackwell" */
	double peak_fp16_flops;         /* dense, no sparsity */
	double peak_bf16_flops;
	double peak_fp8_flops;          /* 0 = not supported */
	double peak_fp4_flops;          /* 0 = not supported */
	/* the part's measured maximum achievable matmul rate (mamf-finder's
	 * best shape), FLOP/s; 0 = not measured: the family profile's
	 * gemm_eta_max_* of the peak.  Sustained clock under the power cap
	 * of this part (GB200 at 72.9 % of its BF16 peak, B200 at 77.6 %). */
	double achievable_bf16_flops;
	double achievable_fp8_flops;
	char achievable_source[SC_SOURCE_MAX];
	double hbm_bytes;               /* total, as nvidia-smi reports it (MiB x 2^20) */
	double driver_reserved_bytes;   /* of hbm_bytes, kept by the driver (nvidia-smi -q "Reserved") */
	char hbm_source[SC_SOURCE_MAX]; /* where both come from */
	double hbm_GBps;
	double nvlink_GBps;             /* per GPU, per direction */
	char calibration[SC_NAME_MAX];  /* default calibration profile */
	char source[SC_SOURCE_MAX];
};

/* An UltraServer: a fixed group of instances sharing one NVLink domain,
 * bought (and priced) only as a whole, e.g. u-p6e-gb200x72 = 18 x
 * p6e-gb200.36xlarge.  Reserved through EC2 Capacity Blocks for ML. */
struct ultraserver_spec {
	char name[SC_NAME_MAX];          /* e.g. "u-p6e-gb200x72" */
	int instances;                   /* instances per UltraServer */
	double capacity_block_usd_per_h; /* whole UltraServer */
	char date[16];                   /* "YYYY-MM-DD" the price was read */
	char source[SC_SOURCE_MAX];
};

#define SC_ULTRASERVERS_MAX 4

/* How an instance type is sold ("sold_as"). */
enum sale_unit {
	SOLD_PER_INSTANCE,   /* "instance": on demand and/or capacity blocks of N instances */
	SOLD_AS_ULTRASERVER  /* "ultraserver": only whole UltraServers (capacity blocks) */
};

/* The purchase options that exist.  Savings plans and reserved instances are
 * not modelled.  The rules over these fields (which price a cluster of N
 * pays, what an UltraServer-only kind rounds to) live in models/purchase.h. */
struct instance_price {
	double on_demand_usd_per_h;      /* whole instance; 0 = not sold on demand */
	double capacity_block_usd_per_h; /* whole instance; 0 = not offered per instance */
	int sold_as;                     /* enum sale_unit */
	int n_ultraservers;              /* SOLD_AS_ULTRASERVER: the products, >= 1 */
	struct ultraserver_spec ultraservers[SC_ULTRASERVERS_MAX];
	char date[16];                   /* "YYYY-MM-DD" the price was read */
	char region[SC_NAME_MAX];
	char source[SC_SOURCE_MAX];
};

/* The instance's EFA as a transport (optional "efa" object of
 * instances.json; generation 0: not described, the scale-out network is then
 * modelled with the generic scale-out parameters, as for InfiniBand).  The
 * NIC count and line rate stay in efa_nics / efa_nic_Gbps; what this adds
 * is what the AWS OFI NCCL plugin (aws-ofi-nccl) and NCCL make of them:
 * the tuner platform whose region tables choose the algorithm and protocol
 * and the NCCL network latency the plugin's platform table reports. */
enum efa_tuner_platform {
	EFA_TUNER_NONE,    /* "none": NCCL's own tuner (NCCL_OFI_TUNER_UNKNOWN) */
	EFA_TUNER_P5_P5E,  /* "P5_P5E" */
	EFA_TUNER_P5EN,    /* "P5EN" */
	EFA_TUNER_P6,      /* "P6" (p6-b200) */
	EFA_TUNER_P6_B300  /* "P6_B300" */
};

struct efa_spec {
	int generation;                 /* EFA generation (1, 2, 3, 4); 0 = not described */
	int tuner_platform;             /* enum efa_tuner_platform */
	double nccl_net_latency_s;      /* aws-ofi-nccl platform table latency given to NCCL's tuner */
	bool hw_completion_counter;     /* efa_hw_comp_cntr: EFA-GDA (GPU-initiated) possible */
	char source[SC_SOURCE_MAX];
};

struct instance_spec {
	char name[SC_NAME_MAX];          /* e.g. "p5.48xlarge" */
	char gpu[SC_NAME_MAX];           /* key into the GPU catalogue */
	int gpus_per_node;
	int nvlink_domain_gpus;          /* 8, or 72 on an NVL72 UltraServer */
	int efa_nics;
	double efa_nic_Gbps;             /* per NIC; node total = nics x this */
	int nvme_drives;
	double nvme_drive_bytes;
	int vcpus;
	double memory_GiB;
	struct instance_price price;
	struct efa_spec efa;             /* optional; generation 0 = not described */
	char source[SC_SOURCE_MAX];
};

struct fabric_spec {
	char name[SC_NAME_MAX];
	bool rail_optimized;
	int nodes_per_leaf;               /* nodes under one leaf (rail) switch */
	double leaf_spine_oversubscription; /* >= 1; 1 = non-blocking */
	double nvlink_latency_s;          /* one NVLink/NVSwitch hop */
	double efa_latency_s;             /* one EFA message, NIC to NIC, same leaf */
	double spine_hop_latency_s;       /* added when a path crosses the spine */
	char source[SC_SOURCE_MAX];
};

struct storage_spec {
	char name[SC_NAME_MAX];
	char kind[SC_NAME_MAX];           /* "nvme", "fsx-lustre", "s3" */
	double read_MBps_per_TiB;         /* FSx: per provisioned TiB; else 0 */
	double write_MBps_per_TiB;
	double default_provisioned_TiB;
	double per_drive_read_GBps;       /* NVMe per drive; else 0 */
	double per_drive_write_GBps;
	double requests_per_s_per_prefix; /* S3 GET; else 0 */
	double put_requests_per_s_per_prefix; /* S3 PUT; else 0 */
	double request_bytes;             /* S3 bytes per GET/PUT (multipart part); else 0 */
	double per_client_GBps;           /* cap per client node; 0 = none */
	double latency_s;                 /* first-byte / metadata latency */
	char source[SC_SOURCE_MAX];
};

enum model_activation { ACT_GELU, ACT_SWIGLU, ACT_GEGLU, ACT_SQUARED_RELU };

struct model_arch {
	char name[SC_NAME_MAX];
	int layers;
	int hidden;
	int ffn_hidden;        /* dense MLP width (one of two gated inputs) */
	int heads;
	int kv_heads;
	int head_dim;          /* 0 = hidden / heads */
	int vocab;
	bool gated_mlp;
	enum model_activation activation;
	bool tied_embeddings;
	double params_billion;        /* published; 0 = not given */
	double active_params_billion; /* MoE; 0 = not given */
	/* MoE (experts == 0: dense) */
	int experts;
	int top_k;
	int moe_ffn_hidden;
	int shared_experts;
	int first_dense_layers;
	int moe_layer_freq;    /* 0 treated as 1 for MoE models */
	/* MLA (kv_lora_rank == 0: not MLA) */
	int q_lora_rank;
	int kv_lora_rank;
	int qk_rope_head_dim;
	int qk_nope_head_dim;
	int v_head_dim;
	int mtp_layers;
	int sliding_window;
	int sliding_window_layer_freq;
	char source[SC_SOURCE_MAX];
};

static inline int model_head_dim(const struct model_arch *m)
{
	return m->head_dim > 0 ? m->head_dim : m->hidden / m->heads;
}

static inline bool model_is_moe(const struct model_arch *m)
{
	return m->experts > 0;
}

static inline bool model_is_mla(const struct model_arch *m)
{
	return m->kv_lora_rank > 0;
}

#endif
