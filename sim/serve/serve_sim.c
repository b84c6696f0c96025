/* serve_sim.c: the request-level event loop (see serve_sim.h). */
#include "serve_sim.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../models/collective.h"
#include "../../models/limits.h"
#include "../../models/network.h"
#include "../../models/purchase.h"
#include "rng.h"
#include "serve_config.h"
#include "serve_datasets.h"

/* ---- replica models -------------------------------------------------------------- */

static void memory_opts(const struct srv_scenario *sc, const struct srv_layout *lay, struct srv_memory_opts *m)
{
	m->kv_mem_fraction = sc->engine.kv_mem_fraction;
	m->basis = sc->engine.kv_mem_fraction_of;
	m->kv_pool_tokens = sc->engine.kv_cache_tokens;
	/* the workspace is sized for the pool's own limits */
	srv_engine_pool_limits(&sc->engine, lay, &m->max_num_seqs, &m->max_num_batched_tokens);
	m->decode_per_head = sc->engine.decode_attention == SRV_DECODE_PER_HEAD;
	m->grouped_max_group = sc->engine.grouped_max_group;
	m->full_window = !sc->engine.sliding_window_kv;
	m->full_window_kv_pool = sc->engine.full_window_kv_pool;
}

enum sc_status srv_replica_for(const struct srv_scenario *sc, const struct srv_layout *lay,
			       struct srv_replica *r, struct sc_error *err)
{
	struct srv_memory_opts mem;

	memory_opts(sc, lay, &mem);
	return srv_replica_init(r, &sc->arch, &sc->gpu, &sc->instance, &sc->fabric, &sc->calibration,
				&sc->precision, lay, &mem, &sc->speculative, 1, err);
}

/* the mean of what draw_length samples (clipped distributions included) */
static double mean_length(const struct srv_length *l)
{
	return srv_length_mean(l);
}

void srv_replica_summarize(const struct srv_replica *r, const struct srv_scenario *sc,
			   struct srv_replica_summary *out)
{
	struct srv_batch b;
	double ctx = mean_length(&sc->workload.input_tokens) +
		     0.5 * mean_length(&sc->workload.output_tokens);
	double per_token = r->kv_bytes_per_token_full + r->kv_bytes_per_token_window;

	memset(out, 0, sizeof(*out));
	out->gpus = r->lay.tp * r->lay.pp;
	out->weights_bytes = r->weights_bytes;
	out->kv_pool_bytes = r->kv_pool_bytes;
	out->kv_bytes_per_token = per_token;
	out->kv_capacity_tokens = per_token > 0 ? r->kv_pool_bytes / per_token : 0;
	out->weight_stream_s = r->weights_bytes / (r->gpu.hbm_GBps * 1e9 * r->cal.serve_hbm_eta);
	srv_engine_pool_limits(&sc->engine, &r->lay, &out->max_num_seqs, &out->max_num_batched_tokens);
	memset(&b, 0, sizeof(b));
	if (ctx < 1)
		ctx = 1;
	b.decode_seqs = 1;
	b.decode_ctx = ctx;
	b.decode_ctx_win = r->window_tokens > 0 && ctx > r->window_tokens ? r->window_tokens : ctx;
	b.sampled = 1;
	out->decode_step_batch1_s = srv_iteration_time(r, &b, NULL);
}

/* The front end of a replica (vLLM's OpenAI server, SGLang's tokenizer
 * manager, Triton): one process that tokenises each request
 * (serve_request_overhead_s) and streams each output token to its client
 * (serve_token_overhead_s), one piece of work at a time.  A burst of
 * requests queues there before the engine sees it, and a large batch's
 * tokens reach their clients later than the engine makes them once the
 * front end saturates.  Modelled as a fluid single server per replica;
 * it delays what clients see (TTFT, TPOT, end-to-end) and holds no GPU.
 * None for an offline benchmark that calls the engine directly. */
static double front_end_s(const struct srv_scenario *sc)
{
	return sc->workload.front_end ? sc->calibration.serve_request_overhead_s : 0.0;
}

/* ---- state --------------------------------------------------------------------------- */

enum req_state { S_PENDING, S_WAITING, S_RUNNING, S_TRANSFER, S_DONE };
enum role { ROLE_UNIFIED, ROLE_PREFILL, ROLE_DECODE };
enum ev_type { EV_ARRIVAL, EV_ENQUEUE, EV_ITER_END, EV_TRANSFER_END, EV_DELIVER };

struct req {
	double arrival;      /* the client sends it */
	double enter;        /* the engine queues it (after its front end) */
	double admitted, first_token, finish, transfer_start, transfer_end;
	double prompt;       /* tokens to prefill: the input, or input + output after a preemption */
	double done;         /* of prompt, with KV in the cache (a cached prefix counts) */
	double generated;    /* output tokens produced (expected value with speculation) */
	double out;          /* output tokens wanted */
	double kv_tokens;    /* tokens whose KV the replica holds */
	double kv_bytes;     /* pool bytes held */
	double chunk;        /* prefill tokens in the running iteration */
	int in;
	int replica;
	int state;
	bool decoding;       /* takes a decode step in the running iteration */
	bool seen_first;
};

struct rep {
	enum role role;
	const struct srv_replica *model;
	int *wait;           /* ring deque of request indices */
	int wait_head, wait_n;
	int *run;            /* running requests, in admission order */
	int run_n;
	double kv_used;
	bool busy;
	int outstanding;     /* requests routed here and not yet gone */
	double kv_integral, last_t, busy_time, iter_start;
	double kv_peak;      /* largest fraction of the pool in use */
	double link_free;    /* prefill: when its KV link is next free */
	double fe_work;      /* its front end's backlog at fe_last, seconds */
	double fe_last;
	long long iters, decode_iters;
	double decode_seqs_sum;
	int steps;           /* decode steps the running iteration stands for */
	int max_seqs;        /* its batch limits (a pool's attention_dp may scale them) */
	int max_tokens;
};

struct ev {
	double t;
	long long seq;
	int type;
	int id;
};

struct sim {
	const struct srv_scenario *sc;
	struct srv_replica *models;   /* [0] unified or decode, [1] prefill */
	struct req *reqs;
	int n_reqs;
	struct rep *reps;
	int n_reps;
	int first_prefill, n_prefill; /* replica index ranges by role */
	int first_decode, n_decode;
	struct ev *heap;
	int heap_n, heap_cap;
	long long seq;
	int rr_next[2];
	double now;
	int next_arrival;             /* concurrency: next request to release */
	double tps;                   /* tokens per decode step */
	double q;                     /* query tokens per decode step */
	struct net_span link;         /* prefill -> decode KV path */
	/* Little's law bookkeeping */
	int in_system;
	double little_t0, little_t1, little_area, little_last;
	int preemptions;
	double xfer_bytes_sum;        /* KV bytes sent per GPU pair, all requests */
	int xfer_count;
	int admitted_now;             /* admissions and preemptions of the batch */
	int preempted_now;            /*   being composed */
	int *scratch;                 /* n_reqs ints */
	bool saturate;                /* srv_capacity: every request at time 0 */
	int *dirty;                   /* replicas whose state changed this instant */
	int n_dirty;
	bool *is_dirty;
	enum sc_status error;
};

/* ---- event heap ---------------------------------------------------------------------- */

static bool ev_less(const struct ev *a, const struct ev *b)
{
	return a->t < b->t || (a->t == b->t && a->seq < b->seq);
}

static int push(struct sim *s, double t, int type, int id)
{
	struct ev e = { t, s->seq++, type, id };
	int i;

	if (s->heap_n == s->heap_cap) {
		int cap = s->heap_cap ? 2 * s->heap_cap : 1024;
		struct ev *h = realloc(s->heap, (size_t)cap * sizeof(*h));
		if (!h)
			return -1;
		s->heap = h;
		s->heap_cap = cap;
	}
	i = s->heap_n++;
	while (i > 0 && ev_less(&e, &s->heap[(i - 1) / 2])) {
		s->heap[i] = s->heap[(i - 1) / 2];
		i = (i - 1) / 2;
	}
	s->heap[i] = e;
	return 0;
}

static struct ev pop(struct sim *s)
{
	struct ev top = s->heap[0], last = s->heap[--s->heap_n];
	int i = 0;

	for (;;) {
		int c = 2 * i + 1;
		if (c >= s->heap_n)
			break;
		if (c + 1 < s->heap_n && ev_less(&s->heap[c + 1], &s->heap[c]))
			c++;
		if (!ev_less(&s->heap[c], &last))
			break;
		s->heap[i] = s->heap[c];
		i = c;
	}
	if (s->heap_n > 0)
		s->heap[i] = last;
	return top;
}

/* ---- queues ------------------------------------------------------------------------- */

/* Replica ri may start an iteration at the end of this instant.  Only
 * these are tried: with a thousand replicas, trying every one after every
 * event made a 10^4 requests/s plan take minutes. */
static void touch(struct sim *s, int ri)
{
	if (!s->is_dirty[ri]) {
		s->is_dirty[ri] = true;
		s->dirty[s->n_dirty++] = ri;
	}
}

static int cmp_int(const void *a, const void *b)
{
	int x = *(const int *)a, y = *(const int *)b;
	return (x > y) - (x < y);
}

static void wait_push_back(struct sim *s, struct rep *p, int id)
{
	touch(s, (int)(p - s->reps));
	p->wait[(p->wait_head + p->wait_n) % s->n_reqs] = id;
	p->wait_n++;
}

static void wait_push_front(struct sim *s, struct rep *p, int id)
{
	p->wait_head = (p->wait_head + s->n_reqs - 1) % s->n_reqs;
	p->wait[p->wait_head] = id;
	p->wait_n++;
}

static int wait_front(const struct sim *s, const struct rep *p)
{
	(void)s;
	return p->wait[p->wait_head];
}

static void wait_pop(struct sim *s, struct rep *p)
{
	p->wait_head = (p->wait_head + 1) % s->n_reqs;
	p->wait_n--;
}

/* ---- KV accounting ------------------------------------------------------------------- */

static void kv_track(struct rep *p, double now)
{
	p->kv_integral += p->kv_used * (now - p->last_t);
	p->last_t = now;
}

static double seq_bytes(const struct sim *s, const struct rep *p, double tokens)
{
	return srv_kv_seq_bytes(p->model, tokens, s->sc->engine.kv_block_tokens);
}

/* Set request r's KV holding on replica p to `bytes`. */
static void kv_set(struct sim *s, struct rep *p, struct req *r, double bytes)
{
	kv_track(p, s->now);
	p->kv_used += bytes - r->kv_bytes;
	r->kv_bytes = bytes;
	if (p->model->kv_pool_bytes > 0 && p->kv_used / p->model->kv_pool_bytes > p->kv_peak)
		p->kv_peak = p->kv_used / p->model->kv_pool_bytes;
}

static double kv_free_bytes(const struct rep *p)
{
	return p->model->kv_pool_bytes - p->kv_used;
}

/* The KV a request must hold to be admitted: under RESERVE its prompt and
 * whole remaining output; ON_DEMAND what it holds after `tokens`. */
static double admit_bytes(const struct sim *s, const struct rep *p, const struct req *r,
			  double tokens)
{
	if (s->sc->engine.kv_policy == SRV_KV_RESERVE)
		return seq_bytes(s, p, r->prompt + (r->out - r->generated));
	return seq_bytes(s, p, tokens);
}

/* Admit the request id at the front of p's queue, holding what it needs
 * after `tokens` (admit_bytes), if that fits in p's free KV: it leaves the
 * queue and runs.  False (and nothing changes) if it does not fit. */
static bool admit(struct sim *s, struct rep *p, int id, double tokens)
{
	struct req *r = &s->reqs[id];
	double need = admit_bytes(s, p, r, tokens);

	if (need > kv_free_bytes(p) + 1e-6)
		return false;
	wait_pop(s, p);
	p->run[p->run_n++] = id;
	r->state = S_RUNNING;
	s->admitted_now++;
	kv_set(s, p, r, need);
	return true;
}

/* Preempt the most recently admitted running request of p (vLLM's
 * recompute preemption: its KV is freed and it waits at the front of the
 * queue to prefill its prompt and what it generated so far). */
static int preempt_last(struct sim *s, struct rep *p)
{
	int id = p->run[p->run_n - 1];
	struct req *r = &s->reqs[id];

	kv_set(s, p, r, 0);
	r->kv_tokens = 0;
	r->done = 0;
	r->prompt = r->in + floor(r->generated);
	r->chunk = 0;
	r->decoding = false;
	r->state = S_WAITING;
	p->run_n--;
	wait_push_front(s, p, id);
	s->preemptions++;
	s->preempted_now++;
	return id;
}

/* ---- batch composition ----------------------------------------------------------------- */

/* Query-key pairs of a causal chunk of c tokens after p cached ones, with
 * keys limited to the last w (w = 0: no limit): sum over i = p+1 .. p+c of
 * min(i, w). */
static double causal_pairs(double p, double c, double w)
{
	double e = p + c;

	if (w <= 0 || e <= w)
		return c * p + c * (c + 1) / 2;
	if (p >= w)
		return c * w;
	return (w * (w + 1) - p * (p + 1)) / 2 + (e - w) * w;
}

static void add_prefill(const struct sim *s, const struct rep *p, struct srv_batch *b,
			const struct req *r, double c)
{
	double w = p->model->window_tokens;

	b->prefill_tokens += c;
	b->prefill_pairs += causal_pairs(r->done, c, 0);
	b->prefill_pairs_win += causal_pairs(r->done, c, w);
	b->prefill_ctx += r->done;
	if (r->done + c >= r->prompt) {
		b->sampled += 1;
		b->finish_keys += r->done + c;
		b->finish_keys_win += w > 0 && r->done + c > w ? w : r->done + c;
	}
	(void)s;
}

static void add_decode(const struct rep *p, struct srv_batch *b, const struct req *r)
{
	double w = p->model->window_tokens;

	b->decode_seqs += 1;
	b->decode_ctx += r->kv_tokens;
	b->decode_ctx_win += (w > 0 && r->kv_tokens > w) ? w : r->kv_tokens;
	b->sampled += 1;
}

/* Decode steps of the running requests that have finished their prefill,
 * in admission order, within *budget; on-demand KV growth preempts from the
 * back of the running list. */
static void schedule_decodes(struct sim *s, struct rep *p, struct srv_batch *b, double *budget)
{
	for (int i = 0; i < p->run_n; i++) {
		int id = p->run[i];
		struct req *r = &s->reqs[id];

		if (r->done < r->prompt || r->chunk > 0 || r->decoding)
			continue;
		if (*budget < s->q)
			break;
		if (s->sc->engine.kv_policy == SRV_KV_ON_DEMAND) {
			double need = seq_bytes(s, p, r->kv_tokens + s->tps);
			bool self = false;

			while (need - r->kv_bytes > kv_free_bytes(p) + 1e-6) {
				if (preempt_last(s, p) == id) {
					self = true;
					break;
				}
			}
			if (self)
				break;
			kv_set(s, p, r, need);
		}
		r->decoding = true;
		add_decode(p, b, r);
		*budget -= s->q;
	}
}

/* Prefill chunks: unfinished prompts of running requests first, then
 * admissions from the waiting queue in order (FIFO, head-of-line). */
static void schedule_prefills(struct sim *s, struct rep *p, struct srv_batch *b, double *budget,
			      bool whole_batch)
{
	const struct srv_engine *e = &s->sc->engine;

	for (int i = 0; i < p->run_n && *budget > 0; i++) {
		struct req *r = &s->reqs[p->run[i]];
		double left = r->prompt - r->done, c;

		if (left <= 0 || r->chunk > 0)
			continue;
		c = e->chunked_prefill ? (left < *budget ? left : *budget) : left;
		if (!e->chunked_prefill && c > *budget && b->prefill_tokens > 0)
			continue;
		if (e->kv_policy == SRV_KV_ON_DEMAND) {
			double need = seq_bytes(s, p, r->done + c);
			if (need - r->kv_bytes > kv_free_bytes(p) + 1e-6)
				continue;
			kv_set(s, p, r, need);
		}
		add_prefill(s, p, b, r, c);
		r->chunk = c;
		*budget -= c;
	}
	while (p->wait_n > 0 && p->run_n < p->max_seqs && (*budget > 0 || whole_batch)) {
		int id = wait_front(s, p);
		struct req *r = &s->reqs[id];
		double left, c;

		if (r->done >= r->prompt) {
			/* arrived from a prefill pool with its KV: decode only */
			if (p->role == ROLE_PREFILL || *budget < s->q)
				break;
			if (!admit(s, p, id, r->kv_tokens + s->tps))
				break;
			r->decoding = true;
			add_decode(p, b, r);
			*budget -= s->q;
			continue;
		}
		/* (a decode replica recomputes a preempted request itself) */
		left = r->prompt - r->done;
		if (whole_batch || !e->chunked_prefill)
			c = left;
		else
			c = left < *budget ? left : *budget;
		/* without chunked prefill a whole prompt goes in, alone if it is
		 * longer than the budget left (TensorRT-LLM needs max_num_tokens
		 * >= the longest prompt then, and trtllm-bench sizes it so) */
		if (!whole_batch && c > *budget && b->prefill_tokens > 0)
			break;
		if (!admit(s, p, id, r->done + c))
			break;
		if (r->admitted < 0)
			r->admitted = s->now;
		add_prefill(s, p, b, r, c);
		r->chunk = c;
		*budget -= c;
	}
}

static bool has_prefill_work(const struct sim *s, const struct rep *p)
{
	for (int i = 0; i < p->run_n; i++) {
		const struct req *r = &s->reqs[p->run[i]];
		if (r->done < r->prompt)
			return true;
	}
	return p->wait_n > 0;
}

static void compose(struct sim *s, struct rep *p, struct srv_batch *b)
{
	const struct srv_engine *e = &s->sc->engine;
	double budget = p->max_tokens;

	memset(b, 0, sizeof(*b));
	s->admitted_now = s->preempted_now = 0;
	if (p->role == ROLE_PREFILL) {
		schedule_prefills(s, p, b, &budget, false);
		return;
	}
	if (p->role == ROLE_DECODE) {
		schedule_decodes(s, p, b, &budget);
		schedule_prefills(s, p, b, &budget, false);
		return;
	}
	switch (e->schedule) {
	case SRV_SCHED_MIXED:
		schedule_decodes(s, p, b, &budget);
		schedule_prefills(s, p, b, &budget, false);
		break;
	case SRV_SCHED_PREFILL_FIRST:
		if (has_prefill_work(s, p)) {
			schedule_prefills(s, p, b, &budget, false);
			if (b->prefill_tokens > 0)
				break;
		}
		budget = p->max_tokens;
		schedule_decodes(s, p, b, &budget);
		break;
	case SRV_SCHED_STATIC:
		/* one batch at a time: all its prompts in one iteration, then
		 * decode steps until every sequence of the batch is done (the
		 * token budget does not apply) */
		budget = INFINITY;
		if (p->run_n == 0)
			schedule_prefills(s, p, b, &budget, true);
		else
			schedule_decodes(s, p, b, &budget);
		break;
	}
}

/* ---- events ----------------------------------------------------------------------------- */

/* The replica's front end after `work` more seconds of it arrive at this
 * instant, spread over the `steps` engine steps just ended: the backlog
 * drains at one second per second (a fluid single server), and cannot be
 * less than the last step's share of the new work.  Returns the backlog,
 * i.e. how long after now the last of that work is done. */
static double front_end_add(struct sim *s, struct rep *p, double work, double steps)
{
	double w = p->fe_work + work - (s->now - p->fe_last);

	if (steps > 0 && w < work / steps)
		w = work / steps;
	if (w < 0)
		w = 0;
	p->fe_work = w;
	p->fe_last = s->now;
	return w;
}

/* Request id reaches its replica's engine queue. */
static int enqueue(struct sim *s, int id)
{
	struct req *r = &s->reqs[id];

	r->enter = s->now;
	r->state = S_WAITING;
	/* a prefix-cache hit: those prompt tokens need no prefill */
	r->done = floor(s->sc->workload.prefix_cache_hit_rate * r->in);
	if (r->done >= r->prompt)
		r->done = r->prompt - 1;
	wait_push_back(s, &s->reps[r->replica], id);
	return 0;
}

/* KV bytes the decoding requests of p need, beyond what they hold, for k
 * more steps after the one already reserved. */
static double growth(const struct sim *s, const struct rep *p, double k)
{
	double g = 0;

	for (int i = 0; i < p->run_n; i++) {
		const struct req *r = &s->reqs[p->run[i]];

		if (r->decoding)
			g += seq_bytes(s, p, r->kv_tokens + (k + 1) * s->tps) - r->kv_bytes;
	}
	return g;
}

/* One iteration of batch b: two passes on an engine with a separate
 * context pass (TurboMind v0.1, engines.json context_pass_separate; see
 * srv_split_context_pass), which runs prompts whole (serve_config.c
 * rejects chunked_prefill with it), so every chunk of b finishes its
 * prompt. */
static double iteration_time(const struct sim *s, const struct rep *p, const struct srv_batch *b)
{
	if (!s->sc->engine.context_pass_separate || b->prefill_tokens <= 0)
		return srv_iteration_time(p->model, b, NULL);
	return srv_context_pass_time(p->model, b);
}

/* The batch of step j of a pure decode span that starts with b1: every
 * sequence's context j tokens-per-step longer (window-limited ones stop at
 * the window). */
static double step_time(const struct sim *s, const struct rep *p, const struct srv_batch *b1,
			double j, double below_window)
{
	struct srv_batch b = *b1;
	double w = p->model->window_tokens;

	b.decode_ctx += j * b.decode_seqs * s->tps;
	b.decode_ctx_win += j * (w > 0 ? below_window : b.decode_seqs) * s->tps;
	if (b.decode_ctx_win > b.decode_ctx)
		b.decode_ctx_win = b.decode_ctx;
	return srv_iteration_time(p->model, &b, NULL);
}

/* Time of up to kmax steps of a decode span starting with b1 (step 0 takes
 * t1), stopping after the step during which `limit` seconds are reached;
 * *k_out gets the steps taken.  A short span adds every step.  A long one
 * integrates the step time f(j) (a sum of rooflines: piecewise linear in
 * the context, so in j) by the trapezoid rule on 32 segments, exact where
 * f is linear: sum_{j=0}^{K-1} f(j) = f(0)/2 + integral_0^{K-1} f + f(K-1)/2. */
static double span_time(const struct sim *s, const struct rep *p, const struct srv_batch *b1,
			double t1, double kmax, double limit, double below_window, int *k_out)
{
	const int seg = 32;
	double total = 0.5 * t1, prev = t1, t = t1;
	int k = 1;

	if (kmax <= 4 * seg) {
		while (k < kmax && t < limit) {
			t += step_time(s, p, b1, k, below_window);
			k++;
		}
		*k_out = k;
		return t;
	}
	for (int i = 1; i <= seg; i++) {
		double j0 = (double)(i - 1) * (kmax - 1) / seg, j1 = (double)i * (kmax - 1) / seg;
		double cur = step_time(s, p, b1, j1, below_window), per = 0.5 * (prev + cur);

		if (total + per * (j1 - j0) + 0.5 * cur >= limit) {
			/* the step during which the limit passes, at the
			 * segment's mean step time */
			double m = ceil(j0 + (limit - total - 0.5 * per) / per);

			if (m < j0)
				m = j0;
			if (m > kmax - 1)
				m = kmax - 1;
			*k_out = (int)m + 1;
			return total + (m - j0) * per + 0.5 * per;
		}
		total += per * (j1 - j0);
		prev = cur;
	}
	*k_out = (int)kmax;
	return total + 0.5 * prev;
}

/* A pure decode step of a batch that nothing can join stays the same batch,
 * one token longer per step, until a sequence finishes (a completion frees
 * KV and a slot) or another event happens (an arrival may be routed here).
 * Why: an offline benchmark of 30,000 prompts at batch 2,048 is ~2,000
 * decode steps per wave; stepping each through every request would cost
 * O(steps x batch).  So run the whole span at once: the steps' times from
 * the iteration model with the context growing by one token per sequence
 * per step, the requests updated once at its end.  The first step's time
 * t1 is given; returns the span's time and sets p->steps. */
static double fast_forward(struct sim *s, struct rep *p, const struct srv_batch *b1, double t1)
{
	double kmax = INFINITY, t = t1, next = s->heap_n > 0 ? s->heap[0].t : INFINITY;
	double below_window = 0, w = p->model->window_tokens;
	int k = 1;

	for (int i = 0; i < p->run_n; i++) {
		const struct req *r = &s->reqs[p->run[i]];
		double left;

		if (!r->decoding)
			continue;
		left = ceil((r->out - r->generated) / s->tps - 1e-9);
		if (left < kmax)
			kmax = left;
		if (w > 0 && r->kv_tokens < w)
			below_window += 1;
	}
	if (!(kmax > 1))
		return t1;
	t = span_time(s, p, b1, t1, kmax, next - s->now, below_window, &k);
	if (k > 1 && s->sc->engine.kv_policy == SRV_KV_ON_DEMAND) {
		/* the span's KV growth must fit: the largest k that does */
		int lo = 1, hi = k;

		if (growth(s, p, k - 1) > kv_free_bytes(p) + 1e-6) {
			while (hi - lo > 1) {
				int mid = lo + (hi - lo) / 2;
				if (growth(s, p, mid - 1) <= kv_free_bytes(p) + 1e-6)
					lo = mid;
				else
					hi = mid;
			}
			k = lo;
			if (k == 1)
				return t1;
			t = span_time(s, p, b1, t1, k, INFINITY, below_window, &k);
		}
		for (int i = 0; i < p->run_n; i++) {
			struct req *r = &s->reqs[p->run[i]];

			if (r->decoding)
				kv_set(s, p, r, seq_bytes(s, p, r->kv_tokens + k * s->tps));
		}
	}
	p->steps = k;
	return t;
}

static int try_start(struct sim *s, int ri)
{
	struct rep *p = &s->reps[ri];
	struct srv_batch b;
	double t;

	if (p->busy || (p->run_n == 0 && p->wait_n == 0))
		return 0;
	compose(s, p, &b);
	if (b.prefill_tokens + b.decode_seqs <= 0) {
		if (p->run_n == 0 && p->wait_n > 0) {
			s->error = SC_ERANGE;   /* nothing admissible into an empty replica */
			return -1;
		}
		return 0;
	}
	p->steps = 1;
	t = iteration_time(s, p, &b);
	if (b.prefill_tokens == 0 && s->admitted_now == 0 && s->preempted_now == 0)
		t = fast_forward(s, p, &b, t);
	p->busy = true;
	p->iter_start = s->now;
	p->iters += p->steps;
	if (b.decode_seqs > 0) {
		p->decode_iters += p->steps;
		p->decode_seqs_sum += b.decode_seqs * p->steps;
	}
	return push(s, s->now + t, EV_ITER_END, ri);
}

static void little_track(struct sim *s)
{
	double a = s->little_last, b = s->now;

	if (a < s->little_t0)
		a = s->little_t0;
	if (b > s->little_t1)
		b = s->little_t1;
	if (b > a)
		s->little_area += s->in_system * (b - a);
	s->little_last = s->now;
}

static int route(struct sim *s, int first, int n, int kind)
{
	int best = first;

	if (s->sc->router == SRV_ROUTER_ROUND_ROBIN) {
		best = first + s->rr_next[kind] % n;
		s->rr_next[kind]++;
		return best;
	}
	for (int i = first + 1; i < first + n; i++)
		if (s->reps[i].outstanding < s->reps[best].outstanding)
			best = i;
	return best;
}

/* A client sends request id: route it to a replica (the prefill pool's
 * when disaggregated) and queue it at that replica's front end. */
static int arrive(struct sim *s, int id)
{
	struct req *r = &s->reqs[id];
	int ri = s->n_prefill > 0 ? route(s, s->first_prefill, s->n_prefill, 1)
				  : route(s, s->first_decode, s->n_decode, 0);
	struct rep *p = &s->reps[ri];
	double d = front_end_s(s->sc);

	little_track(s);
	s->in_system++;
	r->replica = ri;
	p->outstanding++;
	if (d <= 0)
		return enqueue(s, id);
	/* the serialized front-end work queues; the rest of its pipeline
	 * (serve_request_latency_s) only delays this request */
	return push(s, s->now + front_end_add(s, p, d, 0) + s->sc->calibration.serve_request_latency_s,
		    EV_ENQUEUE, id);
}

/* Request id leaves the engine at now; its client has its last token at
 * `delivered` (after the front end streams it). */
static int finish(struct sim *s, struct rep *p, int id, double delivered)
{
	struct req *r = &s->reqs[id];

	r->state = S_DONE;
	r->finish = delivered;
	kv_set(s, p, r, 0);
	p->outstanding--;   /* the caller drops it from p->run */
	return push(s, delivered, EV_DELIVER, id);
}

/* The client of request id has its last token. */
static int deliver(struct sim *s, int id)
{
	(void)id;
	little_track(s);
	s->in_system--;
	/* closed loop: the client sends its next request */
	if (s->sc->workload.arrival == SRV_ARRIVAL_CONCURRENCY && s->next_arrival < s->n_reqs) {
		int next = s->next_arrival++;
		s->reqs[next].arrival = s->now;
		return push(s, s->now, EV_ARRIVAL, next);
	}
	return 0;
}

/* Flags of a request in the iteration that just ended. */
enum { GOT_FIRST = 1, FINISHED = 2, TRANSFER = 4 };

static int iteration_end(struct sim *s, int ri)
{
	struct rep *p = &s->reps[ri];
	int *ids = s->scratch, *flag = s->scratch + s->n_reqs, n = p->run_n;
	double steps = p->steps, tokens = 0, delay = 0;

	touch(s, ri);
	p->busy = false;
	p->busy_time += s->now - p->iter_start;
	memcpy(ids, p->run, (size_t)n * sizeof(int));
	for (int i = 0; i < n; i++) {
		int id = ids[i];
		struct req *r = &s->reqs[id];

		flag[i] = 0;
		if (r->chunk > 0) {
			r->done += r->chunk;
			r->kv_tokens = r->done;
			r->chunk = 0;
			if (r->done >= r->prompt) {
				/* the pass over the last prompt token samples a token */
				r->generated += 1;
				tokens += 1;
				if (!r->seen_first) {
					r->seen_first = true;
					flag[i] |= GOT_FIRST;
				}
				if (r->generated >= r->out)
					flag[i] |= FINISHED;
				else if (p->role == ROLE_PREFILL)
					flag[i] |= TRANSFER;
			}
		} else if (r->decoding) {
			double before = r->generated;

			r->decoding = false;
			r->generated += steps * s->tps;
			r->kv_tokens += steps * s->tps;
			if (r->generated >= r->out - 1e-9) {
				r->generated = r->out;
				flag[i] |= FINISHED;
			}
			tokens += r->generated - before;
		}
	}
	/* the front end streams this iteration's tokens to the clients */
	if (s->sc->workload.front_end)
		delay = front_end_add(s, p, tokens * s->sc->calibration.serve_token_overhead_s, steps);
	for (int i = 0; i < n; i++) {
		int id = ids[i];
		struct req *r = &s->reqs[id];

		if (flag[i] & GOT_FIRST)
			r->first_token = s->now + delay;
		if (flag[i] & FINISHED) {
			if (finish(s, p, id, s->now + delay) < 0)
				return -1;
		} else if (flag[i] & TRANSFER) {
			double t0 = s->now > p->link_free ? s->now : p->link_free;
			double dt = srv_kv_transfer_time(p->model, &s->link, r->kv_tokens);

			s->xfer_bytes_sum += srv_kv_transfer_bytes(p->model, r->kv_tokens);
			s->xfer_count++;
			r->state = S_TRANSFER;
			r->transfer_start = s->now;
			p->link_free = t0 + dt;
			if (push(s, t0 + dt, EV_TRANSFER_END, id) < 0)
				return -1;
		}
	}
	/* drop the requests that finished or left for a decode pool, in one
	 * pass (removing each alone would cost O(batch) per request) */
	{
		int j = 0;

		for (int i = 0; i < p->run_n; i++)
			if (s->reqs[p->run[i]].state == S_RUNNING)
				p->run[j++] = p->run[i];
		p->run_n = j;
	}
	return 0;
}

static int transfer_end(struct sim *s, int id)
{
	struct req *r = &s->reqs[id];
	struct rep *from = &s->reps[r->replica];
	int ri = route(s, s->first_decode, s->n_decode, 0);
	struct rep *p = &s->reps[ri];

	kv_set(s, from, r, 0);
	touch(s, (int)(from - s->reps));
	from->outstanding--;
	r->transfer_end = s->now;
	r->state = S_WAITING;
	r->replica = ri;
	p->outstanding++;
	wait_push_back(s, p, id);
	return 0;
}

/* ---- workload ----------------------------------------------------------------------------- */

static int draw_length(struct srv_rng *g, const struct srv_length *l)
{
	double x, lo = l->min > 0 ? l->min : 1, hi = l->max > 0 ? l->max : 1e9;

	switch (l->dist) {
	case SRV_DIST_FIXED:
		x = l->mean;
		break;
	case SRV_DIST_UNIFORM:
		x = l->min + floor(srv_rng_uniform(g) * (l->max - l->min + 1));
		break;
	case SRV_DIST_NORMAL:
		x = l->mean + l->sd * srv_rng_normal(g);
		break;
	case SRV_DIST_LOGNORMAL: {
		/* the lognormal with this mean and standard deviation */
		double cv = l->sd / l->mean, s2 = log(1.0 + cv * cv);
		x = exp(log(l->mean) - 0.5 * s2 + sqrt(s2) * srv_rng_normal(g));
		break;
	}
	default:
		x = l->mean;
	}
	x = floor(x + 0.5);
	if (x < lo)
		x = lo;
	if (x > hi)
		x = hi;
	return (int)x;
}

static enum sc_status make_requests(struct sim *s, struct sc_error *err)
{
	const struct srv_workload *w = &s->sc->workload;
	struct srv_trace tr;
	struct srv_rng g;
	double t = 0;
	int n = w->requests;

	memset(&tr, 0, sizeof(tr));
	if (w->arrival == SRV_ARRIVAL_TRACE) {
		char path[SRV_PATH_MAX * 2];
		enum sc_status st;

		srv_trace_path(s->sc, path, sizeof(path));
		if ((st = srv_trace_load(path, &tr, err)) != SC_OK)
			return st;
		if (n <= 0 || n > tr.n)
			n = tr.n;
	}
	s->reqs = calloc((size_t)n, sizeof(*s->reqs));
	if (!s->reqs) {
		srv_trace_free(&tr);
		return sc_error_set(err, SC_ENOMEM, NULL, NULL, "out of memory");
	}
	s->n_reqs = n;
	srv_rng_seed(&g, (uint64_t)w->seed);
	for (int i = 0; i < n; i++) {
		struct req *r = &s->reqs[i];

		if (w->arrival == SRV_ARRIVAL_TRACE) {
			r->arrival = tr.reqs[i].arrival_s;
			r->in = tr.reqs[i].input_tokens;
			r->out = tr.reqs[i].output_tokens;
		} else {
			r->in = draw_length(&g, &w->input_tokens);
			r->out = draw_length(&g, &w->output_tokens);
			if (w->arrival == SRV_ARRIVAL_POISSON) {
				t += srv_rng_exp(&g, 1.0 / w->rate_rps);
				r->arrival = t;
			}
		}
		if (s->saturate)
			r->arrival = 0;
		r->prompt = r->in;
		r->admitted = -1;
		r->state = S_PENDING;
	}
	srv_trace_free(&tr);
	return SC_OK;
}

/* ---- statistics ---------------------------------------------------------------------------- */

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

/* Nearest-rank percentiles of v[0..n) (sorted in place). */
static void dist_stats(double *v, int n, struct srv_dist_stats *o)
{
	double sum = 0;

	memset(o, 0, sizeof(*o));
	if (n <= 0)
		return;
	qsort(v, (size_t)n, sizeof(double), cmp_double);
	for (int i = 0; i < n; i++)
		sum += v[i];
	o->count = n;
	o->mean = sum / n;
	o->p50 = v[(int)ceil(0.50 * n) - 1];
	o->p90 = v[(int)ceil(0.90 * n) - 1];
	o->p99 = v[(int)ceil(0.99 * n) - 1];
	o->max = v[n - 1];
}

static enum sc_status collect(struct sim *s, struct srv_result *o, struct sc_error *err)
{
	const struct srv_scenario *sc = s->sc;
	int n = s->n_reqs, w0 = sc->workload.warmup_requests, m = 0, nt = 0;
	double *ttft = malloc(sizeof(double) * (size_t)n), *tpot = malloc(sizeof(double) * (size_t)n);
	double *e2e = malloc(sizeof(double) * (size_t)n), *queue = malloc(sizeof(double) * (size_t)n);
	double *xfer = malloc(sizeof(double) * (size_t)n);
	double t_first = INFINITY, t_last = 0, out_sum = 0, in_sum = 0, itl_num = 0, itl_den = 0;
	double makespan = 0, pool = 0, kv_area = 0, busy = 0, dsum = 0;
	long long diters = 0;
	int nx = 0;

	if (!ttft || !tpot || !e2e || !queue || !xfer) {
		free(ttft); free(tpot); free(e2e); free(queue); free(xfer);
		return sc_error_set(err, SC_ENOMEM, NULL, NULL, "out of memory");
	}
	if (w0 >= n)
		w0 = 0;
	for (int i = 0; i < n; i++) {
		const struct req *r = &s->reqs[i];

		if (r->state == S_DONE) {
			o->completed++;
			if (r->finish > makespan)
				makespan = r->finish;
		}
		if (i < w0 || r->state != S_DONE)
			continue;
		m++;
		if (r->arrival < t_first)
			t_first = r->arrival;
		if (r->finish > t_last)
			t_last = r->finish;
		out_sum += r->generated;
		in_sum += r->in;
		ttft[m - 1] = r->first_token - r->arrival;
		e2e[m - 1] = r->finish - r->arrival;
		queue[m - 1] = r->admitted >= 0 ? r->admitted - r->arrival : 0;
		if (r->generated > 1) {
			/* vLLM's TPOT: decode time over the tokens after the first */
			tpot[nt++] = (r->finish - r->first_token) / (r->generated - 1);
			itl_num += r->finish - r->first_token;
			itl_den += r->generated - 1;
		}
		if (s->n_prefill > 0)
			xfer[nx++] = r->transfer_end - r->transfer_start;
	}
	o->requests = n;
	o->measured = m;
	o->makespan_s = makespan;
	if (sc->workload.arrival == SRV_ARRIVAL_BURST)
		t_first = 0;
	o->duration_s = m > 0 ? t_last - t_first : 0;
	if (o->duration_s > 0) {
		o->requests_per_s = m / o->duration_s;
		o->output_tokens_per_s = out_sum / o->duration_s;
		o->input_tokens_per_s = in_sum / o->duration_s;
	}
	/* Open loop: the rate in steady state is what completes (whenever it
	 * arrived) while requests keep arriving, from the first measured
	 * arrival to the last arrival; counting the measured requests to the
	 * last completion would fold the drain of the final backlog into the
	 * rate.  Closed loop and bursts: all measured work over its whole
	 * span, as the benchmarks report it. */
	if ((sc->workload.arrival == SRV_ARRIVAL_POISSON || sc->workload.arrival == SRV_ARRIVAL_TRACE) &&
	    m > 1 && s->reqs[n - 1].arrival > t_first) {
		double t1 = s->reqs[n - 1].arrival, cnt = 0, tok = 0, itok = 0;

		for (int i = 0; i < n; i++) {
			const struct req *r = &s->reqs[i];
			if (r->state == S_DONE && r->finish >= t_first && r->finish <= t1) {
				cnt += 1;
				tok += r->generated;
				itok += r->in;
			}
		}
		double otok = 0, oin = 0;

		o->duration_s = t1 - t_first;
		/* arrivals from the first measured one to the last, and the work
		 * they bring (what a stable deployment serves: all of it) */
		o->offered_rps = (n - (w0 < n ? w0 : 0) - 1) / o->duration_s;
		for (int i = w0 < n ? w0 : 0; i < n - 1; i++) {
			otok += s->reqs[i].generated;
			oin += s->reqs[i].in;
		}
		o->offered_output_tokens_per_s = otok / o->duration_s;
		o->offered_input_tokens_per_s = oin / o->duration_s;
		o->requests_per_s = cnt / o->duration_s;
		o->output_tokens_per_s = tok / o->duration_s;
		o->input_tokens_per_s = itok / o->duration_s;
	}
	o->gpus = srv_scenario_gpus(sc);
	o->output_tokens_per_s_per_gpu = o->output_tokens_per_s / o->gpus;
	o->mean_input_tokens = m ? in_sum / m : 0;
	o->mean_output_tokens = m ? out_sum / m : 0;
	dist_stats(ttft, m, &o->ttft_s);
	dist_stats(tpot, nt, &o->tpot_s);
	dist_stats(e2e, m, &o->e2e_s);
	dist_stats(queue, m, &o->queue_s);
	dist_stats(xfer, nx, &o->kv_transfer_s);
	o->itl_mean_s = itl_den > 0 ? itl_num / itl_den : 0;
	for (int i = 0; i < s->n_reps; i++) {
		struct rep *p = &s->reps[i];

		s->now = makespan;
		kv_track(p, makespan);
		pool += p->model->kv_pool_bytes;
		kv_area += p->kv_integral;
		busy += p->busy_time;
		dsum += p->decode_seqs_sum;
		diters += p->decode_iters;
		o->iterations += p->iters;
		if (p->kv_peak > o->kv_util_peak)
			o->kv_util_peak = p->kv_peak;
	}
	o->kv_util_mean = makespan > 0 && pool > 0 ? kv_area / (pool * makespan) : 0;
	o->busy_fraction = makespan > 0 ? busy / (s->n_reps * makespan) : 0;
	o->mean_decode_batch = diters > 0 ? dsum / diters : 0;
	o->preemptions = s->preemptions;
	o->kv_transfer_bytes_per_request = s->xfer_count ? s->xfer_bytes_sum / s->xfer_count : 0;
	if (s->little_t1 > s->little_t0) {
		double wsum = 0;
		int k = 0;

		for (int i = 0; i < n; i++) {
			const struct req *r = &s->reqs[i];
			if (r->arrival >= s->little_t0 && r->arrival <= s->little_t1 && r->state == S_DONE) {
				wsum += r->finish - r->arrival;
				k++;
			}
		}
		o->little_L = s->little_area / (s->little_t1 - s->little_t0);
		o->little_lambda = k / (s->little_t1 - s->little_t0);
		o->little_W = k ? wsum / k : 0;
	}
	free(ttft); free(tpot); free(e2e); free(queue); free(xfer);
	return SC_OK;
}

static void slo_and_cost(const struct srv_scenario *sc, struct srv_result *o)
{
	const struct srv_slo *l = &sc->slo;
	double tok = o->output_tokens_per_s, all = o->output_tokens_per_s + o->input_tokens_per_s;

	o->slo_given = l->ttft_p50_ms > 0 || l->ttft_p99_ms > 0 || l->tpot_p50_ms > 0 ||
		       l->tpot_p99_ms > 0;
	o->slo_met = (!(l->ttft_p50_ms > 0) || o->ttft_s.p50 * 1e3 <= l->ttft_p50_ms) &&
		     (!(l->ttft_p99_ms > 0) || o->ttft_s.p99 * 1e3 <= l->ttft_p99_ms) &&
		     (!(l->tpot_p50_ms > 0) || o->tpot_s.p50 * 1e3 <= l->tpot_p50_ms) &&
		     (!(l->tpot_p99_ms > 0) || o->tpot_s.p99 * 1e3 <= l->tpot_p99_ms) &&
		     o->completed == o->requests;
	o->nodes = srv_scenario_nodes(sc);
	/* on demand where sold, else capacity blocks in whole UltraServers
	 * (models/purchase.h) */
	o->usd_per_h = purchase_cluster_usd_per_h(&sc->instance, o->nodes,
						  purchase_default_pricing(&sc->instance));
	o->usd_per_m_output_tokens = tok > 0 ? o->usd_per_h / (tok * 3600.0) * 1e6 : 0;
	o->usd_per_m_total_tokens = all > 0 ? o->usd_per_h / (all * 3600.0) * 1e6 : 0;
	o->cost_known = tok > 0;
}

void srv_stability(const struct srv_scenario *sc, double sustainable_rps, struct srv_result *r)
{
	double life = r->e2e_s.mean;

	r->open_loop = sc->workload.arrival == SRV_ARRIVAL_POISSON ||
		       sc->workload.arrival == SRV_ARRIVAL_TRACE;
	r->sustainable_rps = sustainable_rps > 0 ? sustainable_rps : 0;
	r->steady_requests = 0;
	if (!r->open_loop) {
		r->stable = r->steady = true;
		r->cost_known = r->output_tokens_per_s > 0;
		return;
	}
	/* a window without arrivals (one request) or without completions is
	 * no measurement of a rate */
	/* a queue whose arrival rate equals its service rate grows without
	 * bound too (utilisation 1): strictly below */
	r->stable = !(sustainable_rps > 0) || r->offered_rps < sustainable_rps;
	r->steady = r->stable && r->duration_s > 0 && r->output_tokens_per_s > 0 &&
		    r->duration_s >= SRV_STEADY_LIFETIMES * life;
	if (r->stable && !r->steady && r->duration_s > 0 && life > 0) {
		/* the window grows with the arrivals after the warm-up */
		double w0 = sc->workload.warmup_requests < r->requests ? sc->workload.warmup_requests : 0;
		double need = w0 + (r->requests - w0) * 1.2 * SRV_STEADY_LIFETIMES * life / r->duration_s;

		r->steady_requests = need < 2e9 ? (int)ceil(need) : 2000000000;
	}
	if (sustainable_rps > 0 && r->stable && r->offered_rps > 0) {
		/* stable by the rate test: in steady state the deployment serves
		 * what arrives.  Counting completions inside the window instead
		 * misses the requests still in flight at its end that the warm-up
		 * did not balance at its start (about W / T of them) */
		double tok, all;

		r->requests_per_s = r->offered_rps;
		r->output_tokens_per_s = r->offered_output_tokens_per_s;
		r->input_tokens_per_s = r->offered_input_tokens_per_s;
		r->output_tokens_per_s_per_gpu = r->gpus > 0 ? r->output_tokens_per_s / r->gpus : 0;
		tok = r->output_tokens_per_s;
		all = tok + r->input_tokens_per_s;
		r->usd_per_m_output_tokens = tok > 0 ? r->usd_per_h / (tok * 3600.0) * 1e6 : 0;
		r->usd_per_m_total_tokens = all > 0 ? r->usd_per_h / (all * 3600.0) * 1e6 : 0;
	}
	if (sustainable_rps > 0 && !r->stable && r->requests_per_s > sustainable_rps) {
		/* above capacity the window's completions still include the
		 * queue the run started with; what the deployment delivers in
		 * the long run is its sustainable rate (the token rates with it,
		 * at the measured tokens per request) */
		double k = sustainable_rps / r->requests_per_s;

		r->requests_per_s = sustainable_rps;
		r->output_tokens_per_s *= k;
		r->input_tokens_per_s *= k;
		r->output_tokens_per_s_per_gpu = r->gpus > 0 ? r->output_tokens_per_s / r->gpus : 0;
	}
	r->cost_known = r->steady && r->output_tokens_per_s > 0;
	if (!r->cost_known)
		r->usd_per_m_output_tokens = r->usd_per_m_total_tokens = 0;
}

/* ---- driver ------------------------------------------------------------------------------------ */

static void sim_free(struct sim *s)
{
	if (s->reps)
		for (int i = 0; i < s->n_reps; i++) {
			free(s->reps[i].wait);
			free(s->reps[i].run);
		}
	free(s->reps);
	free(s->reqs);
	free(s->heap);
	free(s->models);
	free(s->scratch);
	free(s->dirty);
	free(s->is_dirty);
}

static enum sc_status setup(struct sim *s, struct srv_result *o, struct sc_error *err)
{
	const struct srv_scenario *sc = s->sc;
	bool dis = sc->disagg.prefill_replicas > 0;
	enum sc_status st;
	int max_tokens = 0;

	s->models = calloc(2, sizeof(*s->models));
	if (!s->models)
		return sc_error_set(err, SC_ENOMEM, NULL, NULL, "out of memory");
	if ((st = srv_replica_for(sc, dis ? &sc->disagg.decode : &sc->replica, &s->models[0], err)) != SC_OK) {
		if (dis && err)
			snprintf(err->pointer, sizeof(err->pointer), "/disaggregated/decode");
		return st;
	}
	srv_replica_summarize(&s->models[0], sc, &o->replica);
	if (dis) {
		struct cluster cl;

		if ((st = srv_replica_for(sc, &sc->disagg.prefill, &s->models[1], err)) != SC_OK) {
			if (err)
				snprintf(err->pointer, sizeof(err->pointer), "/disaggregated/prefill");
			return st;
		}
		srv_replica_summarize(&s->models[1], sc, &o->prefill);
		/* The two pools live in different instances unless an NVLink
		 * domain spans several instances (NVL72): the KV path is the
		 * tier between one GPU of each. */
		memset(&cl, 0, sizeof(cl));
		cl.instance = sc->instance;
		cl.gpu = sc->gpu;
		cl.fabric = sc->fabric;
		cl.nodes = 2;
		s->link = net_span_of(&cl, 2, sc->instance.gpus_per_node);
		o->kv_transfer_tier = net_tier_name(&s->link);
	}
	if ((st = make_requests(s, err)) != SC_OK)
		return st;
	s->n_prefill = dis ? sc->disagg.prefill_replicas : 0;
	s->n_decode = dis ? sc->disagg.decode_replicas : sc->replicas;
	s->first_prefill = 0;
	s->first_decode = s->n_prefill;
	s->n_reps = s->n_prefill + s->n_decode;
	if (!(s->scratch = malloc(2 * sizeof(int) * (size_t)s->n_reqs)))
		return sc_error_set(err, SC_ENOMEM, NULL, NULL, "out of memory");
	s->reps = calloc((size_t)s->n_reps, sizeof(*s->reps));
	s->dirty = calloc((size_t)s->n_reps, sizeof(*s->dirty));
	s->is_dirty = calloc((size_t)s->n_reps, sizeof(*s->is_dirty));
	if (!s->reps || !s->dirty || !s->is_dirty)
		return sc_error_set(err, SC_ENOMEM, NULL, NULL, "out of memory");
	for (int i = 0; i < s->n_reps; i++) {
		struct rep *p = &s->reps[i];

		p->role = !dis ? ROLE_UNIFIED : i < s->n_prefill ? ROLE_PREFILL : ROLE_DECODE;
		p->model = p->role == ROLE_PREFILL ? &s->models[1] : &s->models[0];
		srv_engine_pool_limits(&sc->engine,
				       !dis ? &sc->replica : p->role == ROLE_PREFILL ? &sc->disagg.prefill
											: &sc->disagg.decode,
				       &p->max_seqs, &p->max_tokens);
		p->wait = malloc(sizeof(int) * (size_t)s->n_reqs);
		p->run = malloc(sizeof(int) * (size_t)s->n_reqs);
		if (!p->wait || !p->run)
			return sc_error_set(err, SC_ENOMEM, NULL, NULL, "out of memory");
	}
	/* every request must fit in an empty replica's cache, or it would wait
	 * (or thrash) forever */
	for (int i = 0; i < s->n_reqs; i++)
		if (s->reqs[i].in + (int)s->reqs[i].out > max_tokens)
			max_tokens = s->reqs[i].in + (int)s->reqs[i].out;
	for (int k = 0; k < (dis ? 2 : 1); k++) {
		struct rep probe;

		memset(&probe, 0, sizeof(probe));
		probe.model = &s->models[k];
		if (seq_bytes(s, &probe, max_tokens) > s->models[k].kv_pool_bytes)
			return sc_error_set(err, SC_ERANGE, NULL, "/workload",
					    "a request of %d tokens (prompt and output) does not fit in one replica's KV cache (%.0f tokens of %s)",
					    max_tokens,
					    s->models[k].kv_pool_bytes /
					    (s->models[k].kv_bytes_per_token_full + s->models[k].kv_bytes_per_token_window),
					    sc->arch.m.name);
	}
	s->tps = srv_tokens_per_step(&sc->speculative);
	s->q = 1.0 + (sc->speculative.draft_tokens > 0 ? sc->speculative.draft_tokens : 0);
	if (sc->workload.arrival == SRV_ARRIVAL_CONCURRENCY) {
		int c = sc->workload.concurrency < s->n_reqs ? sc->workload.concurrency : s->n_reqs;
		for (int i = 0; i < c; i++)
			if (push(s, 0, EV_ARRIVAL, i) < 0)
				return sc_error_set(err, SC_ENOMEM, NULL, NULL, "out of memory");
		s->next_arrival = c;
	} else {
		for (int i = 0; i < s->n_reqs; i++)
			if (push(s, s->reqs[i].arrival, EV_ARRIVAL, i) < 0)
				return sc_error_set(err, SC_ENOMEM, NULL, NULL, "out of memory");
	}
	return SC_OK;
}

/* The completion rate of a saturated run between its first and last
 * SRV_CAPACITY_TRIM fraction of completions (s->reqs, all done). */
static double trimmed_rate(const struct sim *s)
{
	double *t = malloc(sizeof(double) * (size_t)(s->n_reqs > 0 ? s->n_reqs : 1)), rate = 0;
	int n = 0, k0, k1;

	if (!t)
		return 0;
	for (int i = 0; i < s->n_reqs; i++)
		if (s->reqs[i].state == S_DONE)
			t[n++] = s->reqs[i].finish;
	if (n > 0) {
		qsort(t, (size_t)n, sizeof(double), cmp_double);
		k0 = (int)floor(SRV_CAPACITY_TRIM * n);
		k1 = (int)ceil((1 - SRV_CAPACITY_TRIM) * n) - 1;
		if (k1 > k0 && t[k1] > t[k0])
			rate = (k1 - k0) / (t[k1] - t[k0]);
		else if (t[n - 1] > 0)
			rate = n / t[n - 1];
	}
	free(t);
	return rate;
}

static enum sc_status simulate(const struct srv_scenario *sc, bool saturate, double *cap_rps,
			       struct srv_result *out, struct sc_error *err)
{
	struct sim s;
	enum sc_status st;

	memset(out, 0, sizeof(*out));
	memset(&s, 0, sizeof(s));
	sc_error_clear(err);
	s.sc = sc;
	s.saturate = saturate;
	out->disaggregated = sc->disagg.prefill_replicas > 0;
	out->kv_transfer_tier = "";
	if ((st = setup(&s, out, err)) != SC_OK) {
		sim_free(&s);
		return st;
	}
	/* Little's law window: the arrivals after the warm-up (open loop) */
	if (sc->workload.arrival != SRV_ARRIVAL_CONCURRENCY && s.n_reqs > 1) {
		int w0 = sc->workload.warmup_requests < s.n_reqs ? sc->workload.warmup_requests : 0;

		/* a request is in the system from when its client sends it
		 * (front-end queue included) until its last token */
		s.little_t0 = s.reqs[w0].arrival;
		s.little_t1 = s.reqs[s.n_reqs - 1].arrival;
	}
	while (s.heap_n > 0) {
		struct ev e = pop(&s);
		int rc = 0;

		s.now = e.t;
		switch (e.type) {
		case EV_ARRIVAL: rc = arrive(&s, e.id); break;
		case EV_ENQUEUE: rc = enqueue(&s, e.id); break;
		case EV_ITER_END: rc = iteration_end(&s, e.id); break;
		case EV_TRANSFER_END: rc = transfer_end(&s, e.id); break;
		case EV_DELIVER: rc = deliver(&s, e.id); break;
		}
		/* every event of this instant first (a burst arrives together),
		 * then idle replicas with work start an iteration */
		if (rc == 0 && (s.heap_n == 0 || s.heap[0].t > s.now)) {
			/* in replica order, as a loop over all of them would */
			qsort(s.dirty, (size_t)s.n_dirty, sizeof(int), cmp_int);
			for (int i = 0; i < s.n_dirty && rc == 0; i++)
				rc = try_start(&s, s.dirty[i]);
			for (int i = 0; i < s.n_dirty; i++)
				s.is_dirty[s.dirty[i]] = false;
			s.n_dirty = 0;
		}
		if (rc < 0) {
			st = s.error == SC_ERANGE
			     ? sc_error_set(err, SC_ERANGE, NULL, "/engine",
					    "a waiting request cannot be admitted into an empty replica (token budget or KV cache too small)")
			     : sc_error_set(err, SC_ENOMEM, NULL, NULL, "out of memory");
			sim_free(&s);
			return st;
		}
	}
	st = collect(&s, out, err);
	if (st == SC_OK) {
		slo_and_cost(sc, out);
		srv_stability(sc, 0, out);
		if (cap_rps)
			*cap_rps = trimmed_rate(&s);
	}
	sim_free(&s);
	return st;
}

enum sc_status srv_simulate(const struct srv_scenario *sc, struct srv_result *out,
			    struct sc_error *err)
{
	return simulate(sc, false, NULL, out, err);
}

enum sc_status srv_capacity(const struct srv_scenario *sc, double *rps, struct sc_error *err)
{
	struct srv_scenario *c = malloc(sizeof(*c));
	struct srv_result *r = malloc(sizeof(*r));
	struct srv_replica *rep = malloc(sizeof(*rep));
	bool dis = sc->disagg.prefill_replicas > 0;
	enum sc_status st;
	double batch, per, want, one = 0;

	*rps = 0;
	if (!c || !r || !rep) {
		free(c); free(r); free(rep);
		return sc_error_set(err, SC_ENOMEM, NULL, NULL, "out of memory");
	}
	*c = *sc;
	c->slo.ttft_p50_ms = c->slo.ttft_p99_ms = c->slo.tpot_p50_ms = c->slo.tpot_p99_ms = 0;
	c->workload.warmup_requests = 0;
	if (c->workload.arrival != SRV_ARRIVAL_TRACE) {
		c->workload.arrival = SRV_ARRIVAL_BURST;
		c->workload.rate_rps = 0;
		c->workload.concurrency = 0;
	}
	if (!dis)
		c->replicas = 1;
	/* enough requests for SRV_CAPACITY_WAVES full batches: max_num_seqs,
	 * or what the KV cache holds of mean-length requests */
	if ((st = srv_replica_for(c, dis ? &c->disagg.decode : &c->replica, rep, err)) != SC_OK)
		goto out;
	per = rep->kv_bytes_per_token_full + rep->kv_bytes_per_token_window;
	{
		int seqs, tokens;
		srv_engine_pool_limits(&c->engine, dis ? &c->disagg.decode : &c->replica, &seqs, &tokens);
		batch = seqs;
	}
	if (per > 0) {
		double len = mean_length(&c->workload.input_tokens) + mean_length(&c->workload.output_tokens);
		double fit = rep->kv_pool_bytes / (per * (len > 1 ? len : 1));
		if (fit < batch)
			batch = fit > 1 ? fit : 1;
	}
	want = SRV_CAPACITY_WAVES * batch * (dis ? c->disagg.decode_replicas : 1);
	if (c->workload.arrival != SRV_ARRIVAL_TRACE) {
		/* the scenario's request count for its length sample, up to
		 * SRV_CAPACITY_MAX_SAMPLE (a rate needs no million requests) */
		double n = c->workload.requests < SRV_CAPACITY_MAX_SAMPLE ? c->workload.requests
									   : SRV_CAPACITY_MAX_SAMPLE;
		if (want > n)
			n = want;
		c->workload.requests = n < SC_MAX_REQUESTS ? (int)ceil(n) : SC_MAX_REQUESTS;
	}
	if ((st = simulate(c, true, &one, r, err)) != SC_OK)
		goto out;
	*rps = dis ? one : one * sc->replicas;
out:
	free(c); free(r); free(rep);
	return st;
}

enum sc_status srv_simulate_checked(const struct srv_scenario *sc, struct srv_result *out,
				    struct sc_error *err)
{
	double cap = 0;
	enum sc_status st;
	bool open = sc->workload.arrival == SRV_ARRIVAL_POISSON || sc->workload.arrival == SRV_ARRIVAL_TRACE;

	if (open && (st = srv_capacity(sc, &cap, err)) != SC_OK)
		return st;
	if ((st = srv_simulate(sc, out, err)) != SC_OK)
		return st;
	srv_stability(sc, cap, out);
	return SC_OK;
}
