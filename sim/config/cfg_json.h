/* cfg_json.h: strict JSON reading for every config kind.
 *
 * A config struct is described once by a table of struct cfg_field (key,
 * type, constraints, offset into the struct).  cfg_read_object() walks a cJSON
 * object against such a table and fails, with file and JSON pointer, on an
 * unknown key (with a did-you-mean), a missing required key, a wrong type,
 * a non-finite number, a value out of range, or a duplicate key.  The same
 * tables drive the schema test, so the loader and configs/schema/ agree.
 * cfg_parse_file() returns a cJSON tree the caller frees with cJSON_Delete().
 */
#ifndef SC_CFG_JSON_H
#define SC_CFG_JSON_H

#include <stdbool.h>
#include <stddef.h>

#include <cjson/cJSON.h>

#include "../../models/status.h"

#define CFG_MAX_FILE_BYTES (64L * 1024 * 1024)
/* JSON values (scalars, arrays, objects, keys) in one file: cJSON takes about
 * 64 bytes a value, so 2,000,000 values bound a parse near 190 MB (measured); the
 * largest file we read (the serving validation cases) has 69,229. */
#define CFG_MAX_VALUES 2000000

enum cfg_type {
	CFG_INT,      /* int; must be integral */
	CFG_DOUBLE,   /* double */
	CFG_BOOL,     /* bool */
	CFG_STRING,   /* char[size] */
	CFG_ENUM,     /* int index into enum_names */
	CFG_OBJECT,   /* nested struct described by sub, stored at offset */
	CFG_CUSTOM,   /* parsed by a callback (e.g. "name or inline object") */
	CFG_ARRAY     /* array of 1..max_items objects of sub: elements of size
			 bytes at offset, their count (int) at count_offset */
};

enum {
	CFG_REQUIRED = 1u << 0,
	CFG_POSITIVE = 1u << 1, /* > 0 */
	CFG_NONNEG = 1u << 2,   /* >= 0 */
	CFG_NULLABLE = 1u << 3, /* null is accepted and means "not given" */
	CFG_BOUNDED = 1u << 4   /* min <= value <= max */
};

struct cfg_reader;

typedef enum sc_status (*cfg_custom_fn)(struct cfg_reader *rd, const cJSON *item,
					void *dst, const char *pointer);

struct cfg_field {
	const char *key;
	enum cfg_type type;
	unsigned flags;
	size_t offset;
	size_t size;                     /* CFG_STRING: buffer size */
	const char *const *enum_names;   /* CFG_ENUM: NULL-terminated */
	const struct cfg_field *sub;     /* CFG_OBJECT (and CUSTOM's object form) */
	cfg_custom_fn custom;            /* CFG_CUSTOM */
	double min, max;                 /* with CFG_BOUNDED */
	const char *description;
	size_t count_offset;             /* CFG_ARRAY: the int holding the count */
	int max_items;                   /* CFG_ARRAY: capacity of the element array */
};

/* Table entry helpers: ST is the struct type, K the key (= member name). */
#define CFG_F_INT(ST, K, FL, D) \
	{ #K, CFG_INT, (FL), offsetof(ST, K), 0, NULL, NULL, NULL, 0, 0, D, 0, 0 }
#define CFG_F_NUM(ST, K, FL, D) \
	{ #K, CFG_DOUBLE, (FL), offsetof(ST, K), 0, NULL, NULL, NULL, 0, 0, D, 0, 0 }
/* A number written under KEY rather than its member's name M (cfg_to_json
 * of a result whose output keys say more than its members, e.g. the unit). */
#define CFG_F_NUM_AS(ST, M, KEY, FL, D) \
	{ KEY, CFG_DOUBLE, (FL), offsetof(ST, M), 0, NULL, NULL, NULL, 0, 0, D, 0, 0 }
/* A string member M written under KEY (see CFG_F_NUM_AS). */
#define CFG_F_STR_AS(ST, M, KEY, FL, D) \
	{ KEY, CFG_STRING, (FL), offsetof(ST, M), sizeof(((ST *)0)->M), NULL, NULL, NULL, 0, 0, D, 0, 0 }
#define CFG_F_NUM_RANGE(ST, K, FL, LO, HI, D) \
	{ #K, CFG_DOUBLE, (FL) | CFG_BOUNDED, offsetof(ST, K), 0, NULL, NULL, NULL, LO, HI, D, 0, 0 }
#define CFG_F_INT_RANGE(ST, K, FL, LO, HI, D) \
	{ #K, CFG_INT, (FL) | CFG_BOUNDED, offsetof(ST, K), 0, NULL, NULL, NULL, LO, HI, D, 0, 0 }
#define CFG_F_BOOL(ST, K, FL, D) \
	{ #K, CFG_BOOL, (FL), offsetof(ST, K), 0, NULL, NULL, NULL, 0, 0, D, 0, 0 }
#define CFG_F_STR(ST, K, FL, D) \
	{ #K, CFG_STRING, (FL), offsetof(ST, K), sizeof(((ST *)0)->K), NULL, NULL, NULL, 0, 0, D, 0, 0 }
#define CFG_F_ENUM(ST, K, FL, NAMES, D) \
	{ #K, CFG_ENUM, (FL), offsetof(ST, K), 0, NAMES, NULL, NULL, 0, 0, D, 0, 0 }
#define CFG_F_OBJ(ST, K, FL, SUB, D) \
	{ #K, CFG_OBJECT, (FL), offsetof(ST, K), 0, NULL, SUB, NULL, 0, 0, D, 0, 0 }
#define CFG_F_CUSTOM(ST, K, FL, FN, SUB, D) \
	{ #K, CFG_CUSTOM, (FL), offsetof(ST, K), 0, NULL, SUB, FN, 0, 0, D, 0, 0 }

/* An array of objects: K is ST's element array, COUNT its int count member,
 * SUB the element's field table. */
#define CFG_F_ARRAY(ST, K, COUNT, FL, SUB, D) \
	{ #K, CFG_ARRAY, (FL), offsetof(ST, K), sizeof(((ST *)0)->K[0]), NULL, SUB, NULL, 0, 0, D, \
	  offsetof(ST, COUNT), (int)(sizeof(((ST *)0)->K) / sizeof(((ST *)0)->K[0])) }

/* Define `const TYPE *FN(const OWNER *o, const char *s)`: the element of
 * o->ARR[0..o->COUNT) whose string member KEY is s, or NULL (the lookup of
 * every table a loader fills: the catalogue's kinds, the resilience
 * catalogue's profiles). */
#define CFG_LOOKUP(fn, owner, type, arr, count, key) \
	const type *fn(const owner *o, const char *s) \
	{ \
		for (int i = 0; i < o->count; i++) \
			if (strcmp(o->arr[i].key, s) == 0) \
				return &o->arr[i]; \
		return NULL; \
	}

/* Terminates a field table. */
#define CFG_END { NULL, CFG_INT, 0, 0, 0, NULL, NULL, NULL, 0, 0, NULL, 0, 0 }

/* Shared state of one read: which file, where errors go, user context. */
struct cfg_reader {
	const char *file;
	struct sc_error *err;
	void *ctx;          /* e.g. the catalogue, for resolving references */
};

/* The whole regular file at path, NUL-terminated, at most
 * CFG_MAX_FILE_BYTES (*len its length; the caller frees it); NULL with the
 * error (unreadable, a directory, too large, out of memory). */
char *cfg_read_file(const char *path, size_t *len, struct sc_error *err);

/* Read path (cfg_read_file) and parse it.  On error returns NULL and fills
 * err with the file and, for a parse error, line and column. */
cJSON *cfg_parse_file(const char *path, struct sc_error *err);

/* The checks cfg_parse_buffer makes beyond cJSON's syntax, for readers of
 * other JSON (tool output): no \u0000, no invalid UTF-8 or lone surrogates,
 * no leading zeros, at most CFG_MAX_VALUES values; control characters in
 * strings only when controls is true.  SC_EINVAL with line and column. */
enum sc_status cfg_check_text(const char *name, const char *buf, size_t len, bool controls,
			      struct sc_error *err);

/* The deepest nesting of arrays and objects in buf (brackets inside strings
 * do not count); with cut_off, whether the text ends inside a string or
 * inside its first object or array (a truncated file). */
size_t cfg_json_nesting(const char *buf, size_t len, bool *cut_off);

/* Parse a buffer (not NUL-terminated); name is used in messages. */
cJSON *cfg_parse_buffer(const char *name, const char *buf, size_t len,
			struct sc_error *err);

/* Read obj against fields into dst.  pointer is obj's JSON pointer ("" for
 * the root).  Fields absent from obj are left as they are in dst (callers
 * zero or default dst first). */
enum sc_status cfg_read_object(struct cfg_reader *rd, const cJSON *obj,
			       const struct cfg_field *fields, void *dst,
			       const char *pointer);

/* A config document's "schema_version": present (else the error is at
 * "/") and 1 (else at "/schema_version"): the one version every file of
 * the catalogue is at. */
enum sc_status cfg_check_schema_version(const cJSON *root, const char *path, struct sc_error *err);

/* Fail unless item is an object whose keys are all among allowed (NULL-
 * terminated), with a did-you-mean for a near miss. */
enum sc_status cfg_check_keys(struct cfg_reader *rd, const cJSON *obj,
			      const char *const *allowed, const char *pointer);

/* Append "/key" (escaped per RFC 6901) or "/index" to a pointer. */
/* The array at obj's key as *items (an error naming /key if it is not
 * one), and room for its elements: *out = calloc(n + 1, elem_size), *n its
 * length (SC_ENOMEM on failure).  The prologue of every reader of a file
 * that is a list of records (validation cases, systems, recipes). */
enum sc_status cfg_array_alloc(struct cfg_reader *rd, const cJSON *obj, const char *key,
			       size_t elem_size, const cJSON **items, void **out, int *n);

/* The reader of element i of a list of records: item, at JSON pointer
 * where ("/key/i"), into the caller's room for it (reached through ctx). */
typedef enum sc_status (*cfg_item_reader)(struct cfg_reader *rd, const cJSON *item, int i,
					  const char *where, void *ctx);

/* cfg_array_alloc's array and room, then read(rd, item, i, "/key/i", ctx)
 * for each element in order, stopping at the first error: the body of
 * every reader of a list of records.  On error *out stays allocated (the
 * caller's free function releases it with the elements read so far). */
enum sc_status cfg_array_read(struct cfg_reader *rd, const cJSON *obj, const char *key,
			      size_t elem_size, void **out, int *n, cfg_item_reader read, void *ctx);

/* DIR/file, a catalogue file that is a list of records under `key`
 * (engines.json, datasets.json), read whole: parsed, its keys among top,
 * its schema_version checked, key present (else the error is at "/"), then
 * cfg_array_read's elements; the document is deleted before it returns,
 * and on error so is the room (*out NULL, *n 0): the one owner of such a
 * file's document and its cleanup. */
enum sc_status cfg_list_file(const char *dir, const char *file, const char *const *top,
			     const char *key, size_t elem_size, void **out, int *n,
			     cfg_item_reader read, void *ctx, struct sc_error *err);

void cfg_pointer_key(char *out, size_t n, const char *base, const char *key);
void cfg_pointer_index(char *out, size_t n, const char *base, int index);

/* SC_EINVAL for the value at pointer's key, with the pointer built by
 * cfg_pointer_key: the one way a reader rejects a field it has read. */
enum sc_status cfg_key_invalid(struct cfg_reader *rd, const char *pointer, const char *key,
			       const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

/* The closest of candidates (NULL-terminated) to word, or NULL if none is
 * close enough to suggest. */
const char *cfg_did_you_mean(const char *word, const char *const *candidates);

/* Human name of a cJSON item's type: "a string", "a number", ... */
const char *cfg_json_type_name(const cJSON *item);

/* The inverse of cfg_read_object: a new cJSON object with src's fields
 * (optional numbers that are 0 are left out; CFG_CUSTOM fields are written as
 * strings when they hold one, i.e. when sub is NULL, else as objects of sub).
 * Returns NULL on allocation failure; the caller frees with cJSON_Delete(). */
cJSON *cfg_to_json(const struct cfg_field *fields, const void *src);

/* item appended to the array arr, or NULL when item is NULL (a failed
 * allocation) or cannot be appended (item is freed then): the one way a
 * writer adds an element, so that each caller only decides what a failure
 * drops (the document or the rest of the list). */
cJSON *cfg_json_push(cJSON *arr, cJSON *item);

#endif
