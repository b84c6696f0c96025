/* des_engine.c: run a step program on SimGrid (see des_internal.h).
 *
 * Runs inside a forked child (des_fork.c): SimGrid's engine is a per-process
 * singleton.  Settings measured in ../shared/research/simgrid-feasibility.md:
 * network/model CM02 with TCP-gamma 0 and crosstraffic off, so that a flow
 * of n bytes on a free path of bandwidth B takes exactly n / B and flows
 * share links max-min fairly; the raw context factory (the default) with a
 * small stack; guard pages off past 30,000 actors (each costs two memory
 * mappings, and vm.max_map_count is 65,530); logging off.
 *
 * Actors per simulated GPU (all on its host, like CUDA streams):
 *   compute  the stage's blocks in schedule order: waits for pipeline
 *            messages (it is the permanent receiver of its two pipeline
 *            mailboxes, so sends flow eagerly, like NCCL's), runs a block as
 *            sg_actor_execute of its duration at the host's speed, posts the
 *            block's CP/EP flows alongside and applies the analytical overlap
 *            rule to their simulated durations, gates and launches DP jobs;
 *   pp       the pipeline sends, in order (one NCCL p2p stream);
 *   dp       the DP jobs, in order (one NCCL stream): a job of K macro-steps
 *            sends its NVLink share to the group's next member in its
 *            domain and its EFA share to the member at the same position in
 *            the next domain, and receives the same from the previous ones.
 * Latencies are the analytical alphas, slept by the sender (links have no
 * latency); SimGrid shares the bandwidth.  Every actor counts itself done:
 * a deadlock (SimGrid only logs it) is an error.
 */
#include "des_internal.h"
#include "../../models/limits.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <simgrid/actor.h>
#include <simgrid/comm.h>
#include <simgrid/engine.h>
#include <simgrid/host.h>
#include <simgrid/mailbox.h>
#include <simgrid/semaphore.h>
#include <xbt/config.h>
#include <xbt/log.h>

#if defined(__SANITIZE_ADDRESS__)
#define DES_UNDER_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define DES_UNDER_ASAN 1
#endif
#endif

enum { FL_CP, FL_EP_NV, FL_EP_EFA, FL_N };
enum { ST_NV, ST_EFA };

struct pp_msg {
	int mb, chunk, dir;        /* the receiver's block */
	int box;                   /* the receiver's mailbox: dir * 2 + (sender above it) */
	int to;                    /* simulated index of the receiver */
	double t_post;             /* when the sender's stream took it */
};

struct sim;

struct rank {
	struct sim *sim;
	int rank, idx, stage;
	const struct des_stage *st;
	sg_host_t host;
	/* pipeline mailboxes by direction and side (dir * 2 + 1 when the
	 * sender's stage is above ours): one sender each, so that messages
	 * arrive in the order they are consumed (DualPipe and the V receive
	 * forwards from both neighbours) */
	char pp_name[4][24];
	sg_mailbox_t pp_in[4];
	sg_mailbox_t flow_in[FL_N][2];
	sg_mailbox_t dp_in[3][2];
	/* peers, as simulated indices (-1: none) */
	int dp_succ[3][2], dp_pred[3][2];
	int cp_succ, cp_pred;
	int ep_nv_succ, ep_nv_pred;
	int n_ep_efa;
	int *ep_efa;               /* remote-domain peers */
	sg_comm_t *cm;             /* a block's flows (4 + 2 n_ep_efa) */
	int *cls;
	void **slot;
	/* the flow actor's current block, and when its flows ended */
	sg_sem_t flow_go, flow_done;
	const struct des_cost *flow_cost;
	long long flow_blk;
	int flow_n;
	double flow_end[FL_N];
	double *job_end;           /* per DP job: when it finished */
	sg_sem_t pp_ready, dp_ready, dp_done;
	struct pp_msg *msgs;
	int n_msgs;
	int dp_released, dp_consumed;
	double dp_busy_s;
	double cls_busy_s[3][2];   /* DP job time by group (dense, expert, replica) and kind */
	double cls_one_s[3][2];    /* (reduce, gather): the longest per-bucket time */
	double acc[PART_COUNT];
	double share[BOTTLENECK_COUNT];
	double t_end;
	int done;
	/* storage (des_io.c): this rank's batch read and checkpoint share */
	bool reads, writes;
	int store_rd, store_wr;    /* storage host of the data and checkpoint tiers */
	sg_mailbox_t io_rd, io_wr; /* the read arrives on io_rd, the write leaves on io_wr */
	sg_sem_t io_read_done, io_write_go, io_write_done;
	double t_read_end, t_write0, t_write_end;
};

/* Storage hosts of one fabric: one per tier the jobs name. */
#define CLUSTER_JOBS_MAX_DES SC_MAX_CLUSTER_JOBS /* models/limits.h, as the cluster loader */
#define DES_STORAGE_MAX (2 * CLUSTER_JOBS_MAX_DES)

struct sim {
	const struct des_program *p;
	const struct des_options *opt;
	char pre[8];               /* mailbox name prefix: "" for the first job, "jK:" after */
	struct rank *r;
	int n;
	long long messages;
	int actors, actors_done;
	char error[SC_ERROR_MSG_MAX];
	/* link accounting: bytes per link direction */
	double *nvl;               /* [idx][2] */
	double *nic;               /* [node][link][2] */
	double *up;                /* [leaf][2] */
	/* timeline */
	struct des_event *ev;
	long long n_ev, cap_ev;
	bool ev_oom;
	/* storage hosts (shared by the jobs): bytes read from / written to
	 * each, this job's; their links' capacities */
	sg_host_t *store;
	int n_store;
	double store_bytes[DES_STORAGE_MAX][2];
	const double *store_rd_Bps, *store_wr_Bps;
};


static void sim_fail(struct sim *s, const char *msg)
{
	if (!s->error[0])
		snprintf(s->error, sizeof(s->error), "%s", msg);
}

static void event(struct rank *r, int kind, int track, int chunk, int mb, double t0, double t1)
{
	struct sim *s = r->sim;
	struct des_event *e;

	if (!s->opt->trace || t1 <= t0)
		return;
	if (s->n_ev == s->cap_ev) {
		long long cap = s->cap_ev ? 2 * s->cap_ev : 4096;
		struct des_event *nv = realloc(s->ev, (size_t)cap * sizeof(*nv));

		if (!nv) {
			s->ev_oom = true;
			return;
		}
		s->ev = nv;
		s->cap_ev = cap;
	}
	e = &s->ev[s->n_ev++];
	e->rank = r->rank;
	e->kind = (unsigned char)kind;
	e->track = (unsigned char)track;
	e->chunk = (short)chunk;
	e->mb = mb;
	e->t0_s = t0;
	e->t1_s = t1;
}

/* n messages of `bytes` from simulated rank a to b: on the links of their route. */
static void account_n(struct sim *s, int a, int b, double bytes, int n)
{
	const struct des_program *p = s->p;
	const struct net_topo *t = &p->topo;
	int ga = s->r[a].rank, gb = s->r[b].rank;

	s->messages += n;
	bytes *= n;
	if (net_topo_domain_of(t, ga) == net_topo_domain_of(t, gb)) {
		s->nvl[2 * a] += bytes;
		s->nvl[2 * b + 1] += bytes;
		return;
	}
	s->nic[2 * ((ga / t->gpus_per_node) * t->nic_links + net_topo_nic_link_of(t, ga))] += bytes;
	s->nic[2 * ((gb / t->gpus_per_node) * t->nic_links + net_topo_nic_link_of(t, gb)) + 1] += bytes;
	if (t->leaves > 1 && t->oversubscription > 1.0 &&
	    net_topo_leaf_of(t, ga) != net_topo_leaf_of(t, gb)) {
		s->up[2 * net_topo_leaf_of(t, ga)] += bytes;
		s->up[2 * net_topo_leaf_of(t, gb) + 1] += bytes;
	}
}

static void account(struct sim *s, int a, int b, double bytes)
{
	account_n(s, a, b, bytes, 1);
}

static void *tag_of(long long a, long long b)
{
	return (void *)(intptr_t)(1 + (a << 20) + b);
}

bool des_ring_member(const struct coll_flows *fl, int K, sg_mailbox_t const out[2],
		     sg_mailbox_t const in[2], long long tag)
{
	double lat = fl->latency_s / K;
	double b[2] = { fl->nvlink_bytes / K, fl->efa_bytes / K };
	bool ok = true;

	for (int k = 0; k < K; k++) {
		sg_comm_t c[4];
		void *slot[2] = { NULL, NULL };
		int n = 0;

		if (lat > 0)
			sg_actor_sleep_for(lat);
		for (int t = 0; t < 2; t++) {
			if (b[t] <= 0 || !out[t])
				continue;
			c[n++] = sg_mailbox_put_async(out[t], tag_of(tag, k), (long)b[t]);
			c[n++] = sg_mailbox_get_async(in[t], &slot[t]);
		}
		if (n > 0)
			sg_comm_wait_all(c, (size_t)n);
		for (int t = 0; t < 2; t++)
			if (slot[t] && slot[t] != tag_of(tag, k))
				ok = false;
	}
	return ok;
}

/* ---- the DP stream ------------------------------------------------------------------ */

static void dp_actor(int argc, char **argv)
{
	struct rank *r = sg_actor_self_get_data();
	struct sim *s = r->sim;
	const struct des_stage *st = r->st;

	(void)argc;
	(void)argv;
	for (int j = 0; j < st->n_jobs; j++) {
		const struct des_job *job = &st->jobs[j];
		int g = job->group, K = job->steps > 0 ? job->steps : 1;
		double b[2] = { job->fl.nvlink_bytes / K, job->fl.efa_bytes / K };
		sg_mailbox_t out[2] = { NULL, NULL };
		double t0, t1;

		for (int t = 0; t < 2; t++) {
			int to = r->dp_succ[g][t];

			if (b[t] > 0 && to >= 0 && to != r->idx) {
				out[t] = s->r[to].dp_in[g][t];
				account_n(s, r->idx, to, b[t], K);
			}
		}
		sg_sem_acquire(r->dp_ready);
		t0 = simgrid_get_clock();
		if (!des_ring_member(&job->fl, K, out, r->dp_in[g], j))
			sim_fail(s, "des: DP messages crossed between collectives (internal error)");
		t1 = simgrid_get_clock();
		r->dp_busy_s += t1 - t0;
		{
			int kind = job->what == DES_WHAT_GATHER;
			double one = (t1 - t0) / (job->buckets > 0 ? job->buckets : 1);

			r->cls_busy_s[g][kind] += t1 - t0;
			if (one > r->cls_one_s[g][kind])
				r->cls_one_s[g][kind] = one;
		}
		event(r, DES_EV_DP_JOB, 1, job->chunk, j, t0, t1);
		r->job_end[j] = t1;
		sg_sem_release(r->dp_done);
	}
	r->done++;
	s->actors_done++;
}

/* Wait until job j (and every job before it) has finished. */
static double wait_job(struct rank *r, int j)
{
	double t0 = simgrid_get_clock();

	while (r->dp_consumed <= j) {
		sg_sem_acquire(r->dp_done);
		r->dp_consumed++;
	}
	return simgrid_get_clock() - t0;
}

static void release_job(struct rank *r)
{
	r->dp_released++;
	sg_sem_release(r->dp_ready);
}

/* ---- the pipeline stream ------------------------------------------------------------ */

static void pp_actor(int argc, char **argv)
{
	struct rank *r = sg_actor_self_get_data();
	struct sim *s = r->sim;
	const struct des_program *p = s->p;
	double bytes = p->pp_msg.nvlink_bytes + p->pp_msg.efa_bytes;

	(void)argc;
	(void)argv;
	for (int k = 0; k < r->st->n_sends; k++) {
		struct pp_msg *m = &r->msgs[k];
		struct rank *to;

		sg_sem_acquire(r->pp_ready);
		m->t_post = simgrid_get_clock();
		to = &s->r[m->to];
		if (p->pp_msg.latency_s > 0)
			sg_actor_sleep_for(p->pp_msg.latency_s);
		account(s, r->idx, m->to, bytes);
		sg_mailbox_put(to->pp_in[m->box], m, (long)bytes);
		event(r, DES_EV_PP_SEND, 2, m->chunk, m->mb, m->t_post, simgrid_get_clock());
	}
	r->done++;
	s->actors_done++;
}

/* ---- storage (des_io.c) ---------------------------------------------------------------- */

/* bytes of rank r to (write) or from (read) its storage host: on its NIC
 * link, its leaf's uplink (the storage hosts are off the spine) and the
 * storage link */
static void account_storage(struct sim *s, const struct rank *r, int host, bool write, double bytes)
{
	const struct net_topo *t = &s->p->topo;
	int d = write ? 0 : 1;

	if (t->nic_links > 0)
		s->nic[2 * ((r->rank / t->gpus_per_node) * t->nic_links + net_topo_nic_link_of(t, r->rank)) + d] +=
			bytes;
	if (t->leaves > 1 && t->oversubscription > 1.0)
		s->up[2 * net_topo_leaf_of(t, r->rank) + d] += bytes;
	if (host >= 0)
		s->store_bytes[host][write] += bytes;
}

/* On the rank's host: its next batch, after the latency its loader does
 * not hide (the feeder on the storage host sends it). */
static void io_read_actor(int argc, char **argv)
{
	struct rank *r = sg_actor_self_get_data();
	struct sim *s = r->sim;

	(void)argc;
	(void)argv;
	if (s->p->io.read_lat_s > 0)
		sg_actor_sleep_for(s->p->io.read_lat_s);
	if (sg_mailbox_get(r->io_rd) != r)
		sim_fail(s, "des: a data batch reached the wrong rank (internal error)");
	r->t_read_end = simgrid_get_clock();
	sg_sem_release(r->io_read_done);
	r->done++;
	s->actors_done++;
}

static void io_feed_actor(int argc, char **argv)
{
	struct rank *r = sg_actor_self_get_data();
	struct sim *s = r->sim;

	(void)argc;
	(void)argv;
	account_storage(s, r, r->store_rd, false, s->p->io.read_bytes);
	s->messages++;
	sg_mailbox_put(r->io_rd, r, (long)s->p->io.read_bytes);
	r->done++;
	s->actors_done++;
}

/* On the rank's host: its checkpoint share, once the compute stream says
 * (sync: after the update; async: after the snapshot), no sooner than its
 * node's ceiling allows (FSx's per-client cap, NVMe's drives). */
static void io_write_actor(int argc, char **argv)
{
	struct rank *r = sg_actor_self_get_data();
	struct sim *s = r->sim;
	const struct des_io *io = &s->p->io;
	double t0, floor_s;

	(void)argc;
	(void)argv;
	sg_sem_acquire(r->io_write_go);
	t0 = r->t_write0 = simgrid_get_clock();
	if (io->ckpt_nvme) {
		/* the share to the same GPU of the next node (the peer copy) */
		int gpn = s->p->topo.gpus_per_node, peer = (r->rank + gpn) % s->p->gpus;
		struct rank *q = &s->r[peer / s->p->fold];

		if (q != r) {
			sg_comm_t c[2];
			void *slot = NULL;

			account_storage(s, r, -1, true, io->write_bytes);
			account_storage(s, q, -1, false, io->write_bytes);
			s->messages++;
			c[0] = sg_mailbox_put_async(q->io_wr, r, (long)io->write_bytes);
			c[1] = sg_mailbox_get_async(r->io_wr, &slot);
			sg_comm_wait_all(c, 2);
		}
		floor_s = io->drive_s;
	} else {
		account_storage(s, r, r->store_wr, true, io->write_bytes);
		s->messages++;
		sg_mailbox_put(r->io_wr, r, (long)io->write_bytes);
		floor_s = io->gpu_write_Bps > 0 ? io->write_bytes / io->gpu_write_Bps : 0;
	}
	if (simgrid_get_clock() < t0 + floor_s)
		sg_actor_sleep_until(t0 + floor_s);
	r->t_write_end = simgrid_get_clock();
	sg_sem_release(r->io_write_done);
	r->done++;
	s->actors_done++;
}

static void io_sink_actor(int argc, char **argv)
{
	struct rank *r = sg_actor_self_get_data();
	struct sim *s = r->sim;

	(void)argc;
	(void)argv;
	if (sg_mailbox_get(r->io_wr) != r)
		sim_fail(s, "des: a checkpoint share reached the wrong storage host (internal error)");
	r->done++;
	s->actors_done++;
}

/* ---- the compute stream -------------------------------------------------------------- */

/* Post a block's CP and EP flows; returns how many comms. cls[i] tells
 * which flow class comm i belongs to. */
static int post_flows(struct rank *r, const struct des_cost *c, int parity, long long blk,
		      sg_comm_t *cm, int *cls, void **slot)
{
	struct sim *s = r->sim;
	int n = 0;

	if (c->cp_bytes > 0 && r->cp_succ >= 0 && r->cp_succ != r->idx) {
		cls[n] = FL_CP;
		cm[n++] = sg_mailbox_put_async(s->r[r->cp_succ].flow_in[FL_CP][parity], tag_of(blk, 0),
					       (long)c->cp_bytes);
		cls[n] = FL_CP;
		cm[n] = sg_mailbox_get_async(r->flow_in[FL_CP][parity], &slot[n]);
		n++;
		account(s, r->idx, r->cp_succ, c->cp_bytes);
	}
	if (c->ep_nv_bytes > 0 && r->ep_nv_succ >= 0 && r->ep_nv_succ != r->idx) {
		cls[n] = FL_EP_NV;
		cm[n++] = sg_mailbox_put_async(s->r[r->ep_nv_succ].flow_in[FL_EP_NV][parity],
					       tag_of(blk, 1), (long)c->ep_nv_bytes);
		cls[n] = FL_EP_NV;
		cm[n] = sg_mailbox_get_async(r->flow_in[FL_EP_NV][parity], &slot[n]);
		n++;
		account(s, r->idx, r->ep_nv_succ, c->ep_nv_bytes);
	}
	if (c->ep_efa_bytes > 0 && r->n_ep_efa > 0) {
		double each = c->ep_efa_bytes / r->n_ep_efa;

		for (int q = 0; q < r->n_ep_efa; q++) {
			cls[n] = FL_EP_EFA;
			cm[n++] = sg_mailbox_put_async(s->r[r->ep_efa[q]].flow_in[FL_EP_EFA][parity],
						       tag_of(blk, 2), (long)each);
			account(s, r->idx, r->ep_efa[q], each);
		}
		for (int q = 0; q < r->n_ep_efa; q++) {
			cls[n] = FL_EP_EFA;
			cm[n] = sg_mailbox_get_async(r->flow_in[FL_EP_EFA][parity], &slot[n]);
			n++;
		}
	}
	return n;
}

/* Wait for n comms; end[cls] receives when the last of each class ended. */
static void wait_flows(sg_comm_t *cm, int *cls, int n, double *end)
{
	while (n > 0) {
		ssize_t i = sg_comm_wait_any(cm, (size_t)n);

		if (i < 0)
			break;
		end[cls[i]] = simgrid_get_clock();
		cm[i] = cm[n - 1];
		cls[i] = cls[n - 1];
		n--;
	}
}

/* The CP/EP flows of the compute actor's blocks: an actor of their own, so
 * that their end times are observed when they happen (SimGrid's C API
 * reports no completion time), while the compute actor computes. */
static void flow_actor(int argc, char **argv)
{
	struct rank *r = sg_actor_self_get_data();
	struct sim *s = r->sim;

	(void)argc;
	(void)argv;
	for (;;) {
		int n;

		sg_sem_acquire(r->flow_go);
		if (!r->flow_cost)
			break;
		for (int k = 0; k < FL_N; k++)
			r->flow_end[k] = 0;
		n = post_flows(r, r->flow_cost, (int)(r->flow_blk & 1), r->flow_blk, r->cm, r->cls,
			       r->slot);
		r->flow_n = n;
		wait_flows(r->cm, r->cls, n, r->flow_end);
		for (int i = 0; i < n; i++)
			if (r->slot[i] && ((intptr_t)r->slot[i] - 1) >> 20 != r->flow_blk)
				sim_fail(s, "des: CP/EP flows crossed between blocks (internal error)");
		sg_sem_release(r->flow_done);
	}
	r->done++;
	s->actors_done++;
}

static void exec_s(struct rank *r, double s)
{
	if (s > 0)
		sg_actor_execute(s * r->sim->p->gpu_flops);
}

static void add(struct rank *r, enum step_part part, double s, bool efa)
{
	r->acc[part] += s;
	switch (part) {
	case PART_TP_COMM: case PART_CP_COMM: case PART_EP_COMM: case PART_PP_COMM:
	case PART_DP_COMM:
		r->share[efa ? BOTTLENECK_EFA : BOTTLENECK_NVLINK] += s;
		break;
	case PART_BUBBLE:
		r->share[BOTTLENECK_PIPELINE_BUBBLE] += s;
		break;
	case PART_OVERHEAD:
		r->share[BOTTLENECK_OVERHEAD] += s;
		break;
	default:
		break;
	}
}

/* run_block flags: the op's message was received before (a fused pair),
 * its send is left to the caller */
enum { RB_RECEIVED = 1, RB_NO_SEND = 2 };

/* Wait for the pipeline message op o needs. */
static void pp_receive(struct rank *r, const struct des_op *o)
{
	struct sim *s = r->sim;
	const struct des_program *p = s->p;
	double tw = simgrid_get_clock(), tr, from;
	struct pp_msg *m = sg_mailbox_get(r->pp_in[o->dir * 2 + (o->src > r->stage)]);

	tr = simgrid_get_clock();
	if (!m || m->mb != o->mb || m->chunk != o->chunk || m->dir != o->dir)
		sim_fail(s, "des: pipeline messages arrived out of order (internal error)");
	from = m && m->t_post > tw ? (m->t_post < tr ? m->t_post : tr) : tw;
	add(r, PART_BUBBLE, from - tw, false);
	add(r, PART_PP_COMM, tr - from, p->pp_g.span.inter);
	event(r, DES_EV_BUBBLE, 0, o->chunk, o->mb, tw, from);
	event(r, DES_EV_PP_WAIT, 0, o->chunk, o->mb, from, tr);
}

/* Hand op o's pipeline message to the pp stream. */
static void pp_send(struct rank *r, const struct des_op *o)
{
	struct sim *s = r->sim;
	const struct des_program *p = s->p;
	struct pp_msg *m = &r->msgs[r->n_msgs++];
	int stage_size = p->tp * p->cp * p->dp;

	m->mb = o->mb;
	m->dir = o->dir;
	m->chunk = o->peer_chunk;
	m->to = (r->rank + (o->peer - r->stage) * stage_size) / p->fold;
	m->box = o->dir * 2 + (r->stage > o->peer);
	sg_sem_release(r->pp_ready);
	if (p->pp_exposed_s > 0) {
		double ts = simgrid_get_clock();

		sg_actor_sleep_for(p->pp_exposed_s);
		add(r, PART_PP_COMM, p->pp_exposed_s, p->pp_g.span.inter);
		event(r, DES_EV_PP_WAIT, 0, o->chunk, o->mb, ts, simgrid_get_clock());
	}
}

static void run_block(struct rank *r, const struct des_op *o, long long blk, unsigned flags)
{
	struct sim *s = r->sim;
	const struct des_program *p = s->p;
	const struct calibration *cal = &p->sc->calibration;
	const struct des_stage *st = r->st;
	const struct des_cost *c = &st->cost[o->chunk * 2 + (o->dir ? 1 : 0)];
	int kind = o->dir == 0 ? DES_EV_FORWARD : DES_EV_BACKWARD;
	double end[FL_N] = { 0, 0, 0 };
	int nflows = 0, pieces = 1;
	/* a W block is its weight-gradient GEMMs only; a split backward the
	 * rest of the backward, with its communication */
	bool wonly = o->dir == 2;
	double wpart = wonly ? c->wgrad_s : o->split ? -c->wgrad_s : 0;
	double busy = wonly ? c->wgrad_s : c->busy_s + wpart;
	bool flows = !wonly && (c->cp_bytes > 0 || c->ep_nv_bytes > 0 || c->ep_efa_bytes > 0);
	double t0, tc, target, extra = 0, hid = 0;
	bool dp_efa = p->g[DES_G_DENSE].span.inter;

	/* the pipeline message this block needs */
	if (o->recv && !(flags & RB_RECEIVED))
		pp_receive(r, o);
	t0 = simgrid_get_clock();
	if (flows) {
		r->flow_cost = c;
		r->flow_blk = blk;
		sg_sem_release(r->flow_go);
	}
	if (o->jobs_mode == DES_JOBS_OVERLAP)
		for (int k = 0; k < o->job_count; k++)
			release_job(r);
	if (o->jobs_mode == DES_JOBS_ISSUE && o->job_count > 0)
		pieces = st->jobs[o->job_first + o->job_count - 1].piece + 1;
	for (int k = 0, j = o->job_first, end_j = o->job_first + o->job_count; k < pieces; k++) {
		double ts = simgrid_get_clock();

		exec_s(r, busy / pieces);
		event(r, kind, 0, o->chunk, o->mb, ts, simgrid_get_clock());
		if (o->jobs_mode == DES_JOBS_ISSUE)
			while (j < end_j && st->jobs[j].piece <= k) {
				release_job(r);
				j++;
			}
	}
	tc = simgrid_get_clock();
	if (wonly) {
		add(r, PART_COMPUTE, busy, false);
		r->share[BOTTLENECK_TENSOR_CORES] += busy;
	} else {
		add(r, PART_COMPUTE, c->compute_s + c->memory_s + c->interference_s + wpart, false);
		r->share[BOTTLENECK_TENSOR_CORES] += c->compute_s + wpart;
		r->share[BOTTLENECK_HBM] += c->memory_s;
		add(r, PART_TP_COMM, c->tp_exp_s, false);
		add(r, PART_OVERHEAD, c->launch_s, false);
		add(r, PART_CP_COMM, c->fold_cp_s, false);
		add(r, PART_EP_COMM, c->fold_ep_s, false);
	}

	/* the block's flows under the analytical overlap rule, on their
	 * simulated durations (which include any contention) */
	if (flows) {
		sg_sem_acquire(r->flow_done);
		nflows = r->flow_n;
		memcpy(end, r->flow_end, sizeof(end));
	}
	target = tc;
	if (nflows > 0) {
		double c_cp = c->cp_bytes > 0 ? c->cp_lat_s + (end[FL_CP] - t0) : 0;
		double nv = c->ep_nv_bytes > 0 ? end[FL_EP_NV] - t0 : 0;
		double efa = c->ep_efa_bytes > 0 ? c->ep_efa_lat_s + end[FL_EP_EFA] - t0 : 0;
		double c_ep = (c->ep_nv_bytes > 0 || c->ep_efa_bytes > 0) ? c->ep_lat_s + fmax(nv, efa) : 0;
		double h_cp = des_hide(cal->cp_overlap, c_cp, c->cp_win_s);
		double w_ep = c->ep_win_s - h_cp * c->ep_cp_share;
		double h_ep = p->sc->layout.ep_comm_overlap ? des_hide(cal->ep_overlap, c_ep, w_ep) : 0;

		extra += c_cp - h_cp + c_ep - h_ep;
		hid += h_cp + h_ep;
		add(r, PART_CP_COMM, c_cp - h_cp, p->prep.cp_span.inter);
		add(r, PART_EP_COMM, c_ep - h_ep, p->prep.ep_span.inter);
		event(r, DES_EV_FLOWS, 3, o->chunk, o->mb, t0, fmax(end[FL_CP], fmax(end[FL_EP_NV], end[FL_EP_EFA])));
	}
	if (o->jobs_mode == DES_JOBS_OVERLAP && o->job_count > 0) {
		double c_f, h;

		wait_job(r, o->job_first + o->job_count - 1);
		c_f = r->job_end[o->job_first + o->job_count - 1] - t0;
		/* the window is the whole backward even when its W runs
		 * later: the analytical rule's, and the W's GEMMs overlap
		 * the reduce-scatter of the gradients they produce */
		h = des_hide(cal->fsdp_prefetch_overlap, c_f, o->split ? c->busy_s : busy);
		extra += c_f - h;
		hid += h;
		add(r, PART_DP_COMM, c_f - h, dp_efa);
	}
	if (nflows > 0 || o->jobs_mode == DES_JOBS_OVERLAP) {
		double ci = cal->comm_interference * hid;

		add(r, PART_COMPUTE, ci, false);
		target = tc + extra + ci;
		if (target < simgrid_get_clock())
			target = simgrid_get_clock();
		sg_actor_sleep_until(target);
		event(r, nflows > 0 ? (c->cp_bytes > 0 ? DES_EV_CP : DES_EV_EP) : DES_EV_FSDP, 0,
		      o->chunk, o->mb, tc, target);
	}

	/* the pipeline message to the next virtual stage */
	if (o->send && !(flags & RB_NO_SEND))
		pp_send(r, o);
}

static void compute_actor(int argc, char **argv)
{
	struct rank *r = sg_actor_self_get_data();
	struct sim *s = r->sim;
	const struct des_program *p = s->p;
	const struct calibration *cal = &p->sc->calibration;
	const struct des_stage *st = r->st;
	bool dp_efa = p->g[DES_G_DENSE].span.inter;
	double t;

	(void)argc;
	(void)argv;
	for (int d = 0; d < 4; d++)
		if (r->pp_in[d])
			sg_mailbox_set_receiver(r->pp_name[d]);
	/* an async checkpoint of the previous step's state: the snapshot
	 * blocks, the drain runs alongside this step */
	if (r->writes && p->io.ckpt_async) {
		t = simgrid_get_clock();
		if (p->io.snapshot_s > 0)
			sg_actor_sleep_for(p->io.snapshot_s);
		add(r, PART_CHECKPOINT, simgrid_get_clock() - t, false);
		sg_sem_release(r->io_write_go);
	}
	/* no prefetch: the step waits for its own batch */
	if (r->reads && p->io.prefetch == 0) {
		t = simgrid_get_clock();
		sg_sem_acquire(r->io_read_done);
		add(r, PART_DATA_STALL, simgrid_get_clock() - t, false);
	}
	/* the parameter all-gathers (the previous step's update) start at once */
	for (int k = 0; k < st->head_count; k++)
		release_job(r);
	for (int i = 0; i < st->n_ops; i++) {
		const struct des_op *o = &st->ops[i], *o2 = o + 1;

		if (!o->fused || i + 1 >= st->n_ops) {
			run_block(r, o, i, 0);
			continue;
		}
		/* a fused pair (DualPipe's F&B): both inputs, both blocks,
		 * both sends */
		if (o->recv)
			pp_receive(r, o);
		if (o2->recv)
			pp_receive(r, o2);
		run_block(r, o, i, RB_RECEIVED | RB_NO_SEND);
		run_block(r, o2, i + 1, RB_RECEIVED | RB_NO_SEND);
		if (o->send)
			pp_send(r, o);
		if (o2->send)
			pp_send(r, o2);
		i++;
	}
	if (r->flow_go) {
		r->flow_cost = NULL;
		sg_sem_release(r->flow_go);
	}

	/* after the pipeline: the tail jobs, then every job done, and the
	 * analytical overlap rule on the simulated DP times (ZeRO 0-2: of a
	 * group's bucketed gradient reduction g, min(dp_overlap g, one
	 * micro-batch's backward) hides, at most all but one bucket; the same
	 * for the parameter all-gather under a forward); replica all-reduces
	 * never hide.  FSDP applied its rule block by block. */
	for (int k = 0; k < st->tail_count; k++)
		release_job(r);
	t = simgrid_get_clock();
	if (st->n_jobs > 0) {
		double exposed = 0, hidden = 0, target;

		wait_job(r, st->n_jobs - 1);
		if (p->zero < 3) {
			for (int g = 0; g < 2; g++)
				for (int kind = 0; kind < 2; kind++) {
					double c = r->cls_busy_s[g][kind], one = r->cls_one_s[g][kind];
					double h = des_hide(cal->dp_overlap, c, st->win_s[kind ? 0 : 1]);

					if (h > c - one)
						h = c - one > 0 ? c - one : 0;
					exposed += c - h;
					hidden += h;
				}
		}
		exposed += r->cls_busy_s[2][0] + r->cls_busy_s[2][1];
		target = t + exposed;
		if (target < simgrid_get_clock())
			target = simgrid_get_clock();
		sg_actor_sleep_until(target);
		add(r, PART_DP_COMM, target - t, dp_efa);
		event(r, DES_EV_DP_WAIT, 0, -1, -1, t, target);
		/* hidden DP traffic slows compute (comm_interference x hidden) */
		if (hidden > 0) {
			double ci = cal->comm_interference * hidden;

			t = simgrid_get_clock();
			exec_s(r, ci);
			add(r, PART_COMPUTE, ci, false);
			event(r, DES_EV_INTERFERENCE, 0, -1, -1, t, simgrid_get_clock());
		}
	}
	t = simgrid_get_clock();
	exec_s(r, p->optimizer_s);
	add(r, PART_OPTIMIZER, p->optimizer_s, false);
	r->share[BOTTLENECK_HBM] += p->optimizer_s;
	event(r, DES_EV_OPTIMIZER, 0, -1, -1, t, simgrid_get_clock());
	/* a synchronous checkpoint of the updated state: max(snapshot,
	 * write) + latency (storage_ckpt_io's rule, on the simulated write) */
	if (r->writes && !p->io.ckpt_async) {
		double target;

		t = simgrid_get_clock();
		sg_sem_release(r->io_write_go);
		sg_sem_acquire(r->io_write_done);
		target = fmax(t + p->io.snapshot_s, r->t_write_end) + p->io.write_lat_s;
		sg_actor_sleep_until(target);
		add(r, PART_CHECKPOINT, target - t, false);
	}
	t = simgrid_get_clock();
	if (p->overhead_s + p->tail_s > 0)
		sg_actor_sleep_for(p->overhead_s + p->tail_s);
	add(r, PART_OVERHEAD, p->overhead_s, false);
	event(r, DES_EV_OVERHEAD, 0, -1, -1, t, simgrid_get_clock());
	/* prefetched: the next batch must be in before the next step */
	if (r->reads && p->io.prefetch > 0) {
		t = simgrid_get_clock();
		sg_sem_acquire(r->io_read_done);
		add(r, PART_DATA_STALL, simgrid_get_clock() - t, false);
	}
	r->t_end = simgrid_get_clock();
	r->done++;
	s->actors_done++;
}

/* ---- set-up ------------------------------------------------------------------------ */

void des_sim_init(int planned_actors)
{
	char arg0[] = "stepcast-des", *argv[] = { arg0, NULL };
	int argc = 1;

	simgrid_init(&argc, argv);
	xbt_log_control_set("root.thres:critical");
	sg_cfg_set_string("network/model", "CM02");
	sg_cfg_set_double("network/TCP-gamma", 0.0);
	sg_cfg_set_boolean("network/crosstraffic", "no");
	/* actor stacks are virtual memory; ours are shallow, SimGrid's
	 * simcalls need a few pages (more under ASan's redzones) */
#ifdef DES_UNDER_ASAN
	sg_cfg_set_int("contexts/stack-size", 1024);
#else
	sg_cfg_set_int("contexts/stack-size", 128);
#endif
	if (planned_actors > 30000)
		sg_cfg_set_int("contexts/guard-size", 0);
}

static int topo_leaf_of_domain(const void *ctx, int domain)
{
	const struct net_topo *t = ctx;

	return net_topo_leaf_of(t, domain * t->domain_gpus);
}

void des_platform_spec_of(const struct net_topo *t, int fold, double gpu_flops, const int *gpus,
			  int n, struct des_platform_spec *spec)
{
	memset(spec, 0, sizeof(*spec));
	spec->gpus_per_node = t->gpus_per_node;
	spec->nodes_per_domain = t->nodes_per_domain;
	spec->leaf_domains = t->leaf_domains;
	spec->leaves = t->leaves;
	spec->nic_links = t->nic_links;
	spec->gpus_per_nic_link = t->gpus_per_nic_link > 0 ? t->gpus_per_nic_link : 1;
	spec->nvlink_Bps = t->nvlink_Bps;
	spec->nic_link_Bps = t->nic_link_Bps;
	spec->uplink_Bps = t->leaves > 1 && t->oversubscription > 1.0
			   ? t->leaf_uplink_Bps / (fold > 0 ? fold : 1) : 0;
	spec->gpu_flops = gpu_flops;
	spec->gpus = gpus;
	spec->n_gpus = n;
	if (t->placement) {
		spec->leaf_of_domain = topo_leaf_of_domain;
		spec->leaf_ctx = t;
	}
}

static sg_mailbox_t mbox(const struct sim *s, const char *fmt, int idx, int a, int b)
{
	char name[48];
	int n = snprintf(name, sizeof(name), "%s", s->pre);

	snprintf(name + n, sizeof(name) - (size_t)n, fmt, idx, a, b);
	return sg_mailbox_by_name(name);
}

/* Peers of simulated rank r in group g (ring pattern: next member in its
 * NVLink domain, member at the same position in the next domain). */
static void ring_peers(const struct des_program *p, const struct des_gdef *g, int rank,
		       int *nv_succ, int *nv_pred, int *efa_succ, int *efa_pred)
{
	int n = g->n, i = des_index_in(g, rank);
	int rpd = g->span.ranks_per_domain > 0 ? g->span.ranks_per_domain : 1;
	int base = (i / rpd) * rpd, pos = i % rpd;

	if (rpd > n)
		rpd = n;
	*nv_succ = rpd > 1 ? des_member(g, rank, base + (pos + 1) % rpd) / p->fold : -1;
	*nv_pred = rpd > 1 ? des_member(g, rank, base + (pos + rpd - 1) % rpd) / p->fold : -1;
	*efa_succ = n > rpd ? des_member(g, rank, (i + rpd) % n) / p->fold : -1;
	*efa_pred = n > rpd ? des_member(g, rank, (i - rpd + n) % n) / p->fold : -1;
}

static enum sc_status setup_ranks(struct sim *s, struct sc_error *err)
{
	const struct des_program *p = s->p;
	int stage_size = p->li.stage_gpus;

	for (int i = 0; i < s->n; i++) {
		struct rank *r = &s->r[i];
		int rank = i * p->fold;

		r->sim = s;
		r->rank = rank;
		r->idx = i;
		r->stage = rank / stage_size;
		r->st = &p->stages[r->stage];
		if (p->pp > 1) {
			for (int d = 0; d < 4; d++) {
				snprintf(r->pp_name[d], sizeof(r->pp_name[d]), "%sp%d%c%d", s->pre, i, d / 2 ? 'b' : 'f',
					 d % 2);
				r->pp_in[d] = sg_mailbox_by_name(r->pp_name[d]);
			}
			r->msgs = calloc((size_t)r->st->n_sends + 1, sizeof(*r->msgs));
			if (!r->msgs)
				return sc_error_set(err, SC_ENOMEM, NULL, NULL, "des: out of memory");
			r->pp_ready = sg_sem_init(0);
		}
		for (int g = 0; g < 3; g++) {
			static const int gid[3] = { DES_G_DENSE, DES_G_EXPERT, DES_G_REPLICA };
			const struct des_gdef *gd = &p->g[gid[g]];

			ring_peers(p, gd, rank, &r->dp_succ[g][ST_NV], &r->dp_pred[g][ST_NV],
				   &r->dp_succ[g][ST_EFA], &r->dp_pred[g][ST_EFA]);
			if (gd->n > 1)
				for (int t = 0; t < 2; t++)
					r->dp_in[g][t] = mbox(s, "d%d-%d-%d", i, g, t);
		}
		if (p->cp_flows || p->ep_flows) {
			r->flow_go = sg_sem_init(0);
			r->flow_done = sg_sem_init(0);
		}
		r->job_end = calloc((size_t)r->st->n_jobs + 1, sizeof(double));
		if (!r->job_end)
			return sc_error_set(err, SC_ENOMEM, NULL, NULL, "des: out of memory");
		if (r->st->n_jobs > 0) {
			r->dp_ready = sg_sem_init(0);
			r->dp_done = sg_sem_init(0);
		}
		r->cp_succ = r->cp_pred = r->ep_nv_succ = r->ep_nv_pred = -1;
		if (p->cp_flows) {
			const struct des_gdef *g = &p->g[DES_G_CP];
			int ci = des_index_in(g, rank);

			r->cp_succ = des_member(g, rank, (ci + 1) % g->n) / p->fold;
			r->cp_pred = des_member(g, rank, (ci + g->n - 1) % g->n) / p->fold;
			for (int b = 0; b < 2; b++)
				r->flow_in[FL_CP][b] = mbox(s, "f%d-%d-%d", i, FL_CP, b);
		}
		if (p->ep_flows) {
			const struct des_gdef *g = &p->g[DES_G_EP];
			int ei = des_index_in(g, rank), a, b;
			int rpd = g->span.ranks_per_domain > 0 ? g->span.ranks_per_domain : 1;
			int nd = (g->n + rpd - 1) / rpd;

			ring_peers(p, g, rank, &r->ep_nv_succ, &r->ep_nv_pred, &a, &b);
			r->ep_efa = calloc((size_t)nd, sizeof(int));
			if (!r->ep_efa)
				return sc_error_set(err, SC_ENOMEM, NULL, NULL, "des: out of memory");
			for (int q = 0; q < nd; q++)
				if (q != ei / rpd)
					r->ep_efa[r->n_ep_efa++] = des_member(g, rank, q * rpd + ei % rpd) / p->fold;
			(void)a;
			(void)b;
			for (int fl = FL_EP_NV; fl <= FL_EP_EFA; fl++)
				for (int k = 0; k < 2; k++)
					r->flow_in[fl][k] = mbox(s, "f%d-%d-%d", i, fl, k);
		}
		r->reads = des_io_reader(p, rank);
		r->writes = p->io.ckpt;
		if (r->reads) {
			r->io_rd = mbox(s, "ir%d-%d-%d", i, 0, 0);
			r->io_read_done = sg_sem_init(0);
		}
		if (r->writes) {
			r->io_wr = mbox(s, "iw%d-%d-%d", i, 0, 0);
			r->io_write_go = sg_sem_init(0);
			r->io_write_done = sg_sem_init(0);
		}
		r->cm = calloc((size_t)4 + 2 * (size_t)r->n_ep_efa, sizeof(*r->cm));
		r->cls = calloc((size_t)4 + 2 * (size_t)r->n_ep_efa, sizeof(*r->cls));
		r->slot = calloc((size_t)4 + 2 * (size_t)r->n_ep_efa, sizeof(*r->slot));
		if (!r->cm || !r->cls || !r->slot)
			return sc_error_set(err, SC_ENOMEM, NULL, NULL, "des: out of memory");
	}
	return SC_OK;
}

static void spawn_on(struct sim *s, struct rank *r, const char *what, void (*fn)(int, char **), sg_host_t host)
{
	char name[32];
	sg_actor_t a;

	snprintf(name, sizeof(name), "%s%s%d", s->pre, what, r->rank);
	a = sg_actor_init(name, host);
	sg_actor_set_data(a, r);
	sg_actor_start_(a, fn, 0, NULL);
	s->actors++;
}

static void spawn(struct sim *s, struct rank *r, const char *what, void (*fn)(int, char **))
{
	spawn_on(s, r, what, fn, r->host);
}

/* Storage host of tier `name` on the fabric (added when new, with its
 * read and write capacities: the first job that names it gives them; -1
 * when the fabric has no room for it). */
static int store_of(char names[][SC_NAME_MAX], double *rd, double *wr, int *n, const char *name, double rBps,
		    double wBps)
{
	for (int k = 0; k < *n; k++)
		if (strcmp(names[k], name) == 0) {
			if (!(rd[k] > 0) && rBps > 0)
				rd[k] = rBps;
			if (!(wr[k] > 0) && wBps > 0)
				wr[k] = wBps;
			return k;
		}
	if (*n >= DES_STORAGE_MAX)
		return -1;
	snprintf(names[*n], SC_NAME_MAX, "%s", name);
	rd[*n] = rBps;
	wr[*n] = wBps;
	return (*n)++;
}

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec * 1e-9;
}

/* ---- results ----------------------------------------------------------------------- */

static void top_links(struct sim *s, struct des_result *res)
{
	const struct des_program *p = s->p;
	const struct net_topo *t = &p->topo;
	double T = res->step.step_time_s;
	int nodes = t->nodes;

	res->n_links = 0;
	if (!(T > 0))
		return;
#define CONSIDER(BYTES, CAP, KIND, ...)                                                       \
	do {                                                                                  \
		double u_ = (BYTES) / ((CAP) * T);                                            \
		int at_ = res->n_links;                                                       \
		if ((BYTES) <= 0 || !((CAP) > 0))                                             \
			break;                                                                \
		while (at_ > 0 && res->links[at_ - 1].utilisation < u_)                       \
			at_--;                                                                \
		if (at_ >= DES_TOP_LINKS)                                                     \
			break;                                                                \
		if (res->n_links < DES_TOP_LINKS)                                             \
			res->n_links++;                                                       \
		memmove(&res->links[at_ + 1], &res->links[at_],                               \
			(size_t)(res->n_links - 1 - at_) * sizeof(res->links[0]));            \
		snprintf(res->links[at_].name, DES_NAME_MAX, __VA_ARGS__);                    \
		res->links[at_].kind = (KIND);                                                \
		res->links[at_].capacity_Bps = (CAP);                                         \
		res->links[at_].bytes = (BYTES);                                              \
		res->links[at_].utilisation = u_;                                             \
	} while (0)
	for (int i = 0; i < s->n; i++)
		for (int d = 0; d < 2; d++)
			CONSIDER(s->nvl[2 * i + d], t->nvlink_Bps, "nvlink", "g%d nvlink %s",
				 s->r[i].rank, d ? "in" : "out");
	for (int n = 0; n < nodes && t->nic_links > 0; n++)
		for (int l = 0; l < t->nic_links; l++)
			for (int d = 0; d < 2; d++)
				CONSIDER(s->nic[2 * (n * t->nic_links + l) + d], t->nic_link_Bps, "nic",
					 "n%d-nic%d %s", n, l, d ? "in" : "out");
	for (int k = 0; k < t->leaves; k++)
		for (int d = 0; d < 2; d++)
			CONSIDER(s->up[2 * k + d], t->leaf_uplink_Bps / p->fold, "uplink",
				 "leaf%d uplink %s", k, d ? "down" : "up");
	for (int h = 0; h < s->n_store; h++)
		for (int d = 0; d < 2; d++)
			CONSIDER(s->store_bytes[h][d], d ? s->store_wr_Bps[h] : s->store_rd_Bps[h], "storage",
				 "storage%d %s", h, d ? "write" : "read");
#undef CONSIDER
}

static void fill_result(struct sim *s, struct des_result *res)
{
	const struct des_program *p = s->p;
	const struct step_result *a = &p->analytic;
	struct step_result *o = &res->step;
	struct rank *crit = &s->r[0];
	double ratio, best;
	int gpus = p->gpus;

	*o = *a;
	/* the step ends with the last GPU; its breakdown is that of the
	 * busiest GPU (the most time not waiting for pipeline messages), the
	 * analytical engine's critical stage, whose waiting until the step's
	 * end is bubble */
	o->step_time_s = 0;
	for (int i = 0; i < s->n; i++)
		if (s->r[i].t_end > o->step_time_s)
			o->step_time_s = s->r[i].t_end;
	for (int i = 1; i < s->n; i++) {
		const struct rank *q = &s->r[i];

		if (q->t_end - q->acc[PART_BUBBLE] - q->acc[PART_PP_COMM] >
		    crit->t_end - crit->acc[PART_BUBBLE] - crit->acc[PART_PP_COMM])
			crit = &s->r[i];
	}
	memcpy(o->part_s, crit->acc, sizeof(o->part_s));
	crit->share[BOTTLENECK_PIPELINE_BUBBLE] += o->step_time_s - crit->t_end;
	/* analytical parts the DES does not simulate follow as they are */
	for (int i = 0; i < PART_COUNT; i++)
		if (!des_simulates_part((enum step_part)i))
			o->part_s[i] = a->part_s[i];
	/* simulated storage stalls: the longest any rank waited (what of
	 * it hid behind the critical GPU's work leaves it below) */
	if (p->io.data)
		o->part_s[PART_DATA_STALL] = 0;
	if (p->io.ckpt)
		o->part_s[PART_CHECKPOINT] = 0;
	for (int i = 0; i < s->n; i++) {
		const struct rank *q = &s->r[i];

		res->storage.read_s = fmax(res->storage.read_s, q->reads ? q->t_read_end : 0);
		res->storage.write_s = fmax(res->storage.write_s, q->writes ? q->t_write_end - q->t_write0 : 0);
		if (p->io.data)
			o->part_s[PART_DATA_STALL] = fmax(o->part_s[PART_DATA_STALL], q->acc[PART_DATA_STALL]);
		if (p->io.ckpt)
			o->part_s[PART_CHECKPOINT] = fmax(o->part_s[PART_CHECKPOINT], q->acc[PART_CHECKPOINT]);
	}
	res->storage.data = p->io.data;
	res->storage.checkpoint = p->io.ckpt;
	res->storage.async = p->io.ckpt_async;
	res->storage.readers = p->io.readers;
	res->storage.writers = p->io.writers;
	res->storage.read_bytes = p->io.read_bytes;
	res->storage.write_bytes = p->io.write_bytes;
	res->storage.analytic_read_s = p->io.analytic_read_s;
	res->storage.analytic_write_s = p->io.analytic_write_s;
	if (p->io.ckpt_async)
		res->storage.write_s += p->io.write_lat_s;
	{
		/* every moment of the critical GPU's compute stream is in one
		 * part; what floating point leaves over goes to the bubble */
		double sum = 0;

		for (int i = 0; i < PART_COUNT; i++)
			sum += o->part_s[i];
		o->part_s[PART_BUBBLE] += o->step_time_s - sum;
		/* a simulated stall that hid behind the critical GPU's work
		 * (another rank's) leaves the breakdown */
		const enum step_part stalls[2] = { PART_DATA_STALL, PART_CHECKPOINT };
		const bool simulated[2] = { p->io.data, p->io.ckpt };

		for (int k = 0; k < 2 && o->part_s[PART_BUBBLE] < 0; k++) {
			double take = fmin(o->part_s[stalls[k]], -o->part_s[PART_BUBBLE]);

			if (!simulated[k])
				continue;
			o->part_s[stalls[k]] -= take;
			o->part_s[PART_BUBBLE] += take;
		}
		if (o->part_s[PART_BUBBLE] < 0 && o->part_s[PART_BUBBLE] > -1e-9 * o->step_time_s)
			o->part_s[PART_BUBBLE] = 0;
	}
	ratio = o->step_time_s > 0 ? a->step_time_s / o->step_time_s : 0;
	o->tokens_per_s = a->tokens_per_s * ratio;
	o->tokens_per_s_per_gpu = o->tokens_per_s / gpus;
	o->model_tflops_per_gpu = a->model_tflops_per_gpu * ratio;
	o->mfu = a->mfu * ratio;
	o->hfu = a->hfu * ratio;
	{
		double busy = o->step_time_s - o->part_s[PART_BUBBLE];

		o->bubble_fraction = busy > 0 ? o->part_s[PART_BUBBLE] / busy : 0;
	}
	o->bottleneck = BOTTLENECK_TENSOR_CORES;
	best = crit->share[BOTTLENECK_TENSOR_CORES];
	for (int i = 1; i < BOTTLENECK_COUNT; i++)
		if (crit->share[i] > best) {
			best = crit->share[i];
			o->bottleneck = (enum bottleneck)i;
		}
	res->analytic = *a;
	res->stats.gpus = gpus;
	res->stats.simulated_gpus = s->n;
	res->stats.fold = p->fold;
	res->stats.actors = s->actors;
	res->stats.messages = s->messages;
	res->stats.messages_estimate = p->messages_estimate;
	res->stats.messages_exact = p->messages_exact;
	res->stats.bucket_merge = p->merge;
	for (int st = 0; st < p->pp; st++)
		for (int j = 0; j < p->stages[st].n_jobs; j++)
			if (p->stages[st].jobs[j].steps > res->stats.coll_steps)
				res->stats.coll_steps = p->stages[st].jobs[j].steps;
	top_links(s, res);
}

static void sim_free(struct sim *s)
{
	for (int i = 0; s->r && i < s->n; i++) {
		free(s->r[i].msgs);
		free(s->r[i].ep_efa);
		free(s->r[i].cm);
		free(s->r[i].cls);
		free(s->r[i].slot);
		free(s->r[i].job_end);
	}
	free(s->r);
	free(s->nvl);
	free(s->nic);
	free(s->up);
	free(s->ev);
	memset(s, 0, sizeof(*s));
}

enum sc_status des_engine_run_jobs(const struct des_program *const *ps, int n_jobs,
				   const struct net_topo *fabric, const struct des_options *opt,
				   struct des_result *res, struct sc_error *err)
{
	return des_engine_run_shared(ps, n_jobs, NULL, 0, fabric, opt, res, NULL, err);
}

/* Job k's simulation state: its ranks and link-use counters, after the
 * check that it shares the fabric's instance and TP folding. */
static enum sc_status job_alloc(const struct des_program *p, int k, int fold, const struct net_topo *fabric,
				const struct des_options *opt, struct sim *s, struct sc_error *err)
{
	if (p->fold != fold || p->topo.gpus_per_node != fabric->gpus_per_node)
		return sc_error_set(err, SC_EUNSUPPORTED, NULL, NULL,
				    "des: jobs on one fabric need the same instance and TP folding");
	s->p = p;
	s->opt = opt;
	s->n = p->nsim;
	if (k > 0)
		snprintf(s->pre, sizeof(s->pre), "j%d:", k);
	s->r = calloc((size_t)s->n, sizeof(*s->r));
	s->nvl = calloc((size_t)2 * s->n, sizeof(double));
	s->nic = calloc((size_t)2 * p->topo.nodes * (p->topo.nic_links > 0 ? p->topo.nic_links : 1),
			sizeof(double));
	s->up = calloc((size_t)2 * p->topo.leaves, sizeof(double));
	if (!s->r || !s->nvl || !s->nic || !s->up)
		return sc_error_set(err, SC_ENOMEM, NULL, NULL, "des: out of memory");
	return SC_OK;
}

/* The storage hosts: one per tier the jobs name (jobs naming the same
 * tier share its file system or bucket), and each job's read and write
 * host (-1: none). */
struct store_plan {
	char name[DES_STORAGE_MAX][SC_NAME_MAX];
	double rd_Bps[DES_STORAGE_MAX], wr_Bps[DES_STORAGE_MAX];
	int n, rd_of[CLUSTER_JOBS_MAX_DES], wr_of[CLUSTER_JOBS_MAX_DES];
};

static enum sc_status plan_storage(const struct des_program *const *ps, int n_jobs, int fold,
				   struct store_plan *sp, struct sc_error *err)
{
	for (int k = 0; k < n_jobs; k++) {
		const struct des_io *io = &ps[k]->io;

		if (k >= CLUSTER_JOBS_MAX_DES)
			return sc_error_set(err, SC_EUNSUPPORTED, NULL, NULL, "des: more than %d jobs on one fabric",
					    CLUSTER_JOBS_MAX_DES);
		sp->rd_of[k] = sp->wr_of[k] = -1;
		if (io->data)
			sp->rd_of[k] = store_of(sp->name, sp->rd_Bps, sp->wr_Bps, &sp->n, io->data_tier,
						io->read_Bps, 0);
		if (io->ckpt && !io->ckpt_nvme)
			sp->wr_of[k] = store_of(sp->name, sp->rd_Bps, sp->wr_Bps, &sp->n, io->ckpt_tier, 0,
						io->write_Bps / fold);
		if ((io->data && sp->rd_of[k] < 0) || (io->ckpt && !io->ckpt_nvme && sp->wr_of[k] < 0))
			return sc_error_set(err, SC_EUNSUPPORTED, NULL, NULL,
					    "des: more than %d storage tiers on one fabric", DES_STORAGE_MAX);
	}
	for (int h = 0; h < sp->n; h++) {
		/* a tier only read (written) gets its other link at the same
		 * capacity: nothing uses it */
		if (!(sp->rd_Bps[h] > 0))
			sp->rd_Bps[h] = sp->wr_Bps[h];
		if (!(sp->wr_Bps[h] > 0))
			sp->wr_Bps[h] = sp->rd_Bps[h];
	}
	return SC_OK;
}

/* Job k's ranks and their actors: storage reader/feeder and
 * writer/sink, compute, pipeline, data-parallel and flow actors. */
static enum sc_status spawn_job(struct sim *s, int k, const struct store_plan *sp, void **storage,
				struct sc_error *err)
{
	enum sc_status rc;

	s->store = (sg_host_t *)storage;
	s->n_store = sp->n;
	s->store_rd_Bps = sp->rd_Bps;
	s->store_wr_Bps = sp->wr_Bps;
	rc = setup_ranks(s, err);
	if (rc != SC_OK)
		return rc;
	for (int i = 0; i < s->n; i++) {
		struct rank *r = &s->r[i];

		r->store_rd = sp->rd_of[k];
		r->store_wr = sp->wr_of[k];
		if (r->reads) {
			spawn(s, r, "ir", io_read_actor);
			spawn_on(s, r, "sr", io_feed_actor, s->store[r->store_rd]);
		}
		if (r->writes) {
			spawn(s, r, "iw", io_write_actor);
			if (!s->p->io.ckpt_nvme)
				spawn_on(s, r, "sw", io_sink_actor, s->store[r->store_wr]);
		}
		spawn(s, r, "c", compute_actor);
		if (r->st->n_sends > 0)
			spawn(s, r, "p", pp_actor);
		if (r->st->n_jobs > 0)
			spawn(s, r, "d", dp_actor);
		if (r->flow_go)
			spawn(s, r, "f", flow_actor);
	}
	return SC_OK;
}

/* Whether job s ran to its end: no actor error, no deadlock, the
 * timeline in memory. */
static enum sc_status job_finished(const struct sim *s, struct sc_error *err)
{
	if (s->error[0])
		return sc_error_set(err, SC_EINVAL, NULL, NULL, "%s", s->error);
	if (s->actors_done != s->actors)
		return sc_error_set(err, SC_EINVAL, NULL, NULL,
				    "des: the simulation deadlocked (%d of %d actors finished; internal error)",
				    s->actors_done, s->actors);
	if (s->ev_oom)
		return sc_error_set(err, SC_ENOMEM, NULL, NULL, "des: out of memory for the timeline");
	return SC_OK;
}

enum sc_status des_engine_run_shared(const struct des_program *const *ps, int n_jobs,
				     const struct des_stream *streams, int n_streams,
				     const struct net_topo *fabric, const struct des_options *opt,
				     struct des_result *res, struct des_stream_result *stream_out,
				     struct sc_error *err)
{
	int fold = n_jobs > 0 ? ps[0]->fold : 1, n_sg = 0;
	double flops = n_jobs > 0 ? ps[0]->gpu_flops : 1e15;
	struct des_streams_run *srun = NULL;
	struct sim *S = calloc((size_t)(n_jobs > 0 ? n_jobs : 1), sizeof(*S));
	struct des_platform_spec spec;
	int *gpus = NULL, total = 0, idx = 0, node_off = 0;
	void **hosts = NULL, *storage[DES_STORAGE_MAX];
	char errbuf[256];
	struct store_plan sp;
	double w0 = now_s(), w1;
	enum sc_status rc = SC_OK;

	if (!S)
		return sc_error_set(err, SC_ENOMEM, NULL, NULL, "des: out of memory");
	memset(&sp, 0, sizeof(sp));
	for (int k = 0; k < n_jobs; k++) {
		memset(&res[k], 0, sizeof(res[k]));
		if ((rc = job_alloc(ps[k], k, fold, fabric, opt, &S[k], err)) != SC_OK)
			goto out;
		total += S[k].n;
	}
	n_sg = des_streams_gpus(streams, n_streams, fold, NULL);
	gpus = calloc((size_t)total + n_sg + 1, sizeof(int));
	hosts = calloc((size_t)total + n_sg + 1, sizeof(void *));
	if (!gpus || !hosts) {
		rc = sc_error_set(err, SC_ENOMEM, NULL, NULL, "des: out of memory");
		goto out;
	}
	/* job k's nodes follow job k-1's on the fabric (its placement says
	 * which leaves they are under) */
	for (int k = 0; k < n_jobs; k++) {
		for (int i = 0; i < S[k].n; i++)
			gpus[idx++] = node_off * fabric->gpus_per_node + i * ps[k]->fold;
		node_off += ps[k]->topo.nodes;
	}
	/* the streams' GPUs, after the jobs' */
	if (n_sg > 0) {
		n_sg = des_streams_gpus(streams, n_streams, fold, gpus + total);
		if (n_sg > 0 && gpus[total] < node_off * fabric->gpus_per_node) {
			rc = sc_error_set(err, SC_EINVAL, NULL, NULL,
					  "des: a stream's GPUs must be on nodes after the training jobs'");
			goto out;
		}
	}
	if ((rc = plan_storage(ps, n_jobs, fold, &sp, err)) != SC_OK)
		goto out;
	des_sim_init(total * 4 + n_sg);
	des_platform_spec_of(fabric, fold, flops, gpus, total + n_sg, &spec);
	spec.n_storage = sp.n;
	spec.storage_read_Bps = sp.rd_Bps;
	spec.storage_write_Bps = sp.wr_Bps;
	if (des_platform_build(&spec, hosts, storage, errbuf, sizeof(errbuf)) != 0) {
		rc = sc_error_set(err, SC_EINVAL, NULL, NULL, "%s", errbuf);
		goto out;
	}
	idx = 0;
	for (int k = 0; k < n_jobs; k++)
		for (int i = 0; i < S[k].n; i++)
			S[k].r[i].host = hosts[idx++];
	for (int k = 0; k < n_jobs; k++)
		if ((rc = spawn_job(&S[k], k, &sp, storage, err)) != SC_OK)
			goto out;
	if (n_streams > 0 &&
	    (rc = des_streams_start(streams, n_streams, fold, gpus, hosts, total + n_sg, &srun, err)) != SC_OK)
		goto out;
	w1 = now_s();
	simgrid_run();
	if (srun && (rc = des_streams_finish(srun, stream_out, err)) != SC_OK)
		goto out;
	for (int k = 0; k < n_jobs; k++) {
		res[k].stats.platform_s = w1 - w0;
		res[k].stats.run_s = now_s() - w1;
		if ((rc = job_finished(&S[k], err)) != SC_OK)
			goto out;
	}
	for (int k = 0; k < n_jobs; k++) {
		fill_result(&S[k], &res[k]);
		res[k].events = S[k].ev;
		res[k].n_events = S[k].n_ev;
		S[k].ev = NULL;
	}
out:
	for (int k = 0; k < n_jobs; k++)
		sim_free(&S[k]);
	des_streams_free(srun);
	free(S);
	free(gpus);
	free(hosts);
	return rc;
}

enum sc_status des_engine_run(const struct des_program *p, const struct des_options *opt,
			      struct des_result *res, struct sc_error *err)
{
	return des_engine_run_jobs(&p, 1, &p->topo, opt, res, err);
}
