/* status.h: errors as values for the whole library.
 *
 * Every library function that can fail returns an enum sc_status and, when it
 * fails, fills a caller-owned struct sc_error with a message and where it
 * happened (file, JSON pointer).  The library never prints and never exits;
 * the CLI turns an sc_error into "stepcast: error: FILE: /pointer: message".
 * struct sc_error holds fixed buffers only: nothing to free.
 */
#ifndef SC_STATUS_H
#define SC_STATUS_H

#include <stddef.h>

/* Each status once, with what sc_status_str() says of it:
 *   SC_EINVAL       bad input: config, scenario, argument
 *   SC_EIO          could not read or write a file
 *   SC_ENOMEM       allocation failed
 *   SC_ERANGE       a value outside what the model can express
 *   SC_EUNSUPPORTED a valid request the model does not cover
 *   SC_ENOTFOUND    a reference to a catalogue entry that does not exist
 *   SC_EINTERNAL    a bug, or a helper process that crashed or ran out of time */
#define SC_STATUS_LIST(X) X(SC_OK, "ok") X(SC_EINVAL, "invalid input") X(SC_EIO, "input/output error") \
	X(SC_ENOMEM, "out of memory") X(SC_ERANGE, "out of range") X(SC_EUNSUPPORTED, "not supported") \
	X(SC_ENOTFOUND, "not found") X(SC_EINTERNAL, "internal error")
#define SC_STATUS_ID(id, text) id,
enum sc_status { SC_STATUS_LIST(SC_STATUS_ID) };

#define SC_ERROR_MSG_MAX 512
#define SC_ERROR_FILE_MAX 512
#define SC_ERROR_PTR_MAX 256

struct sc_error {
	enum sc_status status;
	char file[SC_ERROR_FILE_MAX];   /* "" when not about a file */
	char pointer[SC_ERROR_PTR_MAX]; /* RFC 6901 JSON pointer, "" when none */
	char message[SC_ERROR_MSG_MAX]; /* lower case, no final full stop */
};

/* Clear err (may be NULL). */
void sc_error_clear(struct sc_error *err);

/* Fill err (may be NULL) and return status.  file and pointer may be NULL. */
enum sc_status sc_error_set(struct sc_error *err, enum sc_status status,
			    const char *file, const char *pointer,
			    const char *fmt, ...)
	__attribute__((format(printf, 5, 6)));

/* Short name of a status, e.g. "invalid input". */
const char *sc_status_str(enum sc_status status);

#endif
