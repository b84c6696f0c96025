/* enum_names.c: the lookup every enum's parser shares (see enum_names.h). */
#include "enum_names.h"

#include <string.h>

int sc_enum_parse(const char *const *names, const char *s)
{
	for (int i = 0; names[i]; i++)
		if (strcmp(names[i], s) == 0)
			return i;
	return -1;
}
