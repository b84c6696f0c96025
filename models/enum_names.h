/* enum_names.h: an enum spelt once.  A list macro names each value with its
 * spelling, X(ID, "name"), in the enum's order; from it come the enum
 * (SC_ENUM_ID), its NULL-terminated table of names (SC_ENUM_NAMES, what
 * files and the CLI accept and reports print) and the lookups below, so
 * that a value cannot be added to one and missed in another. */
#ifndef SC_ENUM_NAMES_H
#define SC_ENUM_NAMES_H

#include <stddef.h>

#define SC_ENUM_ID(id, name) id,
#define SC_ENUM_NAME(id, name) [id] = name,
#define SC_ENUM_NAMES(list) { list(SC_ENUM_NAME) NULL }

/* The name of v in table t (defined in this file's scope: its size is
 * known), "unknown" outside it. */
#define SC_NAME_OF(t, v) ((unsigned)(v) < sizeof(t) / sizeof(t[0]) - 1 ? t[v] : "unknown")

/* Define an enum's name table `names` from its list and its name function
 * `fn` (a value outside the enum: "unknown"). */
#define SC_ENUM_DEFINE(fn, type, names, list) \
	const char *const names[] = SC_ENUM_NAMES(list); \
	const char *fn(type v) { return SC_NAME_OF(names, v); }

/* The index of s in the NULL-terminated names, or -1. */
int sc_enum_parse(const char *const *names, const char *s);

/* The NULL-terminated names as prose into buf (n bytes): "a, b and c" with
 * conj "and", "a or b" with "or": the one way a message lists the values
 * an option or a key accepts, so that it cannot drift from the table.
 * Returns buf (cut short if the names do not fit). */
const char *sc_enum_prose(const char *const *names, const char *conj, char *buf, size_t n);

#endif
