/* des_program.c: one training step as per-stage programs for the
 * discrete-event engine (see des_internal.h).  Pure C, no SimGrid.
 *
 * Where the numbers come from: the analytical engine's shape phase
 * (sim_step_prepare: each layer kind's roofline time per direction, its
 * TP/CP/EP communication before overlap and the windows it may hide under)
 * and models/collective (coll_flows_of: the algorithm the analytical model
 * picks for each collective, as the flows that carry it).  Nothing is timed
 * twice: a block's GPU work is the analytical compute of its layers, and its
 * communication is replayed as flows whose contention-free duration is the
 * analytical one, so that both engines agree when nothing contends.
 *
 * What is folded into GPU work and what becomes flows (DESIGN.md, "The step,
 * as discrete events"): TP traffic stays inside an NVLink domain (the
 * analytical exposed part and the interference of the hidden part are GPU
 * work); CP and EP traffic likewise when their group stays inside a domain,
 * and as flows under the analytical overlap rule when it crosses domains;
 * pipeline sends, DP/FSDP buckets and the hybrid-shard replica all-reduce
 * are always flows.
 *
 * The pipeline schedule is models/schedule's op order (sched_order: the
 * analytical engine's closed forms are that order's makespan): Megatron's
 * 1F1B, interleaved 1F1B and GPipe, ZB-H1 and ZB-V with W (the weight-
 * gradient GEMMs) as blocks of their own and B sending its gradient at
 * once, DualPipe's two directions (a rank holds stage s and pp - 1 - s)
 * with its overlapped F&B pairs; where a chunk sits along its pipeline
 * (sched_place) gives its layers and its pipeline neighbours.
 *
 * DP (ZeRO 0-2): each model chunk's gradient buckets (dp_bucket_params) are
 * launched as flows while the last micro-batch's backward of that chunk
 * produces them (the block is cut into one piece per bucket, Megatron's
 * overlap_grad_reduce), and the parameter all-gathers start with the step
 * (overlap_param_gather); what is exposed follows the analytical rule on
 * the simulated durations (des_engine.c).  FSDP (ZeRO-3) gathers and
 * reduces per block under the analytical prefetch-overlap rule.
 */
#include "des_internal.h"
#include "../analytic/step.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../../models/gpu.h"
#include "../../models/schedule.h"
#include "../../models/transformer.h"

/* ---- costs --------------------------------------------------------------------------- */

/* Flows of one CP ring step (a send/recv of one K,V chunk, analytical ring
 * span of two ranks) and of one EP all-to-all, for a layer kind. */
struct kind_flows {
	struct coll_flows cp_step;
	struct coll_flows ep_call;
};

static void kind_flows_of(const struct des_program *p, const struct tf_layer *L,
			  struct kind_flows *kf)
{
	const struct scenario *sc = p->sc;
	const struct calibration *cal = &sc->calibration;
	const struct net_span *s = &p->prep.ep_span;

	memset(kf, 0, sizeof(*kf));
	if (p->cp > 1 && L->cp_kv_bytes > 0) {
		struct net_span ring = p->prep.cp_span;

		ring.ranks = 2;
		coll_flows_of(cal, &ring, COLL_SEND_RECV, L->cp_kv_bytes, &kf->cp_step);
	}
	if (L->ep_calls > 0 && s->ranks > 1) {
		/* the analytical engine's ep_a2a(): the backend's own rule
		 * (models/moe_dispatch.h), bytes being top_k copies */
		int k = sc->model.top_k > 0 ? sc->model.top_k : 1;
		double bytes = L->ep_bytes * p->prep.imbalance;

		moe_dispatch_flows(cal, s, ep_backend_of(sc->layout.moe_dispatcher), 1.0, bytes / k, k,
				   false, &kf->ep_call);
	}
}

/* Add n layers of kind kt (flows kf) to a block's cost in direction d. */
static void cost_add(const struct des_program *p, struct des_cost *c,
		     const struct step_kind_time *kt, const struct kind_flows *kf,
		     bool moe, int d, double n)
{
	const struct calibration *cal = &p->sc->calibration;
	double ci = cal->comm_interference;
	double tot = kt->fwd_s + kt->bwd_s;
	double gpu = d ? kt->bwd_s : kt->fwd_s;
	double frac = tot > 0 ? gpu / tot : 0;
	double tp_hid = kt->tp_hid_dir_s[d];
	double cp = kt->cp_dir_s[d], cp_win = kt->cp_win_dir_s[d];
	double h_cp = des_hide(cal->cp_overlap, cp, cp_win);
	double ep = kt->ep_dir_s[d];
	double ep_win = gpu - tp_hid - h_cp;
	double interf = ci * tp_hid;

	if (n == 0)
		return;
	if (d == 1)
		c->wgrad_s += n * kt->wgrad_s;
	c->compute_s += n * frac * kt->compute.compute_s;
	c->memory_s += n * frac * kt->compute.memory_s;
	c->launch_s += n * frac * kt->compute.launch_s;
	c->tp_exp_s += n * (kt->tp_dir_s[d] - tp_hid);
	if (cp > 0) {
		if (!p->cp_flows) {
			c->fold_cp_s += n * (cp - h_cp);
			interf += ci * h_cp;
		} else if (kf->cp_step.time_s > 0) {
			double steps = cp / kf->cp_step.time_s;

			c->cp_s += n * cp;
			c->cp_win_s += n * cp_win;
			c->cp_lat_s += n * steps * kf->cp_step.latency_s;
			c->cp_bytes += n * steps * (kf->cp_step.nvlink_bytes + kf->cp_step.efa_bytes);
			if (moe)
				c->ep_cp_share += n * cp; /* normalised in chunk_cost() */
		}
	}
	if (ep > 0) {
		double h_ep = p->sc->layout.ep_comm_overlap ? des_hide(cal->ep_overlap, ep, ep_win) : 0;

		if (!p->ep_flows) {
			c->fold_ep_s += n * (ep - h_ep);
			interf += ci * h_ep;
		} else if (kf->ep_call.time_s > 0) {
			double calls = ep / kf->ep_call.time_s;

			c->ep_s += n * ep;
			c->ep_win_s += n * (gpu - tp_hid);
			c->ep_lat_s += n * calls * kf->ep_call.latency_s;
			c->ep_efa_lat_s += n * calls * kf->ep_call.efa_latency_s;
			c->ep_nv_bytes += n * calls * kf->ep_call.nvlink_bytes;
			c->ep_efa_bytes += n * calls * kf->ep_call.efa_bytes;
		}
	}
	c->interference_s += n * interf;
}

/* The cost of chunk c on stage s (both directions) and its parameters. */
static void chunk_cost(const struct des_program *p, int s, int c, struct des_cost out[2],
		       double *params_dense, double *params_expert)
{
	const struct scenario *sc = p->sc;
	const struct model_arch *m = &sc->model;
	const struct step_prep *pr = &p->prep;
	const struct tf_ops *ops = &pr->ops;
	int pv = p->li.virtual_stages, j = layout_vstage_of(&p->li, sc->layout.schedule, s, c);
	int b, e, nm, nd;
	bool first = j == 0, last = j == pv - 1;
	bool tied_shared = m->tied_embeddings && p->pp == 1;
	struct kind_flows f_dense, f_moe, f_none;

	layout_vstage_layers(&p->li, j, &b, &e);
	nm = tf_moe_layers_in(m, b, e);
	nd = (e - b) - nm;
	memset(out, 0, 2 * sizeof(*out));
	memset(&f_none, 0, sizeof(f_none));
	kind_flows_of(p, &ops->dense, &f_dense);
	kind_flows_of(p, &ops->moe, &f_moe);
	*params_dense = nd * ops->dense.params_dense_local + nm * ops->moe.params_dense_local;
	*params_expert = nm * ops->moe.params_expert_local;
	for (int d = 0; d < 2; d++) {
		struct des_cost *k = &out[d];

		cost_add(p, k, &pr->k_dense, &f_dense, false, d, nd);
		cost_add(p, k, &pr->k_moe, &f_moe, true, d, nm);
		if (first)
			cost_add(p, k, &pr->k_embed, &f_none, false, d, 1);
		if (last) {
			cost_add(p, k, &pr->k_logits, &f_none, false, d, 1);
			if (m->mtp_layers > 0) {
				bool mm = ops->mtp_layer_is_moe;

				cost_add(p, k, mm ? &pr->k_moe : &pr->k_dense, mm ? &f_moe : &f_dense,
					 mm, d, m->mtp_layers);
				cost_add(p, k, &pr->k_mtp, &f_none, false, d, m->mtp_layers);
			}
		}
		k->ep_cp_share = k->cp_s > 0 ? k->ep_cp_share / k->cp_s : 0;
		k->busy_s = k->compute_s + k->memory_s + k->launch_s + k->tp_exp_s + k->fold_cp_s +
			    k->fold_ep_s + k->interference_s;
	}
	if (first)
		*params_dense += ops->embed.params_dense_local;
	if (last) {
		*params_dense += ops->logits.params_dense_local -
				 (tied_shared ? ops->embed.params_dense_local : 0);
		if (m->mtp_layers > 0) {
			const struct tf_layer *ml = ops->mtp_layer_is_moe ? &ops->moe : &ops->dense;

			*params_dense += m->mtp_layers * (ml->params_dense_local +
							  ops->mtp_extra.params_dense_local);
			*params_expert += m->mtp_layers * ml->params_expert_local;
		}
	}
}

/* ---- the schedule ------------------------------------------------------------------ */

/* Order of stage s's blocks: the schedule's own (models/schedule);
 * st->ops has room for sched_max_ops().  Returns false when out of
 * memory. */
static bool schedule_ops(const struct des_program *p, int s, struct des_stage *st)
{
	enum sc_schedule sch = p->sc->layout.schedule;
	struct sched_op *so = malloc(sizeof(*so) * (size_t)sched_max_ops(sch, p->pp, p->v, p->mb));
	int n;

	if (!so)
		return false;
	n = sched_order(sch, p->pp, p->v, p->mb, s, so);
	st->n_ops = 0;
	for (int i = 0; i < n; i++) {
		struct des_op *o = &st->ops[st->n_ops++];

		memset(o, 0, sizeof(*o));
		o->dir = so[i].kind == SCHED_OP_F ? 0 : so[i].kind == SCHED_OP_W ? 2 : 1;
		o->split = so[i].kind == SCHED_OP_B;
		o->fused = so[i].fused;
		o->mb = so[i].mb;
		o->chunk = (short)so[i].chunk;
	}
	free(so);
	return n >= 0;
}

/* Pipeline neighbours along the op's pipeline (sched_place): a forward
 * receives from position j - 1 and sends to j + 1, a backward the
 * reverse; a neighbour on the same rank (the V's turn) needs no message. */
static void mark_p2p(const struct des_program *p, int s, struct des_stage *st)
{
	enum sc_schedule sch = p->sc->layout.schedule;
	int D = sched_depth(sch, p->pp, p->v);

	st->n_sends = 0;
	for (int i = 0; i < st->n_ops; i++) {
		struct des_op *o = &st->ops[i];
		int pipe, j, from = -1, to = -1, rs, rc;

		if (o->dir == 2)
			continue;
		sched_place(sch, p->pp, p->v, s, o->chunk, &pipe, &j);
		if (o->dir == 0) {
			from = j - 1;
			to = j + 1 < D ? j + 1 : -1;
		} else {
			from = j + 1 < D ? j + 1 : -1;
			to = j - 1;
		}
		if (from >= 0) {
			sched_at(sch, p->pp, p->v, pipe, from, &rs, &rc);
			o->recv = rs != s;
			o->src = (short)rs;
		}
		if (to >= 0) {
			sched_at(sch, p->pp, p->v, pipe, to, &rs, &rc);
			o->send = rs != s;
			o->peer = (short)rs;
			o->peer_chunk = (short)rc;
		}
		st->n_sends += o->send;
	}
}

/* ---- DP jobs ------------------------------------------------------------------------- */

struct jobvec {
	struct des_job *v;
	int n, cap;
	bool oom;
};

static struct des_job *job_push(struct jobvec *jv)
{
	if (jv->n == jv->cap) {
		int cap = jv->cap ? 2 * jv->cap : 64;
		struct des_job *nv = realloc(jv->v, (size_t)cap * sizeof(*nv));

		if (!nv) {
			jv->oom = true;
			return NULL;
		}
		jv->v = nv;
		jv->cap = cap;
	}
	memset(&jv->v[jv->n], 0, sizeof(jv->v[0]));
	return &jv->v[jv->n++];
}

static void flows_add(struct coll_flows *acc, const struct coll_flows *f)
{
	if (f->pattern == COLL_PATTERN_NONE)
		return;
	acc->pattern = f->pattern;
	acc->latency_s += f->latency_s;
	acc->nvlink_bytes += f->nvlink_bytes;
	acc->efa_bytes += f->efa_bytes;
	acc->nvlink_steps += f->nvlink_steps;
	acc->efa_steps += f->efa_steps;
	acc->time_s += f->time_s;
	acc->choice = f->choice;
}

static int job_exact_steps(const struct des_job *j)
{
	int a = j->fl.nvlink_steps, b = j->fl.efa_steps;

	return a > b ? a : b;
}

static void job_finish(const struct des_program *p, struct des_job *j)
{
	int e = job_exact_steps(j);

	j->steps = p->max_steps > 0 && p->max_steps < e ? p->max_steps : e;
	if (j->steps < 1)
		j->steps = 1;
}

/* Buckets of `params` parameters of `bpp` bytes on group g as jobs: the
 * first and the last bucket alone (the exposed head and tail), the ones
 * between merged p->merge at a time.  piece0: piece of the first job;
 * returns the number of pieces used. */
static int bucket_jobs(const struct des_program *p, struct jobvec *jv, int g, int what,
		       int chunk, double params, double bpp, int piece0)
{
	const struct calibration *cal = &p->sc->calibration;
	const struct net_span *span = &p->g[g].span;
	double bk = cal->dp_bucket_params;
	int nb, pieces = 0;
	enum coll_op op = what == DES_WHAT_GATHER ? COLL_ALL_GATHER
			  : what == DES_WHAT_ALL_REDUCE || p->zero == 0 ? COLL_ALL_REDUCE
			  : COLL_REDUCE_SCATTER;

	if (span->ranks <= 1 || params <= 0)
		return 0;
	if (bk <= 0 || bk > params)
		bk = params;
	nb = (int)ceil(params / bk - 1e-9);
	if (nb < 1)
		nb = 1;
	for (int b = 0; b < nb;) {
		int take = (b == 0 || b >= nb - 1 || p->merge <= 1) ? 1 : p->merge;
		struct des_job *j;

		if (b > 0 && b + take > nb - 1)
			take = nb - 1 - b > 0 ? nb - 1 - b : 1;
		j = job_push(jv);
		if (!j)
			return pieces;
		j->group = (unsigned char)g;
		j->what = (unsigned char)what;
		j->chunk = (short)chunk;
		j->piece = (short)(piece0 + pieces);
		for (int k = 0; k < take; k++) {
			double pb = (b + k == nb - 1) ? params - (nb - 1) * bk : bk;
			struct coll_flows f;

			coll_flows_of(cal, span, op, pb * bpp, &f);
			flows_add(&j->fl, &f);
			j->buckets++;
		}
		job_finish(p, j);
		b += take;
		pieces++;
	}
	return pieces;
}

/* Stable sort of n jobs by piece (insertion sort: a chunk has a few dozen),
 * so that the DP stream runs piece k's dense and expert buckets together. */
static void sort_by_piece(struct des_job *j, int n)
{
	for (int i = 1; i < n; i++) {
		struct des_job t = j[i];
		int k = i - 1;

		while (k >= 0 && j[k].piece > t.piece) {
			j[k + 1] = j[k];
			k--;
		}
		j[k + 1] = t;
	}
}

/* One job with all buckets of `params` on group g (FSDP: its blocks use the
 * overlap rule, so bucket boundaries do not matter, only their latencies). */
static void block_job(const struct des_program *p, struct jobvec *jv, int g, int what,
		      int chunk, double params, double gb)
{
	const struct calibration *cal = &p->sc->calibration;
	const struct net_span *span = &p->g[g].span;
	double bk = cal->dp_bucket_params;
	struct des_job *j;
	int nb;

	if (span->ranks <= 1 || params <= 0)
		return;
	if (bk <= 0 || bk > params)
		bk = params;
	nb = (int)ceil(params / bk - 1e-9);
	j = job_push(jv);
	if (!j)
		return;
	j->group = (unsigned char)g;
	j->what = (unsigned char)what;
	j->chunk = (short)chunk;
	for (int b = 0; b < nb; b++) {
		double pb = (b == nb - 1) ? params - (nb - 1) * bk : bk;
		struct coll_flows f;

		coll_flows_of(cal, span, COLL_ALL_GATHER, pb * 2.0, &f);
		flows_add(&j->fl, &f);
		if (what == DES_WHAT_FSDP_BWD) {
			coll_flows_of(cal, span, COLL_REDUCE_SCATTER, pb * gb, &f);
			flows_add(&j->fl, &f);
		}
		j->buckets++;
	}
	job_finish(p, j);
}

/* The DP stream of stage s, in the order its jobs are launched. */
static enum sc_status stage_jobs(const struct des_program *p, struct des_stage *st,
				 const double *pd, const double *pe, struct sc_error *err)
{
	const struct training *tr = &p->sc->training;
	double gb = tr->grad_fp32 ? 4.0 : 2.0;
	bool moe = model_is_moe(&p->sc->model);
	struct jobvec jv = { NULL, 0, 0, false };

	st->head_count = 0;
	st->tail_first = st->tail_count = 0;
	if (p->zero >= 3) {
		for (int i = 0; i < st->n_ops; i++) {
			struct des_op *o = &st->ops[i];
			int what = o->dir == 0 ? DES_WHAT_GATHER : DES_WHAT_FSDP_BWD;

			if (o->dir == 2)
				continue;

			o->job_first = jv.n;
			block_job(p, &jv, DES_G_DENSE, what, o->chunk, pd[o->chunk], gb);
			if (moe)
				block_job(p, &jv, DES_G_EXPERT, what, o->chunk, pe[o->chunk], gb);
			o->job_count = jv.n - o->job_first;
			o->jobs_mode = o->job_count > 0 ? DES_JOBS_OVERLAP : DES_JOBS_NONE;
		}
		/* hybrid sharding: the gradient shards are all-reduced across
		 * the replicas once per step, after the last backward */
		if (p->g[DES_G_REPLICA].n > 1) {
			double sum = 0;

			for (int c = 0; c < p->nchunk; c++)
				sum += pd[c];
			st->tail_first = jv.n;
			bucket_jobs(p, &jv, DES_G_REPLICA, DES_WHAT_ALL_REDUCE, 0, sum / p->li.dense_shard, gb, 0);
			st->tail_count = jv.n - st->tail_first;
		}
	} else {
		/* parameter all-gathers (the previous step's, overlapped with
		 * this step's first forwards), launched at the start, chunk by
		 * chunk in forward order */
		for (int c = 0; p->zero >= 1 && c < p->nchunk; c++) {
			bucket_jobs(p, &jv, DES_G_DENSE, DES_WHAT_GATHER, c, pd[c], 2.0, 0);
			if (moe)
				bucket_jobs(p, &jv, DES_G_EXPERT, DES_WHAT_GATHER, c, pe[c], 2.0, 0);
		}
		st->head_count = jv.n;
		/* gradient reductions, launched by each chunk's last block
		 * that produces weight gradients (its last backward, or its
		 * last W under a zero-bubble schedule) */
		for (int i = 0; i < st->n_ops; i++) {
			struct des_op *o = &st->ops[i];
			bool last = o->dir == 2 || (o->dir == 1 && !o->split);

			for (int k = i + 1; last && k < st->n_ops; k++)
				if (st->ops[k].chunk == o->chunk &&
				    (st->ops[k].dir == 2 || (st->ops[k].dir == 1 && !st->ops[k].split)))
					last = false;
			if (!last)
				continue;
			o->job_first = jv.n;
			bucket_jobs(p, &jv, DES_G_DENSE, DES_WHAT_GRAD, o->chunk, pd[o->chunk], gb, 0);
			if (moe)
				bucket_jobs(p, &jv, DES_G_EXPERT, DES_WHAT_GRAD, o->chunk, pe[o->chunk], gb, 0);
			o->job_count = jv.n - o->job_first;
			sort_by_piece(jv.v + o->job_first, o->job_count);
			o->jobs_mode = o->job_count > 0 ? DES_JOBS_ISSUE : DES_JOBS_NONE;
		}
	}
	if (jv.oom) {
		free(jv.v);
		return sc_error_set(err, SC_ENOMEM, NULL, NULL, "des: out of memory for DP jobs");
	}
	free(st->jobs);
	st->jobs = jv.v;
	st->n_jobs = jv.n;
	return SC_OK;
}

/* ---- message budget ------------------------------------------------------------------ */

/* Flows one rank of stage st sends in the step: pipeline sends and the CP
 * and EP flows of its blocks (fixed), and the macro-steps of its DP jobs
 * on each tier (what coarsening reduces). */
static long long stage_fixed(const struct des_program *p, const struct des_stage *st)
{
	long long n = st->n_sends;
	const struct net_span *eps = &p->prep.ep_span;

	for (int i = 0; i < st->n_ops; i++) {
		const struct des_cost *c;

		if (st->ops[i].dir == 2) /* a W block has no flows */
			continue;
		c = &st->cost[st->ops[i].chunk * 2 + st->ops[i].dir];

		if (c->cp_bytes > 0)
			n += 1;
		if (c->ep_nv_bytes > 0)
			n += 1;
		if (c->ep_efa_bytes > 0)
			n += eps->domains - 1;
	}
	return n;
}

static long long stage_dp(const struct des_program *p, const struct des_stage *st, bool exact)
{
	long long n = 0;

	for (int k = 0; k < st->n_jobs; k++) {
		const struct des_job *j = &st->jobs[k];
		const struct des_gdef *g = &p->g[j->group];
		/* a tier carries flows when the ring has a peer on it (the
		 * engine's ring_peers: the next member in the NVLink domain,
		 * the member at the same position in the next domain) */
		int rpd = g->span.ranks_per_domain > 0 ? g->span.ranks_per_domain : 1;
		int streams;

		if (rpd > g->n)
			rpd = g->n;
		streams = (j->fl.nvlink_bytes > 0 && rpd > 1) + (j->fl.efa_bytes > 0 && g->n > rpd);

		n += (long long)(exact ? job_exact_steps(j) : j->steps) * streams;
	}
	return n;
}

static long long program_messages(const struct des_program *p, bool exact, bool dp_only)
{
	long long n = 0;
	int per_stage = p->nsim / p->pp;

	for (int s = 0; s < p->pp; s++)
		n += (stage_dp(p, &p->stages[s], exact) + (dp_only ? 0 : stage_fixed(p, &p->stages[s]))) *
		     per_stage;
	return n;
}

static enum sc_status build_jobs(struct des_program *p, const double *pd, const double *pe,
				 struct sc_error *err)
{
	for (int s = 0; s < p->pp; s++) {
		enum sc_status rc = stage_jobs(p, &p->stages[s], pd + s * p->nchunk,
					       pe + s * p->nchunk, err);

		if (rc != SC_OK)
			return rc;
	}
	return SC_OK;
}

/* Coarsen until the estimated message count fits the budget: first fewer
 * macro-steps per DP collective (each carries the bytes and the latency of
 * the ring steps it merges, so a contention-free collective takes exactly
 * as long), then merged buckets (the first and last bucket of every
 * sequence stay alone: they are the exposed head and tail).  Pipeline, CP
 * and EP flows are one per block and cannot be merged; when they alone
 * exceed the budget, the DP jobs still get a quarter of it. */
static enum sc_status fit_budget(struct des_program *p, const double *pd, const double *pe,
				 struct sc_error *err)
{
	static const int steps[] = { 0, 4096, 1024, 256, 64, 32, 16, 8, 4, 2, 1 };
	long long fixed, target;
	enum sc_status rc;

	p->max_steps = 0;
	p->merge = 1;
	rc = build_jobs(p, pd, pe, err);
	if (rc != SC_OK)
		return rc;
	p->messages_exact = program_messages(p, true, false);
	p->messages_fixed = p->messages_exact - program_messages(p, true, true);
	p->messages_estimate = p->messages_exact;
	if (p->budget < 0 || p->messages_exact <= p->budget)
		return SC_OK;
	fixed = p->messages_fixed;
	target = (long long)p->budget - fixed;
	if (target < (long long)(p->budget / 4))
		target = (long long)(p->budget / 4);
	for (size_t i = 1; i < sizeof(steps) / sizeof(steps[0]); i++) {
		p->max_steps = steps[i];
		rc = build_jobs(p, pd, pe, err);
		if (rc != SC_OK)
			return rc;
		if (program_messages(p, false, true) <= target)
			goto done;
	}
	for (int q = 2; q <= 1 << 20; q *= 2) {
		long long before = program_messages(p, false, true);

		p->merge = q;
		rc = build_jobs(p, pd, pe, err);
		if (rc != SC_OK)
			return rc;
		if (program_messages(p, false, true) <= target ||
		    program_messages(p, false, true) == before)
			break;
	}
done:
	p->messages_estimate = program_messages(p, false, false);
	return SC_OK;
}

/* ---- what it costs ------------------------------------------------------------------ */

/* Timeline slices one rank of stage st can record (event() in
 * des_engine.c, which skips empty ones: this counts every one it may
 * record): per block its pieces, the bubble and pipeline wait before it,
 * its CP/EP flows and their exposed part (or FSDP's), the exposed part of
 * its pipeline send; one per pipeline send and per DP job on their
 * streams; the DP wait, interference, optimizer and overhead at the end. */
static long long stage_events(const struct des_stage *st)
{
	long long n = (long long)st->n_sends + st->n_jobs + 4;

	for (int i = 0; i < st->n_ops; i++) {
		const struct des_op *o = &st->ops[i];
		const struct des_cost *c = &st->cost[o->chunk * 2 + (o->dir ? 1 : 0)];
		bool flows = o->dir != 2 && (c->cp_bytes > 0 || c->ep_nv_bytes > 0 || c->ep_efa_bytes > 0);
		int pieces = 1;

		if (o->jobs_mode == DES_JOBS_ISSUE && o->job_count > 0)
			pieces = st->jobs[o->job_first + o->job_count - 1].piece + 1;
		n += pieces + (o->recv ? 2 : 0) + (o->send ? 1 : 0);
		if (flows)
			n += 2;
		else if (o->jobs_mode == DES_JOBS_OVERLAP && o->job_count > 0)
			n += 1;
	}
	return n;
}

/* The memory model of a simulation child, fitted to its peak RSS (wait4)
 * on runs from 4 to 16,384 simulated GPUs on the 2-core CI machine kind
 * (docs/des.md "The discrete-event engine", Cost; test_des_estimate checks that
 * it bounds the measured peak):
 *   DES_MEM_BASE: the parent's pages the child inherits, SimGrid's engine
 *     and the catalogue (9-20 MiB measured on small runs);
 *   per simulated GPU: its host, NVLink link, NIC links, rank state and
 *     mailboxes;
 *   per simulated GPU squared: SimGrid's cost grows faster than the hosts
 *     (measured with tp 1 on p5: 2,048 hosts 76 MiB, 4,096 140 MiB, 8,192
 *     655 MiB, 16,384 2,803 MiB, whatever the domains: 4,096 hosts in 512
 *     or 1,024 domains both 140 MiB), about 11 bytes per pair;
 *   per route: SimGrid's full zone holds one for every ordered pair of
 *     hosts in an NVLink domain and two NIC legs per host;
 *   per actor: its context and the touched pages of its 128 KiB stack;
 *   per timeline slice (--trace): 40 bytes, twice while the array grows. */
#define DES_MEM_BASE (64.0 * 1024 * 1024)
#define DES_MEM_PER_GPU (24.0 * 1024)
#define DES_MEM_PER_GPU_PAIR 12.0
#define DES_MEM_PER_ROUTE 320.0
#define DES_MEM_PER_ACTOR (8.0 * 1024)
#define DES_MEM_PER_EVENT (2.0 * sizeof(struct des_event))

void des_program_estimate(struct des_program *p, const struct des_options *opt)
{
	struct des_estimate *e = &p->est;
	int per_stage = p->nsim / p->pp;
	int gpd = p->topo.domain_gpus > 0 ? p->topo.domain_gpus : 1;
	long long full = p->gpus / gpd, rem = p->gpus % gpd;
	long long k_full = gpd / p->fold, k_rem = (rem + p->fold - 1) / p->fold;
	bool nic = p->topo.nic_links > 0;

	memset(e, 0, sizeof(*e));
	e->simulated_gpus = p->nsim;
	e->flows = p->messages_estimate;
	e->flows_exact = p->messages_exact;
	e->flows_fixed = p->messages_fixed;
	for (int s = 0; s < p->pp; s++) {
		const struct des_stage *st = &p->stages[s];
		int actors = 1 + (st->n_sends > 0) + (st->n_jobs > 0) + (p->cp_flows || p->ep_flows);

		e->actors += actors * per_stage;
		e->events += stage_events(st) * per_stage;
	}
	/* storage: a reader and its feeder on the storage host per reading
	 * rank, a writer and its sink per writing rank (NVMe: the writer only) */
	e->actors += 2 * p->io.readers + (p->io.ckpt_nvme ? 1 : 2) * p->io.writers;
	e->flows += p->io.readers + p->io.writers;
	e->flows_exact += p->io.readers + p->io.writers;
	e->flows_fixed += p->io.readers + p->io.writers;
	e->routes = full * (k_full * (k_full - 1) + (nic ? 2 * k_full : 0)) +
		    k_rem * (k_rem > 0 ? k_rem - 1 : 0) + (nic ? 2 * k_rem : 0) +
		    2 * (p->io.data + (p->io.ckpt && !p->io.ckpt_nvme));
	e->memory_bytes = DES_MEM_BASE + DES_MEM_PER_GPU * e->simulated_gpus +
			  DES_MEM_PER_GPU_PAIR * (double)e->simulated_gpus * e->simulated_gpus +
			  DES_MEM_PER_ROUTE * (double)e->routes + DES_MEM_PER_ACTOR * e->actors;
	if (opt && opt->trace)
		e->memory_bytes += DES_MEM_PER_EVENT * (double)e->events;
}

/* ---- the program ----------------------------------------------------------------------- */

/* DES group g as the layout's group lg (models/layout: sizes and strides
 * in Megatron's rank order). */
static void gdef(struct des_program *p, int g, enum layout_group lg)
{
	p->g[g].n = p->li.g[lg].ranks > 0 ? p->li.g[lg].ranks : 1;
	p->g[g].stride = p->li.g[lg].stride > 0 ? p->li.g[lg].stride : 1;
	p->g[g].span = net_span_of(&p->sc->cluster, p->g[g].n, p->g[g].stride);
}

/* The analytical step, its preparation and the layout the program runs:
 * degrees, micro-batches and the expert data-parallel size. */
static enum sc_status program_layout(const struct scenario *sc, struct des_program *p, struct sc_error *err)
{
	const struct layout *lay = &sc->layout;
	enum sc_status rc;

	rc = sim_step_predict(sc, &p->analytic, err);
	if (rc != SC_OK)
		return rc;
	rc = sim_step_prepare(sc, &p->prep, err);
	if (rc != SC_OK)
		return rc;
	rc = layout_derive(sc, NULL, &p->li, err);
	if (rc != SC_OK)
		return rc;
	net_topo_of(&sc->cluster, &p->topo);
	p->gpus = scenario_gpus(sc);
	p->tp = lay->tp;
	p->pp = lay->pp;
	p->v = lay->vpp;
	p->nchunk = sched_chunks(lay->schedule, lay->vpp);
	p->dp = lay->dp;
	p->cp = lay->cp;
	p->ep = lay->ep;
	p->etp = p->li.etp;
	p->zero = p->li.zero;
	p->mb = p->li.micro_batches;
	p->edp = p->li.edp;
	return SC_OK;
}

/* What the DES does not cover: NVLink domains that are not whole nodes,
 * TP groups that cross a domain, domains with no NIC between them. */
static enum sc_status program_supported(const struct scenario *sc, const struct des_program *p,
					struct sc_error *err)
{
	if (p->topo.domain_gpus < p->topo.gpus_per_node ||
	    p->topo.domain_gpus % p->topo.gpus_per_node != 0)
		return sc_error_set(err, SC_EUNSUPPORTED, NULL, "/cluster/instance",
				    "des: an NVLink domain of %d GPUs is not a whole number of %d-GPU nodes",
				    p->topo.domain_gpus, p->topo.gpus_per_node);
	if (p->tp > p->topo.domain_gpus || p->topo.domain_gpus % p->tp != 0)
		return sc_error_set(err, SC_EUNSUPPORTED, NULL, "/layout/tp",
				    "des: tp \"%d\" must divide the %d GPUs of an NVLink domain (TP traffic is folded into compute)",
				    p->tp, p->topo.domain_gpus);
	if (p->topo.nic_links == 0 && p->gpus > p->topo.domain_gpus)
		return sc_error_set(err, SC_EUNSUPPORTED, NULL, "/cluster/instance/efa_nics",
				    "des: instance \"%s\" has no EFA NICs to connect %d NVLink domains",
				    sc->cluster.instance.name, p->topo.domains);
	return SC_OK;
}

/* The simulated ranks and their communication groups. */
static void program_groups(const struct scenario *sc, const struct des_options *opt, struct des_program *p)
{
	/* TP replicas: the tp ranks of a TP group run the same program on
	 * their own NVLink ports, NICs and rails; when no link is shared
	 * (one NIC link per GPU) and expert layers keep the same TP groups,
	 * one of them stands for all (uplinks scaled to match) */
	p->fold = 1;
	if (!opt->no_fold && p->tp > 1 && p->topo.gpus_per_nic_link <= 1 &&
	    (!model_is_moe(&sc->model) || p->etp == p->tp))
		p->fold = p->tp;
	p->nsim = p->gpus / p->fold;

	/* groups in Megatron's rank order (see step.c) */
	gdef(p, DES_G_DENSE, LG_DP);
	gdef(p, DES_G_REPLICA, LG_REPLICA);
	gdef(p, DES_G_EXPERT, LG_EDP);
	gdef(p, DES_G_CP, LG_CP);
	gdef(p, DES_G_EP, LG_EP);
	p->pp_g.n = p->pp;
	p->pp_g.stride = p->li.g[LG_PP].stride;
	p->pp_g.span = layout_span(&sc->cluster, &p->li, LG_PP);
	p->cp_flows = p->cp > 1 && p->prep.cp_span.inter;
	p->ep_flows = p->ep > 1 && model_is_moe(&sc->model) && p->prep.ep_span.inter;
}

/* The GPU's rate, the pipeline message, and the parts of the step the DES
 * takes from the analytical step as they are (optimizer, overhead, tail). */
static void program_step_costs(const struct scenario *sc, struct des_program *p)
{
	const struct training *tr = &sc->training;
	const struct calibration *cal = &sc->calibration;

	/* the GPU as a SimGrid host: its dense peak at the training
	 * precision; blocks are executed as their duration times this rate */
	p->gpu_flops = gpu_precision_peak_flops(&sc->cluster.gpu, tr->precision);
	if (!(p->gpu_flops > 0))
		p->gpu_flops = sc->cluster.gpu.peak_bf16_flops;

	/* pipeline send/recv of one chunk boundary: the activation
	 * (SP-sharded when SP is on), as in step.c */
	if (p->pp > 1) {
		double bytes = 2.0 * tr->micro_batch_seqs * ((double)tr->seq_len / p->cp) *
			       sc->model.hidden / (p->prep.sp ? p->tp : 1);

		coll_flows_of(cal, &p->pp_g.span, COLL_SEND_RECV, bytes, &p->pp_msg);
		p->pp_exposed_s = (1.0 - cal->pp_overlap) * p->pp_msg.time_s;
	}
	p->optimizer_s = p->analytic.part_s[PART_OPTIMIZER];
	p->overhead_s = cal->step_overhead_s;
	/* the parts the DES does not simulate follow the step as they are */
	for (int i = 0; i < PART_COUNT; i++)
		if (!des_simulates_part((enum step_part)i))
			p->tail_s += p->analytic.part_s[i];
}

bool des_simulates_part(enum step_part i)
{
	switch (i) {
	case PART_COMPUTE: case PART_TP_COMM: case PART_CP_COMM: case PART_EP_COMM:
	case PART_PP_COMM: case PART_DP_COMM: case PART_BUBBLE: case PART_OPTIMIZER:
	case PART_OVERHEAD:
		return true;
	default:
		return false;
	}
}

/* Each pipeline stage: its chunks' costs and parameters (pd, pe: dense and
 * expert parameters per stage and chunk), overlap windows, and the
 * schedule's op list with its p2p marked. Returns false out of memory. */
static bool program_stages(struct des_program *p, double *pd, double *pe)
{
	const struct layout *lay = &p->sc->layout;

	for (int s = 0; s < p->pp; s++) {
		struct des_stage *st = &p->stages[s];
		int C = p->nchunk;

		st->ops = calloc((size_t)sched_max_ops(lay->schedule, p->pp, p->v, p->mb), sizeof(*st->ops));
		st->cost = calloc((size_t)2 * C, sizeof(*st->cost));
		if (!st->ops || !st->cost)
			return false;
		for (int c = 0; c < C; c++) {
			chunk_cost(p, s, c, &st->cost[2 * c], &pd[s * C + c], &pe[s * C + c]);
			st->params_dense += pd[s * C + c];
			st->params_expert += pe[s * C + c];
			/* a DualPipe rank runs each direction for half the
			 * micro-batches: its overlap window is their mean */
			for (int d = 0; d < 2; d++)
				st->win_s[d] += (st->cost[2 * c + d].compute_s + st->cost[2 * c + d].memory_s +
						 st->cost[2 * c + d].launch_s) * p->v / C;
		}
		if (!schedule_ops(p, s, st))
			return false;
		mark_p2p(p, s, st);
	}
	return true;
}

enum sc_status des_program_build(const struct scenario *sc, const struct des_options *opt,
				 struct des_program *p, struct sc_error *err)
{
	struct des_options def;
	double *pd = NULL, *pe = NULL;
	enum sc_status rc;

	memset(p, 0, sizeof(*p));
	if (!opt) {
		memset(&def, 0, sizeof(def));
		opt = &def;
	}
	p->sc = sc;
	sc_error_clear(err);
	if ((rc = program_layout(sc, p, err)) != SC_OK || (rc = program_supported(sc, p, err)) != SC_OK)
		return rc;
	program_groups(sc, opt, p);
	program_step_costs(sc, p);
	/* storage traffic: what of the tail it simulates leaves the tail */
	if ((rc = des_io_build(p, opt, err)) != SC_OK)
		return rc;

	p->stages = calloc((size_t)p->pp, sizeof(*p->stages));
	pd = calloc((size_t)p->pp * p->nchunk, sizeof(double));
	pe = calloc((size_t)p->pp * p->nchunk, sizeof(double));
	if (!p->stages || !pd || !pe || !program_stages(p, pd, pe))
		goto oom;
	p->budget = opt->fidelity < 0 ? -1 : opt->fidelity > 0 ? opt->fidelity : DES_DEFAULT_FIDELITY;
	rc = fit_budget(p, pd, pe, err);
	free(pd);
	free(pe);
	if (rc != SC_OK)
		des_program_free(p);
	else
		des_program_estimate(p, opt);
	return rc;
oom:
	free(pd);
	free(pe);
	des_program_free(p);
	return sc_error_set(err, SC_ENOMEM, NULL, NULL, "des: out of memory");
}

void des_program_free(struct des_program *p)
{
	if (p->stages) {
		for (int s = 0; s < p->pp; s++) {
			free(p->stages[s].ops);
			free(p->stages[s].jobs);
			free(p->stages[s].cost);
		}
	}
	free(p->stages);
	p->stages = NULL;
}
