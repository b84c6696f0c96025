/* gemm_bench.cu: cuBLASLt GEMM sweep, BF16 and FP8 (E4M3, where the GPU
 * has it), over the shapes transformer layers produce and square sizes.
 *
 * Method: D[M,N] = A^T[M,K] B[K,N] in the TN layout FP8 needs (the same for
 * BF16 so the two compare), FP32 accumulation, BF16 output.  Inputs are
 * random (a hash per element, not zeros: zeros let the tensor cores idle
 * and flatter the figure) and rotated over enough copies that the working
 * set exceeds three times the L2 cache, so a repeat does not find its
 * operands cached.  cuBLASLt's heuristic picks the kernel (64 MiB of
 * workspace).  After warm-up, batches of launches are timed with CUDA events
 * and the median batch gives the time per GEMM.
 *
 * Shapes: for M tokens (8192: a micro-batch of 8k sequence) through a
 * Llama-3-70B-like layer (hidden 8192, 64 heads, 8 KV heads of 128, FFN
 * 28672, vocabulary 128256): QKV, attention out, MLP up (gate and up
 * fused) and down, logits; MoE expert GEMMs of a DeepSeek-V3-like layer
 * (hidden 7168, expert FFN 2048, ~1k tokens per expert); squares 512 to
 * 16384.  Output: a table and, with --output, measurements JSON.
 */
#include <cublasLt.h>
#include <cuda_bf16.h>
#include <cuda_fp8.h>

#include <algorithm>
#include <cmath>
#include <vector>

#include "bench_cuda.h"

#define CUBLAS_CHECK(call) do { \
	cublasStatus_t s_ = (call); \
	if (s_ != CUBLAS_STATUS_SUCCESS) { \
		std::fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #call, \
			     cublasLtGetStatusString(s_)); \
		std::exit(1); \
	} \
} while (0)

struct shape {
	const char *label;
	long m, n, k;
};

/* Uniform in [-1, 1) from the element index and a seed (splitmix64). */
__device__ static float rnd(unsigned long long i, unsigned long long seed)
{
	unsigned long long z = i + seed * 0x9E3779B97F4A7C15ull;
	z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
	z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
	z ^= z >> 31;
	return (float)(z >> 40) / (float)(1ull << 23) - 1.0f;
}

__global__ void fill_bf16(__nv_bfloat16 *p, size_t n, unsigned long long seed)
{
	for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x)
		p[i] = __float2bfloat16(rnd(i, seed));
}

__global__ void fill_fp8(__nv_fp8_e4m3 *p, size_t n, unsigned long long seed)
{
	for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x)
		p[i] = __nv_fp8_e4m3(rnd(i, seed));
}

static void fill(void *p, size_t n, bool fp8, unsigned long long seed)
{
	if (fp8)
		fill_fp8<<<1024, 256>>>((__nv_fp8_e4m3 *)p, n, seed);
	else
		fill_bf16<<<1024, 256>>>((__nv_bfloat16 *)p, n, seed);
	CUDA_CHECK(cudaGetLastError());
}

struct gemm_result {
	bool ok;
	double time_s;
	int sets;
};

static gemm_result time_gemm(cublasLtHandle_t lt, const shape &s, bool fp8, const bench_args &a,
			     size_t l2_bytes, void *ws, size_t ws_bytes)
{
	gemm_result r = { false, 0, 0 };
	cudaDataType_t ab = fp8 ? CUDA_R_8F_E4M3 : CUDA_R_16BF;
	size_t eb = fp8 ? 1 : 2;
	size_t a_bytes = (size_t)s.m * s.k * eb, b_bytes = (size_t)s.k * s.n * eb, d_bytes = (size_t)s.m * s.n * 2;
	size_t set_bytes = a_bytes + b_bytes + d_bytes, free_b = 0, total_b = 0;
	int sets;
	cublasLtMatmulDesc_t op;
	cublasLtMatrixLayout_t la, lb, ld;
	cublasLtMatmulPreference_t pref;
	cublasLtMatmulHeuristicResult_t heur;
	int found = 0;
	cublasOperation_t ta = CUBLAS_OP_T, tb = CUBLAS_OP_N;
	float alpha = 1.0f, beta = 0.0f;
	std::vector<void *> A, B, D;
	cudaEvent_t e0, e1;
	int warm = a.warmup > 0 ? a.warmup : (a.quick ? 3 : 10);
	int runs = a.iters > 0 ? a.iters : (a.quick ? 5 : 30);
	std::vector<double> per;
	float ms;
	int reps = 1;

	CUDA_CHECK(cudaMemGetInfo(&free_b, &total_b));
	sets = (int)std::min<size_t>(16, std::max<size_t>(1, (3 * l2_bytes + set_bytes - 1) / set_bytes));
	while (sets > 1 && (size_t)sets * set_bytes > free_b / 2)
		sets--;
	if (set_bytes > free_b * 9 / 10) {
		std::printf("  %s %ldx%ldx%ld: needs %.1f GiB, %.1f GiB free: skipped\n", s.label, s.m, s.n, s.k,
			    set_bytes / 1073741824.0, free_b / 1073741824.0);
		return r;
	}
	for (int i = 0; i < sets; i++) {
		void *pa, *pb, *pd;
		CUDA_CHECK(cudaMalloc(&pa, a_bytes));
		CUDA_CHECK(cudaMalloc(&pb, b_bytes));
		CUDA_CHECK(cudaMalloc(&pd, d_bytes));
		fill(pa, a_bytes / eb, fp8, 2 * i + 1);
		fill(pb, b_bytes / eb, fp8, 2 * i + 2);
		A.push_back(pa);
		B.push_back(pb);
		D.push_back(pd);
	}
	CUBLAS_CHECK(cublasLtMatmulDescCreate(&op, CUBLAS_COMPUTE_32F, CUDA_R_32F));
	CUBLAS_CHECK(cublasLtMatmulDescSetAttribute(op, CUBLASLT_MATMUL_DESC_TRANSA, &ta, sizeof(ta)));
	CUBLAS_CHECK(cublasLtMatmulDescSetAttribute(op, CUBLASLT_MATMUL_DESC_TRANSB, &tb, sizeof(tb)));
	CUBLAS_CHECK(cublasLtMatrixLayoutCreate(&la, ab, s.k, s.m, s.k));
	CUBLAS_CHECK(cublasLtMatrixLayoutCreate(&lb, ab, s.k, s.n, s.k));
	CUBLAS_CHECK(cublasLtMatrixLayoutCreate(&ld, CUDA_R_16BF, s.m, s.n, s.m));
	CUBLAS_CHECK(cublasLtMatmulPreferenceCreate(&pref));
	CUBLAS_CHECK(cublasLtMatmulPreferenceSetAttribute(pref, CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES,
							  &ws_bytes, sizeof(ws_bytes)));
	CUBLAS_CHECK(cublasLtMatmulAlgoGetHeuristic(lt, op, la, lb, ld, ld, pref, 1, &heur, &found));
	if (found == 0) {
		std::printf("  %s %s %ldx%ldx%ld: cuBLASLt has no kernel: skipped\n", fp8 ? "fp8" : "bf16",
			    s.label, s.m, s.n, s.k);
	} else {
		auto launch = [&](int i) {
			int k = i % sets;
			CUBLAS_CHECK(cublasLtMatmul(lt, op, &alpha, A[k], la, B[k], lb, &beta, D[k], ld, D[k], ld,
						    &heur.algo, ws, ws_bytes, 0));
		};
		CUDA_CHECK(cudaEventCreate(&e0));
		CUDA_CHECK(cudaEventCreate(&e1));
		for (int i = 0; i < warm; i++)
			launch(i);
		/* size a batch to about a millisecond so event overhead is small */
		CUDA_CHECK(cudaEventRecord(e0, 0));
		launch(0);
		CUDA_CHECK(cudaEventRecord(e1, 0));
		CUDA_CHECK(cudaEventSynchronize(e1));
		CUDA_CHECK(cudaEventElapsedTime(&ms, e0, e1));
		reps = (int)std::min(100.0, std::max(1.0, std::round(1.0 / std::max(ms, 1e-3f))));
		for (int run = 0; run < runs; run++) {
			CUDA_CHECK(cudaEventRecord(e0, 0));
			for (int i = 0; i < reps; i++)
				launch(run * reps + i + 1);
			CUDA_CHECK(cudaEventRecord(e1, 0));
			CUDA_CHECK(cudaEventSynchronize(e1));
			CUDA_CHECK(cudaEventElapsedTime(&ms, e0, e1));
			per.push_back(ms * 1e-3 / reps);
		}
		r.time_s = bench_median(per.data(), (int)per.size());
		r.ok = true;
		r.sets = sets;
		CUDA_CHECK(cudaEventDestroy(e0));
		CUDA_CHECK(cudaEventDestroy(e1));
	}
	CUBLAS_CHECK(cublasLtMatmulPreferenceDestroy(pref));
	CUBLAS_CHECK(cublasLtMatrixLayoutDestroy(la));
	CUBLAS_CHECK(cublasLtMatrixLayoutDestroy(lb));
	CUBLAS_CHECK(cublasLtMatrixLayoutDestroy(ld));
	CUBLAS_CHECK(cublasLtMatmulDescDestroy(op));
	for (int i = 0; i < sets; i++) {
		CUDA_CHECK(cudaFree(A[i]));
		CUDA_CHECK(cudaFree(B[i]));
		CUDA_CHECK(cudaFree(D[i]));
	}
	return r;
}

int main(int argc, char **argv)
{
	const char *prog = "sc_bench_gemm";
	bench_args a = bench_args_or_exit(argc, argv, prog,
		"cuBLASLt GEMM sweep (BF16 and FP8 E4M3) over transformer-layer and square shapes.");
	int ngpu = bench_gpus_or_skip(prog), dev = a.device >= 0 ? a.device : 0;
	const long T = 8192; /* tokens of one micro-batch */
	std::vector<shape> shapes = {
		{ "qkv", T, 10240, 8192 }, { "attn-out", T, 8192, 8192 }, { "mlp-up", T, 57344, 8192 },
		{ "mlp-down", T, 8192, 28672 }, { "logits", T, 128256, 8192 },
		{ "moe-expert-up", 1024, 4096, 7168 }, { "moe-expert-down", 1024, 7168, 2048 },
		{ "square", 512, 512, 512 }, { "square", 1024, 1024, 1024 }, { "square", 2048, 2048, 2048 },
		{ "square", 4096, 4096, 4096 }, { "square", 8192, 8192, 8192 }, { "square", 16384, 16384, 16384 },
	};
	cudaDeviceProp p;
	cublasLtHandle_t lt;
	void *ws;
	size_t ws_bytes = 64u << 20;
	cal_measurements m;
	sc_error err;

	if (dev >= ngpu) {
		std::fprintf(stderr, "%s: --device %d: this machine has %d GPU%s\n", prog, dev, ngpu, ngpu == 1 ? "" : "s");
		return 2;
	}
	if (a.quick)
		shapes = { { "attn-out", 2048, 8192, 8192 }, { "moe-expert-down", 1024, 7168, 2048 },
			   { "square", 1024, 1024, 1024 }, { "square", 4096, 4096, 4096 } };
	CUDA_CHECK(cudaSetDevice(dev));
	CUDA_CHECK(cudaGetDeviceProperties(&p, dev));
	cal_measurements_init(&m);
	bench_provenance(&m, "stepcast sc_bench_gemm (cuBLASLt)", dev, 1);
	{
		size_t v = cublasLtGetVersion();
		size_t len = std::strlen(m.prov.cuda);
		std::snprintf(m.prov.cuda + len, sizeof(m.prov.cuda) - len, ", cuBLASLt %zu", v);
	}
	CUBLAS_CHECK(cublasLtCreate(&lt));
	CUDA_CHECK(cudaMalloc(&ws, ws_bytes));
	std::printf("# %s on %s, L2 %.0f MiB\n", prog, m.prov.gpu, p.l2CacheSize / 1048576.0);
	std::printf("# %-5s %-16s %7s %7s %7s %12s %10s %5s\n", "dtype", "shape", "M", "N", "K", "time us",
		    "TFLOP/s", "sets");
	for (int f = 0; f < 2; f++) {
		bool fp8 = f == 1;
		if (fp8 && (p.major * 10 + p.minor) < 89) {
			std::printf("# FP8: sm_%d%d has no FP8 tensor cores (sm_89 or later): skipped\n", p.major, p.minor);
			continue;
		}
		for (const shape &s : shapes) {
			gemm_result r = time_gemm(lt, s, fp8, a, (size_t)p.l2CacheSize, ws, ws_bytes);
			cal_gemm_point g;
			if (!r.ok)
				continue;
			std::memset(&g, 0, sizeof(g));
			std::snprintf(g.dtype, sizeof(g.dtype), "%s", fp8 ? "fp8" : "bf16");
			std::snprintf(g.label, sizeof(g.label), "%s", s.label);
			g.m = (double)s.m;
			g.n = (double)s.n;
			g.k = (double)s.k;
			g.time_s = r.time_s;
			g.flops_per_s = 2.0 * g.m * g.n * g.k / r.time_s;
			std::printf("  %-5s %-16s %7ld %7ld %7ld %12.2f %10.1f %5d\n", g.dtype, s.label, s.m, s.n,
				    s.k, 1e6 * r.time_s, g.flops_per_s / 1e12, r.sets);
			std::fflush(stdout);
			sc_error_clear(&err);
			if (cal_add_gemm(&m, &g, &err) != SC_OK) {
				std::fprintf(stderr, "%s: %s\n", prog, err.message);
				return 1;
			}
		}
	}
	CUDA_CHECK(cudaFree(ws));
	CUBLAS_CHECK(cublasLtDestroy(lt));
	if (a.output && bench_write_json(a.output, &m) != 0)
		return 1;
	cal_measurements_free(&m);
	return 0;
}
