/* des_probe.c: explicit collectives and flows on a simulated fabric (see
 * des_internal.h): the DES's platform, SimGrid settings and collective
 * routine (des_ring_member) without a training step around them, for
 * contention cases whose answer can be computed by hand (tests/des) and
 * for experiments.  Runs in a forked child like the step engine.
 */
#include "des_internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <simgrid/actor.h>
#include <simgrid/comm.h>
#include <simgrid/engine.h>
#include <simgrid/host.h>
#include <simgrid/mailbox.h>

struct probe_sim;

/* One member of one collective, or one flow. */
struct probe_actor {
	struct probe_sim *ps;
	int coll, member, flow;
	sg_mailbox_t out[2], in[2];
	double end_s;
	bool done;
};

struct probe_sim {
	const struct des_probe *pr;
	struct probe_actor *a;
	int n_a;
	bool mismatch;
};

static void member_actor(int argc, char **argv)
{
	struct probe_actor *a = sg_actor_self_get_data();
	const struct des_probe_coll *c = &a->ps->pr->coll[a->coll];

	(void)argc;
	(void)argv;
	if (c->start_s > 0)
		sg_actor_sleep_until(c->start_s);
	if (!des_ring_member(&c->fl, c->steps > 0 ? c->steps : 1, a->out, a->in, a->coll))
		a->ps->mismatch = true;
	a->end_s = simgrid_get_clock();
	a->done = true;
}

static int token;

static void flow_sender(int argc, char **argv)
{
	struct probe_actor *a = sg_actor_self_get_data();
	const struct des_probe_flow *f = &a->ps->pr->flow[a->flow];

	(void)argc;
	(void)argv;
	if (f->start_s > 0)
		sg_actor_sleep_until(f->start_s);
	sg_mailbox_put(a->out[0], &token, (long)f->bytes);
	a->end_s = simgrid_get_clock();
	a->done = true;
}

static void flow_receiver(int argc, char **argv)
{
	struct probe_actor *a = sg_actor_self_get_data();

	(void)argc;
	(void)argv;
	sg_mailbox_get(a->in[0]);
	a->done = true;
}

static int cmp_int(const void *x, const void *y)
{
	int a = *(const int *)x, b = *(const int *)y;

	return (a > b) - (a < b);
}

static int host_index(const int *gpus, int n, int g)
{
	const int *p = bsearch(&g, gpus, (size_t)n, sizeof(int), cmp_int);

	return p ? (int)(p - gpus) : -1;
}

static void start(struct probe_actor *a, sg_host_t h, void (*fn)(int, char **))
{
	sg_actor_t act = sg_actor_init("probe", h);

	sg_actor_set_data(act, a);
	sg_actor_start_(act, fn, 0, NULL);
}

/* In the child: simulate, then write coll_end and flow_end to fd. */
static int probe_child(void *arg, int fd)
{
	const struct des_probe *pr = arg;
	struct probe_sim ps;
	struct des_platform_spec spec;
	int *gpus, n = 0, na = 0;
	void **hosts, *storage[16];
	char errbuf[256], name[48];
	double *out;

	memset(&ps, 0, sizeof(ps));
	ps.pr = pr;
	for (int i = 0; i < pr->n_coll; i++)
		na += pr->coll[i].n;
	gpus = calloc((size_t)na + 2 * (size_t)pr->n_flow + 1, sizeof(int));
	hosts = calloc((size_t)na + 2 * (size_t)pr->n_flow + 1, sizeof(void *));
	ps.a = calloc((size_t)na + 2 * (size_t)pr->n_flow + 1, sizeof(*ps.a));
	out = calloc((size_t)pr->n_coll + pr->n_flow + 1, sizeof(double));
	if (!gpus || !hosts || !ps.a || !out || pr->n_storage > 16) {
		fprintf(stderr, "\ndes: out of memory\n");
		return DES_CHILD_EXIT_BASE + SC_ENOMEM;
	}
	for (int i = 0; i < pr->n_coll; i++)
		for (int k = 0; k < pr->coll[i].n; k++)
			gpus[n++] = pr->coll[i].gpus[k];
	for (int i = 0; i < pr->n_flow; i++) {
		if (pr->flow[i].src >= 0)
			gpus[n++] = pr->flow[i].src;
		if (pr->flow[i].dst >= 0)
			gpus[n++] = pr->flow[i].dst;
	}
	qsort(gpus, (size_t)n, sizeof(int), cmp_int);
	{
		int u = 0;

		for (int i = 0; i < n; i++)
			if (u == 0 || gpus[i] != gpus[u - 1])
				gpus[u++] = gpus[i];
		n = u;
	}
	des_sim_init(na + 2 * pr->n_flow);
	des_platform_spec_of(&pr->topo, 1, 1e15, gpus, n, &spec);
	spec.n_storage = pr->n_storage;
	spec.storage_Bps = pr->storage_Bps;
	if (des_platform_build(&spec, hosts, storage, errbuf, sizeof(errbuf)) != 0) {
		fprintf(stderr, "\n%s\n", errbuf);
		return DES_CHILD_EXIT_BASE + SC_EINVAL;
	}
	/* collectives: every member's inboxes first, then its successors' */
	for (int i = 0; i < pr->n_coll; i++) {
		const struct des_probe_coll *c = &pr->coll[i];
		struct probe_actor *m = &ps.a[ps.n_a];

		for (int k = 0; k < c->n; k++) {
			m[k].ps = &ps;
			m[k].coll = i;
			m[k].member = k;
			m[k].flow = -1;
			for (int t = 0; t < 2; t++) {
				snprintf(name, sizeof(name), "c%d-%d-%d", i, k, t);
				m[k].in[t] = sg_mailbox_by_name(name);
			}
		}
		for (int k = 0; k < c->n; k++) {
			int rpd = c->rpd > 0 && c->rpd <= c->n ? c->rpd : 1;
			int base = (k / rpd) * rpd, nv = base + (k % rpd + 1) % rpd, efa = (k + rpd) % c->n;

			m[k].out[0] = rpd > 1 ? m[nv].in[0] : NULL;
			m[k].out[1] = c->n > rpd ? m[efa].in[1] : NULL;
			start(&m[k], hosts[host_index(gpus, n, c->gpus[k])], member_actor);
		}
		ps.n_a += c->n;
	}
	for (int i = 0; i < pr->n_flow; i++) {
		const struct des_probe_flow *f = &pr->flow[i];
		struct probe_actor *snd = &ps.a[ps.n_a], *rcv = &ps.a[ps.n_a + 1];
		sg_host_t dst = f->dst >= 0 ? hosts[host_index(gpus, n, f->dst)] : storage[-1 - f->dst];
		sg_host_t src = f->src >= 0 ? hosts[host_index(gpus, n, f->src)] : storage[-1 - f->src];

		snprintf(name, sizeof(name), "flow%d", i);
		snd->ps = rcv->ps = &ps;
		snd->flow = rcv->flow = i;
		snd->coll = rcv->coll = -1;
		snd->out[0] = rcv->in[0] = sg_mailbox_by_name(name);
		start(rcv, dst, flow_receiver);
		start(snd, src, flow_sender);
		ps.n_a += 2;
	}
	simgrid_run();
	for (int i = 0; i < ps.n_a; i++)
		if (!ps.a[i].done) {
			fprintf(stderr, "\ndes: the probe deadlocked\n");
			return DES_CHILD_EXIT_BASE + SC_EINTERNAL;
		}
	if (ps.mismatch) {
		fprintf(stderr, "\ndes: collective messages crossed (internal error)\n");
		return DES_CHILD_EXIT_BASE + SC_EINTERNAL;
	}
	for (int i = 0, k = 0; i < pr->n_coll; i++)
		for (int m = 0; m < pr->coll[i].n; m++, k++)
			if (ps.a[k].end_s > out[i])
				out[i] = ps.a[k].end_s;
	for (int i = 0, k = 0; i < ps.n_a; i++)
		if (ps.a[i].flow >= 0 && ps.a[i].out[0] && !ps.a[i].in[0])
			out[pr->n_coll + k++] = ps.a[i].end_s;
	if (des_write_all(fd, out, ((size_t)pr->n_coll + pr->n_flow) * sizeof(double)) != 0)
		return DES_CHILD_EXIT_BASE + SC_EINTERNAL;
	return 0;
}

enum sc_status des_probe_run(const struct des_probe *pr, double *coll_end, double *flow_end,
			     struct sc_error *err)
{
	struct des_child_fn fn = { probe_child, (void *)pr };
	struct des_child_out o;
	size_t want = ((size_t)pr->n_coll + pr->n_flow) * sizeof(double);

	sc_error_clear(err);
	if (des_fork_run(&fn, 1, 1, DES_DEFAULT_TIME_LIMIT_S, &o) != SC_OK) {
		sc_error_set(err, o.status, NULL, NULL, "%s", o.message);
		des_child_out_free(&o);
		return err->status;
	}
	if (o.len != want) {
		des_child_out_free(&o);
		return sc_error_set(err, SC_EINTERNAL, NULL, NULL, "des: the probe sent a malformed result");
	}
	memcpy(coll_end, o.data, (size_t)pr->n_coll * sizeof(double));
	memcpy(flow_end, o.data + (size_t)pr->n_coll * sizeof(double), (size_t)pr->n_flow * sizeof(double));
	des_child_out_free(&o);
	return SC_OK;
}
