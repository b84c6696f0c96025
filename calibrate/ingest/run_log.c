/* run_log.c: Megatron-LM iteration lines and NCCL Inspector Prometheus
 * dumps (see run_log.h). */
#include "run_log.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define LINE_MAX_BYTES 65536

void run_log_free(struct run_log *r)
{
	free(r->iters);
	memset(r, 0, sizeof(*r));
}

static enum sc_status line_error(struct sc_error *err, const char *path, long line, const char *msg)
{
	char where[32];

	snprintf(where, sizeof(where), "line %ld", line);
	return sc_error_set(err, SC_EINVAL, path, where, "%s", msg);
}

/* A positive finite number at s (strtod syntax); false otherwise. */
static bool number_at(const char *s, double *out, const char **end)
{
	char *e;
	double v;

	errno = 0;
	v = strtod(s, &e);
	if (e == s || errno == ERANGE || !isfinite(v) || !(v > 0))
		return false;
	*out = v;
	if (end)
		*end = e;
	return true;
}

/* Read path line by line into fn; long lines and I/O errors are errors. */
typedef enum sc_status (*line_fn)(const char *line, long no, const char *path, struct run_log *r,
				  struct sc_error *err);

static enum sc_status each_line(const char *path, line_fn fn, struct run_log *r, struct sc_error *err)
{
	FILE *f = fopen(path, "r");
	char *buf;
	long no = 0;
	enum sc_status st = SC_OK;

	if (!f)
		return sc_error_set(err, SC_EIO, path, NULL, "cannot read: %s", strerror(errno));
	if (!(buf = malloc(LINE_MAX_BYTES + 2))) {
		fclose(f);
		return sc_error_set(err, SC_ENOMEM, path, NULL, "out of memory");
	}
	while (st == SC_OK && fgets(buf, LINE_MAX_BYTES + 2, f)) {
		size_t len = strlen(buf);

		no++;
		if (len > LINE_MAX_BYTES && buf[len - 1] != '\n') {
			st = line_error(err, path, no, "line longer than 64 KiB");
			break;
		}
		if (memchr(buf, '\0', len) != NULL && strlen(buf) != len) {
			st = line_error(err, path, no, "NUL byte in a text log");
			break;
		}
		st = fn(buf, no, path, r, err);
	}
	if (st == SC_OK && ferror(f))
		st = sc_error_set(err, SC_EIO, path, NULL, "read error");
	free(buf);
	fclose(f);
	return st;
}

static enum sc_status megatron_line(const char *line, long no, const char *path, struct run_log *r,
				    struct sc_error *err)
{
	const char *it = strstr(line, " iteration "), *el, *tp;
	struct run_iter x = { 0, 0, 0 };
	char *end;
	double ms;

	if (!it || !(el = strstr(line, "elapsed time per iteration (ms):")))
		return SC_OK;
	errno = 0;
	x.iteration = strtol(it + 11, &end, 10);
	if (end == it + 11 || errno || x.iteration < 0)
		return line_error(err, path, no, "an iteration line without an iteration number");
	if (!number_at(el + strlen("elapsed time per iteration (ms):"), &ms, NULL))
		return line_error(err, path, no, "elapsed time per iteration is not a positive number");
	x.step_s = ms / 1000.0;
	if ((tp = strstr(line, "throughput per GPU (TFLOP/s/GPU):")) &&
	    !number_at(tp + strlen("throughput per GPU (TFLOP/s/GPU):"), &x.tflops_per_gpu, NULL))
		return line_error(err, path, no, "throughput per GPU is not a positive number");
	if (r->n_iters >= RUN_LOG_MAX_ITERS)
		return line_error(err, path, no, "more than 1,000,000 iteration lines");
	if (r->n_iters % 1024 == 0) {
		struct run_iter *p = realloc(r->iters, (size_t)(r->n_iters + 1024) * sizeof(*p));

		if (!p)
			return sc_error_set(err, SC_ENOMEM, path, NULL, "out of memory");
		r->iters = p;
	}
	r->iters[r->n_iters++] = x;
	return SC_OK;
}

enum sc_status run_log_read_megatron(const char *path, struct run_log *r, struct sc_error *err)
{
	int before = r->n_iters;
	enum sc_status st = each_line(path, megatron_line, r, err);

	if (st == SC_OK && r->n_iters == before)
		return sc_error_set(err, SC_EINVAL, path, NULL,
				    "no Megatron-LM iteration lines (\"iteration N/M | ... elapsed time per "
				    "iteration (ms): T |\")");
	return st;
}

/* The value of label key in a {k="v",...} set, into out. */
static bool label(const char *labels, const char *key, char *out, size_t n)
{
	char pat[48];
	const char *p, *q;

	snprintf(pat, sizeof(pat), "%s=\"", key);
	for (p = strstr(labels, pat); p; p = strstr(p + 1, pat))
		if (p == labels || p[-1] == '{' || p[-1] == ',')
			break;
	if (!p)
		return false;
	p += strlen(pat);
	if (!(q = strchr(p, '"')) || (size_t)(q - p) >= n)
		return false;
	snprintf(out, n, "%.*s", (int)(q - p), p);
	return true;
}

static enum sc_status prom_line(const char *line, long no, const char *path, struct run_log *r,
				struct sc_error *err)
{
	bool p2p = strncmp(line, "nccl_p2p_bus_bandwidth_gbs{", 27) == 0;
	const char *close;
	char coll[32], nr[16];
	double v;
	char *end;
	long ranks;
	struct run_coll *c = NULL;

	if (!p2p && strncmp(line, "nccl_bus_bandwidth_gbs{", 23) != 0)
		return SC_OK;
	if (!(close = strchr(line, '}')))
		return line_error(err, path, no, "unterminated label set");
	if (!label(line, p2p ? "p2p_operation" : "collective", coll, sizeof(coll)) ||
	    (!label(line, "nranks", nr, sizeof(nr)) && !label(line, "n_ranks", nr, sizeof(nr))))
		return line_error(err, path, no, p2p ? "no p2p_operation or nranks label"
						     : "no collective or nranks label");
	ranks = strtol(nr, &end, 10);
	if (*end || ranks < 1 || ranks > 1 << 24)
		return line_error(err, path, no, "nranks is not a rank count");
	if (!number_at(close + 1, &v, NULL))
		return line_error(err, path, no, "the bus bandwidth is not a positive number");
	for (int i = 0; i < r->n_colls; i++)
		if (r->colls[i].p2p == p2p && r->colls[i].nranks == ranks && strcmp(r->colls[i].collective, coll) == 0)
			c = &r->colls[i];
	if (!c) {
		if (r->n_colls >= RUN_LOG_MAX_COLLS)
			return line_error(err, path, no, "more than 64 kinds of collective");
		c = &r->colls[r->n_colls++];
		memset(c, 0, sizeof(*c));
		snprintf(c->collective, sizeof(c->collective), "%s", coll);
		c->nranks = (int)ranks;
		c->p2p = p2p;
		c->busbw_min_GBps = v;
	}
	c->n++;
	c->busbw_sum_GBps += v;
	if (v < c->busbw_min_GBps)
		c->busbw_min_GBps = v;
	return SC_OK;
}

enum sc_status run_log_read_nccl_prom(const char *path, struct run_log *r, struct sc_error *err)
{
	int before = 0;
	enum sc_status st;

	for (int i = 0; i < r->n_colls; i++)
		before += r->colls[i].n;
	st = each_line(path, prom_line, r, err);
	if (st == SC_OK) {
		int after = 0;

		for (int i = 0; i < r->n_colls; i++)
			after += r->colls[i].n;
		if (after == before)
			return sc_error_set(err, SC_EINVAL, path, NULL,
					    "no nccl_bus_bandwidth_gbs or nccl_p2p_bus_bandwidth_gbs samples");
	}
	return st;
}
