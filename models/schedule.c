/* schedule.c: the pipeline schedules (see schedule.h).
 *
 * Notation: F, B, W are one micro-batch's forward, input-gradient backward
 * and weight-gradient backward on a stage (all its chunks), T = F + B + W;
 * per chunk they are F / v etc.  Every closed form below is the makespan of
 * the row's op order for equal stages (tests/unit/test_schedule.c replays
 * the orders with sched_replay over p, v, m and F:B:W); unequal stages
 * (embedding, logits, dense-first MoE layers) scale the fill and drain by
 * (sum(T_s) - max(T_s)) / ((p - 1) max(T_s)), which is exact for the
 * schedules whose bubble is (p - 1) / v stage times.
 */
#include "schedule.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- helpers ---------------------------------------------------------------- */

static bool fail(char *why, size_t n, const char *fmt, ...)
{
	va_list ap;

	if (why && n > 0) {
		va_start(ap, fmt);
		vsnprintf(why, n, fmt, ap);
		va_end(ap);
	}
	return false;
}

/* m == 0: micro-batches not known (only the shape rules apply). */
static bool check_basic(int p, int v, int m, char *why, size_t n)
{
	if (p < 1 || v < 1 || m < 0)
		return fail(why, n, "pp \"%d\", vpp \"%d\" and micro-batches per step \"%d\" must be >= 1", p, v, m);
	return true;
}

/* Split of the critical stage: F, B, W of one micro-batch. */
static void split(const struct sched_in *in, double *f, double *b, double *w)
{
	double t = in->stage_max_s;

	if (in->fwd_max_s <= 0 && in->wgrad_max_s <= 0) {
		*f = *w = t / 3.0;
	} else {
		*f = in->fwd_max_s;
		*w = in->wgrad_max_s;
	}
	*b = t - *f - *w;
	if (*b < 0)
		*b = 0;
}

/* Fill and drain of unequal stages relative to equal ones at the slowest
 * stage's time: 1 for equal stages. */
static double hetero(const struct sched_in *in)
{
	double r;

	if (in->p <= 1 || in->stage_max_s <= 0)
		return 0;
	r = (in->stage_sum_s - in->stage_max_s) / ((in->p - 1) * in->stage_max_s);
	return r < 0 ? 0 : r > 1 ? 1 : r;
}

/* The bubble of unequal stages for the schedules whose heavy rank (ZB-V's
 * rank 0 holds the embedding and the logits, DualPipe's end ranks both)
 * is fed by lighter ones: the bubble falls on the ranks that wait, so the
 * step is the longer of the slowest rank's work and a mean rank's work
 * plus the equal-stage bubble t. */
static double fed_rank(const struct sched_in *in, double t)
{
	double m = in->m > 0 ? in->m : 1, mean = in->p > 0 ? in->stage_sum_s / in->p : 0;

	return fmax(m * mean + t, m * in->stage_max_s) - m * in->stage_max_s;
}

static void finish_out(const struct sched_in *in, double bubble, struct sched_out *out)
{
	double m = in->m > 0 ? in->m : 1;

	if (bubble < 0)
		bubble = 0;
	out->busy_s = m * in->stage_max_s;
	out->bubble_s = in->p > 1 ? bubble : 0;
	out->time_s = out->busy_s + out->bubble_s;
	out->bubble_fraction = out->busy_s > 0 ? out->bubble_s / out->busy_s : 0;
}

static void push(struct sched_op *ops, int *n, int kind, int chunk, int mb)
{
	ops[*n].kind = (unsigned char)kind;
	ops[*n].fused = 0;
	ops[*n].chunk = (short)chunk;
	ops[*n].mb = mb;
	(*n)++;
}

static int imin(int a, int b)
{
	return a < b ? a : b;
}

/* ---- GPipe ---------------------------------------------------------------- */

/* Megatron-Core runs virtual pipeline stages only with the interleaved
 * schedule (virtual_pipeline_model_parallel_size selects it). */
static bool check_v1(const char *name, int p, int v, int m, char *why, size_t n)
{
	if (!check_basic(p, v, m, why, n))
		return false;
	if (v != 1)
		return fail(why, n, "vpp \"%d\" needs schedule interleaved-1f1b or zb-v, not %s "
			    "(Megatron-Core runs virtual stages only with a virtual-stage schedule)", v, name);
	return true;
}

static bool check_gpipe(int p, int v, int m, char *why, size_t n)
{
	return check_v1("gpipe", p, v, m, why, n);
}

/* All forwards, then all backwards: stage s finishes its last forward at
 * (m + s) F and the last backward reaches stage 0 after p - 1 more hops:
 * (m + p - 1) T (Huang et al. 2019). */
static void step_fill(const struct sched_in *in, struct sched_out *out)
{
	double v = in->v > 0 ? in->v : 1;

	finish_out(in, (in->p - 1) * in->stage_max_s / v * hetero(in), out);
}

static double bound_fill(int p, int v, int m, double f, double b, double w)
{
	(void)m;
	return (p - 1) * (f + b + w) / v;
}

static int order_gpipe(int p, int v, int m, int stage, struct sched_op *ops)
{
	int n = 0;

	(void)p;
	(void)v;
	(void)stage;
	for (int i = 0; i < m; i++)
		push(ops, &n, SCHED_OP_F, 0, i);
	for (int i = 0; i < m; i++)
		push(ops, &n, SCHED_OP_BW, 0, i);
	return n;
}

static double inflight_gpipe(int p, int v, int m, int stage)
{
	(void)p;
	(void)v;
	(void)stage;
	return m;
}

/* ---- 1F1B ------------------------------------------------------------------ */

static bool check_1f1b(int p, int v, int m, char *why, size_t n)
{
	return check_v1("1f1b", p, v, m, why, n);
}

/* Megatron-LM forward_backward_pipelining_without_interleaving: stage s
 * runs min(p - s - 1, m) warm-up forwards, then one forward and one
 * backward at a time, then the remaining backwards.  (m + p - 1) T for
 * any m, also m < p (Narayanan et al. 2021, section 2.2.1). */
static int order_1f1b(int p, int v, int m, int stage, struct sched_op *ops)
{
	int warm = imin(p - stage - 1, m), rest = m - warm, n = 0;

	(void)v;
	for (int i = 0; i < warm; i++)
		push(ops, &n, SCHED_OP_F, 0, i);
	for (int i = 0; i < rest; i++) {
		push(ops, &n, SCHED_OP_F, 0, warm + i);
		push(ops, &n, SCHED_OP_BW, 0, i);
	}
	for (int i = rest; i < m; i++)
		push(ops, &n, SCHED_OP_BW, 0, i);
	return n;
}

/* min(p - s, m) micro-batches: p on stage 0. */
static double inflight_1f1b(int p, int v, int m, int stage)
{
	double f = p - stage;

	(void)v;
	if (f < 1)
		f = 1;
	return f < m ? f : m;
}

/* ---- interleaved 1F1B ------------------------------------------------------- */

/* Megatron-Core (megatron/core/pipeline_parallel/schedules.py,
 * forward_backward_pipelining_with_interleaving) requires the number of
 * micro-batches to be a multiple of pp (the default micro-batch group of
 * pp per virtual stage) and runs it with pp > 1 and vpp > 1. */
static bool check_interleaved(int p, int v, int m, char *why, size_t n)
{
	if (!check_basic(p, v, m, why, n))
		return false;
	if (p < 2 || v < 2)
		return fail(why, n, "schedule interleaved-1f1b needs pp > 1 and vpp > 1 (got pp \"%d\", vpp \"%d\")", p, v);
	if (m > 0 && m % p != 0)
		return fail(why, n, "the interleaved schedule needs micro-batches per step (%d) to be a multiple of pp \"%d\" (Megatron-Core)", m, p);
	return true;
}

/* Virtual micro-batch k (Megatron get_model_chunk_id and
 * get_microbatch_id_in_model_chunk, groups of p). */
static void interleaved_k(int k, int p, int v, bool fwd, int *mb, int *chunk)
{
	int in_group = k % (p * v);

	*chunk = in_group / p;
	if (!fwd)
		*chunk = v - 1 - *chunk;
	*mb = (k / (p * v)) * p + k % p;
}

/* 2 (p - s - 1) + (v - 1) p warm-up virtual micro-batches, then one
 * forward and one backward; m v + p - 1 chunk times: m T + (p - 1) T / v
 * (Narayanan et al. 2021, section 2.2.2). */
static int order_interleaved(int p, int v, int m, int stage, struct sched_op *ops)
{
	int total = m * v, warm = imin(2 * (p - stage - 1) + (v - 1) * p, total);
	int rest = total - warm, n = 0, mb, c;

	for (int k = 0; k < warm; k++) {
		interleaved_k(k, p, v, true, &mb, &c);
		push(ops, &n, SCHED_OP_F, c, mb);
	}
	for (int k = 0; k < rest; k++) {
		interleaved_k(warm + k, p, v, true, &mb, &c);
		push(ops, &n, SCHED_OP_F, c, mb);
		interleaved_k(k, p, v, false, &mb, &c);
		push(ops, &n, SCHED_OP_BW, c, mb);
	}
	for (int k = rest; k < total; k++) {
		interleaved_k(k, p, v, false, &mb, &c);
		push(ops, &n, SCHED_OP_BW, c, mb);
	}
	return n;
}

/* Warm-up plus one chunk forward, divided by v chunks per micro-batch:
 * p + (p - 1) / v on stage 0 (Korthikanti et al. 2022, section 4.2.3).
 * Capped at m. */
static double inflight_interleaved(int p, int v, int m, int stage)
{
	double f;

	if (v < 1)
		v = 1;
	f = (2.0 * (p - stage - 1) + (v - 1.0) * p + 1.0) / v;
	if (f < 1)
		f = 1;
	return f < m ? f : m;
}

/* ---- ZB-H1 ------------------------------------------------------------------- */

static bool check_zbh1(int p, int v, int m, char *why, size_t n)
{
	return check_v1("zb-h1", p, v, m, why, n);
}

/* Qi et al. 2023, section 3.1 and figure 3: 1F1B's forwards and input-
 * gradient backwards, with stage s postponing its weight gradients by s
 * micro-batches (the last stage by p - 1) so that they fill the drain, and
 * the rest of them after its last B; every stage then holds at most the p
 * micro-batches 1F1B holds on stage 0. */
static int order_zbh1(int p, int v, int m, int stage, struct sched_op *ops)
{
	int warm = imin(p - stage - 1, m), rest = m - warm, n = 0, nw = 0;

	(void)v;
	for (int i = 0; i < warm; i++)
		push(ops, &n, SCHED_OP_F, 0, i);
	for (int i = 0; i < rest; i++) {
		push(ops, &n, SCHED_OP_F, 0, warm + i);
		push(ops, &n, SCHED_OP_B, 0, i);
		if (i >= stage)
			push(ops, &n, SCHED_OP_W, 0, nw++);
	}
	for (int i = rest; i < m; i++) {
		push(ops, &n, SCHED_OP_B, 0, i);
		if (nw < i + 1 - stage)
			push(ops, &n, SCHED_OP_W, 0, nw++);
	}
	while (nw < m)
		push(ops, &n, SCHED_OP_W, 0, nw++);
	return n;
}

static double inflight_zbh1(int p, int v, int m, int stage)
{
	(void)v;
	(void)stage;
	return p < m ? p : m;
}

/* ---- ZB-V -------------------------------------------------------------------- */

/* Qi et al. 2024: exactly two chunks per rank placed in a V, chunk 0 on
 * virtual stage s and chunk 1 on 2p - 1 - s, so that the turn at the last
 * rank needs no message; the handcrafted order needs m >= 2p. */
static bool check_zbv(int p, int v, int m, char *why, size_t n)
{
	if (!check_basic(p, v, m, why, n))
		return false;
	if (v != 2)
		return fail(why, n, "schedule zb-v needs vpp 2 (got \"%d\"): two model chunks per rank in a V shape (Qi et al. 2024)", v);
	if (m > 0 && m < 2 * p)
		return fail(why, n, "schedule zb-v needs at least 2 pp micro-batches per step (got %d, pp \"%d\"): "
			    "its V fills with 2 pp - 1 chunk forwards on rank 0 (Qi et al. 2024; PyTorch ScheduleZBVZeroBubble)", m, p);
	return true;
}

/* The handcrafted ZB-V order (Qi et al. 2024, figure 8; PyTorch's
 * ScheduleZBVZeroBubble): rank r runs 2 (p - r) - 1 chunk-0 forwards, r
 * pairs F1 F0, p - r triples F1 B1 W1, then F0 B0 W0 F1 B1 W1 until every
 * forward is done, then r pairs B0 B1, p - r pairs B0 W0 and the remaining
 * W (every phase capped by the micro-batches left).  Each rank holds at
 * most 2p chunk activations, 1F1B's p micro-batches on stage 0. */
static int order_zbv(int p, int v, int m, int r, struct sched_op *ops)
{
	int n = 0, f0 = 0, f1 = 0, b0 = 0, b1 = 0, w0 = 0, w1 = 0;

	(void)v;
#define ZV(kind, c, cnt) do { if ((cnt) < m) { push(ops, &n, kind, c, (cnt)); (cnt)++; } } while (0)
	for (int i = 0; i < 2 * (p - r) - 1; i++)
		ZV(SCHED_OP_F, 0, f0);
	for (int i = 0; i < r; i++) {
		ZV(SCHED_OP_F, 1, f1);
		ZV(SCHED_OP_F, 0, f0);
	}
	for (int i = 0; i < p - r; i++) {
		ZV(SCHED_OP_F, 1, f1);
		if (b1 < f1)
			ZV(SCHED_OP_B, 1, b1);
		if (w1 < b1)
			ZV(SCHED_OP_W, 1, w1);
	}
	while (f1 < f0 || f0 < m) {
		ZV(SCHED_OP_F, 0, f0);
		if (b0 < b1)
			ZV(SCHED_OP_B, 0, b0);
		if (w0 < b0)
			ZV(SCHED_OP_W, 0, w0);
		ZV(SCHED_OP_F, 1, f1);
		if (b1 < f1)
			ZV(SCHED_OP_B, 1, b1);
		if (w1 < b1)
			ZV(SCHED_OP_W, 1, w1);
	}
	for (int i = 0; i < r; i++) {
		if (b0 < b1)
			ZV(SCHED_OP_B, 0, b0);
		ZV(SCHED_OP_B, 1, b1);
	}
	for (int i = 0; i < p - r; i++) {
		if (b0 < b1)
			ZV(SCHED_OP_B, 0, b0);
		if (w0 < b0)
			ZV(SCHED_OP_W, 0, w0);
	}
	while (b1 < m || b0 < m) {
		ZV(SCHED_OP_B, 1, b1);
		ZV(SCHED_OP_B, 0, b0);
	}
	while (w1 < m)
		ZV(SCHED_OP_W, 1, w1);
	while (w0 < m)
		ZV(SCHED_OP_W, 0, w0);
#undef ZV
	return n;
}

/* ---- DualPipe --------------------------------------------------------------- */

/* deepseek-ai/DualPipe, DualPipe.step(): an even number of ranks, and an
 * even number of micro-batches (half fed from each end) of at least twice
 * the ranks. */
static bool check_dualpipe(int p, int v, int m, char *why, size_t n)
{
	if (!check_basic(p, v, m, why, n))
		return false;
	if (v != 1)
		return fail(why, n, "schedule dualpipe needs vpp 1 (got \"%d\"): each rank holds its stage for both directions (DeepSeek-V3, section 3.2.1)", v);
	if (p < 2 || p % 2 != 0)
		return fail(why, n, "schedule dualpipe needs an even pp (got \"%d\"): DualPipe pairs rank r with rank pp - 1 - r (deepseek-ai/DualPipe)", p);
	if (m > 0 && (m % 2 != 0 || m < 2 * p))
		return fail(why, n, "schedule dualpipe needs an even number of micro-batches per step of at least 2 pp (got %d, pp \"%d\"; deepseek-ai/DualPipe)", m, p);
	return true;
}

/* DualPipe.step() of deepseek-ai/DualPipe, phase by phase, for rank r:
 * h = min(r, p - 1 - r), phase 0 is the direction that reaches r first
 * (chunk 0, fed at rank 0, on the first half of the ranks; chunk 1, fed at
 * rank p - 1, on the second), a backward "with zb" is B with its W queued
 * (FIFO), without it a whole backward.  An overlapped forward-and-backward
 * pair ("F&B", op.fused) is F and a whole backward that start together
 * when both inputs are there and send when both are done: it takes F + B
 * + W (the pair overlaps communication with computation, which the
 * engines account for with the layer's EP overlap; no two computations
 * overlap). */
static int order_dualpipe(int p, int v, int m, int stage, struct sched_op *ops)
{
	int half = p / 2, h = imin(stage, p - 1 - stage), hm = m / 2, n = 0;
	int sec = stage >= half, nf[2] = { 0, 0 }, nb[2] = { 0, 0 };
	int wq[2 * 4096], wh = 0, wt = 0; /* queued W as chunk * hm + mb */
	int *q = hm <= 2048 ? wq : malloc(sizeof(int) * (size_t)(2 * hm));
	int step;

	(void)v;
	if (!q)
		return -1;
#define DP_F(ph) push(ops, &n, SCHED_OP_F, (ph) ^ sec, nf[(ph) ^ sec]++)
#define DP_BW(ph) push(ops, &n, SCHED_OP_BW, (ph) ^ sec, nb[(ph) ^ sec]++)
#define DP_BZ(ph) do { int c_ = (ph) ^ sec; q[wt++] = c_ * hm + nb[c_]; \
		push(ops, &n, SCHED_OP_B, c_, nb[c_]++); } while (0)
#define DP_W() do { push(ops, &n, SCHED_OP_W, q[wh] / hm, q[wh] % hm); wh++; } while (0)
	for (int i = 0; i < (half - h - 1) * 2; i++)    /* 1: nF0 */
		DP_F(0);
	for (int i = 0; i < h + 1; i++) {               /* 2: nF0F1 */
		DP_F(0);
		DP_F(1);
	}
	for (int i = 0; i < half - h - 1; i++) {        /* 3: nB1W1F1 */
		DP_BZ(1);
		DP_W();
		DP_F(1);
	}
	for (int i = 0; i < hm - p + h + 1; i++) {      /* 4: nF0B1F1B0 */
		DP_F(0);
		/* the middle ranks' first pair is not overlapped (the
		 * repository's note: it would add to the bubble) */
		ops[n - 1].fused = !(i == 0 && h == half - 1);
		DP_BW(1);
		DP_F(1);
		ops[n - 1].fused = 1;
		DP_BW(0);
	}
	for (int i = 0; i < half - h - 1; i++) {        /* 5: nB1F1B0 */
		DP_BW(1);
		DP_F(1);
		ops[n - 1].fused = 1;
		DP_BW(0);
	}
	step = h + 1;                                   /* 6: nB1B0 */
	for (int i = 0, zb = 0; i < step; i++) {
		if (i == step / 2 && h % 2 == 1)
			zb = 1;
		if (zb)
			DP_BZ(1);
		else
			DP_BW(1);
		if (i == step / 2 && h % 2 == 0)
			zb = 1;
		if (zb)
			DP_BZ(0);
		else
			DP_BW(0);
	}
	for (int i = 0; i < half - h - 1; i++) {        /* 7: nWB0 */
		DP_W();
		DP_BZ(0);
	}
	while (wh < wt)                                 /* 8: nW */
		DP_W();
#undef DP_F
#undef DP_BW
#undef DP_BZ
#undef DP_W
	if (q != wq)
		free(q);
	return n;
}

/* ---- placement ------------------------------------------------------------------ */

int sched_chunks(enum sc_schedule s, int v)
{
	return s == SCHED_DUALPIPE ? 2 : v > 0 ? v : 1;
}

int sched_chunk_microbatches(enum sc_schedule s, int m)
{
	return s == SCHED_DUALPIPE ? m / 2 : m;
}

int sched_pipes(enum sc_schedule s)
{
	return s == SCHED_DUALPIPE ? 2 : 1;
}

int sched_depth(enum sc_schedule s, int p, int v)
{
	return s == SCHED_DUALPIPE ? p : p * (v > 0 ? v : 1);
}

void sched_at(enum sc_schedule s, int p, int v, int pipe, int j, int *stage, int *chunk)
{
	(void)v;
	switch (s) {
	case SCHED_ZB_V:
		*chunk = j < p ? 0 : 1;
		*stage = j < p ? j : 2 * p - 1 - j;
		return;
	case SCHED_DUALPIPE:
		*chunk = pipe;
		*stage = pipe == 0 ? j : p - 1 - j;
		return;
	default:
		*chunk = j / p;
		*stage = j % p;
		return;
	}
}

int sched_max_ops(enum sc_schedule s, int p, int v, int m)
{
	(void)p;
	return 3 * sched_chunks(s, v) * (sched_chunk_microbatches(s, m) + 1);
}

int sched_order(enum sc_schedule s, int p, int v, int m, int stage, struct sched_op *ops)
{
	return sched_get(s)->order(p, v, m, stage, ops);
}

double sched_peak_bytes(enum sc_schedule s, int p, int v, int m, int stage,
			const double *chunk_bytes)
{
	int cap = sched_max_ops(s, p, v, m), n, C = sched_chunks(s, v);
	struct sched_op *ops;
	double held = 0, peak = 0;

	if (m <= 0 || !sched_check(s, p, v, m, NULL, 0))
		return -1;
	/* DualPipe's steady phase (F0 B1 F1 B0) holds as much after each
	 * round as before it, so every m past the least (2 p) peaks as that
	 * one does (checked in tests/unit/test_schedule.c): a search's many
	 * micro-batches do not make this dearer */
	if (s == SCHED_DUALPIPE && m > 2 * p) {
		m = 2 * p;
		cap = sched_max_ops(s, p, v, m);
	}
	ops = malloc(sizeof(*ops) * (size_t)cap);
	if (!ops)
		return -1;
	n = sched_order(s, p, v, m, stage, ops);
	for (int i = 0; i < n; i++) {
		int c = ops[i].chunk >= 0 && ops[i].chunk < C ? ops[i].chunk : 0;

		if (ops[i].kind == SCHED_OP_F)
			held += chunk_bytes[c];
		else if (ops[i].kind != SCHED_OP_B)
			held -= chunk_bytes[c];
		peak = fmax(peak, held);
	}
	free(ops);
	return n < 0 ? -1 : peak;
}

/* ---- replay ----------------------------------------------------------------------- */

struct replay {
	enum sc_schedule s;
	int p, v, C, M, D;
	const double *f, *b, *w;
	double comm_s;
	double *te;             /* [cell * 3 + F|B|W]: end time, -1 not yet */
};

static int cell(const struct replay *x, int r, int c, int k)
{
	return (r * x->C + c) * x->M + k;
}

/* When op o of rank r may start (-1: its input is not there yet) and how
 * long it runs. */
static double op_ready(const struct replay *x, int r, const struct sched_op *o, double *dur)
{
	int c = o->chunk, k = o->mb, pipe, j, pr = r, pc, dep;

	sched_place(x->s, x->p, x->v, r, c, &pipe, &j);
	if (o->kind == SCHED_OP_F) {
		*dur = x->f[r * x->C + c];
		if (j == 0)
			return 0;
		sched_at(x->s, x->p, x->v, pipe, j - 1, &pr, &pc);
		dep = cell(x, pr, pc, k) * 3;
	} else if (o->kind == SCHED_OP_W) {
		*dur = x->w[r * x->C + c];
		dep = cell(x, r, c, k) * 3 + 1;
	} else {
		*dur = x->b[r * x->C + c] + (o->kind == SCHED_OP_BW ? x->w[r * x->C + c] : 0);
		if (j < x->D - 1) {
			sched_at(x->s, x->p, x->v, pipe, j + 1, &pr, &pc);
			dep = cell(x, pr, pc, k) * 3 + 1;
		} else {
			dep = cell(x, r, c, k) * 3;
		}
	}
	if (x->te[dep] < 0)
		return -1;
	return x->te[dep] + (pr != r ? x->comm_s : 0);
}

static void op_done(struct replay *x, int r, const struct sched_op *o, double end, double *held)
{
	int i = cell(x, r, o->chunk, o->mb) * 3;

	if (o->kind == SCHED_OP_F) {
		x->te[i] = end;
		held[0] += 1;
		if (held[0] > held[1])
			held[1] = held[0];
		return;
	}
	if (o->kind != SCHED_OP_W)
		x->te[i + 1] = end;
	if (o->kind != SCHED_OP_B) {
		x->te[i + 2] = end;
		held[0] -= 1;
	}
}

double sched_replay(enum sc_schedule s, int p, int v, int m, const double *f, const double *b,
		    const double *w, double comm_s, double *stage_end, double *peak)
{
	struct replay x;
	int cap = sched_max_ops(s, p, v, m), cells;
	struct sched_op *ops;
	int *cnt;
	double *free_at, *held, span = -1;
	int done = 0, total = 0;

	x.s = s;
	x.p = p;
	x.v = v;
	x.C = sched_chunks(s, v);
	x.M = sched_chunk_microbatches(s, m);
	x.D = sched_depth(s, p, v);
	x.f = f;
	x.b = b;
	x.w = w;
	x.comm_s = comm_s;
	cells = p * x.C * x.M;
	ops = malloc(sizeof(*ops) * (size_t)cap * p);
	cnt = calloc((size_t)p * 2, sizeof(int)); /* ops, next */
	x.te = malloc(sizeof(double) * (size_t)cells * 3);
	free_at = calloc((size_t)p, sizeof(double));
	held = calloc((size_t)p * 2, sizeof(double)); /* now, peak */
	if (!ops || !cnt || !x.te || !free_at || !held)
		goto out;
	for (int i = 0; i < cells * 3; i++)
		x.te[i] = -1;
	for (int r = 0; r < p; r++) {
		cnt[r * 2] = sched_order(s, p, v, m, r, ops + (size_t)r * cap);
		if (cnt[r * 2] < 0)
			goto out;
		total += cnt[r * 2];
	}
	for (bool moved = true; moved && done < total;) {
		moved = false;
		for (int r = 0; r < p; r++) {
			while (cnt[r * 2 + 1] < cnt[r * 2]) {
				const struct sched_op *o = &ops[(size_t)r * cap + cnt[r * 2 + 1]];
				bool pair = o->fused && cnt[r * 2 + 1] + 1 < cnt[r * 2];
				double d1, d2 = 0, t1 = op_ready(&x, r, o, &d1), t2 = 0, end;

				if (t1 < 0)
					break;
				if (pair) {
					t2 = op_ready(&x, r, o + 1, &d2);
					if (t2 < 0)
						break;
				}
				end = fmax(free_at[r], fmax(t1, t2)) + d1 + d2;
				free_at[r] = end;
				op_done(&x, r, o, end, held + 2 * r);
				if (pair)
					op_done(&x, r, o + 1, end, held + 2 * r);
				cnt[r * 2 + 1] += pair ? 2 : 1;
				done += pair ? 2 : 1;
				moved = true;
			}
		}
	}
	if (done < total)
		goto out;
	span = 0;
	for (int r = 0; r < p; r++) {
		if (free_at[r] > span)
			span = free_at[r];
		if (stage_end)
			stage_end[r] = free_at[r];
		if (peak)
			peak[r] = held[r * 2 + 1];
	}
out:
	free(ops);
	free(cnt);
	free(x.te);
	free(free_at);
	free(held);
	return span;
}

/* ---- the table ----------------------------------------------------------------------- */

static double inflight_zbv(int p, int v, int m, int stage)
{
	(void)v;
	(void)stage;
	return p < m ? p : m;
}

static double inflight_dualpipe(int p, int v, int m, int stage)
{
	(void)v;
	(void)stage;
	return p + 1 < m ? p + 1 : m;
}

/* ZB-H1, exact for its order and equal stages (checked by the replay for
 * every F:B:W): the longest of three paths.  (1) The textbook one: the
 * last stage starts (p - 1) F late and the postponed W fill the drain, a
 * bubble of (p - 1)(F + B - W) (Qi et al. 2023, table 1), which cannot be
 * less than the (p - 1) F the last stage waits nor the (p - 1) B stage 0
 * waits for the last input gradient.  (2) With few micro-batches the W
 * cannot fill: the forward path, m forwards and input gradients, the
 * backward path and stage 0's last W, (m + p - 1)(F + B) + W.  (3) With
 * m < p stage 0 runs all its B and W after the first input gradient
 * reaches it at p (F + B) - B, the others arriving max(F, B) apart. */
static double zbh1_time(int p, int m, double f, double b, double w)
{
	double t = m * (f + b + w) + (p - 1) * fmax(f + b - w, fmax(f, b));

	t = fmax(t, (m + p - 1) * (f + b) + w);
	if (m < p)
		t = fmax(t, p * (f + b) + (m - 1) * fmax(f, b) + m * w);
	return t;
}

static void step_zbh1(const struct sched_in *in, struct sched_out *out)
{
	double f, b, w, m = in->m > 0 ? in->m : 1;

	split(in, &f, &b, &w);
	finish_out(in, (zbh1_time(in->p, (int)m, f, b, w) - m * in->stage_max_s) * hetero(in), out);
}

static double bound_zbh1(int p, int v, int m, double f, double b, double w)
{
	(void)v;
	(void)m;
	return (p - 1) * (f + b - w);
}

/* ZB-V, exact for its order and equal stages (m >= 2p; checked by the
 * replay for every F:B:W), in chunk times f, b, w (half a stage's): the
 * longest of (1) the input-gradient chain, (p - 1) max(b, 2 (b - w)): the
 * textbook (p - 1)(f + b - 2w) of Qi et al. 2024 when f = b, at least the
 * backward path's b per rank, and twice the B a W cannot hide when W < B;
 * (2) heavy forwards, (p - 1)(2f - b) - b: each rank's two forwards per
 * micro-batch outrun its backwards; (3) heavy W, (p - 2) w + f: the
 * postponed W queue up on rank 0 after the last B. */
static void step_zbv(const struct sched_in *in, struct sched_out *out)
{
	double f, b, w, p = in->p, t;

	split(in, &f, &b, &w);
	f /= 2;
	b /= 2;
	w /= 2;
	t = fmax((p - 1) * fmax(b, 2 * (b - w)), fmax((p - 1) * (2 * f - b) - b, (p - 2) * w + f));
	/* unequal stages: between the two limits, a heavy rank fed by the
	 * others (rank 0 with the embedding and the logits: no bubble on it)
	 * and a heavy rank that waits like the rest (the scaled bubble); their
	 * mean is within 3 % of the replay for heavier ends or a heavier middle
	 * rank (tests/unit/test_schedule.c), each limit alone up to 5.6 % off */
	finish_out(in, 0.5 * (fed_rank(in, t) + t * hetero(in)), out);
}

static double bound_zbv(int p, int v, int m, double f, double b, double w)
{
	(void)v;
	(void)m;
	return (p - 1) * (f + b - 2 * w) / 2;
}

/* DualPipe: the table's (p/2 - 1)(F&B + B - 3W), B the whole backward and
 * F&B a forward-and-backward pair (DeepSeek-V3 report, table 2), is with
 * our input-gradient B, F&B = F + B + W and a whole backward B + W,
 * k (F + 2B - W) for k = p/2 - 1: the order's bubble when B <= F.  With
 * B > F the order's drain ends min(k (B - F), F) sooner; and never less
 * than the k 2F the middle ranks wait for the first forwards from both
 * ends.  Exact on the tests' grid of splits, within 3 % of the replay for
 * random splits of real layers (tests/unit/test_schedule.c). */
static double dualpipe_bubble(double k, double f, double b, double w)
{
	double y = fmin(k * (b - f), f);

	return fmax(2 * k * f, k * (f + 2 * b - w) - (y > 0 ? y : 0));
}

static void step_dualpipe(const struct sched_in *in, struct sched_out *out)
{
	double f, b, w;
	double t;

	split(in, &f, &b, &w);
	t = dualpipe_bubble(in->p / 2 - 1, f, b, w);
	finish_out(in, fed_rank(in, t), out);
}

static double bound_dualpipe(int p, int v, int m, double f, double b, double w)
{
	(void)v;
	(void)m;
	return (p / 2 - 1) * (f + 2 * b - w);
}

static const struct sched_ops table[] = {
	[SCHED_1F1B] = { "1f1b", check_1f1b, step_fill, inflight_1f1b, bound_fill, order_1f1b, 1 },
	[SCHED_INTERLEAVED_1F1B] = { "interleaved-1f1b", check_interleaved, step_fill,
				     inflight_interleaved, bound_fill, order_interleaved, 1 },
	[SCHED_GPIPE] = { "gpipe", check_gpipe, step_fill, inflight_gpipe, bound_fill, order_gpipe, 1 },
	[SCHED_ZB_H1] = { "zb-h1", check_zbh1, step_zbh1, inflight_zbh1, bound_zbh1, order_zbh1, 1 },
	[SCHED_ZB_V] = { "zb-v", check_zbv, step_zbv, inflight_zbv, bound_zbv, order_zbv, 1 },
	[SCHED_DUALPIPE] = { "dualpipe", check_dualpipe, step_dualpipe, inflight_dualpipe,
			     bound_dualpipe, order_dualpipe, 2 },
};

const struct sched_ops *sched_get(enum sc_schedule s)
{
	if ((size_t)s >= sizeof(table) / sizeof(table[0]))
		return &table[SCHED_1F1B];
	return &table[s];
}

bool sched_check(enum sc_schedule s, int p, int v, int m, char *why, size_t n)
{
	return sched_get(s)->check(p, v, m, why, n);
}

void sched_step(enum sc_schedule s, const struct sched_in *in, struct sched_out *out)
{
	sched_get(s)->step(in, out);
}

double sched_inflight(enum sc_schedule s, int p, int v, int m, int stage)
{
	return sched_get(s)->inflight(p, v, m, stage);
}

double sched_param_copies(enum sc_schedule s)
{
	return sched_get(s)->param_copies;
}

double sched_bubble_bound(enum sc_schedule s, int p, int v, int m, double f, double b, double w)
{
	return sched_get(s)->bound(p, v, m, f, b, w);
}

double sched_closed_form_slack(enum sc_schedule s)
{
	switch (s) {
	case SCHED_ZB_H1:
		return 0.06;
	case SCHED_ZB_V:
	case SCHED_DUALPIPE:
		return 0.04;
	case SCHED_INTERLEAVED_1F1B:
		return 0.03;
	case SCHED_1F1B:
	case SCHED_GPIPE:
		break;
	}
	return 0.025;
}
