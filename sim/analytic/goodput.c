/* goodput.c: data stalls, checkpoints, failures and stragglers composed into
 * the calendar of a run (see goodput.h).
 *
 * Order of work: the ideal step (the step prediction's own parts); the
 * straggler stretch; the data-loading stall against that compute time; the
 * checkpoint's size and I/O on its tier; the job's failure rate at its size;
 * the recovery method's cost per failure; the interval (given, or Daly's);
 * Daly's complete model for the expected wall time of one checkpoint
 * segment, which accounts for failures during checkpoints and restarts; the
 * split of that wall time into where it goes.
 */
#include "goodput.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../models/collective.h"
#include "../../models/memory.h"
#include "../../models/network.h"
#include "../../models/purchase.h"
#include "../../models/units.h"

const char *cal_part_name(enum cal_part p)
{
	static const char *const names[] = SC_ENUM_NAMES(CAL_PART_LIST);

	return SC_NAME_OF(names, p);
}

/* The step without the parts this module adds. */
static double base_step(const struct step_result *r)
{
	double t = 0;

	for (int i = 0; i < PART_COUNT; i++)
		if (i != PART_DATA_STALL && i != PART_CHECKPOINT && i != PART_STRAGGLER)
			t += r->part_s[i];
	return t;
}

static int zero_stage(const struct layout *l)
{
	return l->fsdp ? 3 : l->zero_stage;
}

/* Checkpointless recovery keeps `reps` copies of each ZeRO shard: Megatron's
 * num_distributed_optimizer_instances splits the shard group into reps
 * instances, each holding the whole state, so a GPU holds reps times its
 * sharded state, and after the usual reduce-scatter within an instance the
 * gradient shards are all-reduced across instances (its
 * inter-distributed-optimizer-instance group).  ZeRO-0 replicates everything
 * over data parallelism already and costs nothing extra. */
static enum sc_status checkpointless_cost(const struct scenario *sc, struct goodput_result *g,
					  struct sc_error *err)
{
	const struct layout *l = &sc->layout;
	const struct calibration *cal = &sc->calibration;
	int reps = sc->storage.checkpointless.state_replicas;
	int zero = zero_stage(l);
	int group = (int)g->ckpt.shard_group;
	double gb = sc->training.grad_fp32 ? 4.0 : 2.0;
	enum sc_status st = res_checkpointless_check(sc, reps, err);

	if (st != SC_OK)
		return st;
	if (reps < 2)
		reps = 2;
	memset(g->mem_extra_by, 0, sizeof(g->mem_extra_by));
	g->mem_extra_bytes = 0;
	g->replication_s = 0;
	if (zero == 0)
		return SC_OK;
	/* per byte as models/memory counts them, for the GPU's shard (an even
	 * split of layers over stages: r's worst stage is not needed, and r may
	 * already hold these extras) */
	{
		double sh = g->ckpt.gpu_sharded_params;

		g->mem_extra_by[MEM_OPTIMIZER] = (reps - 1) * sh *
						 mem_optimizer_bytes_per_param(sc->training.optimizer,
									       sc->training.master_dtype,
									       sc->training.moments_dtype);
		if (zero >= 2)
			g->mem_extra_by[MEM_GRADIENTS] = (reps - 1) * sh * gb;
		if (zero >= 3)
			g->mem_extra_by[MEM_WEIGHTS] = (reps - 1) * sh *
						       mem_weight_bytes_per_param(sc->training.precision);
	}
	for (int i = 0; i < MEM_COUNT; i++)
		g->mem_extra_bytes += g->mem_extra_by[i];
	{
		/* the instances are consecutive blocks of group / reps members of
		 * the data-parallel group (stride tp): the cross-instance group
		 * is reps ranks at stride tp x group / reps */
		struct net_span span = net_span_of(&sc->cluster, reps, l->tp * (group / reps));
		double shard_bytes = g->ckpt.gpu_params * gb / (group / reps);

		g->replication_s = (1.0 - cal->dp_overlap) *
				   coll_time(cal, &span, COLL_ALL_REDUCE, shard_bytes, NULL);
	}
	return SC_OK;
}

/* Advice, most costly first: each candidate carries the calendar share it
 * would recover. */
struct advice {
	double weight;
	char text[SC_GOODPUT_ADVICE_LEN];
};

static void add_advice(struct advice *a, int *n, double weight, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

static void add_advice(struct advice *a, int *n, double weight, const char *fmt, ...)
{
	va_list ap;

	if (*n >= 8)
		return;
	a[*n].weight = weight;
	va_start(ap, fmt);
	vsnprintf(a[*n].text, sizeof(a[*n].text), fmt, ap);
	va_end(ap);
	(*n)++;
}

static void advise(const struct scenario *sc, struct goodput_result *g)
{
	struct advice a[8];
	int n = 0;
	double fail = g->frac[CAL_LOST_WORK] + g->frac[CAL_RESTART] + g->frac[CAL_RESTORE];

	if (g->has_storage && g->recovery == RECOVERY_CHECKPOINT && fail > 0.01)
		add_advice(a, &n, fail,
			   "failures take %.1f %% of the calendar (one every %.2f h at %d GPUs, each costing %.0f s of restart and restore and %.0f s of lost work): recover faster (checkpointless recovery, see the comparison) or restore from a faster tier",
			   100 * fail, g->mtbf_s / 3600, scenario_gpus(sc), g->recovery_s, g->lost_per_failure_s);
	if (g->has_storage && g->recovery == RECOVERY_CHECKPOINTLESS && fail > 0.01)
		add_advice(a, &n, fail,
			   "failures still take %.1f %% of the calendar: each checkpointless recovery costs %.0f s; fewer interruptions (screen out failing GPUs and hosts) is what is left",
			   100 * fail, g->recovery_s);
	if (g->has_storage && g->frac[CAL_CHECKPOINT] > 0.005 && !sc->storage.async_checkpoint &&
	    g->periodic)
		add_advice(a, &n, g->frac[CAL_CHECKPOINT],
			   "checkpoint saves block %.1f %% of the calendar (%.1f s each): \"async_checkpoint\": true would block only for the %.2f s copy to host memory",
			   100 * g->frac[CAL_CHECKPOINT], g->blocking_s, g->io.snapshot_s);
	if (g->has_data && g->data_stall_s > 0) {
		if (!g->data.node_bound && g->data_bw.kind == STORAGE_FSX && sc->storage.data_tier.read_MBps_per_TiB > 0)
			add_advice(a, &n, g->frac[CAL_DATA_STALL],
				   "data loading stalls every step by %.3f s (demand %.3g GB/s, the tier supplies %.3g GB/s): provision at least %.0f TiB of %s or stage the data on local NVMe",
				   g->data_stall_s, g->data.demand_Bps / 1e9, g->data.supply_Bps / 1e9,
				   ceil(g->data.demand_Bps / (sc->storage.data_tier.read_MBps_per_TiB * 1e6)),
				   sc->storage.data_tier.name);
		else
			add_advice(a, &n, g->frac[CAL_DATA_STALL],
				   "data loading stalls every step by %.3f s (demand %.3g GB/s, supply %.3g GB/s%s): a faster data tier, more prefetch or fewer bytes per token",
				   g->data_stall_s, g->data.demand_Bps / 1e9, g->data.supply_Bps / 1e9,
				   g->data.node_bound ? ", bound by the reading nodes' links" : "");
	}
	if (g->has_storage && !g->interval_auto && g->periodic && g->recovery == RECOVERY_CHECKPOINT &&
	    isfinite(g->daly_s) && g->work_step_s > 0) {
		double best = fmax(1.0, round(g->daly_s / g->work_step_s));

		if (g->interval_steps > 2.0 * best || 2.0 * g->interval_steps < best)
			add_advice(a, &n, 0.005,
				   "checkpoint_every_steps %d is far from Daly's interval of about %.0f steps (%.0f min) for this checkpoint cost and failure rate",
				   g->interval_steps, best, g->daly_s / 60);
	}
	if (g->has_storage && sc->storage.async_checkpoint && !g->host_memory_ok)
		add_advice(a, &n, 1.0,
			   "async checkpoints hold %.0f GiB of host memory per node, more than its %.0f GiB: use synchronous saves or shard the checkpoint over more nodes",
			   g->host_bytes_per_node / SC_GiB_BYTES, g->host_capacity_bytes / SC_GiB_BYTES);
	if (g->frac[CAL_STRAGGLER] > 0.005)
		add_advice(a, &n, g->frac[CAL_STRAGGLER],
			   "stragglers stretch every step by %.1f %% (the slowest of %d GPUs): find and replace slow GPUs",
			   100 * (g->straggler_stretch - 1), scenario_gpus(sc));
	/* most costly first (insertion sort: at most 8) */
	for (int i = 1; i < n; i++)
		for (int j = i; j > 0 && a[j].weight > a[j - 1].weight; j--) {
			struct advice t = a[j];
			a[j] = a[j - 1];
			a[j - 1] = t;
		}
	g->n_advice = n < SC_GOODPUT_ADVICE_MAX ? n : SC_GOODPUT_ADVICE_MAX;
	for (int i = 0; i < g->n_advice; i++)
		snprintf(g->advice[i], sizeof(g->advice[i]), "%s", a[i].text);
}

/* The expected wall time of one segment (k steps of work tau, then a
 * checkpoint of delta) and where it goes.  Why (Daly 2006, complete model,
 * failures Poisson of mean M): an attempt at the segment's x = tau + delta
 * succeeds with probability e^(-x/M), so n = e^(x/M) - 1 attempts fail on
 * average, each after M - x/n of work on average (the exponential truncated
 * at x), and each is followed by a recovery of R that itself restarts when
 * a failure strikes it, taking M (e^(R/M) - 1) on average.  In total
 *   E = x + n (M - x/n) + n M (e^(R/M) - 1) = M e^(R/M) (e^(x/M) - 1),
 * Daly's expression.  The recovery time splits among restart, restore and an
 * async save's drain (re-done work, so lost work) in proportion to their
 * share of R.  planned: fraction of all wall time lost to planned
 * interruptions. */
static void calendar(struct goodput_result *g, double k, double tau, double delta,
		     double drain, double planned)
{
	double M = g->mtbf_s, x = tau + delta, R = g->restart_s + g->restore_s + drain;
	double n = 0, lost_each = 0, rec_each = 0, E, tot, rec;

	if (isfinite(M) && M > 0) {
		n = expm1(x / M);
		lost_each = n > 0 ? M - x / n : 0.0;
		rec_each = M * expm1(R / M);
	}
	E = x + n * (lost_each + rec_each);
	tot = E / (1.0 - planned);
	rec = n * rec_each;
	g->frac[CAL_USEFUL] = k * g->base_step_s / tot;
	g->frac[CAL_STRAGGLER] = k * g->straggler_s / tot;
	g->frac[CAL_DATA_STALL] = k * g->data_stall_s / tot;
	g->frac[CAL_CHECKPOINT] = (k * g->replication_s + delta) / tot;
	g->frac[CAL_RESTART] = R > 0 ? rec * g->restart_s / R / tot : 0.0;
	g->frac[CAL_RESTORE] = R > 0 ? rec * g->restore_s / R / tot : 0.0;
	g->frac[CAL_LOST_WORK] = (n * lost_each + (R > 0 ? rec * drain / R : 0.0)) / tot;
	g->frac[CAL_PLANNED] = planned;
	g->lost_per_failure_s = n > 0 ? lost_each + (R > 0 ? rec_each * drain / R : 0.0) : 0.0;
	g->goodput = g->frac[CAL_USEFUL];
}

/* Wall time, GPU-hours and on-demand cost of tokens_to_train (if given):
 * the ideal step over the steps, divided by the goodput. */
static void time_to_train(const struct scenario *sc, struct goodput_result *g)
{
	const struct cluster *cl = &sc->cluster;
	double tokens_per_step = (double)sc->training.global_batch_seqs * sc->training.seq_len;

	if (!(sc->training.tokens_to_train > 0) || !(g->goodput > 0) || !(tokens_per_step > 0))
		return;
	g->steps = sc->training.tokens_to_train / tokens_per_step;
	g->wall_s = g->steps * g->base_step_s / g->goodput;
	g->gpu_hours = g->wall_s / 3600.0 * scenario_gpus(sc);
	g->cost_usd = g->wall_s / 3600.0 *
		      purchase_cluster_usd_per_h(&cl->instance, cl->nodes,
						 purchase_default_pricing(&cl->instance));
}

static enum sc_status goodput_of(const struct scenario *sc, const struct step_result *r,
				 struct goodput_memo *memo, struct goodput_result *g,
				 struct sc_error *err);

enum sc_status sim_goodput(const struct scenario *sc, const struct step_result *r,
			   struct goodput_result *g, struct sc_error *err)
{
	return goodput_of(sc, r, NULL, g, err);
}

/* The straggler stretch of sc's cluster, through memo (may be NULL): it
 * depends only on the GPU count and the straggler settings, and costs an
 * 8,000-point quadrature or up to 10^7 samples, so a search computes it
 * once, not for every layout. */
static enum sc_status straggler_stretch(const struct scenario *sc, int gpus,
					struct goodput_memo *memo, double *stretch,
					struct sc_error *err)
{
	enum sc_status st;

	if (memo && memo->valid && memo->gpus == gpus &&
	    memcmp(&memo->cfg, &sc->stragglers, sizeof(memo->cfg)) == 0) {
		*stretch = memo->stretch;
		return SC_OK;
	}
	st = res_straggler_stretch(&sc->stragglers, gpus, stretch, err);
	if (st == SC_OK && memo) {
		memo->valid = true;
		memo->gpus = gpus;
		memo->cfg = sc->stragglers;
		memo->stretch = *stretch;
	}
	return st;
}

/* Data loading: the data tier's bandwidth and the stall it adds to a step
 * of g->work_step_s. */
static enum sc_status data_loading(const struct scenario *sc, struct goodput_result *g,
				   struct sc_error *err)
{
	const struct storage_cfg *s = &sc->storage;
	const struct cluster *cl = &sc->cluster;
	struct data_load_in in;
	enum sc_status st;

	st = storage_bandwidth(&s->data_tier, &cl->instance, cl->nodes, s->provisioned_TiB,
			       s->s3_prefixes, &g->data_bw, err);
	if (st != SC_OK)
		return st;
	g->has_data = true;
	in.tokens_per_step = (double)sc->training.global_batch_seqs * sc->training.seq_len;
	in.bytes_per_token = s->bytes_per_token > 0 ? s->bytes_per_token
			     : storage_default_bytes_per_token(sc->model.vocab);
	storage_data_readers(sc, &in.copies, &in.reading_nodes);
	in.compute_step_s = g->work_step_s;
	in.prefetch_batches = s->prefetch_batches;
	storage_data_load(&g->data_bw, &in, &g->data);
	g->data_stall_s = g->data.stall_s;
	return SC_OK;
}

/* The checkpoint, its tier, and what a save blocks and drains. */
static enum sc_status checkpoint_io(const struct scenario *sc, struct goodput_result *g,
				    struct sc_error *err)
{
	const struct storage_cfg *s = &sc->storage;
	const struct cluster *cl = &sc->cluster;
	enum sc_status st;

	st = storage_bandwidth(&s->checkpoint_tier, &cl->instance, cl->nodes, s->provisioned_TiB,
			       s->s3_prefixes, &g->ckpt_bw, err);
	if (st != SC_OK)
		return st;
	storage_ckpt_size(sc, s->checkpoint_moments, &g->ckpt);
	storage_ckpt_io(&g->ckpt_bw, &g->ckpt, s->d2h_GBps * 1e9, cl->instance.gpus_per_node, &g->io);
	g->host_bytes_per_node = g->io.host_bytes_per_node;
	g->host_capacity_bytes = cl->instance.memory_GiB * SC_GiB_BYTES;
	g->host_memory_ok = !s->async_checkpoint || g->host_bytes_per_node <= g->host_capacity_bytes;
	g->drain_s = s->async_checkpoint ? g->io.drain_s : 0.0;
	if (g->drain_s > 0 && g->ckpt_bw.node_net_Bps > 0)
		g->drain_net_share = g->ckpt.node_write_bytes / g->drain_s / g->ckpt_bw.node_net_Bps;
	g->blocking_s = s->async_checkpoint ? g->io.async_stall_s : g->io.sync_stall_s;
	return SC_OK;
}

/* Failures at this job's size: per-GPU and per-node causes, the MTBF and
 * the interruptions a day. */
static void failure_rates(const struct scenario *sc, struct goodput_result *g)
{
	const struct storage_cfg *s = &sc->storage;
	int gpus = scenario_gpus(sc);

	g->gpu_rate_per_h = 0;
	g->node_rate_per_h = 0;
	for (int i = 0; i < s->failures.n_causes; i++) {
		double rate = res_cause_rate_per_h(&s->failures, i, gpus, sc->cluster.nodes);

		if (s->failures.cause[i].per == FAIL_PER_GPU)
			g->gpu_rate_per_h += rate;
		else
			g->node_rate_per_h += rate;
	}
	g->job_rate_per_h = g->gpu_rate_per_h + g->node_rate_per_h;
	g->mtbf_s = g->job_rate_per_h > 0 ? 3600.0 / g->job_rate_per_h : INFINITY;
	g->planned_per_h = s->failures.planned_per_h;
	g->interruptions_per_day = 24.0 * (g->job_rate_per_h + g->planned_per_h);
}

/* The restart and the restore after a failure.  From a checkpoint: every
 * byte read once from the tier (Megatron-LM --ckpt-fully-parallel-load),
 * the replicated part all-gathered over its data-parallel copies, then
 * copied to the GPUs.  Checkpointless: the replaced node's GPUs get their
 * state from the peers holding its replica, over the node's network. */
static enum sc_status restore_cost(const struct scenario *sc, struct goodput_result *g,
				   struct sc_error *err)
{
	const struct storage_cfg *s = &sc->storage;
	const struct cluster *cl = &sc->cluster;
	struct net_span span = net_span_of(cl, g->ckpt.replica_group > 0 ? g->ckpt.replica_group : 1,
					   g->ckpt.replica_stride > 0 ? g->ckpt.replica_stride : 1);
	enum sc_status st;

	g->exchange_s = coll_time(&sc->calibration, &span, COLL_ALL_GATHER,
				  g->ckpt.gpu_replicated_bytes, NULL);
	if (s->recovery == RECOVERY_CHECKPOINTLESS) {
		st = checkpointless_cost(sc, g, err);
		if (st != SC_OK)
			return st;
		g->restart_s = s->checkpointless.restart_s;
		g->restore_s = (g->ckpt.gpu_held_bytes + g->mem_extra_bytes) *
			       cl->instance.gpus_per_node / g->ckpt_bw.node_net_Bps;
	} else {
		g->restart_s = s->restart.restart_s;
		g->restore_s = g->io.read_s + g->exchange_s +
			       (s->h2d_GBps > 0 ? g->ckpt.gpu_held_bytes / (s->h2d_GBps * 1e9) : 0.0);
	}
	return SC_OK;
}

/* The checkpoint interval: Young's and Daly's for this checkpoint's
 * blocking cost, the optimum, and the steps between saves (given, or
 * Daly's). */
static void checkpoint_interval(const struct storage_cfg *s, struct goodput_result *g)
{
	double k;

	g->young_s = res_young_interval_s(g->blocking_s, g->mtbf_s);
	g->daly_s = res_daly_interval_s(g->blocking_s, g->mtbf_s);
	g->optimum_s = res_optimal_interval_s(g->blocking_s, g->restart_s + g->restore_s, g->mtbf_s);
	g->interval_auto = s->checkpoint_every_steps == 0;
	if (s->recovery != RECOVERY_CHECKPOINT && g->interval_auto)
		return;
	if (!g->interval_auto)
		k = s->checkpoint_every_steps;
	else if (isfinite(g->daly_s))
		k = fmax(1.0, round(g->daly_s / g->work_step_s));
	else
		k = 0;   /* no failures: nothing to checkpoint for */
	/* an async save must finish draining before the next snapshot */
	if (k > 0 && s->async_checkpoint && g->interval_auto)
		k = fmax(k, ceil((g->drain_s - g->blocking_s) / g->work_step_s));
	if (k > 2e9)
		k = 2e9;
	g->interval_steps = (int)k;
	g->periodic = k > 0;
}

/* The segment a failure rolls back (steps k, seconds tau, its save's cost
 * delta, the drain it may lose) and the planned interruptions, into the
 * calendar. */
static void segments(const struct storage_cfg *s, struct goodput_result *g)
{
	double k, tau, delta = 0, drain = 0, planned_cost, planned;

	if (g->periodic) {
		g->interval_s = g->interval_steps * g->work_step_s;
		/* waiting for the previous drain counts as blocking */
		delta = s->async_checkpoint ? fmax(g->blocking_s, g->drain_s - g->interval_s)
					    : g->blocking_s;
		g->checkpoint_s = delta / g->interval_steps;
	}
	g->recovery_s = g->restart_s + g->restore_s;
	if (s->recovery == RECOVERY_CHECKPOINTLESS) {
		/* one step per segment: a failure loses the step in flight;
		 * durable checkpoints, if any, amortised into it */
		k = 1;
		tau = g->work_step_s;
		delta = g->checkpoint_s;
	} else if (g->periodic) {
		k = g->interval_steps;
		tau = g->interval_s;
		/* a failure during an async drain rolls back one more segment:
		 * uniform in time, that costs the drain time D on average
		 * (D <= tau + delta holds by the wait above) */
		drain = g->drain_s;
		g->recovery_s += drain;
	} else {
		k = 1;
		tau = g->work_step_s;
	}
	/* planned interruptions lose no work: each costs a restart and a
	 * restore (the job checkpoints first) */
	planned_cost = g->restart_s + g->restore_s;
	planned = g->planned_per_h * planned_cost / 3600.0;
	if (planned > 0.99)
		planned = 0.99;
	g->step_s = g->work_step_s + g->checkpoint_s;
	calendar(g, k, tau, delta, drain, planned);
}

/* Goodput of the step r: stragglers, then with storage the data stall,
 * the checkpoint, failures, restore, the interval and the calendar. */
static enum sc_status goodput_of(const struct scenario *sc, const struct step_result *r,
				 struct goodput_memo *memo, struct goodput_result *g,
				 struct sc_error *err)
{
	const struct storage_cfg *s = &sc->storage;
	enum sc_status st;

	memset(g, 0, sizeof(*g));
	g->recovery = s->recovery;
	g->has_storage = s->enabled;
	g->base_step_s = base_step(r);
	g->straggler_stretch = 1.0;
	g->mtbf_s = INFINITY;
	g->host_memory_ok = true;

	/* stragglers: the synchronous step waits for the slowest GPU's compute */
	if (sc->stragglers.enabled) {
		st = straggler_stretch(sc, scenario_gpus(sc), memo, &g->straggler_stretch, err);
		if (st != SC_OK)
			return st;
		g->straggler_s = (g->straggler_stretch - 1.0) * r->part_s[PART_COMPUTE];
		if (g->straggler_s < 0)
			g->straggler_s = 0;
	}
	g->work_step_s = g->base_step_s + g->straggler_s;
	if (!s->enabled) {
		g->step_s = g->work_step_s;
		g->goodput = g->frac[CAL_USEFUL] = g->base_step_s / g->step_s;
		g->frac[CAL_STRAGGLER] = g->straggler_s / g->step_s;
		time_to_train(sc, g);
		advise(sc, g);
		return SC_OK;
	}
	if (s->has_data_tier && (st = data_loading(sc, g, err)) != SC_OK)
		return st;
	if ((st = checkpoint_io(sc, g, err)) != SC_OK)
		return st;
	failure_rates(sc, g);
	if ((st = restore_cost(sc, g, err)) != SC_OK)
		return st;
	g->work_step_s += g->data_stall_s + g->replication_s;
	checkpoint_interval(s, g);
	segments(s, g);
	time_to_train(sc, g);
	advise(sc, g);
	return SC_OK;
}

void sim_goodput_apply(const struct goodput_result *g, struct step_result *r)
{
	double old = r->step_time_s, now = 0, ratio;

	r->part_s[PART_DATA_STALL] = g->data_stall_s;
	r->part_s[PART_CHECKPOINT] = g->checkpoint_s + g->replication_s;
	r->part_s[PART_STRAGGLER] = g->straggler_s;
	for (int i = 0; i < PART_COUNT; i++)
		now += r->part_s[i];
	ratio = now > 0 ? old / now : 1.0;
	r->step_time_s = now;
	r->tokens_per_s *= ratio;
	r->tokens_per_s_per_gpu *= ratio;
	r->model_tflops_per_gpu *= ratio;
	r->mfu *= ratio;
	r->hfu *= ratio;
	for (int i = 0; i < MEM_COUNT; i++) {
		r->mem_bytes[i] += g->mem_extra_by[i];
		r->mem_total_bytes += g->mem_extra_by[i];
	}
	/* the replicas are tensors of the caching allocator (optimizer,
	 * gradient and weight shards): every stage's allocator lines grow by
	 * them as models/memory counts an allocation (reserved carries its
	 * MEM_ALLOCATOR_SLACK), so peak allocated stays the sum of the
	 * in-allocator parts the breakdown shows */
	for (int k = 0; k < 2; k++) {
		struct mem_out *m = &r->mem_stage[k];
		double x = g->mem_extra_by[MEM_WEIGHTS] + g->mem_extra_by[MEM_GRADIENTS] +
			   g->mem_extra_by[MEM_OPTIMIZER];

		m->allocated_bytes += x;
		m->fragmentation_bytes += MEM_ALLOCATOR_SLACK * x;
		m->reserved_bytes += (1 + MEM_ALLOCATOR_SLACK) * x;
		m->device_bytes += (1 + MEM_ALLOCATOR_SLACK) * x;
		m->need_bytes += x;
		m->total_bytes += x;
		m->optimizer_bytes += g->mem_extra_by[MEM_OPTIMIZER];
		m->gradients_bytes += g->mem_extra_by[MEM_GRADIENTS];
		m->weights_bytes += g->mem_extra_by[MEM_WEIGHTS];
		m->oom = m->need_bytes > m->usable_bytes;
	}
	r->oom = r->mem_total_bytes > r->mem_capacity_bytes;
}

enum sc_status sim_goodput_extend(const struct scenario *sc, struct step_result *r,
				  struct sc_error *err)
{
	return sim_goodput_extend_memo(sc, r, NULL, err);
}

enum sc_status sim_goodput_extend_memo(const struct scenario *sc, struct step_result *r,
				       struct goodput_memo *memo, struct sc_error *err)
{
	struct goodput_result g;
	enum sc_status st;

	if (!(r->step_time_s > 0))
		return SC_OK;   /* nothing to extend (a STEP_STOP_IF_OOM result) */
	st = goodput_of(sc, r, memo, &g, err);
	if (st != SC_OK)
		return st;
	sim_goodput_apply(&g, r);
	return SC_OK;
}

enum sc_status sim_goodput_compare(const struct scenario *sc, const struct step_result *r,
				   const struct storage_spec *const *tiers, int n,
				   struct goodput_option *out, int *n_out, struct sc_error *err)
{
	struct scenario *tmp = malloc(sizeof(*tmp));   /* large: kept off the stack */
	struct sc_error e;
	int k = 0;

	if (!tmp)
		return sc_error_set(err, SC_ENOMEM, NULL, NULL, "out of memory");
	for (int i = 0; i <= n; i++) {
		struct goodput_option *o = &out[k];
		enum sc_status st;

		memset(o, 0, sizeof(*o));
		*tmp = *sc;
		tmp->storage.enabled = true;
		if (i < n) {
			tmp->storage.checkpoint_tier = *tiers[i];
			tmp->storage.recovery = RECOVERY_CHECKPOINT;
			tmp->storage.checkpoint_every_steps = 0;   /* Daly's, for each tier */
			snprintf(o->label, sizeof(o->label), "checkpoint to %s", tiers[i]->kind);
			snprintf(o->tier, sizeof(o->tier), "%s", tiers[i]->name);
		} else {
			tmp->storage.recovery = RECOVERY_CHECKPOINTLESS;
			snprintf(o->label, sizeof(o->label), "checkpointless");
			snprintf(o->tier, sizeof(o->tier), "%s", sc->storage.checkpoint_tier.name);
		}
		sc_error_clear(&e);
		st = sim_goodput(tmp, r, &o->g, &e);
		o->ok = st == SC_OK;
		if (!o->ok)
			snprintf(o->why, sizeof(o->why), "%s", e.message);
		k++;
	}
	free(tmp);
	*n_out = k;
	return SC_OK;
}
