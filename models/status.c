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
#define SC_STATUS_TEXT(id, text) [id] = text,
	static const char *const texts[] = { SC_STATUS_LIST(SC_STATUS_TEXT) };
#undef SC_STATUS_TEXT

	return (unsigned)status < sizeof(texts) / sizeof(texts[0]) ? texts[status] : "unknown status";
}
