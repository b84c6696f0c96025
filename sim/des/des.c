/* des.c: des_predict() and friends (see des.h): build each scenario's
 * program in this process (cheap, pure C: bad or unsupported input is
 * reported before any child starts), simulate each in a forked child
 * (des_fork.c), and read the child's result back from its pipe.
 *
 * Wire format of a child's answer: struct wire_head, the struct des_result
 * (its events pointer meaningless), then n_events struct des_event.  Parent
 * and child are one binary, forked, so the layouts and the static strings
 * the result points to are the same on both sides.
 */
#include "des_internal.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "../../models/units.h"

#define WIRE_MAGIC 0x53434445u /* "SCDE" */

struct wire_head {
	unsigned magic;
	unsigned result_size;
	unsigned event_size;
	long long n_events;
};

struct child_arg {
	const struct des_program *prog;
	const struct des_options *opt;
};

/* In the child: simulate and write the answer; on failure print the
 * message on stderr (the parent's buffer) and exit with its status. */
static int child_run(void *argp, int fd)
{
	const struct child_arg *a = argp;
	struct des_result r;
	struct sc_error err;
	struct wire_head h;
	enum sc_status rc;

	sc_error_clear(&err);
	rc = des_engine_run(a->prog, a->opt, &r, &err);
	if (rc != SC_OK) {
		fprintf(stderr, "\n%s\n", err.message[0] ? err.message : sc_status_str(rc));
		return DES_CHILD_EXIT_BASE + (int)rc;
	}
	h.magic = WIRE_MAGIC;
	h.result_size = sizeof(r);
	h.event_size = sizeof(struct des_event);
	h.n_events = r.n_events;
	if (des_write_all(fd, &h, sizeof(h)) != 0 || des_write_all(fd, &r, sizeof(r)) != 0 ||
	    (r.n_events > 0 &&
	     des_write_all(fd, r.events, (size_t)r.n_events * sizeof(struct des_event)) != 0)) {
		fprintf(stderr, "\ndes: could not send the result to the parent process\n");
		return DES_CHILD_EXIT_BASE + SC_EINTERNAL;
	}
	return 0;
}

static enum sc_status parse_answer(const struct des_child_out *o, const struct des_program *prog,
				   struct des_result *out, struct sc_error *err)
{
	struct wire_head h;
	size_t need;

	if (o->len < sizeof(h))
		goto bad;
	memcpy(&h, o->data, sizeof(h));
	if (h.magic != WIRE_MAGIC || h.result_size != sizeof(*out) ||
	    h.event_size != sizeof(struct des_event) || h.n_events < 0)
		goto bad;
	need = sizeof(h) + sizeof(*out) + (size_t)h.n_events * sizeof(struct des_event);
	if (o->len != need)
		goto bad;
	memcpy(out, o->data + sizeof(h), sizeof(*out));
	out->events = NULL;
	out->n_events = 0;
	if (h.n_events > 0) {
		out->events = malloc((size_t)h.n_events * sizeof(struct des_event));
		if (!out->events)
			return sc_error_set(err, SC_ENOMEM, NULL, NULL, "des: out of memory for the timeline");
		memcpy(out->events, o->data + sizeof(h) + sizeof(*out),
		       (size_t)h.n_events * sizeof(struct des_event));
		out->n_events = h.n_events;
	}
	out->stats.wall_s = o->wall_s;
	out->stats.child_maxrss_bytes = o->maxrss_bytes;
	out->stats.child_cpu_s = o->cpu_s;
	out->stats.estimate = prog->est;
	return SC_OK;
bad:
	return sc_error_set(err, SC_EINTERNAL, NULL, NULL,
			    "des: the simulation process sent a malformed result (%zu bytes)", o->len);
}

enum sc_status des_predict_many(const struct scenario *const *sc, int n,
				const struct des_options *opt, int jobs,
				struct des_result *out, enum sc_status *status,
				struct sc_error *errs)
{
	struct des_options def;
	struct des_program *prog = calloc((size_t)(n > 0 ? n : 1), sizeof(*prog));
	struct child_arg *args = calloc((size_t)(n > 0 ? n : 1), sizeof(*args));
	struct des_child_fn *fns = calloc((size_t)(n > 0 ? n : 1), sizeof(*fns));
	struct des_child_out *co = calloc((size_t)(n > 0 ? n : 1), sizeof(*co));
	int *map = calloc((size_t)(n > 0 ? n : 1), sizeof(int));
	int nrun = 0;
	enum sc_status first = SC_OK;

	if (!opt) {
		memset(&def, 0, sizeof(def));
		opt = &def;
	}
	for (int i = 0; i < n; i++) {
		memset(&out[i], 0, sizeof(out[i]));
		sc_error_clear(&errs[i]);
		status[i] = SC_OK;
	}
	if (!prog || !args || !fns || !co || !map) {
		for (int i = 0; i < n; i++)
			status[i] = sc_error_set(&errs[i], SC_ENOMEM, NULL, NULL, "des: out of memory");
		first = n > 0 ? SC_ENOMEM : SC_OK;
		goto out;
	}
	for (int i = 0; i < n; i++) {
		status[i] = des_program_build(sc[i], opt, &prog[i], &errs[i]);
		if (status[i] == SC_OK)
			status[i] = des_estimate_check(&prog[i].est, opt, &errs[i]);
		if (status[i] != SC_OK)
			continue;
		args[nrun].prog = &prog[i];
		args[nrun].opt = opt;
		fns[nrun].run = child_run;
		fns[nrun].arg = &args[nrun];
		map[nrun++] = i;
	}
	des_fork_run(fns, nrun, jobs,
		     opt->time_limit_s > 0 ? opt->time_limit_s : DES_DEFAULT_TIME_LIMIT_S, co);
	for (int k = 0; k < nrun; k++) {
		int i = map[k];

		if (co[k].status != SC_OK)
			status[i] = sc_error_set(&errs[i], co[k].status, NULL, NULL, "%s", co[k].message);
		else
			status[i] = parse_answer(&co[k], &prog[i], &out[i], &errs[i]);
		des_child_out_free(&co[k]);
	}
	for (int i = 0; i < n; i++) {
		des_program_free(&prog[i]);
		if (status[i] != SC_OK && first == SC_OK)
			first = status[i];
	}
out:
	free(prog);
	free(args);
	free(fns);
	free(co);
	free(map);
	return first;
}

enum sc_status des_estimate(const struct scenario *sc, const struct des_options *opt,
			    struct des_estimate *est, struct sc_error *err)
{
	struct des_program p;
	enum sc_status rc = des_program_build(sc, opt, &p, err);

	memset(est, 0, sizeof(*est));
	if (rc != SC_OK)
		return rc;
	*est = p.est;
	des_program_free(&p);
	return SC_OK;
}

static double budget_of(double given, double def)
{
	return given > 0 ? given : def;
}

enum sc_status des_estimate_check(const struct des_estimate *est, const struct des_options *opt,
				  struct sc_error *err)
{
	static const struct des_options none;
	double max_flows, max_mem, max_ev;

	if (!opt)
		opt = &none;
	max_flows = budget_of(opt->max_flows, DES_DEFAULT_MAX_FLOWS);
	max_mem = budget_of(opt->max_memory_bytes, DES_DEFAULT_MAX_MEMORY_BYTES);
	max_ev = budget_of(opt->max_events, DES_DEFAULT_MAX_EVENTS);
	if (est->memory_bytes > max_mem)
		return sc_error_set(err, SC_EUNSUPPORTED, NULL, NULL,
				    "des: simulating %d GPUs (%d actors, %lld routes) needs about %.2f GiB, more than the budget of %.2f GiB; raise it with --max-memory %.0fGiB, or use the analytical engine",
				    est->simulated_gpus, est->actors, est->routes,
				    est->memory_bytes / SC_GiB_BYTES, max_mem / SC_GiB_BYTES,
				    ceil(est->memory_bytes / SC_GiB_BYTES));
	if ((double)est->flows > max_flows)
		return sc_error_set(err, SC_EUNSUPPORTED, NULL, NULL,
				    "des: the step needs about %lld flows after coarsening (%lld of them pipeline, CP and EP flows, one per block), more than the budget of %.0f; raise it with --max-flows %lld, or use the analytical engine",
				    est->flows, est->flows_fixed, max_flows, est->flows);
	if (opt->trace && (double)est->events > max_ev)
		return sc_error_set(err, SC_EUNSUPPORTED, NULL, NULL,
				    "des: the timeline would hold up to %lld slices (about %.0f MB of trace JSON), more than the budget of %.0f; raise it with --max-events %lld, or leave out --trace",
				    est->events, est->events * 110e-6, max_ev, est->events);
	return SC_OK;
}

enum sc_status des_predict(const struct scenario *sc, const struct des_options *opt,
			   struct des_result *out, struct sc_error *err)
{
	enum sc_status st;

	return des_predict_many(&sc, 1, opt, 1, out, &st, err);
}

void des_result_free(struct des_result *r)
{
	free(r->events);
	r->events = NULL;
	r->n_events = 0;
}

const char *des_ev_kind_name(enum des_ev_kind k)
{
	switch (k) {
	case DES_EV_FORWARD: return "forward";
	case DES_EV_BACKWARD: return "backward";
	case DES_EV_BUBBLE: return "bubble";
	case DES_EV_PP_WAIT: return "pp wait";
	case DES_EV_CP: return "cp exposed";
	case DES_EV_EP: return "ep exposed";
	case DES_EV_DP_WAIT: return "dp wait";
	case DES_EV_FSDP: return "fsdp exposed";
	case DES_EV_OPTIMIZER: return "optimizer";
	case DES_EV_OVERHEAD: return "step overhead";
	case DES_EV_INTERFERENCE: return "dp interference";
	case DES_EV_DP_JOB: return "dp collective";
	case DES_EV_PP_SEND: return "pp send";
	case DES_EV_FLOWS: return "cp/ep flows";
	case DES_EV_COUNT: break;
	}
	return "unknown";
}

/* ---- jobs sharing one fabric ------------------------------------------------------ */

struct together_arg {
	const struct des_program *const *progs;
	int n;
	const struct net_topo *fabric;
	const struct des_options *opt;
	const struct des_stream *streams;
	int n_streams;
};

/* In the child: the jobs together; n struct des_result (no timelines). */
static int together_run(void *argp, int fd)
{
	const struct together_arg *a = argp;
	struct des_result *r = calloc((size_t)(a->n > 0 ? a->n : 1), sizeof(*r));
	struct des_stream_result *sr = calloc((size_t)(a->n_streams > 0 ? a->n_streams : 1), sizeof(*sr));
	struct sc_error err;
	enum sc_status rc;
	unsigned magic = WIRE_MAGIC;

	if (!r || !sr) {
		fprintf(stderr, "\ndes: out of memory\n");
		return DES_CHILD_EXIT_BASE + SC_ENOMEM;
	}
	sc_error_clear(&err);
	rc = des_engine_run_shared(a->progs, a->n, a->streams, a->n_streams, a->fabric, a->opt, r, sr, &err);
	if (rc != SC_OK) {
		fprintf(stderr, "\n%s\n", err.message[0] ? err.message : sc_status_str(rc));
		return DES_CHILD_EXIT_BASE + (int)rc;
	}
	if (des_write_all(fd, &magic, sizeof(magic)) != 0 ||
	    des_write_all(fd, r, (size_t)a->n * sizeof(*r)) != 0 ||
	    des_write_all(fd, sr, (size_t)a->n_streams * sizeof(*sr)) != 0) {
		fprintf(stderr, "\ndes: could not send the result to the parent process\n");
		return DES_CHILD_EXIT_BASE + SC_EINTERNAL;
	}
	return 0;
}

enum sc_status des_predict_together(const struct scenario *const *sc, int n, const struct cluster *fabric,
				    const struct des_options *opt, struct des_result *out, struct sc_error *err)
{
	return des_predict_shared(sc, n, NULL, 0, fabric, opt, out, NULL, err);
}

enum sc_status des_predict_shared(const struct scenario *const *sc, int n, const struct des_stream *streams,
				  int n_streams, const struct cluster *fabric, const struct des_options *opt,
				  struct des_result *out, struct des_stream_result *stream_out,
				  struct sc_error *err)
{
	struct des_options o;
	struct des_program *prog = calloc((size_t)(n > 0 ? n : 1), sizeof(*prog));
	const struct des_program **pp = calloc((size_t)(n > 0 ? n : 1), sizeof(*pp));
	struct des_estimate sum;
	struct net_topo topo;
	struct together_arg arg;
	struct des_child_fn fn;
	struct des_child_out co;
	enum sc_status rc = SC_OK;
	int built = 0;
	bool refold = false;

	memset(&o, 0, sizeof(o));
	if (opt)
		o = *opt;
	o.trace = false;
	/* a stream's flows are not symmetric over a TP group's GPUs: with
	 * streams nothing folds (a folded GPU would carry its replicas' flows
	 * on its own NIC) */
	if (n_streams > 0)
		o.no_fold = true;
	if (!prog || !pp) {
		rc = sc_error_set(err, SC_ENOMEM, NULL, NULL, "des: out of memory");
		goto out;
	}
	for (int pass = 0; pass < 2; pass++) {
		/* one folding for all: a folded GPU stands for tp GPUs on every
		 * shared uplink, so the jobs must agree (else none folds) */
		for (; built < n; built++) {
			struct des_options ok = o;

			ok.checkpoint_step = o.checkpoint_step || (built < 32 && (o.checkpoint_jobs >> built & 1u));
			rc = des_program_build(sc[built], &ok, &prog[built], err);
			if (rc != SC_OK)
				goto out;
			pp[built] = &prog[built];
			refold |= prog[built].fold != prog[0].fold;
		}
		if (!refold || o.no_fold)
			break;
		for (int k = 0; k < built; k++)
			des_program_free(&prog[k]);
		built = 0;
		o.no_fold = true;
	}
	memset(&sum, 0, sizeof(sum));
	for (int k = 0; k < n; k++) {
		sum.simulated_gpus += prog[k].est.simulated_gpus;
		sum.actors += prog[k].est.actors;
		sum.routes += prog[k].est.routes;
		sum.flows += prog[k].est.flows;
		sum.flows_fixed += prog[k].est.flows_fixed;
		sum.memory_bytes += prog[k].est.memory_bytes;
	}
	/* the streams' flows count against the same flow budget */
	for (int i = 0; i < n_streams; i++)
		sum.flows += streams[i].n_flows;
	if ((rc = des_estimate_check(&sum, &o, err)) != SC_OK)
		goto out;
	net_topo_of(fabric, &topo);
	arg.progs = pp;
	arg.n = n;
	arg.fabric = &topo;
	arg.opt = &o;
	arg.streams = streams;
	arg.n_streams = n_streams;
	fn.run = together_run;
	fn.arg = &arg;
	memset(&co, 0, sizeof(co));
	rc = des_fork_run(&fn, 1, 1, o.time_limit_s > 0 ? o.time_limit_s : DES_DEFAULT_TIME_LIMIT_S, &co);
	if (rc != SC_OK || co.status != SC_OK) {
		rc = sc_error_set(err, co.status != SC_OK ? co.status : rc, NULL, NULL, "%s", co.message);
	} else if (co.len != sizeof(unsigned) + (size_t)n * sizeof(*out) + (size_t)n_streams * sizeof(*stream_out)) {
		rc = sc_error_set(err, SC_EINTERNAL, NULL, NULL,
				  "des: the simulation process sent a malformed result (%zu bytes)", co.len);
	} else {
		if (n > 0)
			memcpy(out, co.data + sizeof(unsigned), (size_t)n * sizeof(*out));
		if (n_streams > 0)
			memcpy(stream_out, co.data + sizeof(unsigned) + (size_t)n * sizeof(*out),
			       (size_t)n_streams * sizeof(*stream_out));
		for (int k = 0; k < n; k++) {
			out[k].events = NULL;
			out[k].n_events = 0;
			out[k].stats.wall_s = co.wall_s;
			out[k].stats.child_maxrss_bytes = co.maxrss_bytes;
			out[k].stats.child_cpu_s = co.cpu_s;
			out[k].stats.estimate = prog[k].est;
		}
	}
	des_child_out_free(&co);
out:
	for (int k = 0; k < built; k++)
		des_program_free(&prog[k]);
	free(prog);
	free(pp);
	return rc;
}
