/* status.c: sc_error helpers (see status.h). */
#include "status.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

void sc_error_clear(struct sc_error *err)
{
	if (err)
		memset(err, 0, sizeof(*err));
}

enum sc_status sc_error_set(struct sc_error *err, enum sc_status status,
			    const char *file, const char *pointer,
			    const char *fmt, ...)
{
	va_list ap;

	if (!err)
		return status;
	err->status = status;
	snprintf(err->file, sizeof(err->file), "%s", file ? file : "");
	snprintf(err->pointer, sizeof(err->pointer), "%s", pointer ? pointer : "");
	va_start(ap, fmt);
	vsnprintf(err->message, sizeof(err->message), fmt, ap);
	va_end(ap);
	return status;
}

const char *sc_status_str(enum sc_status status)
{
	switch (status) {
	case SC_OK: return "ok";
	case SC_EINVAL: return "invalid input";
	case SC_EIO: return "input/output error";
	case SC_ENOMEM: return "out of memory";
	case SC_ERANGE: return "out of range";
	case SC_EUNSUPPORTED: return "not supported";
	case SC_ENOTFOUND: return "not found";
	case SC_EINTERNAL: return "internal error";
	}
	return "unknown status";
}
