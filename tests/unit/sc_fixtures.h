/* sc_fixtures.h: the hand-built inputs several unit and DES tests share, so
 * that each value is written once: the Hopper calibration of
 * configs/calibration/hopper-default.json, a Llama-shaped model, and
 * clusters of 8-GPU NVLink nodes on an EFA leaf-spine fabric.  Tests that
 * need another value set it after the call. */
#ifndef SC_TEST_FIXTURES_H
#define SC_TEST_FIXTURES_H

#include <string.h>

#include "../../models/calibration.h"
#include "../../models/scenario.h"

/* The collective part of configs/calibration/hopper-default.json. */
static inline void sc_fix_hopper_collectives(struct calibration *k)
{
	k->nvlink_ring_alpha_s = 2.1e-6;
	k->nvlink_ring_bw_eff = 0.8;
	k->nvlink_nvls_alpha_s = 1.69e-5;
	k->nvlink_nvls_bw_eff = 0.686;
	k->efa_ring_alpha_s = 2e-5;
	k->efa_ring_bw_eff = 0.61;
	k->efa_tree_alpha_s = 2e-5;
	k->efa_startup_s = 2.2e-4;
	k->efa_tree_bw_eff = 0.61;
	k->nvlink_a2a_bw_eff = 0.7;
	k->efa_a2a_bw_eff = 0.35;
	k->a2a_alpha_s = 5e-6;
	k->p2p_alpha_s = 2e-5;
	k->ll_alpha_fraction = 0.29;
	k->ll_bw_fraction = 0.24;
}

/* A calibration with only the collective part set (the rest 0). */
static inline struct calibration sc_fix_hopper_coll_cal(void)
{
	struct calibration k;

	memset(&k, 0, sizeof(k));
	sc_fix_hopper_collectives(&k);
	return k;
}

/* The values of configs/calibration/hopper-default.json, by hand. */
static inline struct calibration sc_fix_hopper_cal(void)
{
	struct calibration k;

	memset(&k, 0, sizeof(k));
	strcpy(k.name, "test-hopper");
	strcpy(k.gpu_family, "hopper");
	k.schema_version = 1;
	k.gemm_eta_max_bf16 = 0.803;
	k.gemm_eta_max_fp8 = 0.709;
	k.gemm_eta_max_fp4 = 0.7;
	k.gemm_half_dim = 128;
	k.attn_eta = 0.6;
	k.attn_eta_portable = 0.3;
	k.attn_bwd_flops_ratio = 2.5;
	k.hbm_eta = 0.88;
	k.kernel_overhead_s = 3e-6;
	k.graph_kernel_overhead_s = 1e-6;
	sc_fix_hopper_collectives(&k);
	k.dp_overlap = 0.9;
	k.fsdp_prefetch_overlap = 0.8;
	k.tp_overlap = 0.7;
	k.cp_overlap = 0.8;
	k.ep_overlap = 0.7;
	k.pp_overlap = 0.5;
	k.comm_interference = 0.1;
	k.moe_router_imbalance = 1.1;
	k.optimizer_bytes_per_param = 30;
	k.step_overhead_s = 0.05;
	k.framework_reserve_bytes = 3.2e9;
	k.nccl_buffer_bytes = 1.5e9;
	k.dp_bucket_params = 40e6;
	k.uncertainty_rel = 0.15;
	return k;
}

/* A Llama-3-shaped dense model (SwiGLU, GQA, 128256-token vocabulary). */
static inline struct model_arch sc_fix_llama(int layers, int hidden, int ffn, int heads, int kv)
{
	struct model_arch m;

	memset(&m, 0, sizeof(m));
	strcpy(m.name, "llama");
	m.layers = layers;
	m.hidden = hidden;
	m.ffn_hidden = ffn;
	m.heads = heads;
	m.kv_heads = kv;
	m.vocab = 128256;
	m.gated_mlp = true;
	m.activation = ACT_SWIGLU;
	return m;
}

/* DeepSeek-V3 (671B: MLA, 256 routed experts top-8, one shared expert, the
 * first 3 layers dense, one MTP layer; the model's config.json). */
static inline struct model_arch sc_fix_deepseek_v3(void)
{
	struct model_arch m = sc_fix_llama(61, 7168, 18432, 128, 128);

	m.vocab = 129280;
	m.experts = 256;
	m.top_k = 8;
	m.moe_ffn_hidden = 2048;
	m.shared_experts = 1;
	m.first_dense_layers = 3;
	m.moe_layer_freq = 1;
	m.q_lora_rank = 1536;
	m.kv_lora_rank = 512;
	m.qk_rope_head_dim = 64;
	m.qk_nope_head_dim = 128;
	m.v_head_dim = 128;
	m.mtp_layers = 1;
	return m;
}

/* Llama 3 8B, 70B and Llama 3.1 405B (Meta's configs). */
static inline struct model_arch sc_fix_llama3_8b(void) { return sc_fix_llama(32, 4096, 14336, 32, 8); }
static inline struct model_arch sc_fix_llama3_70b(void) { return sc_fix_llama(80, 8192, 28672, 64, 8); }
static inline struct model_arch sc_fix_llama31_405b(void) { return sc_fix_llama(126, 16384, 53248, 128, 8); }

/* `nodes` nodes of `gpn` GPUs of `family` (NVLink domain `domain`, 450 GB/s
 * per GPU, 900 beyond 8), `nics` EFA NICs of `gbps` each, on a
 * rail-optimised leaf-spine fabric of `per_leaf` nodes a leaf, `oversub`
 * oversubscribed, 1 us a spine hop. */
static inline struct cluster sc_fix_cluster(const char *family, int gpn, int domain, int nics,
					    double gbps, int nodes, int per_leaf, double oversub)
{
	struct cluster c;

	memset(&c, 0, sizeof(c));
	strcpy(c.gpu.family, family);
	c.gpu.nvlink_GBps = domain > 8 ? 900 : 450;
	c.instance.gpus_per_node = gpn;
	c.instance.nvlink_domain_gpus = domain;
	c.instance.efa_nics = nics;
	c.instance.efa_nic_Gbps = gbps;
	c.fabric.rail_optimized = true;
	c.fabric.nodes_per_leaf = per_leaf;
	c.fabric.leaf_spine_oversubscription = oversub;
	c.fabric.spine_hop_latency_s = 1e-6;
	c.nodes = nodes;
	return c;
}

/* `nodes` p5.48xlarge-like nodes: 8 H100-SXM (989 TFLOP/s BF16, 80 GB HBM3
 * at 3350 GB/s), NVSwitch, 32 x 100 Gb/s EFA, 16 nodes a leaf, not
 * rail-optimised. */
static inline struct cluster sc_fix_p5_cluster(int nodes)
{
	struct cluster c = sc_fix_cluster("hopper", 8, 8, 32, 100, nodes, 16, 1.0);

	c.fabric.rail_optimized = false;
	strcpy(c.gpu.name, "h100-sxm");
	c.gpu.peak_bf16_flops = 989e12;
	c.gpu.peak_fp8_flops = 1979e12;
	c.gpu.hbm_bytes = 80e9;
	c.gpu.hbm_GBps = 3350;
	strcpy(c.instance.name, "p5.48xlarge");
	return c;
}

#endif
