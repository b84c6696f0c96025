/* schedule.c: 1F1B, interleaved 1F1B and GPipe (see schedule.h).
 *
 * Step time with stage times t_s (forward + backward of one micro-batch):
 * the slowest stage works m * max(t_s); before its first and after its last
 * micro-batch the other stages' fill and drain add (sum(t_s) - max(t_s)) / v.
 * For equal stages this is m t + (p - 1) t / v, i.e. the bubble fraction
 * (p - 1) / m of 1F1B and GPipe and (p - 1) / (v m) of the interleaved
 * schedule (Narayanan et al. 2021, SC21, sections 2.2.1 and 2.2.2; GPipe:
 * Huang et al. 2019).  Unequal stages (embedding, logits, dense-first MoE
 * layers) are why max and sum are both needed.
 */
#include "schedule.h"

#include <stddef.h>

static void pipeline_step(const struct sched_in *in, int v, struct sched_out *out)
{
	double m = in->m > 0 ? in->m : 1;
	double fill = in->p > 1 ? (in->stage_sum_s - in->stage_max_s) / v : 0.0;

	if (fill < 0)
		fill = 0;
	out->busy_s = m * in->stage_max_s;
	out->bubble_s = fill;
	out->time_s = out->busy_s + out->bubble_s;
	out->bubble_fraction = out->busy_s > 0 ? out->bubble_s / out->busy_s : 0;
}

static void step_1f1b(const struct sched_in *in, struct sched_out *out)
{
	pipeline_step(in, 1, out);
}

static void step_interleaved(const struct sched_in *in, struct sched_out *out)
{
	pipeline_step(in, in->v > 0 ? in->v : 1, out);
}

/* 1F1B: rank r runs p - r - 1 warm-up forwards, then one more before its
 * first backward, so it holds min(p - r, m) micro-batches (Narayanan et al.
 * 2021, section 2.2.1): p on stage 0. */
static double inflight_1f1b(int p, int v, int m, int stage)
{
	double f = p - stage;

	(void)v;
	if (f < 1)
		f = 1;
	return f < m ? f : m;
}

/* Interleaved: Megatron-LM's schedule warms rank r up with
 * 2 (p - r - 1) + (v - 1) p chunk forwards, then holds one more: divided by v
 * chunks per micro-batch this is p + (p - 1) / v = p (1 + (p - 1) / (p v)) on
 * stage 0, Korthikanti et al. 2022, section 4.2.3.  Capped at m. */
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

/* GPipe: all m forwards before any backward, on every stage. */
static double inflight_gpipe(int p, int v, int m, int stage)
{
	(void)p;
	(void)v;
	(void)stage;
	return m;
}

static const struct sched_ops table[] = {
	[SCHED_1F1B] = { "1f1b", step_1f1b, inflight_1f1b },
	[SCHED_INTERLEAVED_1F1B] = { "interleaved-1f1b", step_interleaved,
				     inflight_interleaved },
	[SCHED_GPIPE] = { "gpipe", step_1f1b, inflight_gpipe },
};

const struct sched_ops *sched_get(enum sc_schedule s)
{
	if ((size_t)s >= sizeof(table) / sizeof(table[0]))
		return &table[SCHED_1F1B];
	return &table[s];
}

void sched_step(enum sc_schedule s, const struct sched_in *in,
		struct sched_out *out)
{
	sched_get(s)->step(in, out);
}

double sched_inflight(enum sc_schedule s, int p, int v, int m, int stage)
{
	return sched_get(s)->inflight(p, v, m, stage);
}
