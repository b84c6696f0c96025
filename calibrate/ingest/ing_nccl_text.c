/* ing_nccl_text.c: nccl-tests text logs (see ingest.h).
 *
 * The format is what NVIDIA/nccl-tests prints (src/util.cu:
 * writeDeviceReport, writeResultHeader, writeBenchmarkLinePreamble/Body,
 * writeResultFooter): a run starts with "# nccl-tests version ...",
 * "# Collective test starting: all_reduce_perf" (from 2.15 or so; older
 * versions print neither), "# nThread 1 nGpus 8 minBytes 8 maxBytes ...",
 * one "#  Rank ..." line per rank, then a two-line column header and one row
 * per size, then "# Out of bounds values : 0 OK" and "# Avg bus bandwidth :
 * X".  Columns are located by the header's names, so per-iteration columns
 * (i_min ...), a timestamp or a tool's extra columns (rccl-tests' algorithm,
 * protocol, channels) after them do not disturb the parse.
 *
 * Line by line, no allocation but the rows appended to the curve being
 * built; every line is bounded (longer lines are an error) so a binary file
 * or a fuzzer cannot make it quadratic.
 */
#include "ingest.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define LINE_MAX_BYTES 8192
#define MAX_TOKENS 64
#define MAX_HOSTS 4096

/* Column positions of a table, from its header. -1: absent. */
struct nt_layout {
	int n_cols;                 /* header tokens */
	int size, count, type, redop, root;
	int time[2], algbw[2], busbw[2], wrong[2];
};

struct parser {
	const char *name;
	const struct cal_ingest_opts *opts;
	struct cal_measurements *out;
	struct sc_error *err;
	int line;

	/* the current run (from the version/starting line or the first Rank line) */
	char op[32];              /* from "Collective test starting" or a "*_perf" mention */
	char nccl[32];
	int nthread, ngpus;       /* from the nThread line (0: not seen) */
	double max_bytes;         /* maxBytes of the nThread line (0: not seen) */
	double step_factor;       /* "step: 2(factor)": sizes multiply (0: unknown) */
	double step_bytes;        /* "step: 1048576(bytes)": sizes add (0: unknown) */
	int n_rank_lines;
	int max_rank;             /* highest rank number + 1 */
	char gpu[CAL_STR_MAX];
	int n_hosts;
	unsigned long host_hash[MAX_HOSTS];
	bool ranks_closed;        /* a table followed the Rank lines */

	/* the current table */
	bool in_table;
	int table_line;
	struct nt_layout lay;
	struct cal_curve cur;
	bool footer_seen;
};

static enum sc_status fail(struct parser *p, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static enum sc_status fail(struct parser *p, const char *fmt, ...)
{
	char where[32], msg[SC_ERROR_MSG_MAX];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	snprintf(where, sizeof(where), "line %d", p->line);
	return sc_error_set(p->err, SC_EINVAL, p->name, where, "%s", msg);
}

static unsigned long hash_str(const char *s)
{
	unsigned long h = 5381;

	while (*s)
		h = h * 33 + (unsigned char)*s++;
	return h;
}

static void reset_run(struct parser *p)
{
	p->op[0] = '\0';
	p->nthread = p->ngpus = 0;
	p->max_bytes = 0;
	p->step_factor = p->step_bytes = 0;
	p->n_rank_lines = p->max_rank = 0;
	p->gpu[0] = '\0';
	p->n_hosts = 0;
	p->ranks_closed = false;
}

/* Split s (modified) at blanks into at most max tokens; returns the count. */
static int tokenize(char *s, char **tok, int max)
{
	int n = 0;

	while (*s) {
		while (*s == ' ' || *s == '\t')
			*s++ = '\0';
		if (!*s)
			break;
		if (n == max)
			return max + 1;
		tok[n++] = s;
		while (*s && *s != ' ' && *s != '\t')
			s++;
	}
	return n;
}

/* A launcher's per-line prefix: "[1,0]<stdout>:" (Open MPI --tag-output)
 * or "0: " (srun --label).  Returns where the tool's text starts, or NULL
 * for a line that is another stream's (stderr). */
static char *strip_prefix(char *s)
{
	char *q = s;

	if (*q == '[') {
		q++;
		while (isdigit((unsigned char)*q) || *q == ',')
			q++;
		if (*q == ']' && q[1] == '<') {
			if (strncmp(q + 2, "stdout>:", 8) == 0)
				return q + 10;
			if (strncmp(q + 2, "stderr>:", 8) == 0)
				return NULL;
		}
		return s;
	}
	q = s;
	while (*q == ' ')
		q++;
	if (isdigit((unsigned char)*q)) {
		char *d = q;
		while (isdigit((unsigned char)*d))
			d++;
		if (*d == ':' && (d[1] == ' ' || d[1] == '\0'))
			return d[1] ? d + 2 : d + 1;
	}
	return s;
}

/* Copy a field of the log into a string of the measurements: printable
 * ASCII only (others become '?'), so a stray byte of a log (or a cut in
 * the middle of a UTF-8 sequence) never makes the JSON written from it
 * invalid (found by fuzz_ingest_nccl_text). */
static void copy_text(char *dst, size_t n, const char *src)
{
	size_t i = 0;

	for (; n > 0 && src[i] && i < n - 1; i++)
		dst[i] = src[i] >= 0x20 && src[i] <= 0x7e ? src[i] : '?';
	if (n > 0)
		dst[i] = '\0';
}

static bool parse_int(const char *s, long long *out)
{
	char *end;

	errno = 0;
	*out = strtoll(s, &end, 10);
	return end != s && *end == '\0' && errno == 0;
}

static bool parse_num(const char *s, double *out)
{
	char *end;

	errno = 0;
	*out = strtod(s, &end);
	return end != s && *end == '\0' && isfinite(*out);
}

/* Remember a "*_perf" program name anywhere in a line (a command line
 * echoed before the output) as the op of the tables that follow. */
static void note_program(struct parser *p, char **tok, int n)
{
	for (int i = 0; i < n; i++) {
		char op[32];
		if (strstr(tok[i], "_perf") && cal_op_normalise(tok[i], op, sizeof(op)))
			copy_text(p->op, sizeof(p->op), op);
	}
}

static enum sc_status rank_line(struct parser *p, char *s)
{
	/* "#  Rank %2d Group %2d Pid %6d on %10s device %2d [%s] %s" */
	char host[256], rest[256];
	int rank, group, pid, dev, used = 0;
	unsigned long h;
	bool seen = false;

	if (sscanf(s, "# Rank %d Group %d Pid %d on %255s device %d %n", &rank, &group, &pid,
		   host, &dev, &used) < 5 || used == 0)
		return fail(p, "malformed rank line (expected \"#  Rank N Group G Pid P on HOST device D [BUS] NAME\")");
	if (rank < 0 || rank > 1 << 24)
		return fail(p, "rank %d is out of range", rank);
	if (p->ranks_closed) {
		/* Rank lines after a table: a new run without a version line */
		char op[32];
		snprintf(op, sizeof(op), "%s", p->op);
		reset_run(p);
		copy_text(p->op, sizeof(p->op), op);
	}
	p->n_rank_lines++;
	if (rank + 1 > p->max_rank)
		p->max_rank = rank + 1;
	/* the device name follows the "[bus id]" */
	s += used;
	if (*s == '[') {
		char *close = strchr(s, ']');
		s = close ? close + 1 : s + strlen(s);
	}
	while (*s == ' ')
		s++;
	snprintf(rest, sizeof(rest), "%s", s);
	if (!p->gpu[0] && rest[0])
		copy_text(p->gpu, sizeof(p->gpu), rest);
	h = hash_str(host);
	for (int i = 0; i < p->n_hosts; i++)
		seen |= p->host_hash[i] == h;
	if (!seen && p->n_hosts < MAX_HOSTS)
		p->host_hash[p->n_hosts++] = h;
	return SC_OK;
}

/* A column header: "# size count type redop root time algbw busbw #wrong
 * time algbw busbw #wrong [...]".  Older versions: no root, "error"
 * instead of "#wrong"; with -C: "cputime" instead of "time". */
static bool header_line(char **tok, int n, struct nt_layout *lay)
{
	int half = -1;

	memset(lay, -1, sizeof(*lay));
	lay->n_cols = n;
	for (int i = 0; i < n; i++) {
		const char *t = tok[i];
		if (strcmp(t, "size") == 0 && lay->size < 0)
			lay->size = i;
		else if (strcmp(t, "count") == 0 && lay->count < 0)
			lay->count = i;
		else if (strcmp(t, "type") == 0 && lay->type < 0)
			lay->type = i;
		else if (strcmp(t, "redop") == 0 && lay->redop < 0)
			lay->redop = i;
		else if (strcmp(t, "root") == 0 && lay->root < 0)
			lay->root = i;
		else if ((strcmp(t, "time") == 0 || strcmp(t, "cputime") == 0) && half < 1)
			lay->time[++half] = i;
		else if (half >= 0 && strcmp(t, "algbw") == 0 && lay->algbw[half] < 0)
			lay->algbw[half] = i;
		else if (half >= 0 && strcmp(t, "busbw") == 0 && lay->busbw[half] < 0)
			lay->busbw[half] = i;
		else if (half >= 0 && (strcmp(t, "#wrong") == 0 || strcmp(t, "error") == 0) &&
			 lay->wrong[half] < 0)
			lay->wrong[half] = i;
	}
	return lay->size == 0 && lay->count > 0 && lay->time[0] > 0;
}

static enum sc_status close_table(struct parser *p, bool at_eof)
{
	struct cal_curve *c = &p->cur;
	const struct cal_ingest_opts *o = p->opts;
	enum sc_status st;
	int line = p->line;

	if (!p->in_table)
		return SC_OK;
	p->in_table = false;
	p->ranks_closed = true;
	p->line = p->table_line;
	if (p->out->n_curves >= CAL_MAX_CURVES) {
		st = fail(p, "more than %d result tables in one measurement set: split the log",
			  CAL_MAX_CURVES);
		goto out;
	}
	if (c->n_points == 0) {
		st = fail(p, "the table has no rows%s", at_eof ? " (truncated log?)" : "");
		goto out;
	}
	if (at_eof && !p->footer_seen && p->max_bytes > 0) {
		/* The sweep stops at the last size not above maxBytes: if the
		 * next step would still fit, rows are missing. */
		double last = c->points[c->n_points - 1].bytes, next = 0;
		if (p->step_factor > 1)
			next = last > 0 ? last * p->step_factor : 0;
		else if (p->step_bytes > 0)
			next = last + p->step_bytes;
		if (next > 0 && next <= p->max_bytes) {
			p->line = line;
			st = fail(p, "the log ends inside the table at %.0f bytes; the run was to reach "
				  "%.0f (maxBytes): truncated log?", last, p->max_bytes);
			goto out;
		}
	}
	if (p->op[0])
		snprintf(c->op, sizeof(c->op), "%s", p->op);
	else if (o && o->collective && !cal_op_normalise(o->collective, c->op, sizeof(c->op))) {
		st = sc_error_set(p->err, SC_EINVAL, p->name, NULL,
				  "unknown collective \"%s\"", o->collective);
		goto out;
	} else if (!(o && o->collective)) {
		st = fail(p, "cannot tell which collective this table measured (no \"# Collective "
			  "test starting\" line and no *_perf program name before it): pass --collective");
		goto out;
	}
	if (o && o->ranks > 0)
		c->ranks = o->ranks;
	else if (p->max_rank > 0)
		c->ranks = p->max_rank > p->n_rank_lines ? p->max_rank : p->n_rank_lines;
	else {
		st = fail(p, "the log lists no ranks (no \"#  Rank\" lines before this table): pass --ranks");
		goto out;
	}
	if (o && o->nodes > 0)
		c->nodes = o->nodes;
	else
		c->nodes = p->n_hosts;
	if (c->nodes > c->ranks) {
		st = fail(p, "%d hosts for %d ranks", c->nodes, c->ranks);
		goto out;
	}
	c->gpus_per_node = c->nodes > 0 && c->ranks % c->nodes == 0 ? c->ranks / c->nodes : 0;
	snprintf(c->gpu, sizeof(c->gpu), "%s", p->gpu);
	snprintf(c->source, sizeof(c->source), "%s:%d", p->name, p->table_line);
	st = cal_add_curve(p->out, c, p->err);
	if (st == SC_OK && p->nccl[0] && !p->out->prov.nccl[0])
		snprintf(p->out->prov.nccl, sizeof(p->out->prov.nccl), "%s", p->nccl);
	if (st == SC_OK && p->gpu[0] && !p->out->prov.gpu[0])
		snprintf(p->out->prov.gpu, sizeof(p->out->prov.gpu), "%s", p->gpu);
out:
	free(c->points);
	memset(c, 0, sizeof(*c));
	p->line = line;
	return st;
}

/* Bounds of one row: sizes beyond any GPU's memory and times beyond any
 * collective's are a corrupt log, not a measurement. */
#define MAX_ROW_BYTES (1LL << 48)
#define MAX_ROW_TIME_US 1e9

static enum sc_status data_row(struct parser *p, char **tok, int n)
{
	const struct nt_layout *L = &p->lay;
	struct cal_coll_point pt;
	long long size, count, root;
	double v;

	if (n < L->n_cols)
		return fail(p, "truncated row: %d fields where the header has %d", n, L->n_cols);
	if (p->out->n_rows + p->cur.n_points >= CAL_MAX_ROWS)
		return fail(p, "more than %d result rows in one measurement set (each costs about 2 KB of "
			    "memory to ingest and write): split the log", CAL_MAX_ROWS);
	memset(&pt, 0, sizeof(pt));
	pt.wrong = pt.inplace_wrong = -1;
	if (!parse_int(tok[L->size], &size) || size < 0)
		return fail(p, "size \"%s\" is not a byte count", tok[L->size]);
	if (size > MAX_ROW_BYTES)
		return fail(p, "size %lld bytes is more than 2^48 (256 TiB), more than any GPU holds", size);
	if (!parse_int(tok[L->count], &count) || count < 0)
		return fail(p, "count \"%s\" is not an element count", tok[L->count]);
	if (L->root >= 0 && !parse_int(tok[L->root], &root))
		return fail(p, "root \"%s\" is not a rank", tok[L->root]);
	pt.bytes = (double)size;
	pt.count = (double)count;
	if (p->cur.n_points == 0) {
		if (L->type >= 0)
			copy_text(p->cur.dtype, sizeof(p->cur.dtype), tok[L->type]);
		if (L->redop >= 0)
			copy_text(p->cur.redop, sizeof(p->cur.redop), tok[L->redop]);
	}
	for (int h = 0; h < 2; h++) {
		double *time = h ? &pt.inplace_time_s : &pt.time_s;
		double *alg = h ? &pt.inplace_algbw_GBps : &pt.algbw_GBps;
		double *bus = h ? &pt.inplace_busbw_GBps : &pt.busbw_GBps;
		double *wrong = h ? &pt.inplace_wrong : &pt.wrong;
		const char *what = h ? "in-place" : "out-of-place";

		if (L->time[h] < 0)
			continue;
		if (!parse_num(tok[L->time[h]], &v) || v < 0)
			return fail(p, "%s time \"%s\" is not a non-negative number", what, tok[L->time[h]]);
		/* a timed row with a size took some time; 0 is a broken row */
		if (v == 0 && size > 0)
			return fail(p, "%s time of %lld bytes is 0 us", what, size);
		if (v > MAX_ROW_TIME_US)
			return fail(p, "%s time \"%s\" us is more than 1000 s for one collective", what,
				    tok[L->time[h]]);
		*time = v * 1e-6; /* nccl-tests prints microseconds */
		if (L->algbw[h] >= 0) {
			if (!parse_num(tok[L->algbw[h]], &v) || v < 0)
				return fail(p, "%s algbw \"%s\" is not a non-negative number", what,
					    tok[L->algbw[h]]);
			*alg = v;
		}
		if (L->busbw[h] >= 0) {
			if (!parse_num(tok[L->busbw[h]], &v) || v < 0)
				return fail(p, "%s busbw \"%s\" is not a non-negative number", what,
					    tok[L->busbw[h]]);
			*bus = v;
		}
		if (L->wrong[h] >= 0 && strcmp(tok[L->wrong[h]], "N/A") != 0) {
			if (!parse_num(tok[L->wrong[h]], &v) || v < 0)
				return fail(p, "%s #wrong \"%s\" is neither a count nor N/A", what,
					    tok[L->wrong[h]]);
			*wrong = v;
		}
	}
	if (cal_curve_add_point(&p->cur, &pt, p->err) != SC_OK) {
		char msg[SC_ERROR_MSG_MAX];

		/* the plausibility check names the value; say its line */
		snprintf(msg, sizeof(msg), "%s", p->err->message);
		return p->err->status == SC_ENOMEM ? SC_ENOMEM : fail(p, "%s", msg);
	}
	return SC_OK;
}

static enum sc_status comment_line(struct parser *p, char *s)
{
	char *tok[MAX_TOKENS + 1];
	char copy[LINE_MAX_BYTES];
	int n;

	/* "# nccl-tests version 2.17.6 nccl-headers=22807 nccl-library=22807" */
	if (strncmp(s, "# nccl-tests version", 20) == 0) {
		const char *lib = strstr(s, "nccl-library=");
		enum sc_status st = close_table(p, false);
		if (st != SC_OK)
			return st;
		reset_run(p);
		if (lib) {
			long code = strtol(lib + 13, NULL, 10);
			/* NCCL_VERSION_CODE: major*10000 + minor*100 + patch from 2.9 */
			if (code >= 20900)
				snprintf(p->nccl, sizeof(p->nccl), "%ld.%ld.%ld", code / 10000,
					 code / 100 % 100, code % 100);
		}
		return SC_OK;
	}
	if (strncmp(s, "# Collective test starting:", 27) == 0) {
		char op[32], name[128] = "";
		enum sc_status st = close_table(p, false);
		if (st != SC_OK)
			return st;
		if (p->ranks_closed || p->n_rank_lines > 0)
			reset_run(p);
		if (sscanf(s + 27, "%127s", name) != 1 || !cal_op_normalise(name, op, sizeof(op)))
			return fail(p, "unknown collective test \"%s\"", name);
		copy_text(p->op, sizeof(p->op), op);
		return SC_OK;
	}
	if (strncmp(s, "# nThread", 9) == 0) {
		long long nt = 0, ng = 0;
		double maxb = 0, step = 0;
		char kind[16] = "";
		enum sc_status st = close_table(p, false);
		int got;

		if (st != SC_OK)
			return st;
		if (p->ranks_closed) {
			/* a new run of a version that prints no version line */
			char op[32];
			snprintf(op, sizeof(op), "%s", p->op);
			reset_run(p);
			copy_text(p->op, sizeof(p->op), op);
		}
		got = sscanf(s, "# nThread %lld nGpus %lld minBytes %*s maxBytes %lf step: %lf(%15[a-z])",
			     &nt, &ng, &maxb, &step, kind);
		if (got >= 2) {
			if (nt < 1 || ng < 1 || nt > 1 << 16 || ng > 1 << 16)
				return fail(p, "nThread %lld nGpus %lld are out of range", nt, ng);
			p->nthread = (int)nt;
			p->ngpus = (int)ng;
			p->max_bytes = got >= 3 && isfinite(maxb) && maxb > 0 ? maxb : 0;
			if (got == 5 && isfinite(step) && step > 0) {
				if (strcmp(kind, "factor") == 0)
					p->step_factor = step;
				else if (strcmp(kind, "bytes") == 0)
					p->step_bytes = step;
			}
		}
		return SC_OK;
	}
	if (strncmp(s, "#  Rank", 7) == 0 || strncmp(s, "# Rank", 6) == 0) {
		enum sc_status st = close_table(p, false);
		return st != SC_OK ? st : rank_line(p, s);
	}
	if (strncmp(s, "# Out of bounds values", 22) == 0 ||
	    strncmp(s, "# Avg bus bandwidth", 19) == 0 ||
	    strncmp(s, "# Collective test concluded", 27) == 0) {
		if (p->in_table)
			p->footer_seen = true;
		return close_table(p, false);
	}
	snprintf(copy, sizeof(copy), "%s", s + 1);
	n = tokenize(copy, tok, MAX_TOKENS);
	if (n > 0 && n <= MAX_TOKENS && strcmp(tok[0], "size") == 0) {
		struct nt_layout lay;
		enum sc_status st;
		if (!header_line(tok, n, &lay))
			return fail(p, "column header without size, count and time columns");
		if ((st = close_table(p, false)) != SC_OK)
			return st;
		p->in_table = true;
		p->footer_seen = false;
		p->table_line = p->line;
		p->lay = lay;
		memset(&p->cur, 0, sizeof(p->cur));
	}
	return SC_OK;
}

static enum sc_status one_line(struct parser *p, char *s)
{
	char *tok[MAX_TOKENS + 1];
	int n;

	s = strip_prefix(s);
	if (!s)
		return SC_OK;
	while (*s == ' ' || *s == '\t')
		s++;
	if (*s == '#')
		return comment_line(p, s);
	{
		char copy[LINE_MAX_BYTES];
		snprintf(copy, sizeof(copy), "%s", s);
		n = tokenize(copy, tok, MAX_TOKENS);
		if (n == 0)
			return SC_OK;
		if (n > MAX_TOKENS)
			n = MAX_TOKENS;
		/* A data row starts with the size, an integer; anything else
		 * (NCCL INFO lines, "...", launcher chatter) is not ours. */
		if (p->in_table && (isdigit((unsigned char)tok[0][0]) ||
				    (tok[0][0] == '-' && isdigit((unsigned char)tok[0][1])))) {
			/* a negative size is a broken row, not chatter: data_row says so */
			char *e = tok[0] + (tok[0][0] == '-');
			while (isdigit((unsigned char)*e))
				e++;
			if (*e == '\0')
				return data_row(p, tok, n);
		}
		/* NCCL prints "NCCL version 2.21.5+cuda12.4" on the first init */
		if (n >= 3 && strcmp(tok[0], "NCCL") == 0 && strcmp(tok[1], "version") == 0 &&
		    !p->nccl[0]) {
			char *plus = strchr(tok[2], '+');
			if (plus)
				*plus = '\0';
			copy_text(p->nccl, sizeof(p->nccl), tok[2]);
		}
		note_program(p, tok, n);
	}
	return SC_OK;
}

/* Where the lines come from: a buffer, or a stream read as it is parsed
 * (cal_ingest_file: a log's memory is its rows, not its bytes). */
struct line_src {
	const char *buf;
	size_t len, i;
	FILE *f;
};

/* The next line of src into line (without its newline and trailing CRs,
 * NUL-terminated): 1, or 0 at the end, or -1 for a NUL byte, -2 for a
 * line of LINE_MAX_BYTES or more (src is left inside the line). */
static int next_line(struct line_src *src, char *line)
{
	size_t n = 0;
	int c;

	if (src->f) {
		c = getc(src->f);
		if (c == EOF)
			return 0;
		for (; c != EOF && c != '\n'; c = getc(src->f)) {
			if (c == '\0')
				return -1;
			if (n + 1 >= LINE_MAX_BYTES)
				return -2;
			line[n++] = (char)c;
		}
	} else {
		if (src->i >= src->len)
			return 0;
		while (src->i < src->len && src->buf[src->i] != '\n') {
			if (src->buf[src->i] == '\0')
				return -1;
			if (n + 1 >= LINE_MAX_BYTES)
				return -2;
			line[n++] = src->buf[src->i++];
		}
		src->i++; /* the newline */
	}
	while (n > 0 && line[n - 1] == '\r')
		n--;
	line[n] = '\0';
	return 1;
}

static enum sc_status ingest_lines(const char *name, struct line_src *src,
				   const struct cal_ingest_opts *opts, struct cal_measurements *out,
				   struct sc_error *err)
{
	struct parser *p = calloc(1, sizeof(*p));
	char line[LINE_MAX_BYTES];
	int curves_before = out->n_curves;
	enum sc_status st = SC_OK;

	if (!p)
		return sc_error_set(err, SC_ENOMEM, name, NULL, "out of memory");
	p->name = name;
	p->opts = opts;
	p->out = out;
	p->err = err;
	while (st == SC_OK) {
		int got;

		p->line++;
		got = next_line(src, line);
		if (got == 0) {
			p->line--; /* the last line read is the last line */
			break;
		}
		if (got == -1)
			st = fail(p, "binary data (a NUL byte) in a text log");
		else if (got == -2)
			st = fail(p, "line longer than %d bytes", LINE_MAX_BYTES - 1);
		else
			st = one_line(p, line);
	}
	if (st == SC_OK && src->f && ferror(src->f))
		st = sc_error_set(err, SC_EIO, name, NULL, "read error");
	if (st == SC_OK)
		st = close_table(p, true);
	else
		free(p->cur.points);
	if (st == SC_OK && out->n_curves == curves_before)
		st = sc_error_set(err, SC_EINVAL, name, NULL,
				  "no nccl-tests result table found (expected a \"#  size  count  type ...\" "
				  "header followed by rows)");
	free(p);
	return st;
}

enum sc_status cal_ingest_nccl_text(const char *name, const char *buf, size_t len,
				    const struct cal_ingest_opts *opts,
				    struct cal_measurements *out, struct sc_error *err)
{
	struct line_src src = { buf, len, 0, NULL };

	return ingest_lines(name, &src, opts, out, err);
}

enum sc_status cal_ingest_nccl_text_stream(const char *name, FILE *f,
					   const struct cal_ingest_opts *opts,
					   struct cal_measurements *out, struct sc_error *err)
{
	struct line_src src = { NULL, 0, 0, f };

	return ingest_lines(name, &src, opts, out, err);
}
