/* overrides.c: `--set PATH=VALUE` applied to parsed documents (see
 * overrides.h).  No rule about what a value may be lives here: the document's
 * own loader reads the edited tree. */
#include "overrides.h"
#include "cfg_json.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const doc_names[] = { "scenario", "gpus", "instances", "fabrics", "storage",
					 "models", "calibrations", NULL };

bool cfg_overrides_doc(const char *name, enum cfg_ov_doc *doc)
{
	for (int i = 1; doc_names[i]; i++)
		if (strcmp(name, doc_names[i]) == 0) {
			*doc = (enum cfg_ov_doc)i;
			return true;
		}
	return false;
}

/* An error about override o (or about text, before it is one). */
static enum sc_status ov_error(struct sc_error *err, const char *text, const char *fmt, const char *a,
			       const char *b)
{
	char file[SC_ERROR_FILE_MAX];

	snprintf(file, sizeof(file), "--set %s", text);
	return sc_error_set(err, SC_EINVAL, file, NULL, fmt, a, b);
}

/* Strict JSON for VALUE when it is JSON; else a string, checked as the
 * JSON string it becomes would be (no control bytes, valid UTF-8).  NULL on
 * error (err filled). */
static cJSON *parse_value(const char *text, const char *value, struct sc_error *err)
{
	struct sc_error scratch;
	cJSON *item;
	size_t len = strlen(value);
	char *quoted;
	size_t q = 0;

	sc_error_clear(&scratch);
	item = len ? cfg_parse_buffer("value", value, len, &scratch) : NULL;
	if (item)
		return item;
	if (value[0] == '{' || value[0] == '[' || value[0] == '"') {
		ov_error(err, text, "the value is not valid JSON: %s%s", scratch.message, "");
		return NULL;
	}
	quoted = malloc(len * 6 + 3);
	if (!quoted) {
		sc_error_set(err, SC_ENOMEM, NULL, NULL, "out of memory");
		return NULL;
	}
	quoted[q++] = '"';
	for (const char *p = value; *p; p++) {
		if (*p == '"' || *p == '\\')
			quoted[q++] = '\\';
		quoted[q++] = *p;
	}
	quoted[q++] = '"';
	sc_error_clear(&scratch);
	item = cfg_parse_buffer("value", quoted, q, &scratch);
	free(quoted);
	if (!item)
		ov_error(err, text, "the value is not valid text: %s%s", scratch.message, "");
	return item;
}

static bool has_empty_segment(const char *text, size_t plen)
{
	for (size_t i = 0; i + 1 < plen; i++)
		if (text[i] == '.' && text[i + 1] == '.')
			return true;
	return false;
}

enum sc_status cfg_overrides_add(struct cfg_overrides *ov, const char *text,
				 struct sc_error *err)
{
	const char *eq = strchr(text, '=');
	struct cfg_override *o;
	size_t plen;
	const char *path;
	cJSON *v;

	if (strlen(text) >= CFG_OVERRIDE_TEXT_MAX)
		return ov_error(err, "...", "the override is longer than %s bytes%s", "511", "");
	if (!eq)
		return ov_error(err, text, "expected PATH=VALUE (e.g. layout.tp=4)%s%s", "", "");
	plen = (size_t)(eq - text);
	if (plen == 0)
		return ov_error(err, text, "empty PATH before '='%s%s", "", "");
	if (text[0] == '.' || eq[-1] == '.' || has_empty_segment(text, plen))
		return ov_error(err, text, "empty segment in PATH (segments are separated by one '.')%s%s",
				"", "");
	if (ov->n >= CFG_MAX_OVERRIDES)
		return ov_error(err, text, "at most %s overrides%s", "64", "");
	if (!(v = parse_value(text, eq + 1, err)))
		return err->status;
	cJSON_Delete(v);
	o = &ov->item[ov->n];
	memset(o, 0, sizeof(*o));
	snprintf(o->text, sizeof(o->text), "%s", text);
	snprintf(o->value, sizeof(o->value), "%s", eq + 1);
	path = text;
	o->doc = CFG_OV_SCENARIO;
	if (plen > 8 && strncmp(text, "catalog.", 8) == 0) {
		const char *name = text + 8, *dot = memchr(name, '.', plen - 8);
		char docname[32];

		if (!dot || (size_t)(dot - name) >= sizeof(docname) || !memchr(dot + 1, '.', (size_t)(eq - dot - 1)))
			return ov_error(err, text, "expected catalog.KIND.NAME.KEY=VALUE (KIND: gpus, instances, "
					"fabrics, storage, models or calibrations)%s%s", "", "");
		snprintf(docname, sizeof(docname), "%.*s", (int)(dot - name), name);
		if (!cfg_overrides_doc(docname, &o->doc)) {
			const char *hint = cfg_did_you_mean(docname, doc_names + 1);

			if (hint)
				return ov_error(err, text, "unknown catalogue kind \"%s\" (did you mean \"%s\"?)",
						docname, hint);
			return ov_error(err, text, "unknown catalogue kind \"%s\" (expected gpus, instances, "
					"fabrics, storage, models or calibrations)%s", docname, "");
		}
		path = dot + 1;
	} else if (strncmp(text, "catalog", plen) == 0 || strncmp(text, "catalog.", 8) == 0) {
		return ov_error(err, text, "expected catalog.KIND.NAME.KEY=VALUE%s%s", "", "");
	}
	snprintf(o->path, sizeof(o->path), "%.*s", (int)(eq - path), path);
	ov->n++;
	return SC_OK;
}

/* The catalogue kind a scenario key refers to by name, for a hint. */
static const char *ref_kind(const char *key)
{
	static const char *const map[][2] = { { "instance", "instances" }, { "gpu", "gpus" },
					      { "fabric", "fabrics" }, { "model", "models" },
					      { "calibration", "calibrations" } };

	for (size_t i = 0; i < sizeof(map) / sizeof(map[0]); i++)
		if (strcmp(key, map[i][0]) == 0)
			return map[i][1];
	return NULL;
}

/* KEY=null names a key that is not there to remove. */
static enum sc_status no_key(const struct cfg_override *o, const cJSON *node, const char *ptr,
			     const char *seg, struct sc_error *err)
{
	const char *keys[257], *hint;
	const cJSON *e;
	char msg[SC_ERROR_MSG_MAX];
	int n = 0;

	cJSON_ArrayForEach(e, node)
		if (n < 256 && e->string)
			keys[n++] = e->string;
	keys[n] = NULL;
	hint = cfg_did_you_mean(seg, keys);
	snprintf(msg, sizeof(msg), "no key \"%s\" to remove from %s%s%s%s", seg, ptr[0] ? ptr : "/",
		 hint ? " (did you mean \"" : "", hint ? hint : "", hint ? "\"?)" : "");
	return ov_error(err, o->text, "%s%s", msg, "");
}

/* Walk segs (dotted) from node, creating objects on the way, and put the
 * value at the last segment. */
static enum sc_status set_path(struct cfg_override *o, cJSON *node, const char *base,
			       const char *segs, struct sc_error *err)
{
	char ptr[SC_ERROR_PTR_MAX], seg[CFG_OVERRIDE_TEXT_MAX], msg[SC_ERROR_MSG_MAX];
	const char *p = segs;
	cJSON *v;

	snprintf(ptr, sizeof(ptr), "%s", base);
	o->created[0] = '\0';
	for (;;) {
		const char *dot = strchr(p, '.');
		size_t n = dot ? (size_t)(dot - p) : strlen(p);
		cJSON *child = NULL;
		char next[SC_ERROR_PTR_MAX];
		long idx = -1;

		snprintf(seg, sizeof(seg), "%.*s", (int)n, p);
		if (cJSON_IsArray(node)) {
			char *end = NULL;

			idx = strtol(seg, &end, 10);
			if (!seg[0] || *end || idx < 0 || idx >= cJSON_GetArraySize(node)) {
				snprintf(msg, sizeof(msg), "%s is an array of %d; \"%s\" is not an index in it",
					 ptr[0] ? ptr : "/", cJSON_GetArraySize(node), seg);
				return ov_error(err, o->text, "%s%s", msg, "");
			}
			cfg_pointer_index(next, sizeof(next), ptr, (int)idx);
			child = cJSON_GetArrayItem(node, (int)idx);
		} else {
			cfg_pointer_key(next, sizeof(next), ptr, seg);
			child = cJSON_GetObjectItemCaseSensitive(node, seg);
		}
		if (!dot) {
			if (!(v = parse_value(o->text, o->value, err)))
				return err->status;
			if (cJSON_IsNull(v) && idx < 0) {
				/* null removes the key: its default applies (where a
				 * loader accepts null it means "not given" too) */
				cJSON_Delete(v);
				if (!child)
					return no_key(o, node, ptr, seg, err);
				cJSON_DeleteItemFromObjectCaseSensitive(node, seg);
				snprintf(o->pointer, sizeof(o->pointer), "%s", next);
				return SC_OK;
			}
			if (!(idx >= 0 ? cJSON_ReplaceItemInArray(node, (int)idx, v)
			      : child ? cJSON_ReplaceItemInObjectCaseSensitive(node, seg, v)
			      : cJSON_AddItemToObject(node, seg, v))) {
				cJSON_Delete(v);
				return sc_error_set(err, SC_ENOMEM, NULL, NULL, "out of memory");
			}
			snprintf(o->pointer, sizeof(o->pointer), "%s", next);
			return SC_OK;
		}
		if (!child) {
			if (!(child = cJSON_AddObjectToObject(node, seg)))
				return sc_error_set(err, SC_ENOMEM, NULL, NULL, "out of memory");
			if (!o->created[0])
				snprintf(o->created, sizeof(o->created), "%s", next);
		} else if (!cJSON_IsObject(child) && !cJSON_IsArray(child)) {
			const char *kind = ref_kind(seg);

			if (cJSON_IsString(child) && kind)
				snprintf(msg, sizeof(msg), "%s is the name \"%s\", not an object (to change that "
					 "catalogue entry, use --set catalog.%s.%s.%s=...)", next,
					 child->valuestring, kind, child->valuestring, dot + 1);
			else
				snprintf(msg, sizeof(msg), "%s is %s, not an object", next,
					 cfg_json_type_name(child));
			return ov_error(err, o->text, "%s%s", msg, "");
		}
		node = child;
		snprintf(ptr, sizeof(ptr), "%s", next);
		p = dot + 1;
	}
}

/* A list document: find the entry whose "name" is the longest prefix of
 * o->path followed by '.'. */
static enum sc_status apply_list(struct cfg_override *o, const char *list_key, cJSON *root,
				 struct sc_error *err)
{
	cJSON *list = cJSON_GetObjectItemCaseSensitive(root, list_key), *e, *best = NULL;
	const char *names[513];
	int n = 0, i = 0, best_i = -1;
	size_t best_len = 0;
	char base[SC_ERROR_PTR_MAX], key[SC_ERROR_PTR_MAX];
	const char *hint = NULL;

	if (!cJSON_IsArray(list))
		return SC_OK; /* the loader says what is wrong with the file */
	cJSON_ArrayForEach(e, list) {
		const cJSON *name = cJSON_GetObjectItemCaseSensitive(e, "name");

		if (cJSON_IsString(name)) {
			size_t len = strlen(name->valuestring);

			if (n < 512)
				names[n++] = name->valuestring;
			if (len > best_len && strncmp(o->path, name->valuestring, len) == 0 &&
			    o->path[len] == '.') {
				best = e;
				best_i = i;
				best_len = len;
			}
		}
		i++;
	}
	names[n] = NULL;
	if (best) {
		cfg_pointer_key(key, sizeof(key), "", list_key);
		cfg_pointer_index(base, sizeof(base), key, best_i);
		return set_path(o, best, base, o->path + best_len + 1, err);
	}
	for (const char *d = strchr(o->path, '.'); d && !hint; d = strchr(d + 1, '.')) {
		char cand[CFG_OVERRIDE_TEXT_MAX];

		snprintf(cand, sizeof(cand), "%.*s", (int)(d - o->path), o->path);
		hint = cfg_did_you_mean(cand, names);
	}
	snprintf(key, sizeof(key), "%s", o->path);
	if (hint)
		return ov_error(err, o->text, "no catalogue entry named by \"%s\" (did you mean \"%s\"?)", key,
				hint);
	return ov_error(err, o->text, "no catalogue entry named by \"%s\" (see `stepcast catalog %s`)", key,
			list_key);
}

enum sc_status cfg_overrides_apply(struct cfg_overrides *ov, enum cfg_ov_doc doc,
				   const char *list_key, const char *entry, cJSON *root,
				   const char *file, struct sc_error *err)
{
	enum sc_status st;

	if (!ov)
		return SC_OK;
	for (int i = 0; i < ov->n; i++) {
		struct cfg_override *o = &ov->item[i];

		if (o->doc != doc)
			continue;
		if (doc == CFG_OV_SCENARIO) {
			if (!cJSON_IsObject(root))
				return SC_OK; /* the loader reports it */
			st = set_path(o, root, "", o->path, err);
		} else if (doc == CFG_OV_CALIBRATIONS) {
			size_t len = strlen(entry);

			if (strncmp(o->path, entry, len) != 0 || o->path[len] != '.' || !cJSON_IsObject(root))
				continue;
			st = set_path(o, root, "", o->path + len + 1, err);
		} else {
			st = apply_list(o, list_key, root, err);
		}
		if (st != SC_OK)
			return st;
		snprintf(o->applied_file, sizeof(o->applied_file), "%s", file);
	}
	return SC_OK;
}

static bool under(const char *p, const char *q)
{
	size_t n = strlen(q);

	return strncmp(p, q, n) == 0 && p[n] == '/';
}

void cfg_overrides_blame(const struct cfg_overrides *ov, struct sc_error *err)
{
	const char *p;

	if (!ov || !err)
		return;
	p = strcmp(err->pointer, "/") == 0 ? "" : err->pointer;
	for (int i = ov->n - 1; i >= 0; i--) {
		const struct cfg_override *o = &ov->item[i];
		bool exact, inside;

		if (!o->applied_file[0] || strcmp(o->applied_file, err->file) != 0)
			continue;
		exact = strcmp(p, o->pointer) == 0 || (o->created[0] && strcmp(p, o->created) == 0);
		inside = under(p, o->pointer) || (o->created[0] && under(p, o->created));
		if (exact || inside) {
			snprintf(err->file, sizeof(err->file), "--set %s", o->text);
			if (exact)
				err->pointer[0] = '\0';
			return;
		}
	}
	for (int i = ov->n - 1; i >= 0; i--) {
		const struct cfg_override *o = &ov->item[i];
		size_t len = strlen(err->message);

		if (!o->applied_file[0] || strcmp(o->applied_file, err->file) != 0 || !under(o->pointer, p))
			continue;
		snprintf(err->message + len, sizeof(err->message) - len, " (with --set %s)", o->text);
		return;
	}
	/* not about one override's value (a rule across keys: tp x pp x cp x dp
	 * against the GPUs): say which ones changed the file */
	{
		int shown = 0;

		for (int i = 0; i < ov->n; i++) {
			const struct cfg_override *o = &ov->item[i];
			size_t len = strlen(err->message);

			if (!o->applied_file[0] || strcmp(o->applied_file, err->file) != 0)
				continue;
			snprintf(err->message + len, sizeof(err->message) - len, "%s--set %s",
				 shown++ ? ", " : " (after ", o->text);
		}
		if (shown) {
			size_t len = strlen(err->message);

			snprintf(err->message + len, sizeof(err->message) - len, ")");
		}
	}
}

cJSON *cfg_parse_scenario_file(const char *path, struct cfg_overrides *ov, struct sc_error *err)
{
	cJSON *root = cfg_parse_file(path, err);

	if (root && cfg_overrides_apply(ov, CFG_OV_SCENARIO, NULL, NULL, root, path, err) != SC_OK) {
		cJSON_Delete(root);
		return NULL;
	}
	return root;
}

cJSON *cfg_overrides_json(const struct cfg_overrides *ov)
{
	cJSON *arr;

	if (!ov || ov->n == 0 || !(arr = cJSON_CreateArray()))
		return NULL;
	for (int i = 0; i < ov->n; i++) {
		cJSON *s = cfg_json_push(arr, cJSON_CreateString(ov->item[i].text));

		if (!s) {
			cJSON_Delete(arr);
			return NULL;
		}
	}
	return arr;
}
