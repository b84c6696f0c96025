/* bench_cuda.h: what the CUDA microbenchmarks share (CUDA C++, header
 * only): checked calls, finding a GPU (or exiting 77), provenance.
 *
 * Every CUDA, cuBLASLt and NCCL call goes through CUDA_CHECK / CUBLAS_CHECK
 * / NCCL_CHECK: on failure the program prints the call, the file and line
 * and the library's message, and exits 1.  These are programs: printing and
 * exiting is their job.
 */
#ifndef SC_BENCH_CUDA_H
#define SC_BENCH_CUDA_H

#include <cstdio>
#include <cstdlib>
#include <cstring>

#include <cuda_runtime.h>
#include <unistd.h>

#include "bench_common.h"

#define CUDA_CHECK(call) do { \
	cudaError_t e_ = (call); \
	if (e_ != cudaSuccess) { \
		std::fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #call, cudaGetErrorString(e_)); \
		std::exit(1); \
	} \
} while (0)

/* The GPUs of this machine, or exit 77 saying why there are none. */
static inline int bench_gpus_or_skip(const char *prog)
{
	int n = 0;
	cudaError_t e = cudaGetDeviceCount(&n);

	if (e != cudaSuccess || n == 0) {
		std::printf("%s: no CUDA GPU on this machine (cudaGetDeviceCount: %s): nothing measured\n", prog,
			    e != cudaSuccess ? cudaGetErrorString(e) : "0 devices");
		std::fflush(stdout);
		std::exit(BENCH_EXIT_SKIP);
	}
	return n;
}

/* GPU name, driver API and runtime versions, host, date into m->prov. */
static inline void bench_provenance(struct cal_measurements *m, const char *tool, int device, int gpus)
{
	cudaDeviceProp p;
	int drv = 0, rt = 0;

	CUDA_CHECK(cudaGetDeviceProperties(&p, device));
	CUDA_CHECK(cudaDriverGetVersion(&drv));
	CUDA_CHECK(cudaRuntimeGetVersion(&rt));
	std::snprintf(m->prov.tool, sizeof(m->prov.tool), "%s", tool);
	bench_now(m->prov.created, sizeof(m->prov.created));
	std::snprintf(m->prov.gpu, sizeof(m->prov.gpu), "%s (sm_%d%d, %.0f GiB)", p.name, p.major,
		      p.minor, p.totalGlobalMem / 1073741824.0);
	m->prov.gpus = gpus;
	std::snprintf(m->prov.driver, sizeof(m->prov.driver), "CUDA driver API %d.%d", drv / 1000,
		      drv % 1000 / 10);
	std::snprintf(m->prov.cuda, sizeof(m->prov.cuda), "runtime %d.%d", rt / 1000, rt % 1000 / 10);
	if (gethostname(m->prov.host, sizeof(m->prov.host)) != 0)
		m->prov.host[0] = '\0';
	m->prov.host[sizeof(m->prov.host) - 1] = '\0';
}

/* Parse the command line or exit (0 after --help, 2 on a usage error). */
static inline struct bench_args bench_args_or_exit(int argc, char **argv, const char *prog,
						   const char *what)
{
	struct bench_args a;
	char msg[256];
	int rc = bench_parse_args(argc, argv, prog, what, &a, stdout, msg, sizeof(msg));

	if (rc == 1)
		std::exit(0);
	if (rc == 2) {
		std::fprintf(stderr, "%s: %s (see --help)\n", prog, msg);
		std::exit(2);
	}
	return a;
}

#endif
