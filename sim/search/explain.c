/* explain.c: the bottleneck's why and the neighbouring settings ranked (see
 * explain.h).  Every rule about what a layout may be is models/layout's
 * (scenario_check); every time is sim_step_predict's. */
#include "explain.h"

#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../models/layout.h"
#include "../config/scenario_load.h"

struct ctx {
	const struct scenario *base;
	struct explain_result *out;
};

static void try_one(struct ctx *x, const struct scenario *cand, const char *change, const char *set)
{
	struct explain_result *o = x->out;
	struct explain_option *e;
	struct step_result r;
	struct sc_error err;

	o->tried++;
	sc_error_clear(&err);
	if (scenario_check(cand, NULL, &err) != SC_OK || sim_step_predict(cand, &r, &err) != SC_OK) {
		o->invalid++;
		return;
	}
	if (o->n >= EXPLAIN_MAX_OPTIONS)
		return;
	e = &o->opt[o->n++];
	snprintf(e->change, sizeof(e->change), "%s", change);
	snprintf(e->set, sizeof(e->set), "%s", set);
	e->step_time_s = r.step_time_s;
	e->rel = o->base.step_time_s > 0 ? (r.step_time_s - o->base.step_time_s) / o->base.step_time_s : 0;
	e->mem_total_bytes = r.mem_total_bytes;
	e->oom = r.oom;
	e->bottleneck = r.bottleneck;
	/* the one decision rule (models/uncertainty): a change inside the
	 * band is a tie; two layouts are two predictions (rho 0) */
	e->band = sim_step_band(cand, &r, NULL);
	e->order = model_band_order(&e->band, r.step_time_s, &o->band, o->base.step_time_s, 0.0, o->confidence);
	e->prob_faster = model_band_prob_less(&e->band, r.step_time_s, &o->band, o->base.step_time_s, 0.0);
}

/* Append " --set layout.KEY=VALUE" for each pipeline setting of c that
 * differs from the base's and is not the key changed. */
static void set_follow(const struct layout *b, const struct layout *c, const char *key, char *set, size_t size)
{
	size_t n = strlen(set);

	if (c->vpp != b->vpp && strcmp(key, "vpp") != 0)
		n += (size_t)snprintf(set + n, size - n, " --set layout.vpp=%d", c->vpp);
	if (n < size && c->schedule != b->schedule && strcmp(key, "schedule") != 0)
		n += (size_t)snprintf(set + n, size - n, " --set layout.schedule=%s", schedule_name(c->schedule));
	if (n < size && c->sequence_parallel != b->sequence_parallel && strcmp(key, "sequence_parallel") != 0)
		snprintf(set + n, size - n, " --set layout.sequence_parallel=%s",
			 c->sequence_parallel ? "true" : "false");
}

/* A parallel size changed to v, DP following the GPUs; what follows the
 * change (sequence parallelism, vpp, the schedule) is models/layout's. */
static void try_size(struct ctx *x, const char *key, int v)
{
	struct scenario c = *x->base;
	int gpus = scenario_gpus(&c);
	char change[96], set[256];
	long long denom;

	if (v < 1)
		return;
	if (strcmp(key, "tp") == 0)
		layout_set_tp(&c.layout, v);
	else if (strcmp(key, "pp") == 0)
		layout_set_pipeline(&c.layout, v, c.layout.vpp);
	else if (strcmp(key, "vpp") == 0)
		layout_set_pipeline(&c.layout, c.layout.pp, v);
	else if (strcmp(key, "cp") == 0)
		c.layout.cp = v;
	else
		c.layout.ep = v;
	denom = (long long)c.layout.tp * c.layout.pp * c.layout.cp;
	if (strcmp(key, "ep") != 0 && strcmp(key, "vpp") != 0) {
		if (gpus % denom != 0)
			return;
		c.layout.dp = (int)(gpus / denom);
	}
	if (c.layout.dp != x->base->layout.dp) {
		snprintf(change, sizeof(change), "%s %d (dp %d)", key, v, c.layout.dp);
		snprintf(set, sizeof(set), "--set layout.%s=%d --set layout.dp=%d", key, v, c.layout.dp);
	} else {
		snprintf(change, sizeof(change), "%s %d", key, v);
		snprintf(set, sizeof(set), "--set layout.%s=%d", key, v);
	}
	set_follow(&x->base->layout, &c.layout, key, set, sizeof(set));
	try_one(x, &c, change, set);
}

/* The degree key (now n) doubled and, when even, halved. */
static void try_double_halve(struct ctx *x, const char *key, int n)
{
	try_size(x, key, n * 2);
	if (n % 2 == 0)
		try_size(x, key, n / 2);
}

/* Each parallel degree doubled and (when even) halved: tp, pp, vpp (with
 * a pipeline), cp, ep (MoE). */
static void try_degrees(struct ctx *x)
{
	const struct scenario *sc = x->base;
	const struct layout *l = &sc->layout;

	try_double_halve(x, "tp", l->tp);
	try_double_halve(x, "pp", l->pp);
	if (l->pp > 1)
		try_double_halve(x, "vpp", l->vpp);
	try_double_halve(x, "cp", l->cp);
	if (model_is_moe(&sc->model))
		try_double_halve(x, "ep", l->ep);
}

/* The memory-for-time trades: every other ZeRO stage (without FSDP),
 * every other recompute, bf16 Adam moments, the micro batch doubled and
 * halved. */
static void try_memory_trades(struct ctx *x)
{
	const struct scenario *sc = x->base;
	const struct layout *l = &sc->layout;
	char change[96], set[256];

	if (!l->fsdp)
		for (int z = 0; z <= 3; z++) {
			struct scenario c = *sc;

			if (z == l->zero_stage)
				continue;
			c.layout.zero_stage = z;
			snprintf(change, sizeof(change), "zero_stage %d", z);
			snprintf(set, sizeof(set), "--set layout.zero_stage=%d", z);
			try_one(x, &c, change, set);
		}
	for (int rc = RECOMPUTE_NONE; rc <= RECOMPUTE_FULL; rc++) {
		struct scenario c = *sc;

		if (rc == (int)sc->training.recompute)
			continue;
		c.training.recompute = (enum sc_recompute)rc;
		snprintf(change, sizeof(change), "recompute %s", recompute_name(c.training.recompute));
		snprintf(set, sizeof(set), "--set training.recompute=%s", recompute_name(c.training.recompute));
		try_one(x, &c, change, set);
	}
	if (sc->training.optimizer == OPT_ADAM && sc->training.moments_dtype != DTYPE_BF16) {
		/* Megatron's precision-aware optimizer (--exp-avg-dtype bf16):
		 * memory, not time */
		struct scenario c = *sc;

		c.training.moments_dtype = DTYPE_BF16;
		snprintf(change, sizeof(change), "moments_dtype bf16");
		snprintf(set, sizeof(set), "--set training.moments_dtype=bf16");
		try_one(x, &c, change, set);
	}
	for (int k = 0; k < 2; k++) {
		struct scenario c = *sc;
		int mb = k ? sc->training.micro_batch_seqs / 2 : sc->training.micro_batch_seqs * 2;

		if (mb < 1 || (k && sc->training.micro_batch_seqs % 2))
			continue;
		c.training.micro_batch_seqs = mb;
		snprintf(change, sizeof(change), "micro batch %d", mb);
		snprintf(set, sizeof(set), "--set training.micro_batch_seqs=%d", mb);
		try_one(x, &c, change, set);
	}
}

/* Every other pipeline schedule, with the vpp its rule needs
 * (models/layout: DualPipe and the one-chunk schedules from an
 * interleaved layout take vpp 1, ZB-V vpp 2). */
static void try_schedules(struct ctx *x)
{
	const struct scenario *sc = x->base;
	const struct layout *l = &sc->layout;
	char change[96], set[256];

	if (l->pp <= 1)
		return;
	for (int s = SCHED_1F1B; s <= SCHED_DUALPIPE; s++) {
		struct scenario c = *sc;

		if (s == (int)l->schedule)
			continue;
		layout_set_schedule(&c.layout, (enum sc_schedule)s);
		snprintf(change, sizeof(change), "schedule %s", schedule_name(c.layout.schedule));
		if (c.layout.vpp != l->vpp) {
			size_t n = strlen(change);

			snprintf(change + n, sizeof(change) - n, " (vpp %d)", c.layout.vpp);
		}
		snprintf(set, sizeof(set), "--set layout.schedule=%s", schedule_name(c.layout.schedule));
		set_follow(l, &c.layout, "schedule", set, sizeof(set));
		try_one(x, &c, change, set);
	}
}

/* The layout's on/off switch `name` (the bool at offset member of struct
 * layout) flipped: the option "NAME on|off" with its --set. */
static void try_switch(struct ctx *x, size_t member, const char *name)
{
	struct scenario c = *x->base;
	bool *sw = (bool *)((char *)&c.layout + member);
	char change[96], set[256];

	*sw = !*sw;
	snprintf(change, sizeof(change), "%s %s", name, *sw ? "on" : "off");
	snprintf(set, sizeof(set), "--set layout.%s=%s", name, *sw ? "true" : "false");
	try_one(x, &c, change, set);
}

/* The communication switches flipped: TP overlap and sequence
 * parallelism (with TP), EP overlap and the MoE dispatcher (with EP). */
static void try_comm_switches(struct ctx *x)
{
	const struct scenario *sc = x->base;
	const struct layout *l = &sc->layout;

	if (l->tp > 1) {
		try_switch(x, offsetof(struct layout, tp_comm_overlap), "tp_comm_overlap");
		try_switch(x, offsetof(struct layout, sequence_parallel), "sequence_parallel");
	}
	if (model_is_moe(&sc->model) && l->ep > 1) {
		struct scenario c = *sc;
		char change[96], set[256];

		try_switch(x, offsetof(struct layout, ep_comm_overlap), "ep_comm_overlap");
		c.layout.moe_dispatcher = l->moe_dispatcher == MOE_DISPATCH_FLEX ? MOE_DISPATCH_ALLTOALL : MOE_DISPATCH_FLEX;
		snprintf(change, sizeof(change), "moe_dispatcher %s", moe_dispatcher_name(c.layout.moe_dispatcher));
		snprintf(set, sizeof(set), "--set layout.moe_dispatcher=%s", moe_dispatcher_name(c.layout.moe_dispatcher));
		try_one(x, &c, change, set);
	}
}

/* What fits first, then surely faster, tied, surely slower, each by step
 * time (insertion sort: a few dozen options). */
static void sort_options(struct explain_result *out)
{
	for (int i = 1; i < out->n; i++) {
		struct explain_option t = out->opt[i];
		int j = i - 1;

		while (j >= 0 && (out->opt[j].oom > t.oom ||
				  (out->opt[j].oom == t.oom && out->opt[j].order > t.order) ||
				  (out->opt[j].oom == t.oom && out->opt[j].order == t.order &&
				   out->opt[j].step_time_s > t.step_time_s))) {
			out->opt[j + 1] = out->opt[j];
			j--;
		}
		out->opt[j + 1] = t;
	}
}

enum sc_status explain_run(const struct scenario *sc, double confidence, struct explain_result *out,
			   struct sc_error *err)
{
	struct ctx x = { sc, out };

	memset(out, 0, sizeof(*out));
	if (sim_step_predict(sc, &out->base, err) != SC_OK)
		return err->status;
	{
		enum model_regime regime;

		out->band = sim_step_band(sc, &out->base, &regime);
		out->regime = (int)regime;
	}
	out->confidence = confidence > 0 && confidence < 1 ? confidence : MODEL_DECISION_CONFIDENCE;

	try_degrees(&x);
	try_memory_trades(&x);
	try_schedules(&x);
	try_comm_switches(&x);
	sort_options(out);

	out->share = explain_share_of(&out->base);
	{
		double st = out->base.step_time_s > 0 ? out->base.step_time_s : 1;

		out->busy_fraction = out->share.busy_s / st;
		out->exposed_fraction = out->share.exposed_s / st;
	}
	return SC_OK;
}

/* The breakdown part that holds group `what`'s exposed communication. */
struct explain_share explain_share_of(const struct step_result *r)
{
	struct explain_share s = { 0, 0, 0, 0, 0 };
	double st = r->step_time_s > 0 ? r->step_time_s : 0;

	switch (r->bottleneck) {
	case BOTTLENECK_NVLINK:
	case BOTTLENECK_EFA: {
		const char *tier = r->bottleneck == BOTTLENECK_NVLINK ? "nvlink" : "efa";
		double all_s[PART_COUNT] = { 0 }, mine_s[PART_COUNT] = { 0 };

		for (int i = 0; i < r->n_collectives; i++) {
			const struct step_collective *c = &r->collectives[i];
			int p = step_part_of_collective(c->what);

			all_s[p] += c->total_time_s;
			if (strcmp(c->tier, tier) == 0) {
				mine_s[p] += c->total_time_s;
				s.work_s += c->total_time_s;
			}
		}
		/* each exposed part, shared among the tiers its collectives
		 * run on by their work: a part of the breakdown is counted
		 * once, so the exposed shares of all tiers sum to the parts */
		for (int p = PART_TP_COMM; p <= PART_DP_COMM; p++)
			if (all_s[p] > 0)
				s.exposed_s += r->part_s[p] * mine_s[p] / all_s[p];
		break;
	}
	case BOTTLENECK_PIPELINE_BUBBLE:
		s.work_s = s.exposed_s = r->part_s[PART_BUBBLE];
		break;
	case BOTTLENECK_OVERHEAD:
		s.work_s = s.exposed_s = r->part_s[PART_OVERHEAD];
		break;
	default:
		s.work_s = s.exposed_s = r->part_s[PART_COMPUTE] + r->part_s[PART_OPTIMIZER];
		break;
	}
	if (s.exposed_s > st)
		s.exposed_s = st;
	s.hidden_s = s.work_s - s.exposed_s;
	if (s.hidden_s < 0)
		s.hidden_s = 0;
	if (s.hidden_s > st - s.exposed_s)
		s.hidden_s = st - s.exposed_s;
	s.busy_s = s.exposed_s + s.hidden_s;
	s.concurrent_s = s.work_s > s.busy_s ? s.work_s - s.busy_s : 0;
	return s;
}
