/* enum_names.c: the lookup every enum's parser shares (see enum_names.h). */
#include "enum_names.h"

#include <stdio.h>
#include <string.h>

int sc_enum_parse(const char *const *names, const char *s)
{
	for (int i = 0; names[i]; i++)
		if (strcmp(names[i], s) == 0)
			return i;
	return -1;
}

const char *sc_enum_prose(const char *const *names, const char *conj, char *buf, size_t n)
{
	size_t len = 0;

	if (n)
		buf[0] = '\0';
	for (int i = 0; names[i] && len < n; i++) {
		const char *before = i == 0 ? "" : names[i + 1] ? ", " : " ";
		const char *word = i > 0 && !names[i + 1] ? conj : "";

		len += (size_t)snprintf(buf + len, n - len, "%s%s%s%s", before, word, *word ? " " : "",
					names[i]);
	}
	return buf;
}
