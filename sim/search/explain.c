/* explain.c: the bottleneck's why and the neighbouring settings ranked (see
 * explain.h).  Every rule about what a layout may be is models/layout's
 * (scenario_check); every time is sim_step_predict's. */
#include "explain.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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
}

/* A parallel size changed to v, DP following the GPUs. */
static void try_size(struct ctx *x, const char *key, int v)
{
	struct scenario c = *x->base;
	int gpus = scenario_gpus(&c), *slot;
	char change[96], set[256];
	long long denom;

	if (v < 1)
		return;
	slot = strcmp(key, "tp") == 0 ? &c.layout.tp : strcmp(key, "pp") == 0 ? &c.layout.pp
	       : strcmp(key, "cp") == 0 ? &c.layout.cp : strcmp(key, "ep") == 0 ? &c.layout.ep : &c.layout.vpp;
	*slot = v;
	if (strcmp(key, "tp") == 0)
		c.layout.sequence_parallel = v > 1 && (x->base->layout.sequence_parallel || x->base->layout.tp == 1);
	if (strcmp(key, "vpp") == 0 || strcmp(key, "pp") == 0) {
		if (c.layout.pp == 1)
			c.layout.vpp = 1;
		if (c.layout.vpp > 1 && c.layout.schedule == SCHED_1F1B)
			c.layout.schedule = SCHED_INTERLEAVED_1F1B;
		if (c.layout.vpp == 1 && c.layout.schedule == SCHED_INTERLEAVED_1F1B)
			c.layout.schedule = SCHED_1F1B;
	}
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
	if (c.layout.vpp != x->base->layout.vpp && strcmp(key, "vpp") != 0) {
		size_t n = strlen(set);

		snprintf(set + n, sizeof(set) - n, " --set layout.vpp=%d", c.layout.vpp);
	}
	if (c.layout.schedule != x->base->layout.schedule) {
		size_t n = strlen(set);

		snprintf(set + n, sizeof(set) - n, " --set layout.schedule=%s", schedule_name(c.layout.schedule));
	}
	try_one(x, &c, change, set);
}

enum sc_status explain_run(const struct scenario *sc, struct explain_result *out,
			   struct sc_error *err)
{
	struct ctx x = { sc, out };
	const struct layout *l = &sc->layout;
	bool moe = model_is_moe(&sc->model);
	char change[96], set[256];

	memset(out, 0, sizeof(*out));
	if (sim_step_predict(sc, &out->base, err) != SC_OK)
		return err->status;

	try_size(&x, "tp", l->tp * 2);
	if (l->tp % 2 == 0)
		try_size(&x, "tp", l->tp / 2);
	try_size(&x, "pp", l->pp * 2);
	if (l->pp % 2 == 0)
		try_size(&x, "pp", l->pp / 2);
	if (l->pp > 1) {
		try_size(&x, "vpp", l->vpp * 2);
		if (l->vpp % 2 == 0)
			try_size(&x, "vpp", l->vpp / 2);
	}
	try_size(&x, "cp", l->cp * 2);
	if (l->cp % 2 == 0)
		try_size(&x, "cp", l->cp / 2);
	if (moe) {
		try_size(&x, "ep", l->ep * 2);
		if (l->ep % 2 == 0)
			try_size(&x, "ep", l->ep / 2);
	}
	if (!l->fsdp)
		for (int z = 0; z <= 3; z++) {
			struct scenario c = *sc;

			if (z == l->zero_stage)
				continue;
			c.layout.zero_stage = z;
			snprintf(change, sizeof(change), "zero_stage %d", z);
			snprintf(set, sizeof(set), "--set layout.zero_stage=%d", z);
			try_one(&x, &c, change, set);
		}
	for (int rc = RECOMPUTE_NONE; rc <= RECOMPUTE_FULL; rc++) {
		struct scenario c = *sc;

		if (rc == (int)sc->training.recompute)
			continue;
		c.training.recompute = (enum sc_recompute)rc;
		snprintf(change, sizeof(change), "recompute %s", recompute_name(c.training.recompute));
		snprintf(set, sizeof(set), "--set training.recompute=%s", recompute_name(c.training.recompute));
		try_one(&x, &c, change, set);
	}
	if (sc->training.optimizer == OPT_ADAM && sc->training.moments_dtype != DTYPE_BF16) {
		/* Megatron's precision-aware optimizer (--exp-avg-dtype bf16):
		 * memory, not time */
		struct scenario c = *sc;

		c.training.moments_dtype = DTYPE_BF16;
		snprintf(change, sizeof(change), "moments_dtype bf16");
		snprintf(set, sizeof(set), "--set training.moments_dtype=bf16");
		try_one(&x, &c, change, set);
	}
	for (int k = 0; k < 2; k++) {
		struct scenario c = *sc;
		int mb = k ? sc->training.micro_batch_seqs / 2 : sc->training.micro_batch_seqs * 2;

		if (mb < 1 || (k && sc->training.micro_batch_seqs % 2))
			continue;
		c.training.micro_batch_seqs = mb;
		snprintf(change, sizeof(change), "micro batch %d", mb);
		snprintf(set, sizeof(set), "--set training.micro_batch_seqs=%d", mb);
		try_one(&x, &c, change, set);
	}
	if (l->pp > 1)
		for (int s = SCHED_1F1B; s <= SCHED_DUALPIPE; s++) {
			struct scenario c = *sc;

			if (s == (int)l->schedule || (s == SCHED_INTERLEAVED_1F1B) != (l->vpp > 1))
				continue;
			c.layout.schedule = (enum sc_schedule)s;
			snprintf(change, sizeof(change), "schedule %s", schedule_name(c.layout.schedule));
			snprintf(set, sizeof(set), "--set layout.schedule=%s", schedule_name(c.layout.schedule));
			try_one(&x, &c, change, set);
		}
	if (l->tp > 1) {
		struct scenario c = *sc;

		c.layout.tp_comm_overlap = !l->tp_comm_overlap;
		snprintf(change, sizeof(change), "tp_comm_overlap %s", c.layout.tp_comm_overlap ? "on" : "off");
		snprintf(set, sizeof(set), "--set layout.tp_comm_overlap=%s", c.layout.tp_comm_overlap ? "true" : "false");
		try_one(&x, &c, change, set);
		c = *sc;
		c.layout.sequence_parallel = !l->sequence_parallel;
		snprintf(change, sizeof(change), "sequence_parallel %s", c.layout.sequence_parallel ? "on" : "off");
		snprintf(set, sizeof(set), "--set layout.sequence_parallel=%s",
			 c.layout.sequence_parallel ? "true" : "false");
		try_one(&x, &c, change, set);
	}
	if (moe && l->ep > 1) {
		struct scenario c = *sc;

		c.layout.ep_comm_overlap = !l->ep_comm_overlap;
		snprintf(change, sizeof(change), "ep_comm_overlap %s", c.layout.ep_comm_overlap ? "on" : "off");
		snprintf(set, sizeof(set), "--set layout.ep_comm_overlap=%s", c.layout.ep_comm_overlap ? "true" : "false");
		try_one(&x, &c, change, set);
		c = *sc;
		c.layout.moe_dispatcher = l->moe_dispatcher == MOE_DISPATCH_FLEX ? MOE_DISPATCH_ALLTOALL : MOE_DISPATCH_FLEX;
		snprintf(change, sizeof(change), "moe_dispatcher %s", moe_dispatcher_name(c.layout.moe_dispatcher));
		snprintf(set, sizeof(set), "--set layout.moe_dispatcher=%s", moe_dispatcher_name(c.layout.moe_dispatcher));
		try_one(&x, &c, change, set);
	}

	/* fastest first; what does not fit in memory after all that does
	 * (insertion sort: a few dozen options) */
	for (int i = 1; i < out->n; i++) {
		struct explain_option t = out->opt[i];
		int j = i - 1;

		while (j >= 0 && (out->opt[j].oom > t.oom ||
				  (out->opt[j].oom == t.oom && out->opt[j].step_time_s > t.step_time_s))) {
			out->opt[j + 1] = out->opt[j];
			j--;
		}
		out->opt[j + 1] = t;
	}

	/* the bottleneck's resource: busy (its work before overlap) and
	 * exposed (the parts of the step it leaves on the critical path) */
	{
		const struct step_result *r = &out->base;
		double busy = 0, exposed = 0, st = r->step_time_s > 0 ? r->step_time_s : 1;

		switch (r->bottleneck) {
		case BOTTLENECK_NVLINK:
		case BOTTLENECK_EFA:
			for (int i = 0; i < r->n_collectives; i++)
				if (strcmp(r->collectives[i].tier, r->bottleneck == BOTTLENECK_NVLINK ? "nvlink" : "efa") == 0)
					busy += r->collectives[i].total_time_s;
			exposed = r->part_s[PART_TP_COMM] + r->part_s[PART_CP_COMM] + r->part_s[PART_EP_COMM] +
				  r->part_s[PART_PP_COMM] + r->part_s[PART_DP_COMM];
			break;
		case BOTTLENECK_PIPELINE_BUBBLE:
			busy = exposed = r->part_s[PART_BUBBLE];
			break;
		case BOTTLENECK_OVERHEAD:
			busy = exposed = r->part_s[PART_OVERHEAD];
			break;
		default:
			busy = exposed = r->part_s[PART_COMPUTE] + r->part_s[PART_OPTIMIZER];
			break;
		}
		out->busy_fraction = busy / st;
		out->exposed_fraction = exposed / st;
	}
	return SC_OK;
}
