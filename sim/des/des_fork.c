/* des_fork.c: run functions in forked children with a time limit (see
 * des_internal.h).
 *
 * Why fork: SimGrid's engine is a per-process singleton (no reset, no second
 * platform, the network model frozen once loaded), and many of its errors
 * abort() the process.  Each simulation therefore runs in a child of its
 * own (9-24 ms to fork, measured in ../shared/research/simgrid-feasibility.md);
 * the parent never touches SimGrid, collects what the child writes to a
 * pipe, and reads the child's stderr into a buffer (SimGrid's last words
 * before an abort become the error message; nothing reaches the user's
 * terminal).  Several children run at once, one per CPU by default.
 *
 * Exit protocol of a child: 0 and the answer on the pipe; or
 * DES_CHILD_EXIT_BASE + an enum sc_status and a one-line message on its
 * stderr; anything else (a signal, another code) is reported as a crash.
 */
#define _DEFAULT_SOURCE /* wait4 */
#include "des_internal.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/time.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define ERR_TAIL 1024

static double mono_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec * 1e-9;
}

int des_write_all(int fd, const void *buf, size_t len)
{
	const unsigned char *p = buf;

	while (len > 0) {
		ssize_t n = write(fd, p, len);

		if (n < 0) {
			if (errno == EINTR)
				continue;
			return -1;
		}
		p += n;
		len -= (size_t)n;
	}
	return 0;
}

struct child {
	pid_t pid;
	int fd_data, fd_err;
	double start_s, deadline_s;
	bool killed;
	unsigned char *data;
	size_t len, cap;
	char err[ERR_TAIL];
	size_t err_len;
};

/* Read what is there; returns false at end of file. */
static bool drain_data(struct child *c)
{
	for (;;) {
		ssize_t n;

		if (c->cap - c->len < 65536) {
			size_t cap = c->cap ? 2 * c->cap : 1 << 20;
			unsigned char *nd = realloc(c->data, cap);

			if (!nd)
				return false;
			c->data = nd;
			c->cap = cap;
		}
		n = read(c->fd_data, c->data + c->len, c->cap - c->len);
		if (n > 0) {
			c->len += (size_t)n;
			continue;
		}
		if (n < 0 && (errno == EINTR))
			continue;
		if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
			return true;
		return false;
	}
}

/* Keep the last ERR_TAIL bytes of the child's stderr. */
static bool drain_err(struct child *c)
{
	char buf[4096];

	for (;;) {
		ssize_t n = read(c->fd_err, buf, sizeof(buf));

		if (n > 0) {
			size_t k = (size_t)n;

			if (k >= ERR_TAIL - 1) {
				memcpy(c->err, buf + k - (ERR_TAIL - 1), ERR_TAIL - 1);
				c->err_len = ERR_TAIL - 1;
			} else {
				if (c->err_len + k > ERR_TAIL - 1) {
					size_t drop = c->err_len + k - (ERR_TAIL - 1);

					memmove(c->err, c->err + drop, c->err_len - drop);
					c->err_len -= drop;
				}
				memcpy(c->err + c->err_len, buf, k);
				c->err_len += k;
			}
			continue;
		}
		if (n < 0 && errno == EINTR)
			continue;
		return n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK);
	}
}

/* The last non-empty line of the child's stderr, for a message. */
static const char *last_line(struct child *c)
{
	size_t end = c->err_len;

	c->err[end] = '\0';
	while (end > 0 && (c->err[end - 1] == '\n' || c->err[end - 1] == '\r' || c->err[end - 1] == ' '))
		c->err[--end] = '\0';
	while (end > 0 && c->err[end - 1] != '\n')
		end--;
	return c->err + end;
}

static void child_main(const struct des_child_fn *fn, int fd_data, int fd_err, double limit_s)
{
	int rc;

	/* the child's output goes to the parent's buffer, never to the
	 * terminal; past the limit (and a margin for the parent to act
	 * first) the child dies on its own even if the parent is gone */
	dup2(fd_err, STDERR_FILENO);
	dup2(fd_err, STDOUT_FILENO);
	signal(SIGPIPE, SIG_DFL);
	if (limit_s > 0 && limit_s < 1e6)
		alarm((unsigned)ceil(limit_s) + 10);
	rc = fn->run(fn->arg, fd_data);
	fflush(stdout);
	fflush(stderr);
	_exit(rc);
}

static void set_nonblock(int fd)
{
	int fl = fcntl(fd, F_GETFL);

	if (fl >= 0)
		fcntl(fd, F_SETFL, fl | O_NONBLOCK);
}

static bool start(const struct des_child_fn *fn, double limit_s, struct child *c, char *msg,
		  size_t msglen)
{
	int pd[2], pe[2];

	memset(c, 0, sizeof(*c));
	c->pid = -1;
	if (pipe(pd) != 0) {
		snprintf(msg, msglen, "des: cannot create a pipe: %s", strerror(errno));
		return false;
	}
	if (pipe(pe) != 0) {
		snprintf(msg, msglen, "des: cannot create a pipe: %s", strerror(errno));
		close(pd[0]);
		close(pd[1]);
		return false;
	}
	fflush(stdout);
	fflush(stderr);
	c->pid = fork();
	if (c->pid < 0) {
		snprintf(msg, msglen, "des: cannot fork a simulation process: %s", strerror(errno));
		close(pd[0]);
		close(pd[1]);
		close(pe[0]);
		close(pe[1]);
		return false;
	}
	if (c->pid == 0) {
		close(pd[0]);
		close(pe[0]);
		child_main(fn, pd[1], pe[1], limit_s);
	}
	close(pd[1]);
	close(pe[1]);
	c->fd_data = pd[0];
	c->fd_err = pe[0];
	set_nonblock(c->fd_data);
	set_nonblock(c->fd_err);
	c->start_s = mono_s();
	c->deadline_s = limit_s > 0 ? c->start_s + limit_s : INFINITY;
	return true;
}

static void finish(struct child *c, double limit_s, struct des_child_out *o)
{
	int st = 0;
	struct rusage ru;
	pid_t w;

	memset(&ru, 0, sizeof(ru));
	do
		w = wait4(c->pid, &st, 0, &ru);
	while (w < 0 && errno == EINTR);
	o->wall_s = mono_s() - c->start_s;
	o->maxrss_bytes = ru.ru_maxrss * 1024.0;
	o->cpu_s = ru.ru_utime.tv_sec + ru.ru_utime.tv_usec * 1e-6 + ru.ru_stime.tv_sec +
		   ru.ru_stime.tv_usec * 1e-6;
	o->data = c->data;
	o->len = c->len;
	c->data = NULL;
	o->status = SC_OK;
	if (c->killed) {
		o->status = SC_EINTERNAL;
		snprintf(o->message, sizeof(o->message),
			 "des: the simulation did not finish within its time limit of %g s "
			 "(a smaller --fidelity budget makes it faster)", limit_s);
	} else if (w < 0) {
		o->status = SC_EINTERNAL;
		snprintf(o->message, sizeof(o->message), "des: lost the simulation process: %s",
			 strerror(errno));
	} else if (WIFSIGNALED(st)) {
		const char *tail = last_line(c);

		o->status = SC_EINTERNAL;
		snprintf(o->message, sizeof(o->message), "des: the simulation crashed (signal %d, %s)%s%s",
			 WTERMSIG(st), strsignal(WTERMSIG(st)), tail[0] ? ": " : "", tail);
	} else if (WIFEXITED(st) && WEXITSTATUS(st) != 0) {
		int code = WEXITSTATUS(st);
		const char *tail = last_line(c);

		if (code > DES_CHILD_EXIT_BASE && code <= DES_CHILD_EXIT_BASE + SC_EINTERNAL) {
			o->status = (enum sc_status)(code - DES_CHILD_EXIT_BASE);
			snprintf(o->message, sizeof(o->message), "%s", tail[0] ? tail : "des: the simulation failed");
		} else {
			o->status = SC_EINTERNAL;
			snprintf(o->message, sizeof(o->message), "des: the simulation exited with code %d%s%s",
				 code, tail[0] ? ": " : "", tail);
		}
	}
	if (c->fd_data >= 0)
		close(c->fd_data);
	if (c->fd_err >= 0)
		close(c->fd_err);
}

enum sc_status des_fork_run(const struct des_child_fn *fns, int n, int jobs,
			    double time_limit_s, struct des_child_out *out)
{
	struct child *c;
	struct pollfd *pfd;
	int next = 0, active = 0, done = 0;
	enum sc_status first = SC_OK;

	if (n <= 0)
		return SC_OK;
	if (jobs <= 0) {
		long cpus = sysconf(_SC_NPROCESSORS_ONLN);

		jobs = cpus > 0 ? (int)cpus : 1;
	}
	if (jobs > 64)
		jobs = 64; /* the poll set below */
	c = calloc((size_t)n, sizeof(*c));
	pfd = calloc((size_t)2 * n, sizeof(*pfd));
	memset(out, 0, (size_t)n * sizeof(*out));
	if (!c || !pfd) {
		free(c);
		free(pfd);
		for (int i = 0; i < n; i++) {
			out[i].status = SC_ENOMEM;
			snprintf(out[i].message, sizeof(out[i].message), "des: out of memory");
		}
		return SC_ENOMEM;
	}
	for (int i = 0; i < n; i++)
		c[i].pid = -1;
	while (done < n) {
		int np = 0, idx[2 * 64 + 2];
		double now, wait_s = 1.0;

		while (next < n && active < jobs) {
			if (!start(&fns[next], time_limit_s, &c[next], out[next].message,
				   sizeof(out[next].message))) {
				out[next].status = SC_EINTERNAL;
				c[next].pid = -2;
				done++;
			} else {
				active++;
			}
			next++;
		}
		if (active == 0)
			continue;
		for (int i = 0; i < n && np < 2 * 64; i++) {
			if (c[i].pid <= 0)
				continue;
			if (c[i].fd_data >= 0) {
				pfd[np].fd = c[i].fd_data;
				pfd[np].events = POLLIN;
				idx[np++] = i;
			}
			if (c[i].fd_err >= 0) {
				pfd[np].fd = c[i].fd_err;
				pfd[np].events = POLLIN;
				idx[np++] = -1 - i;
			}
		}
		now = mono_s();
		for (int i = 0; i < n; i++)
			if (c[i].pid > 0 && !c[i].killed && c[i].deadline_s - now < wait_s)
				wait_s = c[i].deadline_s - now;
		if (wait_s < 0)
			wait_s = 0;
		if (poll(pfd, (nfds_t)np, (int)(wait_s * 1000) + 1) < 0 && errno != EINTR) {
			/* cannot wait for the children any more: stop them and
			 * report each as failed (finish() reaps them) */
			for (int i = 0; i < n; i++) {
				if (c[i].pid <= 0)
					continue;
				kill(c[i].pid, SIGKILL);
				c[i].killed = true;
				finish(&c[i], time_limit_s, &out[i]);
				c[i].pid = 0;
			}
			for (int i = next; i < n; i++) {
				out[i].status = SC_EINTERNAL;
				snprintf(out[i].message, sizeof(out[i].message), "des: poll failed: %s",
					 strerror(errno));
			}
			break;
		}
		for (int k = 0; k < np; k++) {
			int i = idx[k] >= 0 ? idx[k] : -1 - idx[k];

			if (!(pfd[k].revents & (POLLIN | POLLHUP | POLLERR)))
				continue;
			if (idx[k] >= 0) {
				if (!drain_data(&c[i])) {
					close(c[i].fd_data);
					c[i].fd_data = -1;
				}
			} else if (!drain_err(&c[i])) {
				close(c[i].fd_err);
				c[i].fd_err = -1;
			}
		}
		now = mono_s();
		for (int i = 0; i < n; i++) {
			if (c[i].pid <= 0)
				continue;
			if (!c[i].killed && now > c[i].deadline_s) {
				kill(c[i].pid, SIGKILL);
				c[i].killed = true;
			}
			if (c[i].fd_data < 0 && c[i].fd_err < 0) {
				finish(&c[i], time_limit_s, &out[i]);
				c[i].pid = 0;
				active--;
				done++;
			}
		}
	}
	for (int i = 0; i < n; i++) {
		free(c[i].data);
		if (out[i].status != SC_OK && first == SC_OK)
			first = out[i].status;
	}
	free(c);
	free(pfd);
	return first;
}

void des_child_out_free(struct des_child_out *o)
{
	free(o->data);
	o->data = NULL;
	o->len = 0;
}
