/* datadir.c: the data directory found relative to the code's own image
 * (see datadir.h). */
#define _GNU_SOURCE /* dladdr(3) and Dl_info are GNU extensions */
#include "datadir.h"

#include <dlfcn.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* Ancestors of the image's directory tried: bin/ -> PREFIX is 1,
 * lib/x86_64-linux-gnu/ -> PREFIX is 2, build/tests/des/ -> build/ is 2. */
#define DATADIR_MAX_UP 5

static bool has_catalogue(const char *dir)
{
	char probe[PATH_MAX];

	if (snprintf(probe, sizeof(probe), "%s/share/stepcast/configs/gpus.json", dir) >= (int)sizeof(probe))
		return false;
	return access(probe, R_OK) == 0;
}

/* Path of the image (shared object or executable) holding this code,
 * symlinks resolved, into buf; false when unknown. */
static bool image_path(char *buf)
{
	Dl_info info;

	if (dladdr((void *)&cfg_data_dir, &info) && info.dli_fname && info.dli_fname[0] == '/' &&
	    realpath(info.dli_fname, buf))
		return true;
	/* dladdr names a static executable by argv[0]; /proc knows better. */
	return realpath("/proc/self/exe", buf) != NULL;
}

static bool find_data_dir(char *out, size_t size)
{
	const char *env = getenv("STEPCAST_DATADIR");
	char dir[PATH_MAX];
	char *slash;

	if (env && env[0])
		return snprintf(out, size, "%s", env) < (int)size;
	if (!image_path(dir))
		return false;
	for (int up = 0; up <= DATADIR_MAX_UP; up++) {
		if (!(slash = strrchr(dir, '/')))
			return false;
		*slash = '\0'; /* parent: the image's directory first */
		if (has_catalogue(dir[0] ? dir : "/"))
			return snprintf(out, size, "%s/share/stepcast", dir) < (int)size;
		if (!dir[0])
			return false;
	}
	return false;
}

const char *cfg_data_dir(void)
{
	static char dir[PATH_MAX];
	static int state; /* 0: not looked yet, 1: found, -1: none */

	if (state == 0)
		state = find_data_dir(dir, sizeof(dir)) ? 1 : -1;
	return state > 0 ? dir : NULL;
}

bool cfg_data_path(char *buf, size_t size, const char *part)
{
	const char *dir = cfg_data_dir();
	int n = dir ? snprintf(buf, size, "%s/%s", dir, part) : snprintf(buf, size, "%s", part);

	return n >= 0 && (size_t)n < size;
}

const char *cfg_validation_dir(void)
{
	static char dir[PATH_MAX];
	const char *env = getenv("STEPCAST_VALIDATION_DIR");

	if (env && env[0])
		return env;
	cfg_data_path(dir, sizeof(dir), "validation");
	return dir;
}

const char *cfg_validation_file(const char *name, char *buf, size_t n)
{
	snprintf(buf, n, "%s/%s", cfg_validation_dir(), name);
	return buf;
}
