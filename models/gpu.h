/* gpu.h: the roofline of one GPU with calibrated efficiency curves.
 *
 * An op's time is max(flops / (peak(dtype) * eta), bytes / (HBM bandwidth *
 * hbm_eta)) + a fixed per-kernel overhead.  GEMM efficiency depends on the
 * GEMM's shape (gpu_gemm_eta); flash attention has its own efficiency.  Pure
 * functions over caller-owned structs: nothing allocates, nothing to free.
 */
#ifndef SC_GPU_H
#define SC_GPU_H

#include <stdbool.h>

#include "calibration.h"
#include "catalog.h"
#include "scenario.h"
#include "status.h"

/* The tensor-core number format one GEMM runs in. */
enum gpu_dtype { GPU_DTYPE_BF16, GPU_DTYPE_FP8, GPU_DTYPE_FP4 };

/* Time of one op (or a sum of ops), split by what bounds it.  compute_s is
 * time where the tensor cores (or attention kernel) were the limit, memory_s
 * where HBM bandwidth was, launch_s the fixed per-kernel overheads.
 * time = compute_s + memory_s + launch_s. */
struct gpu_time {
	double compute_s;
	double memory_s;
	double launch_s;
};

static inline double gpu_time_total(const struct gpu_time *t)
{
	return t->compute_s + t->memory_s + t->launch_s;
}

/* a += scale * b (component-wise). */
static inline void gpu_time_add(struct gpu_time *a, const struct gpu_time *b,
				double scale)
{
	a->compute_s += scale * b->compute_s;
	a->memory_s += scale * b->memory_s;
	a->launch_s += scale * b->launch_s;
}

/* Dense peak FLOP/s of the GPU for dtype; 0 when the GPU lacks that format.
 * BF16 is the BF16 (or, if absent, FP16) peak. */
double gpu_peak_flops(const struct gpu_spec *gpu, enum gpu_dtype dtype);

/* Bytes of one element of dtype as stored for a GEMM operand (FP4 counts the
 * 4-bit payload plus one 8-bit scale per 16 elements, as NVFP4 stores it). */
double gpu_dtype_bytes(enum gpu_dtype dtype);

/* The GEMM dtype of the training precision: FP8 for fp8/mxfp8, FP4 for
 * nvfp4, else BF16.  Fails with SC_EUNSUPPORTED (pointer
 * "/training/precision") when the GPU has no such tensor-core format. */
enum sc_status gpu_training_dtype(const struct gpu_spec *gpu,
				  enum sc_precision precision,
				  enum gpu_dtype *out, struct sc_error *err);

/* The peak that MFU of a training precision is judged against: BF16 peak for
 * bf16/fp16 (the FP16 peak for fp16), FP8 for fp8/mxfp8, FP4 for nvfp4. */
double gpu_precision_peak_flops(const struct gpu_spec *gpu,
				enum sc_precision precision);

/* Fraction of the dtype's dense peak that a GEMM of shape (m, n, k) reaches:
 * eta_max(dtype) * f(m) * f(n) * f(k), f(d) = d / (d + gemm_half_dim). */
/* The plateau of a large GEMM on this part, as a fraction of its dense
 * peak: its measured maximum achievable rate (gpu_spec achievable_*,
 * catalogue facts of the part: sustained clock under its power cap) where
 * the catalogue has one and the profile's gemm_eta_max_* was not itself
 * fitted to GEMM measurements (calibrate fit), else gemm_eta_max_*.
 * gpu_gemm_time() runs the shape factors of gpu_gemm_eta() on it. */
double gpu_gemm_plateau(const struct gpu_spec *gpu, const struct calibration *cal,
			enum gpu_dtype dtype);

double gpu_gemm_eta(const struct calibration *cal, enum gpu_dtype dtype,
		    double m, double n, double k);

/* Roofline time of count identical GEMMs C[m,n] = A[m,k] B[k,n] in dtype
 * (output written in BF16), added into *acc. */
void gpu_gemm_time(const struct gpu_spec *gpu, const struct calibration *cal,
		   enum gpu_dtype dtype, double m, double n, double k,
		   double count, struct gpu_time *acc);

/* Time of a flash-attention kernel doing flops (BF16) and moving bytes,
 * at efficiency eta of the BF16 peak (attn_eta or attn_eta_portable, by
 * the kernel), added into *acc (one kernel). */
void gpu_attention_time(const struct gpu_spec *gpu,
			const struct calibration *cal, double eta, double flops,
			double bytes, struct gpu_time *acc);

/* Flash-attention efficiency at head dimension d relative to head
 * dimension 128 (where attn_eta and attn_eta_portable are given):
 * (d / (d + h)) / (128 / (128 + h)), h = attn_half_head_dim.  1 when d
 * <= 0 (unknown). */
double gpu_attention_head_factor(const struct calibration *cal, double d);

/* Time of `kernels` memory-bound kernels moving bytes in total through HBM,
 * added into *acc. */
void gpu_memory_time(const struct gpu_spec *gpu, const struct calibration *cal,
		     double bytes, double kernels, struct gpu_time *acc);

#endif
