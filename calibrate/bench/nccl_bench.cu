/* nccl_bench.cu: NCCL collectives across all GPUs of this machine, from one
 * process (ncclCommInitAll): all-reduce, all-gather, reduce-scatter,
 * all-to-all (a group of send/recv to every peer, as NCCL runs it) and
 * send/recv around a ring, from 8 B to 8 GiB (or what memory allows),
 * printing nccl-tests' columns (size, count, type, redop, root, time,
 * algbw, busbw, #wrong, out-of-place then in-place where NCCL has an
 * in-place form) so that `calibrate ingest` reads this output and
 * nccl-tests' alike.  "size" follows nccl-tests: the whole buffer for
 * all-reduce, the gathered buffer for all-gather and reduce-scatter, one
 * rank's send buffer for all-to-all, the message for send/recv.  Timing as
 * nccl-tests: warm-up, then `iters` launches of the collective on every
 * GPU, a synchronisation of every stream, wall time / iters.  Results are
 * not checked (#wrong is N/A).  With one GPU there is nothing to measure:
 * it says so and exits 77.
 */
#include <nccl.h>

#include <algorithm>
#include <chrono>
#include <string>
#include <vector>

#include "bench_cuda.h"

#define NCCL_CHECK(call) do { \
	ncclResult_t r_ = (call); \
	if (r_ != ncclSuccess) { \
		std::fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #call, ncclGetErrorString(r_)); \
		std::exit(1); \
	} \
} while (0)

enum op_kind { AR, AG, RS, A2A, SR };

struct op_info {
	op_kind kind;
	const char *name, *redop;
	bool has_inplace;
};

struct ctx {
	int n;
	std::vector<ncclComm_t> comms;
	std::vector<cudaStream_t> streams;
	std::vector<float *> send, recv;
};

/* Elements per rank for a requested size, and the size nccl-tests reports. */
static void counts(op_kind k, int n, double want, size_t *count, double *bytes)
{
	size_t c = (size_t)(want / 4);

	if (k == AG || k == RS || k == A2A)
		c = std::max<size_t>(1, c / n); /* per rank (per peer for all-to-all) */
	if (c == 0)
		c = 1;
	*count = c;
	*bytes = (k == AG || k == RS || k == A2A) ? 4.0 * c * n : 4.0 * c;
}

static void launch(ctx &x, op_kind k, size_t c, bool inplace)
{
	NCCL_CHECK(ncclGroupStart());
	for (int r = 0; r < x.n; r++) {
		float *s = x.send[r], *d = x.recv[r];
		switch (k) {
		case AR:
			NCCL_CHECK(ncclAllReduce(s, inplace ? s : d, c, ncclFloat, ncclSum, x.comms[r], x.streams[r]));
			break;
		case AG:
			NCCL_CHECK(ncclAllGather(inplace ? d + (size_t)r * c : s, d, c, ncclFloat, x.comms[r],
						 x.streams[r]));
			break;
		case RS:
			NCCL_CHECK(ncclReduceScatter(s, inplace ? s + (size_t)r * c : d, c, ncclFloat, ncclSum,
						     x.comms[r], x.streams[r]));
			break;
		case A2A:
			for (int p = 0; p < x.n; p++) {
				NCCL_CHECK(ncclSend(s + (size_t)p * c, c, ncclFloat, p, x.comms[r], x.streams[r]));
				NCCL_CHECK(ncclRecv(d + (size_t)p * c, c, ncclFloat, p, x.comms[r], x.streams[r]));
			}
			break;
		case SR:
			NCCL_CHECK(ncclSend(s, c, ncclFloat, (r + 1) % x.n, x.comms[r], x.streams[r]));
			NCCL_CHECK(ncclRecv(d, c, ncclFloat, (r + x.n - 1) % x.n, x.comms[r], x.streams[r]));
			break;
		}
	}
	NCCL_CHECK(ncclGroupEnd());
}

static void sync_all(ctx &x)
{
	for (int r = 0; r < x.n; r++) {
		CUDA_CHECK(cudaSetDevice(r));
		CUDA_CHECK(cudaStreamSynchronize(x.streams[r]));
	}
}

static double time_op(ctx &x, op_kind k, size_t c, bool inplace, int warm, int iters)
{
	for (int i = 0; i < warm; i++)
		launch(x, k, c, inplace);
	sync_all(x);
	auto t0 = std::chrono::steady_clock::now();
	for (int i = 0; i < iters; i++)
		launch(x, k, c, inplace);
	sync_all(x);
	auto t1 = std::chrono::steady_clock::now();
	return std::chrono::duration<double>(t1 - t0).count() / iters;
}

static double busbw_factor(op_kind k, int n)
{
	switch (k) {
	case AR: return 2.0 * (n - 1) / n;
	case AG: case RS: case A2A: return (double)(n - 1) / n;
	case SR: return 1.0;
	}
	return 1.0;
}

int main(int argc, char **argv)
{
	const char *prog = "sc_bench_nccl";
	bench_args a = bench_args_or_exit(argc, argv, prog,
		"NCCL all-reduce, all-gather, reduce-scatter, all-to-all and send/recv across this machine's GPUs.");
	int n = bench_gpus_or_skip(prog), nccl = 0;
	double lo = a.min_bytes > 0 ? a.min_bytes : 8.0;
	double hi = a.max_bytes > 0 ? a.max_bytes : (a.quick ? 16.0 * 1048576 : 8.0 * 1073741824);
	int warm = a.warmup > 0 ? a.warmup : (a.quick ? 2 : 5);
	static const op_info ops[] = {
		{ AR, "all_reduce", "sum", true }, { AG, "all_gather", "none", true },
		{ RS, "reduce_scatter", "sum", true }, { A2A, "all_to_all", "none", false },
		{ SR, "send_recv", "none", false },
	};
	std::vector<std::string> names, buses;
	std::vector<const char *> name_p, bus_p;
	char host[128] = "localhost";
	size_t free_b = 0, total_b = 0;
	cal_measurements m;
	sc_error err;
	ctx x;

	if (n < 2) {
		std::printf("%s: %d GPU on this machine: NCCL collectives need two or more; nothing measured\n",
			    prog, n);
		return BENCH_EXIT_SKIP;
	}
	if (gethostname(host, sizeof(host) - 1) != 0)
		std::snprintf(host, sizeof(host), "localhost");
	cal_measurements_init(&m);
	bench_provenance(&m, "stepcast sc_bench_nccl (ncclCommInitAll)", 0, n);
	NCCL_CHECK(ncclGetVersion(&nccl));
	std::snprintf(m.prov.nccl, sizeof(m.prov.nccl), "%d.%d.%d", nccl / 10000, nccl / 100 % 100, nccl % 100);
	x.n = n;
	x.comms.resize(n);
	x.streams.resize(n);
	x.send.resize(n);
	x.recv.resize(n);
	for (int r = 0; r < n; r++) {
		cudaDeviceProp p;
		char bus[32];
		CUDA_CHECK(cudaSetDevice(r));
		CUDA_CHECK(cudaGetDeviceProperties(&p, r));
		CUDA_CHECK(cudaDeviceGetPCIBusId(bus, sizeof(bus), r));
		names.push_back(p.name);
		buses.push_back(bus);
		CUDA_CHECK(cudaMemGetInfo(&free_b, &total_b));
		/* send and receive buffers of the largest size, with room left */
		hi = std::min(hi, (double)(free_b / 5 * 2));
	}
	for (int r = 0; r < n; r++) {
		name_p.push_back(names[r].c_str());
		bus_p.push_back(buses[r].c_str());
		CUDA_CHECK(cudaSetDevice(r));
		CUDA_CHECK(cudaStreamCreateWithFlags(&x.streams[r], cudaStreamNonBlocking));
		CUDA_CHECK(cudaMalloc(&x.send[r], (size_t)hi + 4096));
		CUDA_CHECK(cudaMalloc(&x.recv[r], (size_t)hi + 4096));
		CUDA_CHECK(cudaMemset(x.send[r], 0, (size_t)hi + 4096));
		CUDA_CHECK(cudaMemset(x.recv[r], 0, (size_t)hi + 4096));
	}
	NCCL_CHECK(ncclCommInitAll(x.comms.data(), n, NULL));
	for (const op_info &o : ops) {
		cal_curve c;
		double sum_busbw = 0;
		int rows = 0;

		std::memset(&c, 0, sizeof(c));
		std::snprintf(c.op, sizeof(c.op), "%s", o.name);
		std::snprintf(c.dtype, sizeof(c.dtype), "float");
		std::snprintf(c.redop, sizeof(c.redop), "%s", o.redop);
		c.ranks = n;
		c.nodes = 1;
		c.gpus_per_node = n;
		std::snprintf(c.gpu, sizeof(c.gpu), "%s", names[0].c_str());
		std::snprintf(c.source, sizeof(c.source), "%s on %s", prog, host);
		bench_nccl_header(stdout, o.name, n, lo, hi, warm, a.iters > 0 ? a.iters : 20, host,
				  name_p.data(), bus_p.data(), o.has_inplace);
		for (double want = lo; want <= hi; want *= 2) {
			size_t count;
			double bytes;
			cal_coll_point pt;
			/* fewer repetitions where one takes long (nccl-tests' default is 20) */
			int iters = a.iters > 0 ? a.iters : (want > 1073741824.0 ? 5 : (a.quick ? 5 : 20));

			counts(o.kind, n, want, &count, &bytes);
			if (bytes > hi)
				break;
			std::memset(&pt, 0, sizeof(pt));
			pt.bytes = bytes;
			pt.count = o.kind == AR || o.kind == SR ? (double)count : (double)count * n;
			pt.wrong = pt.inplace_wrong = -1;
			pt.time_s = time_op(x, o.kind, count, false, warm, iters);
			pt.algbw_GBps = bytes / pt.time_s / 1e9;
			pt.busbw_GBps = pt.algbw_GBps * busbw_factor(o.kind, n);
			if (o.has_inplace) {
				pt.inplace_time_s = time_op(x, o.kind, count, true, warm, iters);
				pt.inplace_algbw_GBps = bytes / pt.inplace_time_s / 1e9;
				pt.inplace_busbw_GBps = pt.inplace_algbw_GBps * busbw_factor(o.kind, n);
			}
			bench_nccl_row(stdout, bytes, pt.count, "float", o.redop, -1, &pt, o.has_inplace);
			std::fflush(stdout);
			sum_busbw += pt.busbw_GBps;
			rows++;
			sc_error_clear(&err);
			if (cal_curve_add_point(&c, &pt, &err) != SC_OK) {
				std::fprintf(stderr, "%s: %s\n", prog, err.message);
				return 1;
			}
		}
		bench_nccl_footer(stdout, o.name, rows ? sum_busbw / rows : 0);
		sc_error_clear(&err);
		if (rows && cal_add_curve(&m, &c, &err) != SC_OK) {
			std::fprintf(stderr, "%s: %s\n", prog, err.message);
			return 1;
		}
		std::free(c.points);
	}
	for (int r = 0; r < n; r++) {
		NCCL_CHECK(ncclCommDestroy(x.comms[r]));
		CUDA_CHECK(cudaSetDevice(r));
		CUDA_CHECK(cudaStreamDestroy(x.streams[r]));
		CUDA_CHECK(cudaFree(x.send[r]));
		CUDA_CHECK(cudaFree(x.recv[r]));
	}
	if (a.output && bench_write_json(a.output, &m) != 0)
		return 1;
	cal_measurements_free(&m);
	return 0;
}
