/* test_transformer.c: parameter counts, FLOPs and the per-GPU op list. */
#include "../../models/transformer.h"
#include "sc_fixtures.h"
#include "sc_test.h"

#include <string.h>

/* GPT with MHA and a 4h GeLU MLP, as in Narayanan et al. 2021. */
static struct model_arch gpt(int layers, int hidden, int heads, int vocab)
{
	struct model_arch m;

	memset(&m, 0, sizeof(m));
	m.layers = layers;
	m.hidden = hidden;
	m.ffn_hidden = 4 * hidden;
	m.heads = heads;
	m.kv_heads = heads;
	m.vocab = vocab;
	m.activation = ACT_GELU;
	m.tied_embeddings = true;
	return m;
}

static void test_params(void)
{
	struct tf_params p;
	struct model_arch m;

	m = sc_fix_llama3_8b();
	tf_params(&m, &p);
	CHECK_REL(p.total, 8.03e9, 0.005);
	m = sc_fix_llama3_70b();
	tf_params(&m, &p);
	CHECK_REL(p.total, 70.6e9, 0.005);
	m = sc_fix_llama31_405b();
	tf_params(&m, &p);
	CHECK_REL(p.total, 405.9e9, 0.005);
	CHECK(p.active == p.total);
	/* DeepSeek-V3: 671B total, 37B activated, MTP (~14B) not included */
	m = sc_fix_deepseek_v3();
	tf_params(&m, &p);
	CHECK_REL(p.total, 671e9, 0.01);
	CHECK_REL(p.active, 37e9, 0.03);
	CHECK(p.moe_layers == 58 && p.dense_layers == 3);
	CHECK(p.mtp > 10e9 && p.mtp < 16e9);
	/* head_dim different from hidden / heads changes the attention weights */
	{
		struct tf_params q;

		m = sc_fix_llama3_8b();
		tf_params(&m, &p);
		m.head_dim = 256;
		tf_params(&m, &q);
		/* attention weights scale with heads * head_dim: twice 128 here */
		CHECK_REL(q.dense_layer - p.dense_layer,
			  4096.0 * 32 * 128 + 2 * 4096.0 * 8 * 128 + 32 * 128.0 * 4096, 1e-12);
	}
}

static void test_moe_layer_pattern(void)
{
	struct model_arch m = sc_fix_deepseek_v3();

	CHECK(!tf_layer_is_moe(&m, 2));
	CHECK(tf_layer_is_moe(&m, 3));
	CHECK(tf_moe_layers_in(&m, 0, 61) == 58);
	CHECK(tf_moe_layers_in(&m, 0, 4) == 1);
	m.moe_layer_freq = 2;   /* alternate: 3, 5, 7, ... */
	CHECK(tf_layer_is_moe(&m, 5) && !tf_layer_is_moe(&m, 4));
	CHECK(tf_moe_layers_in(&m, 0, 61) == 29);
	CHECK(tf_moe_layers_in(&m, 4, 8) == 2);
	m.experts = 0;
	CHECK(tf_moe_layers_in(&m, 0, 61) == 0);
}

/* Narayanan et al. 2021 (SC21) eq. 3: with full recompute one iteration is
 * F = 96 B s l h^2 (1 + s / (6h) + V / (16 l h)): four passes over the
 * layers (forward, recompute, 2x backward) and three over the logits; the
 * attention scores are counted over all s^2 pairs (no causal halving). */
static void test_narayanan_eq3(void)
{
	struct model_arch m = gpt(96, 12288, 96, 51200);   /* GPT-3 175B */
	struct tf_flops f;
	double B = 1536, s = 2048, l = 96, h = 12288, V = 51200;
	double full, none;

	tf_flops_per_token(&m, (int)s, false, &f);
	full = B * s * (4.0 * (f.layers_gemm + f.layers_attn) + 3.0 * f.logits);
	CHECK_REL(full, 96 * B * s * l * h * h * (1 + s / (6 * h) + V / (16 * l * h)), 1e-12);
	/* without recompute: 72 B s l h^2 (1 + s/(6h)) + 6 B s h V */
	none = B * s * 3.0 * f.total;
	CHECK_REL(none, 72 * B * s * l * h * h * (1 + s / (6 * h)) + 6 * B * s * h * V, 1e-12);
	/* 1T of the same paper's Table 1 */
	m = gpt(128, 25600, 160, 51200);
	tf_flops_per_token(&m, 2048, false, &f);
	h = 25600;
	l = 128;
	CHECK_REL(4.0 * (f.layers_gemm + f.layers_attn) + 3.0 * f.logits,
		  96 * l * h * h * (1 + s / (6 * h) + V / (16 * l * h)), 1e-12);
	/* causal counting halves the score work only */
	{
		struct tf_flops c;

		tf_flops_per_token(&m, 2048, true, &c);
		CHECK_REL(c.layers_attn, f.layers_attn / 2, 1e-12);
		CHECK_REL(c.layers_gemm, f.layers_gemm, 1e-12);
	}
}

/* Kaplan et al. 2020: training ~ 6 N FLOPs per token when attention is small. */
static void test_six_n(void)
{
	struct model_arch m;
	struct tf_flops f;
	struct tf_params p;

	m = sc_fix_llama3_70b();
	tf_params(&m, &p);
	tf_flops_per_token(&m, 4096, true, &f);
	CHECK_REL(3.0 * f.total, 6.0 * p.total, 0.05);
	m = sc_fix_llama3_8b();
	tf_params(&m, &p);
	tf_flops_per_token(&m, 2048, true, &f);
	CHECK_REL(3.0 * f.total, 6.0 * p.total, 0.05);
	m = sc_fix_llama31_405b();
	tf_params(&m, &p);
	tf_flops_per_token(&m, 8192, true, &f);
	CHECK_REL(3.0 * f.total, 6.0 * p.total, 0.05);
	/* MoE: 6 x active parameters */
	m = sc_fix_deepseek_v3();
	m.mtp_layers = 0;
	tf_params(&m, &p);
	tf_flops_per_token(&m, 4096, true, &f);
	CHECK_REL(3.0 * f.total, 6.0 * p.active, 0.15);
}

/* The per-GPU op list adds up to the global FLOPs. */
static void test_op_list_dense(void)
{
	struct model_arch m = sc_fix_llama3_70b();
	struct tf_shard sh = { 8192, 2, 8, 2, 1, 8, true, false };
	struct tf_ops ops;
	struct tf_flops f;
	struct tf_params p;
	double tokens = 2.0 * 8192;

	tf_build(&m, &sh, &ops);
	tf_flops_per_token(&m, 8192, true, &f);
	tf_params(&m, &p);
	CHECK_REL(ops.dense.gemm_flops * 8 * 2, f.layers_gemm / 80 * tokens, 1e-12);
	CHECK_REL(ops.dense.attn_flops * 8 * 2, f.layers_attn / 80 * tokens, 1e-12);
	CHECK_REL(ops.logits.gemm_flops * 8 * 2, f.logits * tokens, 1e-12);
	/* local GEMM shapes: QKV N = (64 + 2*8) * 128 / 8, M = tokens / cp */
	CHECK(ops.dense.n_gemms == 4);
	CHECK_STR(ops.dense.gemm[0].name, "qkv");
	CHECK_REL(ops.dense.gemm[0].m, 8192.0, 0);
	CHECK_REL(ops.dense.gemm[0].n, 80.0 * 128 / 8, 0);
	CHECK_REL(ops.dense.gemm[0].k, 8192.0, 0);
	CHECK_STR(ops.dense.gemm[2].name, "fc1");
	CHECK_REL(ops.dense.gemm[2].n, 2.0 * 28672 / 8, 0);
	/* parameters on one GPU: a layer's weights / tp (norms replicated) */
	CHECK_REL(ops.dense.params_dense_local, (p.dense_layer - 2 * 8192) / 8 + 2 * 8192, 1e-12);
	/* SP: 2 all-gathers and 2 reduce-scatters of the full activation */
	CHECK(ops.dense.tp_f == 2 && ops.dense.tp_g == 2);
	CHECK_REL(ops.dense.tp_bytes, 2.0 * 8192 * 8192, 0);
	/* CP ring step: K and V of the local chunk, local kv heads */
	CHECK_REL(ops.dense.cp_kv_bytes, 2.0 * 8192 * 1 * 256, 1e-12);
	CHECK(ops.dense.ep_calls == 0);
	/* the logits stay BF16 under FP8 */
	CHECK(ops.logits.gemm[0].keep_bf16);
	CHECK(!ops.dense.gemm[0].keep_bf16);
}

static void test_op_list_moe(void)
{
	struct model_arch m = sc_fix_deepseek_v3();
	struct tf_shard sh = { 4096, 1, 1, 1, 64, 1, false, true };
	struct tf_ops ops;
	struct tf_flops f;
	double tokens = 4096;

	tf_build(&m, &sh, &ops);
	tf_flops_per_token(&m, 4096, true, &f);
	/* with tp = cp = etp = 1 every GPU does its own tokens' share */
	{
		double dense_total = ops.dense.gemm_flops * 3;
		double moe_total = ops.moe.gemm_flops * 58;

		CHECK_REL(dense_total + moe_total, f.layers_gemm * tokens, 1e-9);
	}
	/* 4 local experts, each M = 4096 * 8 * 64 / 256 rows */
	{
		const struct tf_gemm *g = NULL;

		for (int i = 0; i < ops.moe.n_gemms; i++)
			if (strcmp(ops.moe.gemm[i].name, "expert_fc1") == 0)
				g = &ops.moe.gemm[i];
		CHECK(g != NULL);
		if (g) {
			CHECK_REL(g->count, 4, 0);
			CHECK_REL(g->m, 4096.0 * 8 * 64 / 256, 1e-12);
			CHECK_REL(g->n, 2.0 * 2048, 0);
			CHECK(g->expert);
		}
	}
	CHECK(ops.moe.ep_calls == 2);
	CHECK_REL(ops.moe.ep_bytes, 2.0 * 4096 * 8 * 7168, 1e-12);
	CHECK_REL(ops.moe.params_expert_local, 4.0 * 3 * 7168 * 2048, 1e-12);
	/* low precision counts the quantisation casts */
	{
		bool has = false;

		for (int i = 0; i < ops.moe.n_memops; i++)
			has |= strcmp(ops.moe.memop[i].name, "quantize") == 0;
		CHECK(has);
	}
	CHECK(ops.mtp_layer_is_moe);
	CHECK(ops.mtp_extra.n_gemms == 2);
}

int main(void)
{
	RUN(test_params);
	RUN(test_moe_layer_pattern);
	RUN(test_narayanan_eq3);
	RUN(test_six_n);
	RUN(test_op_list_dense);
	RUN(test_op_list_moe);
	return sc_test_summary();
}
