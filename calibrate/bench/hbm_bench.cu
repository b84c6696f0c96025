/* hbm_bench.cu: HBM bandwidth: device-to-device cudaMemcpy and a
 * read-write kernel (y = a x, 16-byte vector loads and stores), counting
 * bytes read plus bytes written (2 x the buffer for both), from 1 MiB (L2
 * resident: shows the cache) to 4 GiB.  Batches of launches timed with CUDA
 * events after warm-up; the median batch gives the time.  `calibrate fit`
 * turns the sweep into hbm_eta (bandwidth over the datasheet figure).
 */
#include <algorithm>
#include <cmath>
#include <vector>

#include "bench_cuda.h"

__global__ void scale_kernel(const float4 *__restrict__ x, float4 *__restrict__ y, size_t n, float a)
{
	for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x) {
		float4 v = x[i];
		y[i] = make_float4(a * v.x, a * v.y, a * v.z, a * v.w);
	}
}

__global__ void init_kernel(float4 *p, size_t n)
{
	for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x)
		p[i] = make_float4((float)(i & 1023), 1.0f, 2.0f, 3.0f);
}

int main(int argc, char **argv)
{
	const char *prog = "sc_bench_hbm";
	bench_args a = bench_args_or_exit(argc, argv, prog,
		"HBM bandwidth: device-to-device copy and a read-write kernel, bytes read plus written.");
	int ngpu = bench_gpus_or_skip(prog), dev = a.device >= 0 ? a.device : 0, blocks;
	double lo = a.min_bytes > 0 ? a.min_bytes : 1048576.0;
	double hi = a.max_bytes > 0 ? a.max_bytes : (a.quick ? 256.0 * 1048576 : 4.0 * 1073741824);
	int warm = a.warmup > 0 ? a.warmup : (a.quick ? 2 : 5);
	int runs = a.iters > 0 ? a.iters : (a.quick ? 5 : 30);
	size_t free_b, total_b;
	cudaDeviceProp p;
	cudaEvent_t e0, e1;
	float4 *x, *y;
	cal_measurements m;
	sc_error err;

	if (dev >= ngpu) {
		std::fprintf(stderr, "%s: --device %d: this machine has %d GPU%s\n", prog, dev, ngpu, ngpu == 1 ? "" : "s");
		return 2;
	}
	CUDA_CHECK(cudaSetDevice(dev));
	CUDA_CHECK(cudaGetDeviceProperties(&p, dev));
	CUDA_CHECK(cudaMemGetInfo(&free_b, &total_b));
	hi = std::min(hi, (double)(free_b / 3));
	blocks = p.multiProcessorCount * 8;
	cal_measurements_init(&m);
	bench_provenance(&m, "stepcast sc_bench_hbm", dev, 1);
	CUDA_CHECK(cudaMalloc(&x, (size_t)hi));
	CUDA_CHECK(cudaMalloc(&y, (size_t)hi));
	init_kernel<<<blocks, 256>>>(x, (size_t)hi / sizeof(float4));
	CUDA_CHECK(cudaGetLastError());
	CUDA_CHECK(cudaMemset(y, 0, (size_t)hi));
	CUDA_CHECK(cudaEventCreate(&e0));
	CUDA_CHECK(cudaEventCreate(&e1));
	std::printf("# %s on %s\n# %-10s %14s %12s %10s\n", prog, m.prov.gpu, "kernel", "bytes r+w", "time us", "GB/s");
	for (double size = lo; size <= hi; size *= 2) {
		size_t bytes = (size_t)size / 16 * 16;
		for (int k = 0; k < 2; k++) {
			std::vector<double> per;
			int reps;
			float ms;
			cal_hbm_point h;
			auto launch = [&]() {
				if (k == 0) {
					CUDA_CHECK(cudaMemcpyAsync(y, x, bytes, cudaMemcpyDeviceToDevice, 0));
				} else {
					scale_kernel<<<blocks, 256>>>(x, y, bytes / sizeof(float4), 1.0001f);
					CUDA_CHECK(cudaGetLastError());
				}
			};
			for (int i = 0; i < warm; i++)
				launch();
			CUDA_CHECK(cudaEventRecord(e0, 0));
			launch();
			CUDA_CHECK(cudaEventRecord(e1, 0));
			CUDA_CHECK(cudaEventSynchronize(e1));
			CUDA_CHECK(cudaEventElapsedTime(&ms, e0, e1));
			reps = (int)std::min(200.0, std::max(1.0, std::round(1.0 / std::max(ms, 1e-3f))));
			for (int r = 0; r < runs; r++) {
				CUDA_CHECK(cudaEventRecord(e0, 0));
				for (int i = 0; i < reps; i++)
					launch();
				CUDA_CHECK(cudaEventRecord(e1, 0));
				CUDA_CHECK(cudaEventSynchronize(e1));
				CUDA_CHECK(cudaEventElapsedTime(&ms, e0, e1));
				per.push_back(ms * 1e-3 / reps);
			}
			std::memset(&h, 0, sizeof(h));
			std::snprintf(h.kernel, sizeof(h.kernel), "%s", k == 0 ? "copy" : "read-write");
			h.bytes = 2.0 * (double)bytes;
			h.time_s = bench_median(per.data(), (int)per.size());
			h.Bps = h.bytes / h.time_s;
			std::printf("  %-10s %14.0f %12.2f %10.1f\n", h.kernel, h.bytes, 1e6 * h.time_s, h.Bps / 1e9);
			std::fflush(stdout);
			sc_error_clear(&err);
			if (cal_add_hbm(&m, &h, &err) != SC_OK) {
				std::fprintf(stderr, "%s: %s\n", prog, err.message);
				return 1;
			}
		}
	}
	CUDA_CHECK(cudaEventDestroy(e0));
	CUDA_CHECK(cudaEventDestroy(e1));
	CUDA_CHECK(cudaFree(x));
	CUDA_CHECK(cudaFree(y));
	if (a.output && bench_write_json(a.output, &m) != 0)
		return 1;
	cal_measurements_free(&m);
	return 0;
}
