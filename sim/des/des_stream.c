/* des_stream.c: traffic that is not a training step (struct des_stream in
 * des.h: a serving deployment's KV-cache transfers) as SimGrid actors
 * beside the training jobs (runs in the simulation child).
 *
 * One sender actor per source GPU sends its flows in order, each no
 * sooner than issued and after the previous one arrived (a prefill
 * replica's KV sender moves one request at a time, sim/serve); one
 * receiver actor per destination GPU is the permanent receiver of its
 * mailbox, so that transfers from several sources to one GPU flow at once
 * and share its links as SimGrid's max-min model says.  Latencies are
 * slept by the sender (links have none), as everywhere in the engine. */
#include "des_internal.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <simgrid/actor.h>
#include <simgrid/engine.h>
#include <simgrid/mailbox.h>

struct ss_end {
	struct des_streams_run *run;
	int gpu;                  /* folded GPU index */
	int n;                    /* flows it sends or receives */
	int *flows;               /* sender: kept-flow indices in order */
	char box[24];
};

struct des_streams_run {
	int n_streams, fold;
	int n_kept;
	const struct des_flow **kept;  /* [n_kept] */
	int *stream_of;                /* [n_kept] */
	double *t_start, *t_end;       /* [n_kept] */
	struct ss_end *src, *dst;
	int n_src, n_dst;
	int actors, done;
	bool bad;
};

static int folded(int g, int fold)
{
	return g - g % fold;
}

static int cmp_int(const void *a, const void *b)
{
	int x = *(const int *)a, y = *(const int *)b;

	return (x > y) - (x < y);
}

static bool kept(const struct des_flow *f, int fold)
{
	return f->src % fold == 0 && f->dst % fold == 0 && f->src != f->dst && f->bytes > 0;
}

int des_streams_gpus(const struct des_stream *st, int n, int fold, int *gpus)
{
	int k = 0, u = 0;

	for (int i = 0; i < n; i++)
		for (int j = 0; j < st[i].n_flows; j++)
			if (kept(&st[i].flows[j], fold)) {
				if (gpus) {
					gpus[k] = folded(st[i].flows[j].src, fold);
					gpus[k + 1] = folded(st[i].flows[j].dst, fold);
				}
				k += 2;
			}
	if (!gpus)
		return k;
	qsort(gpus, (size_t)k, sizeof(int), cmp_int);
	for (int i = 0; i < k; i++)
		if (u == 0 || gpus[i] != gpus[u - 1])
			gpus[u++] = gpus[i];
	return u;
}

static int find_end(const struct ss_end *e, int n, int gpu)
{
	int lo = 0, hi = n - 1;

	while (lo <= hi) {
		int mid = (lo + hi) / 2;

		if (e[mid].gpu == gpu)
			return mid;
		if (e[mid].gpu < gpu)
			lo = mid + 1;
		else
			hi = mid - 1;
	}
	return -1;
}

static void sender(int argc, char **argv)
{
	struct ss_end *e = sg_actor_self_get_data();
	struct des_streams_run *run = e->run;

	(void)argc;
	(void)argv;
	for (int i = 0; i < e->n; i++) {
		int k = e->flows[i];
		const struct des_flow *f = run->kept[k];
		int d = find_end(run->dst, run->n_dst, folded(f->dst, run->fold));

		if (simgrid_get_clock() < f->t_s)
			sg_actor_sleep_until(f->t_s);
		run->t_start[k] = simgrid_get_clock();
		if (f->latency_s > 0)
			sg_actor_sleep_for(f->latency_s);
		sg_mailbox_put(sg_mailbox_by_name(run->dst[d].box), (void *)(intptr_t)(k + 1), (long)f->bytes);
		run->t_end[k] = simgrid_get_clock();
	}
	run->done++;
}

static void receiver(int argc, char **argv)
{
	struct ss_end *e = sg_actor_self_get_data();

	(void)argc;
	(void)argv;
	sg_mailbox_set_receiver(e->box);
	for (int i = 0; i < e->n; i++)
		if (!sg_mailbox_get(sg_mailbox_by_name(e->box)))
			e->run->bad = true;
	e->run->done++;
}

static sg_host_t host_of(int gpu, const int *gpus, void *const *hosts, int n)
{
	int lo = 0, hi = n - 1;

	while (lo <= hi) {
		int mid = (lo + hi) / 2;

		if (gpus[mid] == gpu)
			return hosts[mid];
		if (gpus[mid] < gpu)
			lo = mid + 1;
		else
			hi = mid - 1;
	}
	return NULL;
}

static void spawn_end(struct ss_end *e, const char *what, void (*fn)(int, char **), sg_host_t h)
{
	char name[32];
	sg_actor_t a;

	snprintf(name, sizeof(name), "%s%d", what, e->gpu);
	a = sg_actor_init(name, h);
	sg_actor_set_data(a, e);
	sg_actor_start_(a, fn, 0, NULL);
	e->run->actors++;
}

void des_streams_free(struct des_streams_run *run)
{
	if (!run)
		return;
	for (int i = 0; run->src && i < run->n_src; i++)
		free(run->src[i].flows);
	free(run->src);
	free(run->dst);
	free(run->kept);
	free(run->stream_of);
	free(run->t_start);
	free(run->t_end);
	free(run);
}

enum sc_status des_streams_start(const struct des_stream *st, int n, int fold, const int *gpus,
				 void *const *hosts, int n_hosts, struct des_streams_run **out,
				 struct sc_error *err)
{
	struct des_streams_run *run = calloc(1, sizeof(*run));
	int *u = NULL, nu;

	*out = NULL;
	if (!run)
		goto oom;
	run->n_streams = n;
	run->fold = fold;
	for (int i = 0; i < n; i++)
		for (int j = 0; j < st[i].n_flows; j++)
			run->n_kept += kept(&st[i].flows[j], fold);
	run->kept = calloc((size_t)run->n_kept + 1, sizeof(*run->kept));
	run->stream_of = calloc((size_t)run->n_kept + 1, sizeof(int));
	run->t_start = calloc((size_t)run->n_kept + 1, sizeof(double));
	run->t_end = calloc((size_t)run->n_kept + 1, sizeof(double));
	nu = des_streams_gpus(st, n, fold, NULL);
	u = calloc((size_t)nu + 1, sizeof(int));
	run->src = calloc((size_t)nu + 1, sizeof(*run->src));
	run->dst = calloc((size_t)nu + 1, sizeof(*run->dst));
	if (!run->kept || !run->stream_of || !run->t_start || !run->t_end || !u || !run->src || !run->dst)
		goto oom;
	nu = des_streams_gpus(st, n, fold, u);
	for (int i = 0, k = 0; i < n; i++)
		for (int j = 0; j < st[i].n_flows; j++)
			if (kept(&st[i].flows[j], fold)) {
				run->kept[k] = &st[i].flows[j];
				run->stream_of[k++] = i;
			}
	/* the ends: every GPU a kept flow leaves (enters), in GPU order */
	for (int g = 0; g < nu; g++) {
		int ns = 0, nd = 0;

		for (int k = 0; k < run->n_kept; k++) {
			ns += folded(run->kept[k]->src, fold) == u[g];
			nd += folded(run->kept[k]->dst, fold) == u[g];
		}
		if (ns > 0) {
			struct ss_end *e = &run->src[run->n_src++];

			e->run = run;
			e->gpu = u[g];
			e->flows = calloc((size_t)ns, sizeof(int));
			if (!e->flows)
				goto oom;
			for (int k = 0; k < run->n_kept; k++)
				if (folded(run->kept[k]->src, fold) == u[g])
					e->flows[e->n++] = k;
		}
		if (nd > 0) {
			struct ss_end *e = &run->dst[run->n_dst++];

			e->run = run;
			e->gpu = u[g];
			e->n = nd;
			snprintf(e->box, sizeof(e->box), "stream%d", u[g]);
		}
	}
	/* receivers first: they must hold their mailboxes before a send */
	for (int i = 0; i < run->n_dst; i++) {
		sg_host_t h = host_of(run->dst[i].gpu, gpus, hosts, n_hosts);

		if (!h)
			goto nohost;
		spawn_end(&run->dst[i], "sr", receiver, h);
	}
	for (int i = 0; i < run->n_src; i++) {
		sg_host_t h = host_of(run->src[i].gpu, gpus, hosts, n_hosts);

		if (!h)
			goto nohost;
		spawn_end(&run->src[i], "ss", sender, h);
	}
	free(u);
	*out = run;
	return SC_OK;
nohost:
	free(u);
	des_streams_free(run);
	return sc_error_set(err, SC_EINTERNAL, NULL, NULL, "des: a stream's GPU has no host on the platform");
oom:
	free(u);
	des_streams_free(run);
	return sc_error_set(err, SC_ENOMEM, NULL, NULL, "des: out of memory");
}

enum sc_status des_streams_finish(const struct des_streams_run *run, struct des_stream_result *out,
				  struct sc_error *err)
{
	for (int i = 0; i < run->n_streams; i++)
		memset(&out[i], 0, sizeof(out[i]));
	if (run->bad || run->done != run->actors)
		return sc_error_set(err, SC_EINVAL, NULL, NULL,
				    "des: the streams deadlocked (%d of %d actors finished; internal error)",
				    run->done, run->actors);
	for (int k = 0; k < run->n_kept; k++) {
		struct des_stream_result *o = &out[run->stream_of[k]];
		double d = run->t_end[k] - run->t_start[k];

		o->flows++;
		o->mean_s += d;
		o->mean_wait_s += run->t_start[k] - run->kept[k]->t_s;
		if (d > o->max_s)
			o->max_s = d;
		if (run->t_end[k] > o->end_s)
			o->end_s = run->t_end[k];
		o->bytes += run->kept[k]->bytes;
	}
	for (int i = 0; i < run->n_streams; i++)
		if (out[i].flows > 0) {
			out[i].mean_s /= out[i].flows;
			out[i].mean_wait_s /= out[i].flows;
		}
	return SC_OK;
}
