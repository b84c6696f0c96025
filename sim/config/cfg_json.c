/* cfg_json.c: strict JSON reading (see cfg_json.h). */
#include "cfg_json.h"

#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include "rpt_num.h" /* after cJSON: output numbers checked */

size_t cfg_json_nesting(const char *buf, size_t len, bool *cut_off)
{
	size_t depth = 0, max = 0;
	bool in_string = false, closed = false;

	for (size_t i = 0; i < len; i++) {
		char c = buf[i];
		if (in_string) {
			if (c == '\\')
				i++;
			else if (c == '"')
				in_string = false;
		} else if (c == '"') {
			in_string = true;
		} else if (c == '[' || c == '{') {
			if (++depth > max)
				max = depth;
		} else if ((c == ']' || c == '}') && depth > 0) {
			closed |= --depth == 0;
		}
	}
	if (cut_off)
		*cut_off = !closed && (in_string || depth > 0);
	return max;
}

/* ---- what cJSON accepts and a config must not hold ----------------------------
 *
 * cJSON (1.7) accepts, and a config must not: a string or key with \u0000
 * (cJSON stops the C string there: "llama3-8b\u0000junk" would read as
 * "llama3-8b"), raw control characters inside strings, numbers with leading
 * zeros (RFC 8259 section 6 forbids them), and bytes that are not UTF-8
 * (RFC 8259 section 8.1; they would be copied into JSON output, making it
 * invalid).  A config string never needs a control character, so none is
 * accepted, escaped or not (U+0000-U+001F, U+007F-U+009F): what is echoed to
 * a terminal cannot carry an escape sequence.  The scan also counts values,
 * so a file is bounded by what it costs to parse (CFG_MAX_VALUES), not only
 * by its bytes. */

struct scan {
	const char *buf;
	size_t len, i;
	const char *name;
	struct sc_error *err;
	bool controls;   /* escaped control characters allowed (tool output) */
};

static bool scan_fail(struct scan *sc, size_t at, const char *fmt, unsigned v)
{
	int line = 1, col = 1;
	char what[160];

	for (size_t k = 0; k < at && k < sc->len; k++) {
		if (sc->buf[k] == '\n') {
			line++;
			col = 1;
		} else {
			col++;
		}
	}
	snprintf(what, sizeof(what), fmt, v);
	sc_error_set(sc->err, SC_EINVAL, sc->name, NULL, "line %d, column %d: %s", line, col, what);
	return false;
}

static bool is_control(unsigned cp)
{
	return cp < 0x20 || (cp >= 0x7f && cp <= 0x9f);
}

/* One UTF-8 sequence at sc->i (a lead byte >= 0x80): its code point, or -1
 * (RFC 3629: no overlong forms, no surrogates, at most U+10FFFF). */
static long utf8_at(struct scan *sc)
{
	const unsigned char *u = (const unsigned char *)sc->buf + sc->i;
	size_t left = sc->len - sc->i;
	unsigned c = u[0], n, lo = 0x80, hi = 0xbf;
	long cp;

	if (c >= 0xc2 && c <= 0xdf)
		n = 1, cp = c & 0x1f;
	else if (c >= 0xe0 && c <= 0xef) {
		n = 2, cp = c & 0x0f;
		if (c == 0xe0) lo = 0xa0;
		if (c == 0xed) hi = 0x9f;
	} else if (c >= 0xf0 && c <= 0xf4) {
		n = 3, cp = c & 0x07;
		if (c == 0xf0) lo = 0x90;
		if (c == 0xf4) hi = 0x8f;
	} else
		return -1;
	if (left <= n)
		return -1;
	for (unsigned k = 1; k <= n; k++) {
		unsigned b = u[k];

		if (b < (k == 1 ? lo : 0x80) || b > (k == 1 ? hi : 0xbf))
			return -1;
		cp = (cp << 6) | (b & 0x3f);
	}
	sc->i += n;   /* the caller steps over the lead byte */
	return cp;
}

static int hex4(const char *p, size_t left)
{
	int v = 0;

	if (left < 4)
		return -1;
	for (int k = 0; k < 4; k++) {
		char c = p[k];
		int d = c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10
			: c >= 'A' && c <= 'F' ? c - 'A' + 10 : -1;
		if (d < 0)
			return -1;
		v = v * 16 + d;
	}
	return v;
}

/* A string from its opening quote at sc->i to past its closing quote.  An
 * unterminated string or a bad escape is left to cJSON's message. */
static bool scan_string(struct scan *sc)
{
	size_t start = sc->i++;

	while (sc->i < sc->len) {
		unsigned char c = (unsigned char)sc->buf[sc->i];

		if (c == '"') {
			sc->i++;
			return true;
		}
		if (c < 0x20)
			return scan_fail(sc, sc->i, "a raw control character (0x%02x) inside a string", c);
		if (c == '\\' && sc->i + 1 < sc->len) {
			char e = sc->buf[sc->i + 1];
			int v;

			if (e != 'u') {
				if (!sc->controls && (e == 'b' || e == 'f' || e == 'n' || e == 'r' || e == 't'))
					return scan_fail(sc, sc->i, "a control character (\\%c) inside a string", (unsigned)e);
				sc->i += 2;
				continue;
			}
			v = hex4(sc->buf + sc->i + 2, sc->len - sc->i - 2);
			if (v < 0) {
				sc->i += 2;
				continue;   /* cJSON reports it */
			}
			if (v == 0)
				return scan_fail(sc, sc->i, "\\u0000 (NUL) inside a string", 0);
			if (!sc->controls && is_control((unsigned)v))
				return scan_fail(sc, sc->i, "a control character (U+%04X) inside a string", (unsigned)v);
			if (v >= 0xdc00 && v <= 0xdfff)
				return scan_fail(sc, sc->i, "a lone UTF-16 low surrogate (\\u%04x)", (unsigned)v);
			if (v >= 0xd800 && v <= 0xdbff) {
				int w = sc->i + 12 <= sc->len && sc->buf[sc->i + 6] == '\\' && sc->buf[sc->i + 7] == 'u'
					? hex4(sc->buf + sc->i + 8, sc->len - sc->i - 8) : -1;
				if (w < 0xdc00 || w > 0xdfff)
					return scan_fail(sc, sc->i, "a lone UTF-16 high surrogate (\\u%04x)", (unsigned)v);
				sc->i += 6;
			}
			sc->i += 6;
			continue;
		}
		if (c >= 0x80) {
			size_t at = sc->i;
			long cp = utf8_at(sc);

			if (cp < 0)
				return scan_fail(sc, at, "invalid UTF-8 (byte 0x%02x) inside a string", c);
			if (!sc->controls && is_control((unsigned)cp))
				return scan_fail(sc, at, "a control character (U+%04X) inside a string", (unsigned)cp);
		}
		sc->i++;
	}
	(void)start;
	return true;
}

static bool strict_scan(const char *name, const char *buf, size_t len, bool controls,
			struct sc_error *err)
{
	struct scan sc = { buf, len, 0, name, err, controls };
	long values = 0;

	while (sc.i < len) {
		char c = buf[sc.i];

		if (c == '"') {
			values++;
			if (!scan_string(&sc))
				return false;
		} else if (c == '-' || (c >= '0' && c <= '9')) {
			size_t at = sc.i;

			values++;
			if (c == '-')
				sc.i++;
			if (sc.i + 1 < len && buf[sc.i] == '0' && buf[sc.i + 1] >= '0' && buf[sc.i + 1] <= '9')
				return scan_fail(&sc, at, "a number with a leading zero", 0);
			while (sc.i < len && (isdigit((unsigned char)buf[sc.i]) || buf[sc.i] == '.' ||
					      buf[sc.i] == 'e' || buf[sc.i] == 'E' || buf[sc.i] == '+' ||
					      buf[sc.i] == '-'))
				sc.i++;
		} else {
			if (c == '[' || c == '{' || c == 't' || c == 'f' || c == 'n')
				values++;
			sc.i++;
		}
		if (values > CFG_MAX_VALUES) {
			sc_error_set(err, SC_EINVAL, name, NULL,
				     "more than %d JSON values: a config is bounded by what it costs to parse",
				     CFG_MAX_VALUES);
			return false;
		}
	}
	return true;
}

enum sc_status cfg_check_text(const char *name, const char *buf, size_t len, bool controls,
			      struct sc_error *err)
{
	return strict_scan(name, buf, len, controls, err) ? SC_OK : SC_EINVAL;
}

/* cJSON's allocations, watched so that running out of memory is its own
 * error and not "invalid JSON". */
static bool alloc_failed;

static void *watched_malloc(size_t n)
{
	void *p = malloc(n);

	if (!p)
		alloc_failed = true;
	return p;
}

static void watch_allocations(void)
{
	static bool done;

	if (!done) {
		cJSON_Hooks h = { watched_malloc, free };

		cJSON_InitHooks(&h);
		done = true;
	}
	alloc_failed = false;
}

cJSON *cfg_parse_buffer(const char *name, const char *buf, size_t len,
			struct sc_error *err)
{
	const char *end = NULL;
	cJSON *root;
	int line = 1, col = 1;

	if (len > (size_t)CFG_MAX_FILE_BYTES) {
		sc_error_set(err, SC_EINVAL, name, NULL,
			     "file is %zu bytes, more than the %ld-byte limit",
			     len, CFG_MAX_FILE_BYTES);
		return NULL;
	}
	if (memchr(buf, '\0', len)) {
		sc_error_set(err, SC_EINVAL, name, NULL,
			     "not a JSON text: contains a NUL byte");
		return NULL;
	}
	{
		size_t i = 0;
		while (i < len && (buf[i] == ' ' || buf[i] == '\t' || buf[i] == '\n' || buf[i] == '\r'))
			i++;
		if (i == len) {
			sc_error_set(err, SC_EINVAL, name, NULL, "empty file: expected a JSON object");
			return NULL;
		}
	}
	if (cfg_json_nesting(buf, len, NULL) > CJSON_NESTING_LIMIT) {
		sc_error_set(err, SC_EINVAL, name, NULL,
			     "JSON nested more than %d levels deep", CJSON_NESTING_LIMIT);
		return NULL;
	}
	if (!strict_scan(name, buf, len, false, err))
		return NULL;
	watch_allocations();
	root = cJSON_ParseWithLengthOpts(buf, len, &end, false);
	if (!root && alloc_failed) {
		sc_error_set(err, SC_ENOMEM, name, NULL, "out of memory parsing the file (%zu bytes)", len);
		return NULL;
	}
	if (!root) {
		if (!end)
			end = cJSON_GetErrorPtr();
		if (end && end >= buf && end <= buf + len) {
			for (const char *p = buf; p < end; p++) {
				if (*p == '\n') {
					line++;
					col = 1;
				} else {
					col++;
				}
			}
		}
		sc_error_set(err, SC_EINVAL, name, NULL,
			     "invalid JSON near line %d, column %d", line, col);
		return NULL;
	}
	/* Only whitespace may follow the value. */
	if (end) {
		const char *p = end;
		while (p < buf + len && (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r'))
			p++;
		if (p < buf + len) {
			for (const char *q = buf; q < p; q++) {
				if (*q == '\n') {
					line++;
					col = 1;
				} else {
					col++;
				}
			}
			cJSON_Delete(root);
			sc_error_set(err, SC_EINVAL, name, NULL,
				     "trailing characters after the JSON value at line %d, column %d",
				     line, col);
			return NULL;
		}
	}
	return root;
}

char *cfg_read_file(const char *path, size_t *len, struct sc_error *err)
{
	struct stat st;
	FILE *f;
	char *buf;
	size_t got;

	if (stat(path, &st) != 0) {
		sc_error_set(err, SC_EIO, path, NULL, "cannot read: %s", strerror(errno));
		return NULL;
	}
	if (!S_ISREG(st.st_mode)) {
		sc_error_set(err, SC_EIO, path, NULL,
			     S_ISDIR(st.st_mode) ? "is a directory, not a file" : "not a regular file");
		return NULL;
	}
	if (st.st_size > CFG_MAX_FILE_BYTES) {
		sc_error_set(err, SC_EINVAL, path, NULL,
			     "file is %lld bytes, more than the %ld-byte limit",
			     (long long)st.st_size, CFG_MAX_FILE_BYTES);
		return NULL;
	}
	f = fopen(path, "rb");
	if (!f) {
		sc_error_set(err, SC_EIO, path, NULL, "cannot read: %s", strerror(errno));
		return NULL;
	}
	buf = malloc((size_t)st.st_size + 1);
	if (!buf) {
		fclose(f);
		sc_error_set(err, SC_ENOMEM, path, NULL, "out of memory reading the file");
		return NULL;
	}
	got = fread(buf, 1, (size_t)st.st_size, f);
	if (ferror(f)) {
		free(buf);
		fclose(f);
		sc_error_set(err, SC_EIO, path, NULL, "read error");
		return NULL;
	}
	fclose(f);
	buf[got] = '\0';
	*len = got;
	return buf;
}

cJSON *cfg_parse_file(const char *path, struct sc_error *err)
{
	size_t len;
	char *buf = cfg_read_file(path, &len, err);
	cJSON *root;

	if (!buf)
		return NULL;
	root = cfg_parse_buffer(path, buf, len, err);
	free(buf);
	return root;
}

void cfg_pointer_key(char *out, size_t n, const char *base, const char *key)
{
	size_t len = (size_t)snprintf(out, n, "%s/", base);

	for (const char *k = key; *k && len + 3 < n; k++) {
		if (*k == '~') {
			out[len++] = '~';
			out[len++] = '0';
		} else if (*k == '/') {
			out[len++] = '~';
			out[len++] = '1';
		} else {
			out[len++] = *k;
		}
	}
	if (len < n)
		out[len] = '\0';
	else if (n)
		out[n - 1] = '\0';
}

enum sc_status cfg_key_invalid(struct cfg_reader *rd, const char *pointer, const char *key,
			       const char *fmt, ...)
{
	char where[SC_ERROR_PTR_MAX], msg[SC_ERROR_MSG_MAX];
	va_list ap;

	cfg_pointer_key(where, sizeof(where), pointer, key);
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	return sc_error_set(rd->err, SC_EINVAL, rd->file, where, "%s", msg);
}

void cfg_pointer_index(char *out, size_t n, const char *base, int index)
{
	snprintf(out, n, "%s/%d", base, index);
}

static int levenshtein(const char *a, const char *b)
{
	size_t la = strlen(a), lb = strlen(b);
	int row[128];

	if (la > 120 || lb > 120)
		return 1000;
	for (size_t j = 0; j <= lb; j++)
		row[j] = (int)j;
	for (size_t i = 1; i <= la; i++) {
		int prev = row[0];
		row[0] = (int)i;
		for (size_t j = 1; j <= lb; j++) {
			int cur = row[j];
			int cost = a[i - 1] == b[j - 1] ? 0 : 1;
			int best = prev + cost;
			if (row[j] + 1 < best)
				best = row[j] + 1;
			if (row[j - 1] + 1 < best)
				best = row[j - 1] + 1;
			row[j] = best;
			prev = cur;
		}
	}
	return row[lb];
}

const char *cfg_did_you_mean(const char *word, const char *const *candidates)
{
	const char *best = NULL;
	int best_d = 1000;
	int limit = (int)strlen(word) / 3;

	if (limit < 2)
		limit = 2;
	/* A word that begins candidates means the shortest of them, the first
	 * in catalogue order on a tie ("h100" -> "h100-sxm", not the variants
	 * "h100-sxm-96gb" or "h100-nvl" after it), whatever the edit distance
	 * says. */
	if (strlen(word) >= 2) {
		const char *pick = NULL;
		for (const char *const *c = candidates; *c; c++)
			if (strncmp(*c, word, strlen(word)) == 0 && strcmp(*c, word) != 0 &&
			    (!pick || strlen(*c) < strlen(pick)))
				pick = *c;
		if (pick)
			return pick;
	}
	for (const char *const *c = candidates; *c; c++) {
		int d = levenshtein(word, *c);
		if (d < best_d) {
			best_d = d;
			best = *c;
		}
	}
	return best_d <= limit ? best : NULL;
}

const char *cfg_json_type_name(const cJSON *item)
{
	if (!item)
		return "nothing";
	if (cJSON_IsString(item))
		return "a string";
	if (cJSON_IsNumber(item))
		return "a number";
	if (cJSON_IsBool(item))
		return "a boolean";
	if (cJSON_IsNull(item))
		return "null";
	if (cJSON_IsArray(item))
		return "an array";
	if (cJSON_IsObject(item))
		return "an object";
	return "an invalid value";
}

enum sc_status cfg_check_keys(struct cfg_reader *rd, const cJSON *obj,
			      const char *const *allowed, const char *pointer)
{
	const cJSON *item;

	if (!cJSON_IsObject(obj))
		return sc_error_set(rd->err, SC_EINVAL, rd->file, pointer[0] ? pointer : "/",
				    "expected an object, got %s", cfg_json_type_name(obj));
	cJSON_ArrayForEach(item, obj) {
		char where[SC_ERROR_PTR_MAX];
		bool known = false;

		cfg_pointer_key(where, sizeof(where), pointer, item->string);
		for (const char *const *a = allowed; *a; a++)
			if (strcmp(*a, item->string) == 0)
				known = true;
		if (!known) {
			const char *hint = cfg_did_you_mean(item->string, allowed);
			if (hint)
				return sc_error_set(rd->err, SC_EINVAL, rd->file, where,
						    "unknown key \"%s\" (did you mean \"%s\"?)",
						    item->string, hint);
			return sc_error_set(rd->err, SC_EINVAL, rd->file, where,
					    "unknown key \"%s\"", item->string);
		}
		for (const cJSON *o = obj->child; o != item; o = o->next)
			if (strcmp(o->string, item->string) == 0)
				return sc_error_set(rd->err, SC_EINVAL, rd->file, where,
						    "duplicate key \"%s\"", item->string);
	}
	return SC_OK;
}

static enum sc_status read_number(struct cfg_reader *rd, const cJSON *item,
				  const struct cfg_field *f, const char *where,
				  double *out)
{
	double v;

	if (!cJSON_IsNumber(item))
		return sc_error_set(rd->err, SC_EINVAL, rd->file, where,
				    "expected a number, got %s", cfg_json_type_name(item));
	v = item->valuedouble;
	if (!isfinite(v))
		return sc_error_set(rd->err, SC_EINVAL, rd->file, where,
				    "expected a finite number, got %g", v);
	if ((f->flags & CFG_POSITIVE) && !(v > 0))
		return sc_error_set(rd->err, SC_EINVAL, rd->file, where,
				    "expected a positive number, got %g", v);
	if ((f->flags & CFG_NONNEG) && v < 0)
		return sc_error_set(rd->err, SC_EINVAL, rd->file, where,
				    "expected a non-negative number, got %g", v);
	if ((f->flags & CFG_BOUNDED) && (v < f->min || v > f->max))
		return sc_error_set(rd->err, SC_EINVAL, rd->file, where,
				    "expected a number from %.15g to %.15g, got %.15g",
				    f->min, f->max, v);
	*out = v;
	return SC_OK;
}

/* An array of 1..f->max_items objects of f->sub: element i is read into
 * slot + i * f->size (zeroed first), the count into the int at
 * f->count_offset. */
static enum sc_status read_array(struct cfg_reader *rd, const cJSON *item,
				 const struct cfg_field *f, void *dst, const char *where)
{
	char *slot = (char *)dst + f->offset;
	int n = cJSON_IsArray(item) ? cJSON_GetArraySize(item) : 0;
	const cJSON *e;
	int i = 0;

	if (!cJSON_IsArray(item))
		return sc_error_set(rd->err, SC_EINVAL, rd->file, where,
				    "expected an array, got %s", cfg_json_type_name(item));
	if (n < 1 || n > f->max_items)
		return sc_error_set(rd->err, SC_EINVAL, rd->file, where,
				    "expected 1 to %d items, got %d", f->max_items, n);
	cJSON_ArrayForEach(e, item) {
		char at[SC_ERROR_PTR_MAX];
		enum sc_status st;

		cfg_pointer_index(at, sizeof(at), where, i);
		memset(slot + (size_t)i * f->size, 0, f->size);
		if ((st = cfg_read_object(rd, e, f->sub, slot + (size_t)i * f->size, at)) != SC_OK)
			return st;
		i++;
	}
	*(int *)((char *)dst + f->count_offset) = n;
	return SC_OK;
}

static enum sc_status read_field(struct cfg_reader *rd, const cJSON *item,
				 const struct cfg_field *f, void *dst,
				 const char *where)
{
	char *slot = (char *)dst + f->offset;
	enum sc_status st;
	double v;

	switch (f->type) {
	case CFG_INT:
		if ((st = read_number(rd, item, f, where, &v)) != SC_OK)
			return st;
		if (v != floor(v))
			return sc_error_set(rd->err, SC_EINVAL, rd->file, where,
					    "expected an integer, got %.15g", v);
		if (v < INT_MIN || v > INT_MAX)
			return sc_error_set(rd->err, SC_EINVAL, rd->file, where,
					    "integer %.15g is out of range (%d to %d)", v, INT_MIN, INT_MAX);
		*(int *)slot = (int)v;
		return SC_OK;
	case CFG_DOUBLE:
		if ((st = read_number(rd, item, f, where, &v)) != SC_OK)
			return st;
		*(double *)slot = v;
		return SC_OK;
	case CFG_BOOL:
		if (!cJSON_IsBool(item))
			return sc_error_set(rd->err, SC_EINVAL, rd->file, where,
					    "expected true or false, got %s",
					    cfg_json_type_name(item));
		*(bool *)slot = cJSON_IsTrue(item);
		return SC_OK;
	case CFG_STRING:
		if (!cJSON_IsString(item))
			return sc_error_set(rd->err, SC_EINVAL, rd->file, where,
					    "expected a string, got %s", cfg_json_type_name(item));
		if ((f->flags & CFG_REQUIRED) && item->valuestring[0] == '\0')
			return sc_error_set(rd->err, SC_EINVAL, rd->file, where,
					    "expected a non-empty string");
		if (strlen(item->valuestring) >= f->size)
			return sc_error_set(rd->err, SC_EINVAL, rd->file, where,
					    "string too long (%zu characters; at most %zu)",
					    strlen(item->valuestring), f->size - 1);
		memcpy(slot, item->valuestring, strlen(item->valuestring) + 1);
		return SC_OK;
	case CFG_ENUM: {
		char choices[256] = "";
		if (cJSON_IsString(item)) {
			for (int i = 0; f->enum_names[i]; i++) {
				if (strcmp(f->enum_names[i], item->valuestring) == 0) {
					*(int *)slot = i;
					return SC_OK;
				}
			}
		}
		for (int i = 0; f->enum_names[i]; i++) {
			size_t len = strlen(choices);
			snprintf(choices + len, sizeof(choices) - len, "%s\"%s\"",
				 i ? ", " : "", f->enum_names[i]);
		}
		if (!cJSON_IsString(item))
			return sc_error_set(rd->err, SC_EINVAL, rd->file, where,
					    "expected one of %s, got %s", choices,
					    cfg_json_type_name(item));
		const char *hint = cfg_did_you_mean(item->valuestring, f->enum_names);
		if (hint)
			return sc_error_set(rd->err, SC_EINVAL, rd->file, where,
					    "unknown value \"%s\" (did you mean \"%s\"?)",
					    item->valuestring, hint);
		return sc_error_set(rd->err, SC_EINVAL, rd->file, where,
				    "unknown value \"%s\"; expected one of %s",
				    item->valuestring, choices);
	}
	case CFG_OBJECT:
		return cfg_read_object(rd, item, f->sub, slot, where);
	case CFG_CUSTOM:
		return f->custom(rd, item, slot, where);
	case CFG_ARRAY:
		return read_array(rd, item, f, dst, where);
	}
	return sc_error_set(rd->err, SC_EINVAL, rd->file, where, "internal: bad field type");
}

enum sc_status cfg_read_object(struct cfg_reader *rd, const cJSON *obj,
			       const struct cfg_field *fields, void *dst,
			       const char *pointer)
{
	const char *keys[64];
	int n = 0;
	enum sc_status st;

	for (const struct cfg_field *f = fields; f->key && n < 63; f++)
		keys[n++] = f->key;
	keys[n] = NULL;
	if ((st = cfg_check_keys(rd, obj, keys, pointer)) != SC_OK)
		return st;
	for (const struct cfg_field *f = fields; f->key; f++) {
		const cJSON *item = cJSON_GetObjectItemCaseSensitive(obj, f->key);
		char where[SC_ERROR_PTR_MAX];

		cfg_pointer_key(where, sizeof(where), pointer, f->key);
		if (!item || (cJSON_IsNull(item) && (f->flags & CFG_NULLABLE))) {
			if (f->flags & CFG_REQUIRED)
				return sc_error_set(rd->err, SC_EINVAL, rd->file,
						    pointer[0] ? pointer : "/",
						    "missing required key \"%s\"", f->key);
			continue;
		}
		if ((st = read_field(rd, item, f, dst, where)) != SC_OK)
			return st;
	}
	return SC_OK;
}

cJSON *cfg_json_push(cJSON *arr, cJSON *item)
{
	if (!item || !cJSON_AddItemToArray(arr, item)) {
		cJSON_Delete(item);
		return NULL;
	}
	return item;
}

cJSON *cfg_to_json(const struct cfg_field *fields, const void *src)
{
	cJSON *obj = cJSON_CreateObject();

	if (!obj)
		return NULL;
	for (const struct cfg_field *f = fields; f->key; f++) {
		const char *slot = (const char *)src + f->offset;
		cJSON *item = NULL;
		bool optional = !(f->flags & CFG_REQUIRED);

		switch (f->type) {
		case CFG_INT:
			if (optional && *(const int *)slot == 0)
				continue;
			item = cJSON_CreateNumber(*(const int *)slot);
			break;
		case CFG_DOUBLE:
			if (optional && *(const double *)slot == 0)
				continue;
			item = rpt_json_number(*(const double *)slot, f->key);
			break;
		case CFG_BOOL:
			item = cJSON_CreateBool(*(const bool *)slot);
			break;
		case CFG_STRING:
			if (optional && slot[0] == '\0')
				continue;
			item = cJSON_CreateString(slot);
			break;
		case CFG_ENUM:
			item = cJSON_CreateString(f->enum_names[*(const int *)slot]);
			break;
		case CFG_OBJECT:
			item = cfg_to_json(f->sub, slot);
			break;
		case CFG_CUSTOM:
			item = f->sub ? cfg_to_json(f->sub, slot) : cJSON_CreateString(slot);
			break;
		case CFG_ARRAY: {
			int n = *(const int *)((const char *)src + f->count_offset);

			if (optional && n == 0)
				continue;
			item = cJSON_CreateArray();
			for (int i = 0; item && i < n && i < f->max_items; i++) {
				cJSON *e = cfg_json_push(item, cfg_to_json(f->sub, slot + (size_t)i * f->size));

				if (!e) {
					cJSON_Delete(item);
					item = NULL;
				}
			}
			break;
		}
		}
		if (!item || !cJSON_AddItemToObject(obj, f->key, item)) {
			cJSON_Delete(item);
			cJSON_Delete(obj);
			return NULL;
		}
	}
	return obj;
}

enum sc_status cfg_array_alloc(struct cfg_reader *rd, const cJSON *obj, const char *key,
			       size_t elem_size, const cJSON **items, void **out, int *n)
{
	char where[SC_ERROR_PTR_MAX];
	const cJSON *a = cJSON_GetObjectItemCaseSensitive(obj, key);

	*out = NULL;
	*n = 0;
	*items = a;
	cfg_pointer_key(where, sizeof(where), "", key);
	if (!cJSON_IsArray(a))
		return sc_error_set(rd->err, SC_EINVAL, rd->file, where, "expected an array");
	*n = cJSON_GetArraySize(a);
	*out = calloc((size_t)*n + 1, elem_size);
	if (!*out) {
		*n = 0;
		return sc_error_set(rd->err, SC_ENOMEM, rd->file, NULL, "out of memory");
	}
	return SC_OK;
}

enum sc_status cfg_array_read(struct cfg_reader *rd, const cJSON *obj, const char *key,
			      size_t elem_size, void **out, int *n, cfg_item_reader read, void *ctx)
{
	char base[SC_ERROR_PTR_MAX], where[SC_ERROR_PTR_MAX];
	const cJSON *items, *item;
	enum sc_status st;
	int i = 0;

	if ((st = cfg_array_alloc(rd, obj, key, elem_size, &items, out, n)) != SC_OK)
		return st;
	cfg_pointer_key(base, sizeof(base), "", key);
	cJSON_ArrayForEach(item, items) {
		cfg_pointer_index(where, sizeof(where), base, i);
		if ((st = read(rd, item, i, where, ctx)) != SC_OK)
			return st;
		i++;
	}
	return SC_OK;
}

enum sc_status cfg_list_file(const char *dir, const char *file, const char *const *top,
			     const char *key, size_t elem_size, void **out, int *n,
			     cfg_item_reader read, void *ctx, struct sc_error *err)
{
	char path[1024];
	struct cfg_reader rd = { path, err, NULL };
	enum sc_status st;
	cJSON *root;

	snprintf(path, sizeof(path), "%s/%s", dir, file);
	*out = NULL;
	*n = 0;
	if (!(root = cfg_parse_file(path, err)))
		return err ? err->status : SC_EINVAL;
	if ((st = cfg_check_keys(&rd, root, top, "")) == SC_OK &&
	    (st = cfg_check_schema_version(root, path, err)) == SC_OK) {
		if (cJSON_GetObjectItemCaseSensitive(root, key))
			st = cfg_array_read(&rd, root, key, elem_size, out, n, read, ctx);
		else
			st = sc_error_set(err, SC_EINVAL, path, "/", "missing required key \"%s\"", key);
	}
	cJSON_Delete(root);
	if (st != SC_OK) {
		free(*out);
		*out = NULL;
		*n = 0;
	}
	return st;
}

enum sc_status cfg_check_schema_version(const cJSON *root, const char *path, struct sc_error *err)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(root, "schema_version");

	if (!v)
		return sc_error_set(err, SC_EINVAL, path, "/", "missing required key \"schema_version\"");
	if (!cJSON_IsNumber(v) || v->valuedouble != 1)
		return sc_error_set(err, SC_EINVAL, path, "/schema_version", "unsupported schema version (expected 1)");
	return SC_OK;
}
