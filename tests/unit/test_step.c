/* test_step.c: the analytical step engine on hand-built scenarios
 * (Llama-3-70B on 64 p5-like nodes, DeepSeek-V3, invalid layouts). */
#include "../../sim/analytic/step.h"
#include "sc_fixtures.h"
#include "sc_test.h"

#include <string.h>
#include <time.h>

/* Llama-3-70B on `nodes` p5.48xlarge-like nodes (8 H100, NVSwitch, 32 x 100
 * Gb/s EFA), tp8 pp4 vpp5, seq 8192, global batch 512, micro-batch 1, BF16,
 * selective recompute, distributed optimizer. */
static struct scenario llama70b_p5(int nodes)
{
	struct scenario s;

	memset(&s, 0, sizeof(s));
	strcpy(s.name, "llama3-70b on p5");
	s.model = sc_fix_llama3_70b();
	s.cluster = sc_fix_p5_cluster(nodes);
	s.cluster.gpu.peak_fp16_flops = 989e12;
	s.training.seq_len = 8192;
	s.training.global_batch_seqs = 512;
	s.training.micro_batch_seqs = 1;
	s.training.precision = PREC_BF16;
	s.training.recompute = RECOMPUTE_SELECTIVE;
	s.training.optimizer = OPT_ADAM;
	s.training.grad_fp32 = true;
	s.layout.tp = 8;
	s.layout.pp = 4;
	s.layout.vpp = 5;
	s.layout.dp = nodes * 8 / 32;
	s.layout.cp = 1;
	s.layout.ep = 1;
	s.layout.zero_stage = 1;
	s.layout.sequence_parallel = true;
	s.layout.schedule = SCHED_INTERLEAVED_1F1B;
	s.calibration = sc_fix_hopper_cal();
	return s;
}

/* No model parallelism: every GPU holds the whole model, dp of them (64
 * p5.48xlarge: 512). */
static void data_parallel_only(struct scenario *s, int dp)
{
	s->layout.tp = 1;
	s->layout.pp = 1;
	s->layout.vpp = 1;
	s->layout.schedule = SCHED_1F1B;
	s->layout.dp = dp;
	s->layout.sequence_parallel = false;
}

static double parts_sum(const struct step_result *r)
{
	double t = 0;

	for (int i = 0; i < PART_COUNT; i++)
		t += r->part_s[i];
	return t;
}

static void print_result(const char *what, const struct step_result *r)
{
	fprintf(stderr, "  %s: step %.3f s, %.0f tokens/s/gpu, %.1f model TFLOP/s/gpu, MFU %.3f, HFU %.3f, bottleneck %s, memory %.1f GB (oom %d)\n",
		what, r->step_time_s, r->tokens_per_s_per_gpu, r->model_tflops_per_gpu,
		r->mfu, r->hfu, bottleneck_name(r->bottleneck), r->mem_total_bytes / 1e9, r->oom);
	fprintf(stderr, "   ");
	for (int i = 0; i < PART_COUNT; i++)
		fprintf(stderr, " %s %.3f", step_part_name((enum step_part)i), r->part_s[i]);
	fprintf(stderr, "\n   ");
	for (int i = 0; i < MEM_COUNT; i++)
		fprintf(stderr, " %s %.1fGB", mem_part_name((enum mem_part)i), r->mem_bytes[i] / 1e9);
	fprintf(stderr, "\n");
	for (int i = 0; i < r->n_collectives; i++)
		fprintf(stderr, "    %-4s %-36s %-6s ranks %4d bytes %10.3g per-call %8.1f us step %.3f s\n",
			r->collectives[i].what, r->collectives[i].algorithm, r->collectives[i].tier,
			r->collectives[i].ranks, r->collectives[i].bytes,
			r->collectives[i].time_s * 1e6, r->collectives[i].total_time_s);
}

static void test_llama70b(void)
{
	struct scenario s = llama70b_p5(64);
	struct step_result r, r2;
	struct sc_error err;
	bool tp_seen = false;

	CHECK(sim_step_predict(&s, &r, &err) == SC_OK);
	print_result("llama3-70b 64 x p5 tp8 pp4 vpp5 dp16", &r);
	CHECK_REL(parts_sum(&r), r.step_time_s, 1e-12);
	CHECK(r.step_time_s > 0);
	CHECK(r.micro_batches == 32);
	CHECK(r.mfu > 0.2 && r.mfu < 0.7);
	CHECK(r.hfu >= r.mfu);
	CHECK_REL(r.tokens_per_s, 512.0 * 8192 / r.step_time_s, 1e-12);
	CHECK_REL(r.tokens_per_s_per_gpu * 512, r.tokens_per_s, 1e-12);
	CHECK(!r.oom);
	CHECK(r.mem_total_bytes > 20e9 && r.mem_total_bytes < 80e9);
	CHECK_REL(r.uncertainty_rel, 0.15, 0);
	CHECK(r.bubble_fraction > 0 && r.bubble_fraction < 0.05);
	for (int i = 0; i < r.n_collectives; i++) {
		if (strcmp(r.collectives[i].what, "tp") == 0) {
			tp_seen = true;
			CHECK_STR(r.collectives[i].tier, "nvlink");
			CHECK(r.collectives[i].ranks == 8);
		}
		if (strcmp(r.collectives[i].what, "dp") == 0)
			CHECK_STR(r.collectives[i].tier, "efa");
		CHECK(strcmp(r.collectives[i].algorithm, "none") != 0);
	}
	CHECK(tp_seen);
	/* more nodes (dp 32, same global batch) -> more tokens/s */
	s = llama70b_p5(128);
	CHECK(sim_step_predict(&s, &r2, &err) == SC_OK);
	print_result("llama3-70b 128 x p5 dp32", &r2);
	CHECK(r2.tokens_per_s > r.tokens_per_s);
	CHECK_REL(parts_sum(&r2), r2.step_time_s, 1e-12);
	/* full recompute costs more than selective; FP8 is faster than BF16 */
	s = llama70b_p5(64);
	s.training.recompute = RECOMPUTE_FULL;
	CHECK(sim_step_predict(&s, &r2, &err) == SC_OK);
	CHECK(r2.step_time_s > r.step_time_s);
	CHECK(r2.mem_bytes[MEM_ACTIVATIONS] < r.mem_bytes[MEM_ACTIVATIONS]);
	CHECK(r2.hardware_flops_per_step > r.hardware_flops_per_step);
	CHECK_REL(r2.model_flops_per_step, r.model_flops_per_step, 1e-12);
	s = llama70b_p5(64);
	s.training.precision = PREC_FP8;
	CHECK(sim_step_predict(&s, &r2, &err) == SC_OK);
	print_result("llama3-70b 64 x p5 fp8", &r2);
	CHECK(r2.step_time_s < r.step_time_s);
	CHECK(r2.mfu < r.mfu);  /* judged against the FP8 peak */
	/* TP comm overlap hides TP time */
	s = llama70b_p5(64);
	s.layout.tp_comm_overlap = true;
	CHECK(sim_step_predict(&s, &r2, &err) == SC_OK);
	CHECK(r2.part_s[PART_TP_COMM] < r.part_s[PART_TP_COMM]);
	/* 1F1B without interleaving has a larger bubble */
	s = llama70b_p5(64);
	s.layout.vpp = 1;
	s.layout.schedule = SCHED_1F1B;
	CHECK(sim_step_predict(&s, &r2, &err) == SC_OK);
	CHECK(r2.part_s[PART_BUBBLE] > r.part_s[PART_BUBBLE]);
	/* ZeRO-0 all-reduces instead of reduce-scatter + all-gather and keeps
	 * the whole optimizer state */
	s = llama70b_p5(64);
	s.layout.zero_stage = 0;
	CHECK(sim_step_predict(&s, &r2, &err) == SC_OK);
	CHECK(r2.mem_bytes[MEM_OPTIMIZER] > 10 * r.mem_bytes[MEM_OPTIMIZER]);
	/* context parallelism and FSDP run and add up */
	s = llama70b_p5(64);
	s.layout.tp = 4;
	s.layout.cp = 2;
	CHECK(sim_step_predict(&s, &r2, &err) == SC_OK);
	CHECK(r2.part_s[PART_CP_COMM] >= 0);
	CHECK_REL(parts_sum(&r2), r2.step_time_s, 1e-12);
	s = llama70b_p5(64);
	data_parallel_only(&s, 512);
	s.layout.fsdp = true;
	s.training.recompute = RECOMPUTE_FULL;
	CHECK(sim_step_predict(&s, &r2, &err) == SC_OK);
	print_result("llama3-70b FSDP dp512 full recompute", &r2);
	CHECK_REL(parts_sum(&r2), r2.step_time_s, 1e-12);
	CHECK(r2.mfu > 0.2 && r2.mfu < 0.7);
}

static void test_oom(void)
{
	struct scenario s = llama70b_p5(64);
	struct step_result r;
	struct sc_error err;

	/* Llama-3.1-405B without model parallelism cannot fit an 80 GB GPU */
	s.model = sc_fix_llama(126, 16384, 53248, 128, 8);
	data_parallel_only(&s, 512);
	CHECK(sim_step_predict(&s, &r, &err) == SC_OK);
	CHECK(r.oom);
	CHECK(r.mem_bytes[MEM_WEIGHTS] > 800e9);
	CHECK_REL(r.mem_capacity_bytes, 80e9, 0);
}

static void expect_einval(struct scenario *s, const char *pointer)
{
	struct step_result r;
	struct sc_error err;

	CHECK(sim_step_predict(s, &r, &err) == SC_EINVAL);
	CHECK_STR(err.pointer, pointer);
	CHECK(err.message[0] != '\0');
}

static void test_invalid(void)
{
	struct scenario s;
	struct step_result r;
	struct sc_error err;

	s = llama70b_p5(64);
	s.layout.dp = 8;                     /* 8*4*8 = 256 != 512 */
	expect_einval(&s, "/layout/dp");
	s = llama70b_p5(64);
	s.layout.tp = 128;                   /* 64 heads */
	s.layout.dp = 1;
	expect_einval(&s, "/layout/tp");
	s = llama70b_p5(64);
	s.training.global_batch_seqs = 500;  /* not a multiple of 16 */
	expect_einval(&s, "/training/global_batch_seqs");
	s = llama70b_p5(64);
	s.layout.schedule = SCHED_1F1B;      /* vpp 5 needs interleaving */
	expect_einval(&s, "/layout/vpp");
	s = llama70b_p5(64);
	s.layout.vpp = 25;                   /* 4 * 25 > 80 + 2 layers */
	expect_einval(&s, "/layout/vpp");
	/* interleaving with micro-batches not a multiple of pp (Megatron-Core
	 * refuses it): 512 / (1 x 16) = 32 micro-batches, so a global batch
	 * of 16 x 6 gives 6 on pp 4 */
	s = llama70b_p5(64);
	s.training.global_batch_seqs = 16 * 6;
	expect_einval(&s, "/training/global_batch_seqs");
	/* and with a multiple of pp it runs, however few */
	s.training.global_batch_seqs = 16 * 4;
	CHECK(sim_step_predict(&s, &r, &err) == SC_OK);
	/* layer_split even needs the layers to divide: 80 / (4 x 6) */
	s = llama70b_p5(64);
	s.layout.vpp = 6;
	s.layout.layer_split = SPLIT_EVEN;
	expect_einval(&s, "/layout/layer_split");
	s.layout.layer_split = SPLIT_AUTO;   /* 82 slots over 24: balanced */
	CHECK(sim_step_predict(&s, &r, &err) == SC_OK);
	/* uneven: 80 = 18 + 2 x 22 + 18 on pp 4, multiples of vpp 2 */
	s = llama70b_p5(64);
	s.layout.vpp = 2;
	s.layout.first_stage_layers = 18;
	s.layout.last_stage_layers = 18;
	CHECK(sim_step_predict(&s, &r, &err) == SC_OK);
	s.layout.first_stage_layers = 17;    /* not a multiple of vpp */
	expect_einval(&s, "/layout/first_stage_layers");
	s = llama70b_p5(64);
	s.layout.ep = 2;                     /* dense model */
	expect_einval(&s, "/layout/ep");
	s = llama70b_p5(64);
	s.layout.tp = 0;
	expect_einval(&s, "/layout/tp");
	s = llama70b_p5(64);
	s.layout.zero_stage = 4;
	expect_einval(&s, "/layout/zero_stage");
	/* a valid request the hardware cannot serve */
	s = llama70b_p5(64);
	s.training.precision = PREC_NVFP4;
	CHECK(sim_step_predict(&s, &r, &err) == SC_EUNSUPPORTED);
	CHECK_STR(err.pointer, "/training/precision");
}

/* DeepSeek-V3 (MLA, 256 experts top-8, 3 dense layers, MTP) on 1024 H100 as
 * in the Megatron-Bridge 25.09 table (tp2 pp8 vpp4 ep64, FP8, global batch
 * 8192 of 4096 tokens; measured 25.3 s per step, 1297 tokens/s/GPU). */
static void test_deepseek(void)
{
	struct scenario s = llama70b_p5(128);   /* 1024 GPUs */
	struct step_result r;
	struct sc_error err;
	bool ep_seen = false;

	s.model = sc_fix_deepseek_v3();
	s.training.seq_len = 4096;
	s.training.global_batch_seqs = 8192;
	s.training.precision = PREC_FP8;
	s.training.recompute = RECOMPUTE_NONE;
	s.layout.tp = 2;
	s.layout.pp = 8;    /* 61 layers over 32 virtual stages: uneven */
	s.layout.vpp = 4;
	s.layout.dp = 64;
	s.layout.ep = 64;
	s.layout.etp = 1;
	CHECK(sim_step_predict(&s, &r, &err) == SC_OK);
	print_result("deepseek-v3 1024 x H100 tp2 pp8 vpp4 ep64 fp8", &r);
	CHECK_REL(parts_sum(&r), r.step_time_s, 1e-12);
	CHECK(r.mfu > 0.05 && r.mfu < 0.6);
	for (int i = 0; i < r.n_collectives; i++)
		if (strcmp(r.collectives[i].what, "ep") == 0) {
			ep_seen = true;
			CHECK_STR(r.collectives[i].tier, "efa");
			CHECK(r.collectives[i].ranks == 64);
		}
	CHECK(ep_seen);
	/* overlapping the all-to-all hides some of it */
	{
		struct step_result r2;

		s.layout.ep_comm_overlap = true;
		CHECK(sim_step_predict(&s, &r2, &err) == SC_OK);
		CHECK(r2.part_s[PART_EP_COMM] < r.part_s[PART_EP_COMM]);
		s.layout.ep_comm_overlap = false;
	}
	/* ep 4 with etp 1 keeps the all-to-all inside a node */
	s.layout.ep = 4;
	CHECK(sim_step_predict(&s, &r, &err) == SC_OK);
	for (int i = 0; i < r.n_collectives; i++)
		if (strcmp(r.collectives[i].what, "ep") == 0)
			CHECK_STR(r.collectives[i].tier, "nvlink");
	/* ep must divide the experts and fold into tp*cp*dp */
	s.layout.ep = 3;
	expect_einval(&s, "/layout/ep");
	/* 126 layers on pp 16 x vpp 8 = 128 virtual stages (two hold only the
	 * embedding and the loss, as in Megatron-Bridge's 405B layouts) */
	{
		struct scenario t = llama70b_p5(64);

		t.model = sc_fix_llama(126, 16384, 53248, 128, 8);
		t.layout.tp = 4;
		t.layout.pp = 16;
		t.layout.vpp = 8;
		t.layout.dp = 8;
		CHECK(sim_step_predict(&t, &r, &err) == SC_OK);
		CHECK_REL(parts_sum(&r), r.step_time_s, 1e-12);
		t.layout.vpp = 9;
		expect_einval(&t, "/layout/vpp");
	}
	s.layout.ep = 256;
	s.layout.etp = 2;   /* 512 > tp*cp*dp = 128 */
	expect_einval(&s, "/layout/ep");
}

static void test_names(void)
{
	CHECK_STR(precision_name(PREC_MXFP8), "mxfp8");
	CHECK_STR(precision_name(PREC_NVFP4), "nvfp4");
	CHECK_STR(recompute_name(RECOMPUTE_SELECTIVE), "selective");
	CHECK_STR(schedule_name(SCHED_INTERLEAVED_1F1B), "interleaved-1f1b");
	CHECK_STR(schedule_name(SCHED_GPIPE), "gpipe");
	CHECK_STR(step_part_name(PART_DP_COMM), "dp_comm");
	CHECK_STR(mem_part_name(MEM_COMM_BUFFERS), "comm_buffers");
	CHECK_STR(bottleneck_name(BOTTLENECK_PIPELINE_BUBBLE), "pipeline_bubble");
}

/* Not pass/fail on time: how many predictions per second this build does. */
static void test_speed(void)
{
	struct scenario s = llama70b_p5(64);
	struct step_result r;
	struct sc_error err;
	int n = 20000;
	clock_t c0 = clock();
	double acc = 0, dt;

	for (int i = 0; i < n; i++) {
		s.layout.dp = 16;
		s.training.global_batch_seqs = 512 + 16 * (i & 1);
		sim_step_predict(&s, &r, &err);
		acc += r.step_time_s;
	}
	dt = (double)(clock() - c0) / CLOCKS_PER_SEC;
	fprintf(stderr, "  %d predictions in %.3f s: %.2f us each (checksum %.3g)\n",
		n, dt, 1e6 * dt / n, acc);
	CHECK(acc > 0);
}

/* Fused attention at a smaller head dimension (models/gpu.c
 * gpu_attention_head_factor) and the GEMM plateau of a part with a
 * measured achievable rate (gpu_gemm_plateau). */
static void test_attention_head_and_plateau(void)
{
	struct calibration k = sc_fix_hopper_cal();
	struct gpu_spec g;

	/* no half dimension: no dependence */
	CHECK(gpu_attention_head_factor(&k, 64) == 1.0);
	k.attn_half_head_dim = 56;
	CHECK_REL(gpu_attention_head_factor(&k, 128), 1.0, 1e-12);
	/* (64 / 120) / (128 / 184) = 0.7667: FlashAttention-3's 497 of 648 */
	CHECK_REL(gpu_attention_head_factor(&k, 64), (64.0 / 120.0) / (128.0 / 184.0), 1e-12);
	CHECK(gpu_attention_head_factor(&k, 256) > 1.15 && gpu_attention_head_factor(&k, 256) < 1.2);
	CHECK(gpu_attention_head_factor(&k, 0) == 1.0);

	memset(&g, 0, sizeof(g));
	g.peak_bf16_flops = 2.5e15;
	g.peak_fp8_flops = 5e15;
	g.hbm_GBps = 8000;
	/* not measured: the profile's plateau */
	CHECK(gpu_gemm_plateau(&g, &k, GPU_DTYPE_BF16) == k.gemm_eta_max_bf16);
	/* measured (mamf-finder on GB200): the part's */
	g.achievable_bf16_flops = 1822e12;
	CHECK_REL(gpu_gemm_plateau(&g, &k, GPU_DTYPE_BF16), 0.7288, 1e-12);
	CHECK(gpu_gemm_plateau(&g, &k, GPU_DTYPE_FP8) == k.gemm_eta_max_fp8);
	/* a profile whose plateau was fitted to GEMM sweeps keeps its own */
	strcpy(k.source[CALIB_gemm_eta_max_bf16], "fitted by stepcast calibrate fit to a sweep");
	CHECK(gpu_gemm_plateau(&g, &k, GPU_DTYPE_BF16) == k.gemm_eta_max_bf16);
	/* and the GEMM time follows the plateau */
	{
		struct gpu_time t1 = { 0, 0, 0 }, t2 = { 0, 0, 0 };

		gpu_gemm_time(&g, &k, GPU_DTYPE_BF16, 8192, 8192, 8192, 1, &t1);
		k.source[CALIB_gemm_eta_max_bf16][0] = '\0';
		gpu_gemm_time(&g, &k, GPU_DTYPE_BF16, 8192, 8192, 8192, 1, &t2);
		CHECK_REL(t2.compute_s / t1.compute_s, k.gemm_eta_max_bf16 / 0.7288, 1e-9);
	}
}

/* A full-iteration CUDA graph takes the eager launch cost off every kernel
 * time where it is computed: the forward, the backward, and the parts of it
 * other rules read on their own (the weight-gradient pass zero-bubble
 * schedules split off; the GEMM window TP overlap hides under). */
static void test_cuda_graphs(void)
{
	static struct scenario s;
	static struct step_prep eager, graphed;
	struct step_result re, rg;
	double save_bwd, save_w;

	s = llama70b_p5(16);
	s.layout.tp_comm_overlap = true;
	s.calibration.kernel_overhead_s = 20e-6;
	s.calibration.graph_kernel_overhead_s = 1e-6;
	CHECK(sim_step_prepare(&s, &eager, NULL) == SC_OK);
	CHECK(sim_step_predict(&s, &re, NULL) == SC_OK);
	s.training.cuda_graphs = CUDA_GRAPHS_FULL_ITERATION;
	CHECK(sim_step_prepare(&s, &graphed, NULL) == SC_OK);
	CHECK(sim_step_predict(&s, &rg, NULL) == SC_OK);
	CHECK(graphed.k_dense.fwd_s < eager.k_dense.fwd_s);
	CHECK(graphed.k_dense.bwd_s < eager.k_dense.bwd_s);
	save_bwd = eager.k_dense.bwd_s - graphed.k_dense.bwd_s;
	save_w = eager.k_dense.wgrad_s - graphed.k_dense.wgrad_s;
	/* the weight-gradient GEMMs save their launches too, and those are a
	 * part of what the backward saves */
	CHECK(save_w > 0);
	CHECK(save_w < save_bwd);
	CHECK(graphed.k_dense.wgrad_s < graphed.k_dense.bwd_s);
	CHECK(rg.step_time_s < re.step_time_s);
}

int main(void)
{
	RUN(test_llama70b);
	RUN(test_oom);
	RUN(test_invalid);
	RUN(test_deepseek);
	RUN(test_names);
	RUN(test_speed);
	RUN(test_attention_head_and_plateau);
	RUN(test_cuda_graphs);
	return sc_test_summary();
}
