/* gpu.c: roofline with a shape-dependent GEMM efficiency (see gpu.h). */
#include "gpu.h"

double gpu_peak_flops(const struct gpu_spec *gpu, enum gpu_dtype dtype)
{
	switch (dtype) {
	case GPU_DTYPE_BF16:
		return gpu->peak_bf16_flops > 0 ? gpu->peak_bf16_flops
						: gpu->peak_fp16_flops;
	case GPU_DTYPE_FP8:
		return gpu->peak_fp8_flops;
	case GPU_DTYPE_FP4:
		return gpu->peak_fp4_flops;
	}
	return 0;
}

double gpu_dtype_bytes(enum gpu_dtype dtype)
{
	switch (dtype) {
	case GPU_DTYPE_BF16: return 2.0;
	case GPU_DTYPE_FP8: return 1.0;
	case GPU_DTYPE_FP4: return 0.5 + 1.0 / 16.0;
	}
	return 2.0;
}

enum sc_status gpu_training_dtype(const struct gpu_spec *gpu,
				  enum sc_precision precision,
				  enum gpu_dtype *out, struct sc_error *err)
{
	switch (precision) {
	case PREC_BF16:
	case PREC_FP16:
		*out = GPU_DTYPE_BF16;
		return SC_OK;
	case PREC_FP8:
	case PREC_MXFP8:
		if (gpu->peak_fp8_flops <= 0)
			return sc_error_set(err, SC_EUNSUPPORTED, NULL,
					    "/training/precision",
					    "precision \"%s\" needs FP8 tensor cores, which gpu \"%s\" lacks",
					    precision_name(precision), gpu->name);
		*out = GPU_DTYPE_FP8;
		return SC_OK;
	case PREC_NVFP4:
		if (gpu->peak_fp4_flops <= 0)
			return sc_error_set(err, SC_EUNSUPPORTED, NULL,
					    "/training/precision",
					    "precision \"nvfp4\" needs FP4 tensor cores, which gpu \"%s\" lacks",
					    gpu->name);
		*out = GPU_DTYPE_FP4;
		return SC_OK;
	}
	return sc_error_set(err, SC_EINVAL, NULL, "/training/precision",
			    "unknown precision %d", (int)precision);
}

double gpu_precision_peak_flops(const struct gpu_spec *gpu,
				enum sc_precision precision)
{
	switch (precision) {
	case PREC_FP16:
		return gpu->peak_fp16_flops > 0 ? gpu->peak_fp16_flops
						: gpu->peak_bf16_flops;
	case PREC_BF16: return gpu_peak_flops(gpu, GPU_DTYPE_BF16);
	case PREC_FP8:
	case PREC_MXFP8: return gpu_peak_flops(gpu, GPU_DTYPE_FP8);
	case PREC_NVFP4: return gpu_peak_flops(gpu, GPU_DTYPE_FP4);
	}
	return 0;
}

/* Why a product of saturating factors: a GEMM is cut into output tiles
 * (128x128..256x128 on Hopper/Blackwell) and its K loop is software
 * pipelined.  A small M or N leaves tiles partly empty and SMs idle (wave
 * quantisation); a small K leaves the pipeline prologue/epilogue unamortised.
 * Each effect alone behaves like d / (d + d_half): full speed for d >> d_half,
 * half speed at d = d_half.  Treating them as independent gives the product.
 * eta_max is the plateau: the best measured fraction of the dense peak (the
 * "maximum achievable matmul FLOPS" table of stas00/ml-engineering, see the
 * calibration profiles).  Source of the form: our choice, fitted later by
 * `calibrate fit` against GEMM sweeps; d_half is the calibration parameter
 * gemm_half_dim. */
static double eta_dim(double d, double half)
{
	if (d <= 0)
		return 0;
	return d / (d + half);
}

static double eta_max(const struct calibration *cal, enum gpu_dtype dtype)
{
	switch (dtype) {
	case GPU_DTYPE_BF16: return cal->gemm_eta_max_bf16;
	case GPU_DTYPE_FP8: return cal->gemm_eta_max_fp8;
	case GPU_DTYPE_FP4: return cal->gemm_eta_max_fp4;
	}
	return cal->gemm_eta_max_bf16;
}

double gpu_gemm_eta(const struct calibration *cal, enum gpu_dtype dtype,
		    double m, double n, double k)
{
	double h = cal->gemm_half_dim;

	return eta_max(cal, dtype) * eta_dim(m, h) * eta_dim(n, h) * eta_dim(k, h);
}

static double hbm_Bps(const struct gpu_spec *gpu, const struct calibration *cal)
{
	return gpu->hbm_GBps * 1e9 * cal->hbm_eta;
}

/* Roofline (Williams et al. 2009): an op is bound by whichever of its compute
 * time and its memory time is longer. */
static void roofline_add(double compute_s, double memory_s, double kernels,
			 const struct calibration *cal, struct gpu_time *acc)
{
	if (compute_s >= memory_s)
		acc->compute_s += compute_s;
	else
		acc->memory_s += memory_s;
	acc->launch_s += kernels * cal->kernel_overhead_s;
}

double gpu_gemm_plateau(const struct gpu_spec *gpu, const struct calibration *cal,
			enum gpu_dtype dtype)
{
	double peak = gpu_peak_flops(gpu, dtype);
	double got = dtype == GPU_DTYPE_BF16 ? gpu->achievable_bf16_flops
		     : dtype == GPU_DTYPE_FP8 ? gpu->achievable_fp8_flops : 0;

	/* a plateau fitted to GEMM measurements (calibrate fit on the user's
	 * own part) wins over the published microbenchmark of the part, which
	 * wins over the family's assumed one */
	if (calib_is_fitted(cal, dtype == GPU_DTYPE_BF16 ? CALIB_gemm_eta_max_bf16 : CALIB_gemm_eta_max_fp8))
		return eta_max(cal, dtype);
	return got > 0 && peak > 0 ? got / peak : eta_max(cal, dtype);
}

void gpu_gemm_time(const struct gpu_spec *gpu, const struct calibration *cal,
		   enum gpu_dtype dtype, double m, double n, double k,
		   double count, struct gpu_time *acc)
{
	double peak = gpu_peak_flops(gpu, dtype);
	/* the shape factors of the family's curve on this part's plateau */
	double eta = gpu_gemm_eta(cal, dtype, m, n, k) / eta_max(cal, dtype) *
		     gpu_gemm_plateau(gpu, cal, dtype);
	double eb = gpu_dtype_bytes(dtype);
	double flops, bytes, tc, tm;

	if (count <= 0 || m <= 0 || n <= 0 || k <= 0)
		return;
	flops = 2.0 * m * n * k * count;
	/* operands in dtype, output in BF16 */
	bytes = ((m * k + k * n) * eb + m * n * 2.0) * count;
	tc = (peak > 0 && eta > 0) ? flops / (peak * eta) : 0;
	tm = bytes / hbm_Bps(gpu, cal);
	/* a grouped GEMM (MoE experts) is one kernel for all count GEMMs */
	roofline_add(tc, tm, 1.0, cal, acc);
}

void gpu_attention_time(const struct gpu_spec *gpu,
			const struct calibration *cal, double eta, double flops,
			double bytes, struct gpu_time *acc)
{
	double peak = gpu_peak_flops(gpu, GPU_DTYPE_BF16);
	double tc = flops / (peak * eta);
	double tm = bytes / hbm_Bps(gpu, cal);

	if (flops <= 0 && bytes <= 0)
		return;
	roofline_add(tc, tm, 1.0, cal, acc);
}

/* Why d / (d + h): a flash-attention tile does 2 x block_q x block_k x d
 * FLOPs of MMA per score block for both matmuls, but its softmax (exp,
 * max, rescale) costs the same per score whatever d, and runs on the
 * special-function units beside the tensor cores: the MMA share of the
 * tile's time grows with d.  FlashAttention-3 forward BF16 on H100
 * (Shah et al. 2024, fig. 5, read off approximately, 16k tokens, no
 * causal mask): about 497, 648 and 756 TFLOP/s at head dimension 64, 128
 * and 256, which this form reproduces within 3 % with h about 56. */
double gpu_attention_head_factor(const struct calibration *cal, double d)
{
	double h = cal->attn_half_head_dim;

	if (!(d > 0) || !(h > 0))
		return 1.0;
	return (d / (d + h)) / (128.0 / (128.0 + h));
}

void gpu_memory_time(const struct gpu_spec *gpu, const struct calibration *cal,
		     double bytes, double kernels, struct gpu_time *acc)
{
	if (bytes <= 0 && kernels <= 0)
		return;
	acc->memory_s += bytes / hbm_Bps(gpu, cal);
	acc->launch_s += kernels * cal->kernel_overhead_s;
}
