/* test_schema.c: configs/schema/ describes exactly what the loader accepts.
 *
 * For every config kind, the JSON Schema's object (the array items of a
 * catalogue file, or the whole scenario / calibration profile) is compared
 * with the loader's field table, recursively into nested objects:
 *   - the set of properties equals the set of keys, and additionalProperties
 *     is false (the loader rejects unknown keys);
 *   - "required" equals the keys with CFG_REQUIRED;
 *   - each property's JSON types equal the field's (integer, number, boolean,
 *     string, enum values, object, "name or object"), with "null" exactly when
 *     the field is CFG_NULLABLE;
 *   - numeric bounds equal the loader's (positive, non-negative, ranges) and
 *     string lengths equal its buffers (and minLength 1, or a pattern, for
 *     required strings).
 * A self-check mutates a schema in memory and expects the comparison to fail,
 * so the test cannot pass by comparing nothing.  Runs from the repo root.
 */
#include <float.h>
#include <math.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "models/calibration.h"
#include "sim/config/catalog_load.h"
#include "sim/config/cfg_json.h"
#include "sim/config/scenario_load.h"
#include "sim/serve/serve_config.h"
#include "sim/serve/serve_datasets.h"
#include "sc_test.h"

#define SCHEMA_DIR "configs/schema/"

/* Loaded schema documents, by file name, freed at the end. */
static struct {
	char name[128];
	cJSON *doc;
} docs[16];
static int n_docs;

/* Mismatches found by the current comparison; printed unless quiet. */
static int mismatches;
static bool quiet;

static void mismatch(const char *where, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static void mismatch(const char *where, const char *fmt, ...)
{
	va_list ap;

	mismatches++;
	if (quiet)
		return;
	fprintf(stderr, "schema mismatch: %s: ", where);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

static cJSON *load_doc(const char *name)
{
	char path[256];
	struct sc_error err;
	cJSON *doc;

	for (int i = 0; i < n_docs; i++)
		if (strcmp(docs[i].name, name) == 0)
			return docs[i].doc;
	snprintf(path, sizeof(path), SCHEMA_DIR "%s", name);
	sc_error_clear(&err);
	doc = cfg_parse_file(path, &err);
	if (!doc) {
		fprintf(stderr, "cannot load %s: %s\n", path, err.message);
		return NULL;
	}
	if (n_docs < (int)(sizeof(docs) / sizeof(docs[0]))) {
		snprintf(docs[n_docs].name, sizeof(docs[n_docs].name), "%s", name);
		docs[n_docs++].doc = doc;
	}
	return doc;
}

/* Follow a JSON pointer ("/a/b", RFC 6901 escapes) inside doc. */
static const cJSON *follow_pointer(const cJSON *doc, const char *ptr)
{
	const cJSON *node = doc;
	char tok[256];

	while (node && *ptr == '/') {
		size_t n = 0;
		ptr++;
		while (*ptr && *ptr != '/' && n + 1 < sizeof(tok)) {
			if (ptr[0] == '~' && ptr[1] == '0') {
				tok[n++] = '~';
				ptr += 2;
			} else if (ptr[0] == '~' && ptr[1] == '1') {
				tok[n++] = '/';
				ptr += 2;
			} else {
				tok[n++] = *ptr++;
			}
		}
		tok[n] = '\0';
		node = cJSON_IsArray(node) ? cJSON_GetArrayItem(node, atoi(tok))
					   : cJSON_GetObjectItemCaseSensitive(node, tok);
	}
	return node;
}

/* A schema node with its "$ref"s followed ("#/..." inside the current
 * document, "FILE#/..." in configs/schema/FILE).  *doc tracks the document. */
static const cJSON *resolve(const cJSON *node, const cJSON **doc)
{
	for (int depth = 0; node && depth < 16; depth++) {
		const cJSON *ref = cJSON_GetObjectItemCaseSensitive(node, "$ref");
		char file[128];
		const char *hash;

		if (!cJSON_IsString(ref))
			return node;
		hash = strchr(ref->valuestring, '#');
		if (hash != ref->valuestring) {
			size_t len = hash ? (size_t)(hash - ref->valuestring) : strlen(ref->valuestring);
			const char *slash;
			snprintf(file, sizeof(file), "%.*s", (int)len, ref->valuestring);
			/* An absolute $id-style URL: keep its last path segment. */
			slash = strrchr(file, '/');
			*doc = load_doc(slash ? slash + 1 : file);
			if (!*doc)
				return NULL;
		}
		node = hash ? follow_pointer(*doc, hash + 1) : *doc;
	}
	return node;
}

enum {
	T_STRING = 1, T_NUMBER = 2, T_INTEGER = 4, T_BOOLEAN = 8,
	T_NULL = 16, T_OBJECT = 32, T_ARRAY = 64
};

static unsigned type_bit(const char *name)
{
	static const char *const names[] = { "string", "number", "integer", "boolean",
					     "null", "object", "array" };
	for (int i = 0; i < 7; i++)
		if (strcmp(name, names[i]) == 0)
			return 1u << i;
	return 0;
}

static unsigned value_type(const cJSON *v)
{
	if (cJSON_IsString(v))
		return T_STRING;
	if (cJSON_IsNumber(v))
		return v->valuedouble == floor(v->valuedouble) ? T_INTEGER : T_NUMBER;
	if (cJSON_IsBool(v))
		return T_BOOLEAN;
	if (cJSON_IsNull(v))
		return T_NULL;
	return cJSON_IsArray(v) ? T_ARRAY : T_OBJECT;
}

/* The JSON types a schema node accepts: "type", else "enum"/"const" values,
 * else the union of its oneOf/anyOf branches. */
static unsigned schema_types(const cJSON *node, const cJSON *doc)
{
	const cJSON *t, *e, *branch;
	unsigned bits = 0;

	node = resolve(node, &doc);
	if (!node)
		return 0;
	t = cJSON_GetObjectItemCaseSensitive(node, "type");
	if (cJSON_IsString(t))
		return type_bit(t->valuestring);
	if (cJSON_IsArray(t)) {
		cJSON_ArrayForEach(e, t)
			if (cJSON_IsString(e))
				bits |= type_bit(e->valuestring);
		return bits;
	}
	if ((e = cJSON_GetObjectItemCaseSensitive(node, "enum"))) {
		const cJSON *v;
		cJSON_ArrayForEach(v, e)
			bits |= value_type(v);
		return bits;
	}
	if ((e = cJSON_GetObjectItemCaseSensitive(node, "const")))
		return value_type(e);
	if ((e = cJSON_GetObjectItemCaseSensitive(node, "oneOf")) ||
	    (e = cJSON_GetObjectItemCaseSensitive(node, "anyOf"))) {
		cJSON_ArrayForEach(branch, e)
			bits |= schema_types(branch, doc);
		return bits;
	}
	return 0;
}

/* The branch of a oneOf/anyOf (or the node itself) that accepts objects. */
static const cJSON *object_branch(const cJSON *node, const cJSON **doc)
{
	const cJSON *alts, *branch;

	node = resolve(node, doc);
	if (!node)
		return NULL;
	if (!(alts = cJSON_GetObjectItemCaseSensitive(node, "oneOf")) &&
	    !(alts = cJSON_GetObjectItemCaseSensitive(node, "anyOf")))
		return node;
	cJSON_ArrayForEach(branch, alts) {
		const cJSON *bdoc = *doc;
		if (schema_types(branch, bdoc) & T_OBJECT) {
			const cJSON *r = resolve(branch, &bdoc);
			*doc = bdoc;
			return r;
		}
	}
	return NULL;
}

static void type_names(unsigned bits, char *out, size_t n)
{
	static const char *const names[] = { "string", "number", "integer", "boolean",
					     "null", "object", "array" };
	out[0] = '\0';
	for (int i = 0; i < 7; i++)
		if (bits & (1u << i)) {
			size_t len = strlen(out);
			snprintf(out + len, n - len, "%s%s", len ? "|" : "", names[i]);
		}
	if (!out[0])
		snprintf(out, n, "nothing");
}

struct bound {
	double v;
	bool excl;
	bool set;
};

/* Integer bounds are compared in their inclusive form (> 0 is >= 1). */
static void normalise(struct bound *b, bool integer, bool lower)
{
	if (!b->set || !integer || !b->excl)
		return;
	b->v = lower ? floor(b->v) + 1 : ceil(b->v) - 1;
	b->excl = false;
}

static bool bound_eq(struct bound a, struct bound b)
{
	if (a.set != b.set)
		return false;
	return !a.set || (a.v == b.v && a.excl == b.excl);
}

static void bound_str(struct bound b, bool lower, char *out, size_t n)
{
	if (!b.set)
		snprintf(out, n, "none");
	else
		snprintf(out, n, "%s %g", lower ? (b.excl ? ">" : ">=") : (b.excl ? "<" : "<="), b.v);
}

static void check_number(const char *where, const struct cfg_field *f,
			 const cJSON *node, bool integer)
{
	struct bound lo = { 0 }, hi = { 0 }, slo = { 0 }, shi = { 0 };
	const cJSON *v;
	char a[64], b[64];

	if (f->flags & CFG_POSITIVE)
		lo = (struct bound){ 0, true, true };
	if (f->flags & CFG_NONNEG)
		lo = (struct bound){ 0, false, true };
	if (f->flags & CFG_BOUNDED) {
		if (!lo.set || f->min > lo.v || (f->min == lo.v && !lo.excl))
			lo = (struct bound){ f->min, false, true };
		hi = (struct bound){ f->max, false, true };
	}
	if (cJSON_IsNumber(v = cJSON_GetObjectItemCaseSensitive(node, "const"))) {
		slo = (struct bound){ v->valuedouble, false, true };
		shi = slo;
	}
	if (cJSON_IsNumber(v = cJSON_GetObjectItemCaseSensitive(node, "minimum")))
		slo = (struct bound){ v->valuedouble, false, true };
	if (cJSON_IsNumber(v = cJSON_GetObjectItemCaseSensitive(node, "exclusiveMinimum")) &&
	    (!slo.set || v->valuedouble >= slo.v))
		slo = (struct bound){ v->valuedouble, true, true };
	if (cJSON_IsNumber(v = cJSON_GetObjectItemCaseSensitive(node, "maximum")))
		shi = (struct bound){ v->valuedouble, false, true };
	if (cJSON_IsNumber(v = cJSON_GetObjectItemCaseSensitive(node, "exclusiveMaximum")) &&
	    (!shi.set || v->valuedouble <= shi.v))
		shi = (struct bound){ v->valuedouble, true, true };
	normalise(&lo, integer, true);
	normalise(&slo, integer, true);
	normalise(&hi, integer, false);
	normalise(&shi, integer, false);
	if (!bound_eq(lo, slo)) {
		bound_str(lo, true, a, sizeof(a));
		bound_str(slo, true, b, sizeof(b));
		mismatch(where, "lower bound: loader %s, schema %s", a, b);
	}
	if (!bound_eq(hi, shi)) {
		bound_str(hi, false, a, sizeof(a));
		bound_str(shi, false, b, sizeof(b));
		mismatch(where, "upper bound: loader %s, schema %s", a, b);
	}
}

static void check_string(const char *where, const struct cfg_field *f, const cJSON *node)
{
	const cJSON *max = cJSON_GetObjectItemCaseSensitive(node, "maxLength");
	const cJSON *min = cJSON_GetObjectItemCaseSensitive(node, "minLength");
	int want_min = (f->flags & CFG_REQUIRED) ? 1 : 0;
	int got_min = cJSON_IsNumber(min) ? (int)min->valuedouble : 0;

	if (!cJSON_IsNumber(max) || max->valuedouble != (double)(f->size - 1))
		mismatch(where, "maxLength should be %zu (the loader's buffer), schema has %s",
			 f->size - 1, cJSON_IsNumber(max) ? "another" : "none");
	/* A pattern (e.g. a date's) that cannot match "" stands in for minLength. */
	if (got_min != want_min && !(want_min && cJSON_GetObjectItemCaseSensitive(node, "pattern")))
		mismatch(where, "minLength should be %d (%s), schema has %d", want_min,
			 want_min ? "the loader rejects an empty required string"
				  : "the loader accepts an empty optional string", got_min);
}

static void check_enum(const char *where, const struct cfg_field *f, const cJSON *node)
{
	const cJSON *e = cJSON_GetObjectItemCaseSensitive(node, "enum"), *v;
	int n_names = 0, n_strings = 0;

	if (!cJSON_IsArray(e)) {
		mismatch(where, "the loader reads an enum; the schema has no \"enum\"");
		return;
	}
	for (int i = 0; f->enum_names[i]; i++) {
		bool found = false;
		n_names++;
		cJSON_ArrayForEach(v, e)
			if (cJSON_IsString(v) && strcmp(v->valuestring, f->enum_names[i]) == 0)
				found = true;
		if (!found)
			mismatch(where, "enum value \"%s\" is accepted by the loader but not in the schema",
				 f->enum_names[i]);
	}
	cJSON_ArrayForEach(v, e)
		if (cJSON_IsString(v))
			n_strings++;
	if (n_strings != n_names)
		mismatch(where, "the schema's enum has %d strings, the loader accepts %d",
			 n_strings, n_names);
}

static void compare_object(const char *where, const struct cfg_field *fields,
			   const cJSON *obj, const cJSON *doc);

/* An array of objects: 1..max_items items, each the element's table. */
static void check_array(const char *where, const struct cfg_field *f, const cJSON *node,
			const cJSON *doc)
{
	const cJSON *lo = cJSON_GetObjectItemCaseSensitive(node, "minItems");
	const cJSON *hi = cJSON_GetObjectItemCaseSensitive(node, "maxItems");
	const cJSON *items = cJSON_GetObjectItemCaseSensitive(node, "items");

	if (!cJSON_IsNumber(lo) || lo->valuedouble != 1)
		mismatch(where, "minItems should be 1 (the loader rejects an empty array)");
	if (!cJSON_IsNumber(hi) || hi->valuedouble != f->max_items)
		mismatch(where, "maxItems should be %d (the loader's capacity)", f->max_items);
	if (!items)
		mismatch(where, "the loader reads an array of objects; the schema has no \"items\"");
	else
		compare_object(where, f->sub, items, doc);
}

static void compare_field(const char *where, const struct cfg_field *f,
			  const cJSON *prop, const cJSON *doc)
{
	unsigned want = 0, got;
	char a[96], b[96];
	const cJSON *node = resolve(prop, &doc), *odoc;

	if (!node) {
		mismatch(where, "unresolvable \"$ref\"");
		return;
	}
	switch (f->type) {
	case CFG_INT: want = T_INTEGER; break;
	case CFG_DOUBLE: want = T_NUMBER; break;
	case CFG_BOOL: want = T_BOOLEAN; break;
	case CFG_STRING: want = T_STRING; break;
	case CFG_ENUM: want = T_STRING; break;
	case CFG_OBJECT: want = T_OBJECT; break;
	case CFG_CUSTOM: want = f->sub ? T_STRING | T_OBJECT : T_STRING; break;
	case CFG_ARRAY: want = T_ARRAY; break;
	}
	if (f->flags & CFG_NULLABLE)
		want |= T_NULL;
	got = schema_types(node, doc);
	/* a custom reader without a sub-table reads a name, or a list of
	 * names (recompute_modules): the schema says which */
	if (f->type == CFG_CUSTOM && !f->sub && (got & ~T_NULL) == T_ARRAY)
		want = (want & T_NULL) | T_ARRAY;
	if (got != want) {
		type_names(want, a, sizeof(a));
		type_names(got, b, sizeof(b));
		mismatch(where, "type: loader reads %s, schema says %s", a, b);
	}
	switch (f->type) {
	case CFG_INT:
	case CFG_DOUBLE:
		check_number(where, f, node, f->type == CFG_INT);
		break;
	case CFG_STRING:
		check_string(where, f, node);
		break;
	case CFG_ENUM:
		check_enum(where, f, node);
		break;
	case CFG_OBJECT:
		compare_object(where, f->sub, node, doc);
		break;
	case CFG_CUSTOM:
		if (f->sub) {
			odoc = doc;
			node = object_branch(prop, &odoc);
			if (!node)
				mismatch(where, "the loader takes an inline object; the schema has no object branch");
			else
				compare_object(where, f->sub, node, odoc);
		}
		break;
	case CFG_ARRAY:
		check_array(where, f, node, doc);
		break;
	case CFG_BOOL:
		break;
	}
}

static bool in_string_array(const cJSON *arr, const char *s)
{
	const cJSON *v;

	cJSON_ArrayForEach(v, arr)
		if (cJSON_IsString(v) && strcmp(v->valuestring, s) == 0)
			return true;
	return false;
}

static const struct cfg_field *find_field(const struct cfg_field *fields, const char *key)
{
	for (const struct cfg_field *f = fields; f->key; f++)
		if (strcmp(f->key, key) == 0)
			return f;
	return NULL;
}

/* Compare an object schema with a field table. */
static void compare_object(const char *where, const struct cfg_field *fields,
			   const cJSON *obj, const cJSON *doc)
{
	const cJSON *props, *req, *addl, *p;
	char sub[512];

	obj = resolve(obj, &doc);
	if (!obj || !cJSON_IsObject(obj)) {
		mismatch(where, "no object schema");
		return;
	}
	props = cJSON_GetObjectItemCaseSensitive(obj, "properties");
	req = cJSON_GetObjectItemCaseSensitive(obj, "required");
	addl = cJSON_GetObjectItemCaseSensitive(obj, "additionalProperties");
	if (!cJSON_IsFalse(addl))
		mismatch(where, "additionalProperties must be false: the loader rejects unknown keys");
	if (!cJSON_IsObject(props)) {
		mismatch(where, "no \"properties\"");
		return;
	}
	for (const struct cfg_field *f = fields; f->key; f++) {
		snprintf(sub, sizeof(sub), "%s/%s", where, f->key);
		p = cJSON_GetObjectItemCaseSensitive(props, f->key);
		if (!p) {
			mismatch(sub, "the loader accepts this key; the schema does not describe it");
			continue;
		}
		if (((f->flags & CFG_REQUIRED) != 0) != in_string_array(req, f->key))
			mismatch(sub, "the loader %s it; the schema's \"required\" %s it",
				 (f->flags & CFG_REQUIRED) ? "requires" : "does not require",
				 in_string_array(req, f->key) ? "lists" : "does not list");
		compare_field(sub, f, p, doc);
	}
	cJSON_ArrayForEach(p, props) {
		if (!find_field(fields, p->string)) {
			snprintf(sub, sizeof(sub), "%s/%s", where, p->string);
			mismatch(sub, "the schema describes this key; the loader rejects it");
		}
	}
	cJSON_ArrayForEach(p, req) {
		if (cJSON_IsString(p) && !find_field(fields, p->valuestring)) {
			snprintf(sub, sizeof(sub), "%s/%s", where, p->valuestring);
			mismatch(sub, "\"required\" lists a key the loader does not know");
		}
	}
}

/* A schema file holding several lists, { schema_version, KEY: [ items ],
 * ... } (configs/resilience.json): KEY's items against fields. */
static int compare_list_schema(const char *file, const char *key, const struct cfg_field *fields)
{
	char where[128];
	const cJSON *doc, *items;

	snprintf(where, sizeof(where), "%s#/%s/items", file, key);
	doc = load_doc(file);
	if (!doc) {
		mismatches++;
		return mismatches;
	}
	items = cJSON_GetObjectItemCaseSensitive(follow_pointer(doc, "/properties"), key);
	items = resolve(items, &doc);
	items = items ? cJSON_GetObjectItemCaseSensitive(items, "items") : NULL;
	if (!items) {
		mismatch(where, "no \"items\" schema for the %s array", key);
		return mismatches;
	}
	compare_object(where, fields, items, doc);
	return mismatches;
}

/* A catalogue file's schema: { schema_version, KIND: [ items ] }. */
static int compare_catalog_schema(const char *kind, const struct cfg_field *fields)
{
	char name[64];

	snprintf(name, sizeof(name), "%s.schema.json", kind);
	return compare_list_schema(name, kind, fields);
}

#define EXPECT_MATCH(expr) do { \
	mismatches = 0; \
	(void)(expr); \
	CHECK(mismatches == 0); \
} while (0)

static void test_catalog_schemas(void)
{
	EXPECT_MATCH(compare_catalog_schema("gpus", cfg_gpu_fields));
	EXPECT_MATCH(compare_catalog_schema("instances", cfg_instance_fields));
	EXPECT_MATCH(compare_catalog_schema("fabrics", cfg_fabric_fields));
	EXPECT_MATCH(compare_catalog_schema("storage", cfg_storage_fields));
	EXPECT_MATCH(compare_catalog_schema("models", cfg_model_fields));
}

/* A schema file's top level against the keys its loader reads: closed
 * (additionalProperties false), each of required[] a required property,
 * and no property outside required[] and optional[] (NULL: none). */
static void check_top_keys(const char *where, const cJSON *doc, const char *const *required,
			   const char *const *optional)
{
	const cJSON *props = cJSON_GetObjectItemCaseSensitive(doc, "properties"), *p;

	if (!cJSON_IsFalse(cJSON_GetObjectItemCaseSensitive(doc, "additionalProperties")))
		mismatch(where, "additionalProperties must be false");
	for (int i = 0; required[i]; i++) {
		if (!cJSON_GetObjectItemCaseSensitive(props, required[i]))
			mismatch(where, "no property \"%s\"", required[i]);
		if (!in_string_array(cJSON_GetObjectItemCaseSensitive(doc, "required"), required[i]))
			mismatch(where, "\"%s\" is not required", required[i]);
	}
	cJSON_ArrayForEach(p, props) {
		bool known = false;

		for (int i = 0; required[i]; i++)
			known |= strcmp(required[i], p->string) == 0;
		for (int i = 0; optional && optional[i]; i++)
			known |= strcmp(optional[i], p->string) == 0;
		if (!known)
			mismatch(where, "property \"%s\" is not read by the loader", p->string);
	}
}

/* configs/resilience.json: exactly the lists resilience_load() reads, all
 * required, each list's items against its field table. */
static void test_resilience_schema(void)
{
	static const char *const keys[] = { "schema_version", "profiles", "causes", "recovery",
					     "host_links", NULL };
	const cJSON *doc = load_doc("resilience.schema.json");

	CHECK(doc != NULL);
	if (!doc)
		return;
	mismatches = 0;
	check_top_keys("resilience.schema.json#", doc, keys, NULL);
	CHECK(mismatches == 0);
	EXPECT_MATCH(compare_list_schema("resilience.schema.json", "profiles", cfg_failure_profile_fields));
	EXPECT_MATCH(compare_list_schema("resilience.schema.json", "causes", cfg_failure_cause_fields));
	EXPECT_MATCH(compare_list_schema("resilience.schema.json", "recovery", cfg_recovery_fields));
	EXPECT_MATCH(compare_list_schema("resilience.schema.json", "host_links", cfg_host_link_fields));
}

static void test_scenario_schema(void)
{
	const cJSON *doc = load_doc("scenario.schema.json");

	CHECK(doc != NULL);
	if (doc)
		EXPECT_MATCH(compare_object("scenario.schema.json#", cfg_scenario_fields, doc, doc));
}

/* The calibration profile is read by cfg_read_calibration(): fixed metadata
 * keys (its local table) plus one entry per calib_params[] parameter, and
 * the optional schema_version 2 parts ("provenance", "fits", and a "range"
 * per parameter) read by exported tables. */
static void compare_calibration_v2(const cJSON *doc, const cJSON *props)
{
	const cJSON *prov = cJSON_GetObjectItemCaseSensitive(props, "provenance");
	const cJSON *fits = cJSON_GetObjectItemCaseSensitive(props, "fits");
	const cJSON *items = fits ? cJSON_GetObjectItemCaseSensitive(fits, "items") : NULL;
	cJSON *copy, *iprops;

	if (!prov)
		mismatch("calibration.schema.json#", "no property \"provenance\"");
	else
		compare_object("calibration.schema.json#/provenance", cfg_calib_provenance_fields,
			       prov, doc);
	if (!items) {
		mismatch("calibration.schema.json#", "no property \"fits\" with \"items\"");
		return;
	}
	/* "x" and "residuals" (number arrays) are read outside the table. */
	copy = cJSON_Duplicate(items, true);
	iprops = copy ? cJSON_GetObjectItemCaseSensitive(copy, "properties") : NULL;
	for (int i = 0; i < 2; i++) {
		const char *key = i ? "residuals" : "x";
		const cJSON *a = iprops ? cJSON_GetObjectItemCaseSensitive(iprops, key) : NULL;
		const cJSON *t = a ? cJSON_GetObjectItemCaseSensitive(a, "items") : NULL;
		if (!a || !cJSON_IsString(cJSON_GetObjectItemCaseSensitive(a, "type")) ||
		    strcmp(cJSON_GetObjectItemCaseSensitive(a, "type")->valuestring, "array") != 0 ||
		    !t || schema_types(t, doc) != T_NUMBER)
			mismatch("calibration.schema.json#/fits/items", "\"%s\" must be an array of numbers", key);
		if (iprops)
			cJSON_DeleteItemFromObjectCaseSensitive(iprops, key);
	}
	if (copy)
		compare_object("calibration.schema.json#/fits/items", cfg_calib_fit_fields, copy, doc);
	cJSON_Delete(copy);
}

static void test_calibration_schema(void)
{
	static const char *const meta[] = { "schema_version", "name", "gpu_family",
					    "description", "parameters", NULL };
	static const char *const optional[] = { "provenance", "fits", NULL };
	const cJSON *doc = load_doc("calibration.schema.json"), *props, *params, *pprops, *p;
	char where[256];

	CHECK(doc != NULL);
	if (!doc)
		return;
	mismatches = 0;
	props = cJSON_GetObjectItemCaseSensitive(doc, "properties");
	check_top_keys("calibration.schema.json#", doc, meta, optional);
	compare_calibration_v2(doc, props);
	params = resolve(cJSON_GetObjectItemCaseSensitive(props, "parameters"), &doc);
	pprops = params ? cJSON_GetObjectItemCaseSensitive(params, "properties") : NULL;
	if (!pprops) {
		mismatch("calibration.schema.json#/parameters", "no \"properties\"");
		CHECK(mismatches == 0);
		return;
	}
	if (!cJSON_IsFalse(cJSON_GetObjectItemCaseSensitive(params, "additionalProperties")))
		mismatch("calibration.schema.json#/parameters", "additionalProperties must be false");
	for (int i = 0; i < CALIB_COUNT; i++) {
		const struct calib_param_info *info = &calib_params[i];
		const struct cfg_field entry[] = {
			{ "value", CFG_DOUBLE, CFG_REQUIRED | CFG_BOUNDED, 0, 0, NULL, NULL, NULL,
			  info->min, info->max, NULL, 0, 0 },
			{ "source", CFG_STRING, CFG_REQUIRED, 0, SC_CALIB_SOURCE_MAX, NULL, NULL, NULL,
			  0, 0, NULL, 0, 0 },
			{ "range", CFG_OBJECT, 0, 0, 0, NULL, cfg_calib_range_fields, NULL, 0, 0, NULL, 0, 0 },
			{ "bounds", CFG_OBJECT, 0, 0, 0, NULL, cfg_calib_bounds_fields, NULL, 0, 0, NULL, 0, 0 },
			{ "prior", CFG_DOUBLE, CFG_BOUNDED, 0, 0, NULL, NULL, NULL, info->min, info->max, NULL, 0, 0 },
			{ "on_bound", CFG_STRING, 0, 0, SC_CALIB_BOUND_SOURCE_MAX, NULL, NULL, NULL, 0, 0, NULL, 0, 0 },
			CFG_END
		};
		const cJSON *pdoc = doc;

		snprintf(where, sizeof(where), "calibration.schema.json#/parameters/%s", info->name);
		p = cJSON_GetObjectItemCaseSensitive(pprops, info->name);
		if (!p) {
			mismatch(where, "the loader needs this parameter; the schema does not describe it");
			continue;
		}
		if (!in_string_array(cJSON_GetObjectItemCaseSensitive(params, "required"), info->name))
			mismatch(where, "the loader requires it; the schema's \"required\" does not list it");
		compare_object(where, entry, p, pdoc);
	}
	cJSON_ArrayForEach(p, pprops) {
		if (calib_param_index(p->string) < 0) {
			snprintf(where, sizeof(where), "calibration.schema.json#/parameters/%s", p->string);
			mismatch(where, "the schema describes a parameter the loader does not know");
		}
	}
	CHECK(mismatches == 0);
}

/* The comparison must notice a key added to or removed from a schema, a
 * wrong "required" and a wrong type: mutate copies and expect mismatches. */
static void test_comparison_detects_drift(void)
{
	const cJSON *orig = load_doc("gpus.schema.json");
	const char *mutations[] = { "add", "remove", "unrequire", "retype", NULL };

	CHECK(orig != NULL);
	if (!orig)
		return;
	for (int i = 0; mutations[i]; i++) {
		cJSON *copy = cJSON_Duplicate(orig, true);
		cJSON *item = (cJSON *)follow_pointer(copy, "/properties/gpus/items");
		const cJSON *doc = copy;
		cJSON *obj = (cJSON *)resolve(item, &doc);
		cJSON *props = cJSON_GetObjectItemCaseSensitive(obj, "properties");
		cJSON *req = cJSON_GetObjectItemCaseSensitive(obj, "required");

		CHECK(props != NULL && req != NULL);
		if (!props || !req) {
			cJSON_Delete(copy);
			continue;
		}
		if (strcmp(mutations[i], "add") == 0)
			cJSON_AddItemToObject(props, "bogus_key", cJSON_CreateObject());
		else if (strcmp(mutations[i], "remove") == 0)
			cJSON_DeleteItemFromObjectCaseSensitive(props, "hbm_GBps");
		else if (strcmp(mutations[i], "unrequire") == 0)
			cJSON_DeleteItemFromArray(req, 0);
		else
			cJSON_ReplaceItemInObjectCaseSensitive(
				cJSON_GetObjectItemCaseSensitive(props, "hbm_GBps"), "type",
				cJSON_CreateString("string"));
		quiet = true;
		mismatches = 0;
		compare_object("mutated", cfg_gpu_fields, obj, doc);
		quiet = false;
		if (mismatches == 0)
			fprintf(stderr, "mutation \"%s\" went unnoticed\n", mutations[i]);
		CHECK(mismatches > 0);
		cJSON_Delete(copy);
	}
}

/* configs/engines.json: an entry is an engine (cfg_engine_fields) or a
 * wrapper of one (cfg_engine_wrapper_fields), the two branches of the
 * items' anyOf, in that order. */
static int compare_engines_schema(void)
{
	const char *where = "engines.schema.json#/engines/items";
	const cJSON *doc = load_doc("engines.schema.json"), *items, *any, *b0, *b1;
	const cJSON *d0, *d1;

	if (!doc) {
		mismatches++;
		return mismatches;
	}
	items = cJSON_GetObjectItemCaseSensitive(follow_pointer(doc, "/properties"), "engines");
	items = items ? cJSON_GetObjectItemCaseSensitive(items, "items") : NULL;
	any = items ? cJSON_GetObjectItemCaseSensitive(items, "anyOf") : NULL;
	if (!cJSON_IsArray(any) || cJSON_GetArraySize(any) != 2) {
		mismatch(where, "expected \"anyOf\": [engine, wrapper]");
		return mismatches;
	}
	d0 = d1 = doc;
	b0 = resolve(cJSON_GetArrayItem(any, 0), &d0);
	b1 = resolve(cJSON_GetArrayItem(any, 1), &d1);
	compare_object(where, cfg_engine_fields, b0, d0);
	compare_object(where, cfg_engine_wrapper_fields, b1, d1);
	return mismatches;
}

/* Serving: the engine catalogue (configs/engines.json) and the serving
 * scenario (scenarios/serve-*.json), read by sim/serve/serve_config.c. */
static void test_serve_schemas(void)
{
	const cJSON *doc = load_doc("serve-scenario.schema.json");

	EXPECT_MATCH(compare_engines_schema());
	EXPECT_MATCH(compare_catalog_schema("datasets", cfg_dataset_fields));
	CHECK(doc != NULL);
	if (doc)
		EXPECT_MATCH(compare_object("serve-scenario.schema.json#", cfg_serve_scenario_fields,
					    doc, doc));
}

int main(void)
{
	RUN(test_comparison_detects_drift);
	RUN(test_catalog_schemas);
	RUN(test_scenario_schema);
	RUN(test_resilience_schema);
	RUN(test_calibration_schema);
	RUN(test_serve_schemas);
	for (int i = 0; i < n_docs; i++)
		cJSON_Delete(docs[i].doc);
	return sc_test_summary();
}
