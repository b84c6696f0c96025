/* test_memory.c: activation bytes against Korthikanti et al. 2022 Table 2,
 * and ZeRO byte counts. */
#include "../../models/memory.h"
#include "../../models/schedule.h"
#include "sc_test.h"

#include <string.h>

/* GPT-3 175B as in the paper's Table 3: h 12288, a 96, s 2048, 4h GeLU MLP,
 * MHA, dropout, no flash attention (the paper's setting). */
static struct model_arch gpt3(void)
{
	struct model_arch m;

	memset(&m, 0, sizeof(m));
	m.layers = 96;
	m.hidden = 12288;
	m.ffn_hidden = 4 * 12288;
	m.heads = 96;
	m.kv_heads = 96;
	m.vocab = 51200;
	m.activation = ACT_GELU;
	return m;
}

static double act(const struct model_arch *m, int t, bool sp,
		  enum sc_recompute rc, bool flash, bool dropout)
{
	struct mem_act_opts o;
	struct mem_act a;

	memset(&o, 0, sizeof(o));
	o.seq_len = 2048;
	o.micro_batch = 1;
	o.tp = t;
	o.etp = t;
	o.sp = sp;
	o.flash = flash;
	o.dropout = dropout;
	o.recompute = rc;
	mem_layer_activations(m, &o, false, &a);
	return a.stored_bytes;
}

/* Korthikanti et al. 2022, Table 2 (activation bytes per layer). */
static void test_korthikanti_table2(void)
{
	struct model_arch m = gpt3();
	double s = 2048, b = 1, h = 12288, a = 96, t = 8;
	double sbh = s * b * h;

	CHECK_REL(act(&m, 1, false, RECOMPUTE_NONE, false, true),
		  sbh * (34 + 5 * a * s / h), 1e-12);
	CHECK_REL(act(&m, 8, false, RECOMPUTE_NONE, false, true),
		  sbh * (10 + 24 / t + 5 * a * s / (h * t)), 1e-12);
	CHECK_REL(act(&m, 8, true, RECOMPUTE_NONE, false, true),
		  sbh * (34 / t + 5 * a * s / (h * t)), 1e-12);
	CHECK_REL(act(&m, 8, false, RECOMPUTE_SELECTIVE, false, true),
		  sbh * (10 + 24 / t), 1e-12);
	CHECK_REL(act(&m, 8, true, RECOMPUTE_SELECTIVE, false, true),
		  sbh * 34 / t, 1e-12);
	CHECK_REL(act(&m, 8, false, RECOMPUTE_FULL, false, true), 2 * sbh, 1e-12);
	CHECK_REL(act(&m, 8, true, RECOMPUTE_FULL, false, true), 2 * sbh / t, 1e-12);
	/* flash attention stores only the FP32 log-sum-exp instead of the
	 * 5as^2b terms, like selective recompute plus 4 s b a / t */
	CHECK_REL(act(&m, 8, true, RECOMPUTE_NONE, true, true),
		  sbh * 34 / t + 4 * s * b * a / t, 1e-12);
	/* without dropout the two sbh masks go: 32 sbh / t */
	CHECK_REL(act(&m, 8, true, RECOMPUTE_SELECTIVE, false, false), sbh * 32 / t, 1e-12);
}

/* Rederived for a gated MLP and GQA: Llama-3-70B dimensions. */
static void test_gqa_swiglu(void)
{
	struct model_arch m = gpt3();
	double s = 2048, h = 8192, f = 28672, t = 8;
	double got, want;

	m.hidden = 8192;
	m.ffn_hidden = 28672;
	m.heads = 64;
	m.kv_heads = 8;
	m.gated_mlp = true;
	m.activation = ACT_SWIGLU;
	got = act(&m, 8, true, RECOMPUTE_SELECTIVE, true, false);
	/* norms/inputs 8 sbh, Q 2 sbh, K V 2*2 s b (8*128), output 2 sbh,
	 * fc1 out 2 sb 2f, act out 2 sbf, LSE 4 s b a; all / t */
	want = (8 * s * h + 2 * s * h + 4 * s * 8 * 128 + 2 * s * h + 4 * s * f +
		2 * s * f + 4 * s * 64) / t;
	CHECK_REL(got, want, 1e-12);
}

/* torchtitan op-level SAC on Llama 3 8B shapes: eager keeps the block input,
 * the attention output and LSE, and the kept matmuls q, v, fc1 (gate) and
 * fc2; compiled, AOTAutograd saves only what the backward reads, so fc2's
 * output (read by the residual add alone) is not kept. */
static void test_torchtitan_op_sac(void)
{
	struct model_arch m = gpt3();
	struct mem_act_opts o;
	struct mem_act eager, compiled;
	double sb = 8192, h = 4096, f = 14336, a = 32;

	m.hidden = 4096;
	m.ffn_hidden = 14336;
	m.heads = 32;
	m.kv_heads = 8;
	m.gated_mlp = true;
	m.activation = ACT_SWIGLU;
	memset(&o, 0, sizeof(o));
	o.seq_len = 8192;
	o.micro_batch = 1;
	o.tp = o.etp = 1;
	o.flash = true;
	o.recompute = RECOMPUTE_SELECTIVE;
	o.framework = FW_TORCHTITAN;
	o.precision = PREC_BF16;
	mem_layer_activations(&m, &o, false, &eager);
	o.compile = true;
	mem_layer_activations(&m, &o, false, &compiled);
	CHECK_REL(eager.stored_bytes,
		  2 * sb * h + 2 * sb * h + 4 * sb * a + 2 * sb * h + 2 * sb * 1024 +
		  2 * sb * f + 2 * sb * h, 1e-12);
	CHECK_REL(eager.stored_bytes - compiled.stored_bytes, 2 * sb * h, 1e-12);
	/* a save list without the attention kernel that ran (cuDNN on
	 * Blackwell, torchtitan May-December 2025): its output and LSE go */
	o.sac_attention_recomputed = true;
	mem_layer_activations(&m, &o, false, &eager);
	CHECK_REL(compiled.stored_bytes - eager.stored_bytes, 2 * sb * h + 4 * sb * a, 1e-12);
	o.sac_attention_recomputed = false;
	/* NVFP4 matmuls are not in the save list: input and attention only */
	o.precision = PREC_NVFP4;
	mem_layer_activations(&m, &o, false, &compiled);
	CHECK_REL(compiled.stored_bytes, 2 * sb * h + 2 * sb * h + 4 * sb * a, 1e-12);
}

/* The share of layers rerun whole: full 1, layer-selective 1 / N, op-level
 * selective and none 0. */
static void test_full_recompute_share(void)
{
	struct training tr;

	memset(&tr, 0, sizeof(tr));
	tr.recompute = RECOMPUTE_FULL;
	CHECK_REL(mem_full_recompute_share(&tr), 1.0, 0);
	CHECK(!mem_layer_selective(&tr));
	tr.recompute = RECOMPUTE_SELECTIVE;
	CHECK_REL(mem_full_recompute_share(&tr), 0.0, 0);
	CHECK(!mem_layer_selective(&tr));
	tr.recompute_layer_interval = 4;
	CHECK_REL(mem_full_recompute_share(&tr), 0.25, 1e-15);
	CHECK(mem_layer_selective(&tr));
	tr.recompute = RECOMPUTE_NONE;
	CHECK_REL(mem_full_recompute_share(&tr), 0.0, 0);
	CHECK(!mem_layer_selective(&tr));
}

/* DeepSeek-V3's FP8-cached SwiGLU input (report 3.3.4): the fc1 output of a
 * gated MLP, 2 x f per token, is kept at 1 + 4/128 bytes per element instead
 * of 2; nothing else moves. */
static void test_activation_input_fp8(void)
{
	struct model_arch m = gpt3();
	struct mem_act_opts o;
	struct mem_act bf16, fp8;
	double s = 2048, f = 28672, t = 8;

	m.hidden = 8192;
	m.ffn_hidden = 28672;
	m.heads = 64;
	m.kv_heads = 8;
	m.gated_mlp = true;
	m.activation = ACT_SWIGLU;
	memset(&o, 0, sizeof(o));
	o.seq_len = s;
	o.micro_batch = 1;
	o.tp = 8;
	o.etp = 8;
	o.sp = true;
	o.flash = true;
	o.recompute = RECOMPUTE_SELECTIVE;
	mem_layer_activations(&m, &o, false, &bf16);
	o.gated_input_bytes = MEM_FP8_TILE_BYTES;
	mem_layer_activations(&m, &o, false, &fp8);
	CHECK_REL(bf16.stored_bytes - fp8.stored_bytes,
		  (2.0 - (1.0 + 4.0 / 128.0)) * s * 2 * f / t, 1e-12);
}

static void test_zero_bytes(void)
{
	struct calibration cal;
	struct mem_in in;
	struct mem_out o;
	double P = 1e9;

	memset(&cal, 0, sizeof(cal));
	cal.nccl_buffer_bytes = 1e9;
	cal.framework_reserve_bytes = 3e9;
	memset(&in, 0, sizeof(in));
	in.params_dense = P;
	in.dense_shard = 8;
	in.expert_shard = 1;
	in.grad_fp32 = true;
	in.precision = PREC_BF16;
	in.optimizer = OPT_ADAM;
	in.capacity_bytes = 80e9;
	/* mixed-precision Adam, no sharding: 2 + 4 + 12 bytes per parameter */
	in.zero_stage = 0;
	mem_estimate(&in, &cal, &o);
	CHECK_REL(o.weights_bytes, 2 * P, 1e-12);
	CHECK_REL(o.gradients_bytes, 4 * P, 1e-12);
	CHECK_REL(o.optimizer_bytes, 12 * P, 1e-12);
	/* allocated: the states and the 64 MiB of cuBLAS/TE workspaces;
	 * reserved adds the allocator's slack; nvidia-smi adds NCCL and the
	 * CUDA context outside the allocator */
	CHECK_REL(o.allocated_bytes, 18 * P + 64.0 * 1048576, 1e-12);
	CHECK_REL(o.reserved_bytes, o.allocated_bytes * (1 + MEM_ALLOCATOR_SLACK), 1e-12);
	CHECK_REL(o.device_bytes, o.reserved_bytes + 4e9, 1e-12);
	/* the verdict's number leaves out the allocator's cache: it is given
	 * back before an allocation fails */
	CHECK_REL(o.total_bytes, o.allocated_bytes + 4e9, 1e-12);
	CHECK(!o.oom);
	/* ZeRO-1 (Megatron distributed optimizer): optimizer / dp */
	in.zero_stage = 1;
	mem_estimate(&in, &cal, &o);
	CHECK_REL(o.optimizer_bytes, 12 * P / 8, 1e-12);
	CHECK_REL(o.gradients_bytes, 4 * P, 1e-12);
	/* ZeRO-2: also gradients */
	in.zero_stage = 2;
	in.grad_fp32 = false;
	mem_estimate(&in, &cal, &o);
	CHECK_REL(o.gradients_bytes, 2 * P / 8, 1e-12);
	CHECK_REL(o.weights_bytes, 2 * P, 1e-12);
	/* ZeRO-3 / FSDP: also weights: (2 + 2 + 12) / 8 = 2 bytes per param,
	 * the ZeRO paper's 16 Psi / N_d */
	in.zero_stage = 3;
	mem_estimate(&in, &cal, &o);
	CHECK_REL(o.weights_bytes + o.gradients_bytes + o.optimizer_bytes, 16 * P / 8, 1e-12);
	/* expert parameters shard over their own group */
	in.params_dense = 0;
	in.params_expert = P;
	in.expert_shard = 4;
	in.zero_stage = 1;
	mem_estimate(&in, &cal, &o);
	CHECK_REL(o.optimizer_bytes, 12 * P / 4, 1e-12);
	/* FP8 keeps TE's row- and column-wise 1-byte copies next to the BF16
	 * weights; SGD master + momentum 8 bytes; BF16 moments halve Adam's */
	CHECK_REL(mem_weight_bytes_per_param(PREC_FP8), 4.0, 0);
	CHECK_REL(mem_optimizer_bytes_per_param(OPT_SGD, DTYPE_FP32, DTYPE_FP32), 8.0, 0);
	CHECK_REL(mem_optimizer_bytes_per_param(OPT_ADAM, DTYPE_FP32, DTYPE_BF16), 8.0, 0);
	/* activations times the schedule's in-flight micro-batches; OOM */
	in.params_expert = 0;
	in.act_per_microbatch_bytes = 10e9;
	in.inflight_microbatches = sched_inflight(SCHED_1F1B, 4, 1, 32, 0);
	mem_estimate(&in, &cal, &o);
	CHECK_REL(o.activations_bytes, 40e9, 1e-12);
	CHECK(!o.oom);
	in.inflight_microbatches = sched_inflight(SCHED_GPIPE, 4, 1, 32, 0);
	mem_estimate(&in, &cal, &o);
	CHECK(o.oom);
	/* the verdict is against the capacity less the driver's reserve */
	in.inflight_microbatches = 1;
	in.act_per_microbatch_bytes = 0;
	mem_estimate(&in, &cal, &o);
	in.capacity_bytes = o.need_bytes + 1e6;
	in.driver_reserved_bytes = 0;
	mem_estimate(&in, &cal, &o);
	CHECK(!o.oom);
	in.driver_reserved_bytes = 2e6;
	mem_estimate(&in, &cal, &o);
	CHECK(o.oom);
	CHECK_REL(o.usable_bytes, in.capacity_bytes - 2e6, 1e-12);
}

/* The frameworks allocate the same training state differently. */
static void test_frameworks(void)
{
	struct calibration cal;
	struct mem_in in;
	struct mem_out o;
	double P = 8e9, unit = 0.2e9, ws = 64.0 * 1048576;

	memset(&cal, 0, sizeof(cal));
	memset(&in, 0, sizeof(in));
	in.params_dense = P;
	in.unit_params = unit;
	in.dense_shard = 8;
	in.expert_shard = 8;
	in.zero_stage = 3;
	in.grad_fp32 = true;
	in.precision = PREC_BF16;
	in.optimizer = OPT_ADAM;
	in.capacity_bytes = 80e9;
	/* torchtitan FSDP2: FP32 sharded params (the master), FP32 sharded
	 * grads, two FP32 moments: 16 / d; two BF16 units gathered, the unit's
	 * BF16 gradient and its FP32 reduce-scatter copy: 10 x unit */
	in.framework = FW_TORCHTITAN;
	mem_estimate(&in, &cal, &o);
	CHECK_REL(o.weights_bytes + o.gradients_bytes + o.optimizer_bytes, 16 * P / 8, 1e-12);
	CHECK_REL(o.buffers_bytes, 10 * unit + ws, 1e-12);
	/* its FP8 (torchao) casts are not kept: the same bytes */
	in.precision = PREC_FP8;
	mem_estimate(&in, &cal, &o);
	CHECK_REL(o.weights_bytes, 4 * P / 8, 1e-12);
	in.precision = PREC_BF16;
	/* an eager loss keeps 10 bytes per logit, a compiled one 4 */
	in.logits_elements = 1e9;
	mem_estimate(&in, &cal, &o);
	CHECK_REL(o.buffers_bytes, 10 * unit + ws + 10e9, 1e-12);
	in.compile = true;   /* the blocks compiled, the loss eager (torchtitan before 2025-04) */
	mem_estimate(&in, &cal, &o);
	CHECK_REL(o.buffers_bytes, 10 * unit + ws + 10e9, 1e-12);
	in.compile_loss = true;
	mem_estimate(&in, &cal, &o);
	CHECK_REL(o.buffers_bytes, 10 * unit + ws + 4e9, 1e-12);
	/* eager on the BF16 logits as they are: logits and BF16 log-softmax */
	in.compile = in.compile_loss = false;
	in.no_loss_upcast = true;
	mem_estimate(&in, &cal, &o);
	CHECK_REL(o.buffers_bytes, 10 * unit + ws + 4e9, 1e-12);
	in.no_loss_upcast = false;
	in.logits_elements = 0;
	/* DeepSpeed ZeRO-3: BF16 params and BF16 gradient partitions, FP32
	 * master and moments: 16 / d; the backward holds the live units and
	 * the 5e8-element reduce bucket, the optimizer step the flattened BF16
	 * and FP32 gradient copies of one 1e9-element sub-group (here the
	 * whole 1e9-element partition): the step is the peak */
	in.framework = FW_DEEPSPEED;
	mem_estimate(&in, &cal, &o);
	CHECK_REL(o.weights_bytes + o.gradients_bytes + o.optimizer_bytes, 16 * P / 8, 1e-12);
	CHECK_REL(o.buffers_bytes, 6 * 1e9, 1e-12);
	/* outside deepspeed.zero.Init, without recompute: every gathered
	 * linear weight kept for its backward, the backward is the peak */
	in.retained_weight_params = P;
	mem_estimate(&in, &cal, &o);
	CHECK_REL(o.buffers_bytes, 4 * unit + 2 * 5e8 + ws + 2 * P, 1e-12);
	in.retained_weight_params = 0;
	/* bf16 master weights, gradients and moments: no FP32 copy at the step */
	in.master_dtype = DTYPE_BF16;
	in.moments_dtype = DTYPE_BF16;
	in.grad_fp32 = false;
	mem_estimate(&in, &cal, &o);
	CHECK_REL(o.weights_bytes + o.gradients_bytes + o.optimizer_bytes, 10 * P / 8, 1e-12);
	CHECK_REL(o.buffers_bytes, 4 * unit + 2 * 5e8 + ws, 1e-12);
	/* Megatron-Core's distributed optimizer: 6 + 12 / d */
	in.framework = FW_MEGATRON_CORE;
	in.master_dtype = DTYPE_FP32;
	in.moments_dtype = DTYPE_FP32;
	in.grad_fp32 = true;
	in.zero_stage = 1;
	mem_estimate(&in, &cal, &o);
	CHECK_REL(o.weights_bytes + o.gradients_bytes + o.optimizer_bytes, 6 * P + 12 * P / 8, 1e-12);
	CHECK_REL(o.buffers_bytes, ws, 1e-12);
}

/* torchtitan's ChunkedLossWrapper: one chunk's logits (compiled loss, 4
 * bytes each) and the FP32 gradient of the loss head's input, in place of
 * the full logits. */
static void test_chunked_loss(void)
{
	struct calibration cal;
	struct mem_in in;
	struct mem_out full, chunked;
	double V = 65536.0 * 128256.0, H = 65536.0 * 4096.0;

	memset(&cal, 0, sizeof(cal));
	memset(&in, 0, sizeof(in));
	in.framework = FW_TORCHTITAN;
	in.compile = true;
	in.compile_loss = true;
	in.precision = PREC_BF16;
	in.optimizer = OPT_ADAM;
	in.capacity_bytes = 192e9;
	in.logits_elements = V;
	in.loss_hidden_elements = H;
	mem_estimate(&in, &cal, &full);
	in.loss_chunks = MEM_TORCHTITAN_LOSS_CHUNKS;
	mem_estimate(&in, &cal, &chunked);
	CHECK_REL(full.buffers_bytes - chunked.buffers_bytes,
		  4.0 * V * (1.0 - 1.0 / MEM_TORCHTITAN_LOSS_CHUNKS) - MEM_CHUNKED_LOSS_GRAD_BYTES * H, 1e-9);
	in.loss_chunks = 1;   /* one chunk: the full logits, no extra buffer */
	mem_estimate(&in, &cal, &chunked);
	CHECK_REL(chunked.buffers_bytes, full.buffers_bytes, 1e-12);
}

static void test_schedules(void)
{
	struct sched_in in = { 4, 1, 16, 1.0, 4.0 };
	struct sched_out o;

	/* 1F1B: bubble (p - 1) / m */
	sched_step(SCHED_1F1B, &in, &o);
	CHECK_REL(o.time_s, 16 + 3, 1e-12);
	CHECK_REL(o.bubble_fraction, 3.0 / 16, 1e-12);
	/* interleaved: (p - 1) / (v m) */
	in.v = 4;
	sched_step(SCHED_INTERLEAVED_1F1B, &in, &o);
	CHECK_REL(o.bubble_fraction, 3.0 / (4 * 16), 1e-12);
	/* GPipe: same bubble as 1F1B */
	in.v = 1;
	sched_step(SCHED_GPIPE, &in, &o);
	CHECK_REL(o.bubble_s, 3.0, 1e-12);
	/* unequal stages: the slowest works m times, the others fill */
	in.stage_max_s = 2.0;
	in.stage_sum_s = 5.0;
	sched_step(SCHED_1F1B, &in, &o);
	CHECK_REL(o.time_s, 16 * 2.0 + 3.0, 1e-12);
	/* in flight on stage 0: 1F1B p; interleaved p + (p - 1) / v; last
	 * stage of interleaved p - (p - 1) / v */
	CHECK_REL(sched_inflight(SCHED_1F1B, 4, 1, 16, 0), 4, 0);
	CHECK_REL(sched_inflight(SCHED_1F1B, 4, 1, 16, 3), 1, 0);
	CHECK_REL(sched_inflight(SCHED_INTERLEAVED_1F1B, 4, 5, 16, 0), 4 * (1 + 3.0 / 20), 1e-12);
	CHECK_REL(sched_inflight(SCHED_INTERLEAVED_1F1B, 4, 5, 16, 3), 4 - 3.0 / 5, 1e-12);
	CHECK_REL(sched_inflight(SCHED_1F1B, 8, 1, 2, 0), 2, 0);
	CHECK_STR(sched_get(SCHED_INTERLEAVED_1F1B)->name, "interleaved-1f1b");
}

int main(void)
{
	RUN(test_korthikanti_table2);
	RUN(test_gqa_swiglu);
	RUN(test_activation_input_fp8);
	RUN(test_zero_bytes);
	RUN(test_frameworks);
	RUN(test_schedules);
	RUN(test_chunked_loss);
	RUN(test_torchtitan_op_sac);
	RUN(test_full_recompute_share);
	return sc_test_summary();
}
