/* cli_output.c: safe writes of every output file (see cli_output.h).
 *
 * Why a temporary file in the target's directory: rename(2) is atomic only
 * within one file system, and a reader (or a later command loading the
 * catalogue) must see either the old file or the whole new one.  Why fsync
 * before rename: after a crash the rename may be on disk before the data
 * (ext4 auto_da_alloc, XFS); the directory is fsync'd after it so the new
 * name survives too.  Why devices and FIFOs are written in place: renaming
 * over /dev/null would replace the device node with a regular file. */
#include "cli_output.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cjson/cJSON.h>

#include "cli.h"
#include "../config/catalog_load.h"
#include "../config/rpt_num.h"

/* Follow symlinks in path's last component (up to 40, as the kernel) into
 * out: the file a write must replace.  A dangling link names a file to
 * create.  Returns false (errno set) on a loop or a name too long. */
static bool follow_links(const char *path, char *out, size_t n)
{
	char link[4096];
	struct stat st;

	if ((size_t)snprintf(out, n, "%s", path) >= n) {
		errno = ENAMETOOLONG;
		return false;
	}
	for (int hops = 0; hops < 40; hops++) {
		ssize_t len;

		if (lstat(out, &st) != 0 || !S_ISLNK(st.st_mode))
			return true;
		len = readlink(out, link, sizeof(link) - 1);
		if (len < 0)
			return false;
		link[len] = '\0';
		if (link[0] == '/') {
			if ((size_t)snprintf(out, n, "%s", link) >= n)
				goto too_long;
		} else {
			char *slash = strrchr(out, '/');
			char dir[4096];

			if (!slash) {
				if ((size_t)snprintf(out, n, "%s", link) >= n)
					goto too_long;
				continue;
			}
			snprintf(dir, sizeof(dir), "%.*s", (int)(slash - out), out);
			if ((size_t)snprintf(out, n, "%s/%s", dir, link) >= n)
				goto too_long;
		}
	}
	errno = ELOOP;
	return false;
too_long:
	errno = ENAMETOOLONG;
	return false;
}

static int open_error(const struct cli_output *o, const char *why)
{
	fprintf(stderr, "stepcast: error: %s: cannot write: %s\n", o->path, why);
	return EXIT_IO;
}

int cli_output_open(struct cli_output *o, const char *path)
{
	struct stat st;
	mode_t mode;
	int fd;

	memset(o, 0, sizeof(*o));
	o->path = path;
	if (!path) {
		o->f = stdout;
		return EXIT_OK;
	}
	if (!follow_links(path, o->target, sizeof(o->target)))
		return open_error(o, strerror(errno));
	if (stat(o->target, &st) == 0) {
		if (S_ISDIR(st.st_mode))
			return open_error(o, "is a directory");
		if (S_ISCHR(st.st_mode) || S_ISFIFO(st.st_mode)) {
			/* a device or pipe: written in place, never replaced */
			fd = open(o->target, O_WRONLY | O_NOCTTY | O_CLOEXEC);
			if (fd < 0 || !(o->f = fdopen(fd, "w"))) {
				int e = errno;

				if (fd >= 0)
					close(fd);
				return open_error(o, strerror(e));
			}
			o->in_place = true;
			return EXIT_OK;
		}
		if (!S_ISREG(st.st_mode))
			return open_error(o, "not a regular file, a character device or a FIFO");
		mode = st.st_mode & 07777;   /* a replaced file keeps its mode */
		o->existed = true;
	} else {
		mode_t um = umask(0);

		umask(um);
		mode = 0666 & ~um;
	}
	if ((size_t)snprintf(o->tmp, sizeof(o->tmp), "%s.tmp.XXXXXX", o->target) >= sizeof(o->tmp)) {
		o->tmp[0] = '\0';
		return open_error(o, "path too long");
	}
	fd = mkstemp(o->tmp);
	if (fd >= 0)
		(void)fchmod(fd, mode);   /* mkstemp makes it 0600 */
	if (fd < 0 || !(o->f = fdopen(fd, "w"))) {
		int e = errno;

		if (fd >= 0) {
			close(fd);
			unlink(o->tmp);
		}
		o->tmp[0] = '\0';
		return open_error(o, strerror(e));
	}
	return EXIT_OK;
}

/* fsync the directory holding path, so a rename in it is durable. */
static void sync_dir(const char *path)
{
	const char *slash = strrchr(path, '/');
	char dir[4096];
	int fd;

	if (!slash)
		snprintf(dir, sizeof(dir), ".");
	else if (slash == path)
		snprintf(dir, sizeof(dir), "/");
	else
		snprintf(dir, sizeof(dir), "%.*s", (int)(slash - path), path);
	fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd >= 0) {
		(void)fsync(fd);   /* best effort: some file systems refuse */
		close(fd);
	}
}

static int close_in_place(struct cli_output *o, bool ok)
{
	bool bad = fflush(o->f) != 0 || ferror(o->f);

	bad |= fclose(o->f) != 0;
	if (ok && rpt_num_failure()) {
		/* written in place (a device, a pipe): it cannot be taken back */
		fprintf(stderr, "stepcast: internal error: %s: %s, not a finite number (please report it)\n",
			o->path, rpt_num_failure());
		return EXIT_INTERNAL;
	}
	if (bad && ok) {
		fprintf(stderr, "stepcast: error: %s: could not write the output\n", o->path);
		return EXIT_IO;
	}
	return ok ? EXIT_OK : EXIT_INTERNAL;
}

static bool nonfinite_reported;

bool cli_nonfinite_reported(void)
{
	return nonfinite_reported;
}

int cli_nonfinite_error(const char *where, const char *what)
{
	nonfinite_reported = true;
	fprintf(stderr, "stepcast: internal error: %s%s%s, not a finite number or one of sensible "
		"precision; nothing was written (please report it)\n", where ? where : "",
		where ? ": " : "", what);
	return EXIT_INTERNAL;
}

/* rpt_num's check of a written file: what was recorded while it was
 * rendered, then its text. */
static int check_finite_file(const struct cli_output *o)
{
	struct rpt_num_scan sc;
	char buf[65536];
	size_t n;
	FILE *f;

	if (rpt_num_failure())
		return cli_nonfinite_error(o->path, rpt_num_failure());
	if (!(f = fopen(o->tmp, "rb")))
		return EXIT_OK; /* the rename reports it */
	rpt_num_scan_init(&sc);
	while ((n = fread(buf, 1, sizeof(buf), f)) > 0 && rpt_num_scan_feed(&sc, buf, n))
		;
	fclose(f);
	if (!rpt_num_scan_end(&sc))
		return cli_nonfinite_error(o->path, sc.what);
	return EXIT_OK;
}

int cli_output_close(struct cli_output *o, bool ok)
{
	struct sc_error err;
	int fc;

	if (!o->path)
		return ok ? cli_finish(EXIT_OK) : EXIT_INTERNAL;
	if (o->in_place)
		return close_in_place(o, ok);
	if (fflush(o->f) != 0 || ferror(o->f) || fsync(fileno(o->f)) != 0) {
		if (ok)
			fprintf(stderr, "stepcast: error: %s: could not write the output: %s\n", o->path,
				strerror(errno));
		ok = false;
	}
	if (fclose(o->f) != 0 && ok) {
		fprintf(stderr, "stepcast: error: %s: could not write the output: %s\n", o->path,
			strerror(errno));
		ok = false;
	}
	if (!ok) {
		unlink(o->tmp);
		return EXIT_IO;
	}
	if ((fc = check_finite_file(o)) != EXIT_OK) {
		if (o->existed)
			fprintf(stderr, "stepcast: %s is unchanged\n", o->path);
		unlink(o->tmp);
		return fc;
	}
	if (o->check) {
		sc_error_clear(&err);
		if (o->check(o->tmp, o->check_ctx, &err) != SC_OK) {
			int code = cli_fail(&err);

			fprintf(stderr, o->existed ? "stepcast: %s is unchanged\n" : "stepcast: %s was not written\n",
				o->path);
			unlink(o->tmp);
			return code;
		}
	}
	if (rename(o->tmp, o->target) != 0) {
		fprintf(stderr, "stepcast: error: %s: cannot rename %s into place: %s\n", o->path, o->tmp,
			strerror(errno));
		unlink(o->tmp);
		return EXIT_IO;
	}
	sync_dir(o->target);
	return EXIT_OK;
}

enum sc_status cli_check_profile(const char *tmp_path, void *ctx, struct sc_error *err)
{
	const char *path = ctx;
	struct calibration *back = malloc(sizeof(*back));
	char msg[SC_ERROR_MSG_MAX];
	enum sc_status st;

	if (!back)
		return sc_error_set(err, SC_ENOMEM, path, NULL, "out of memory");
	st = calibration_load_file(tmp_path, back, err);
	free(back);
	if (st == SC_OK)
		return SC_OK;
	snprintf(msg, sizeof(msg), "%s", err->message);
	snprintf(err->file, sizeof(err->file), "%s", path);
	snprintf(err->message, sizeof(err->message), "the fitted profile does not load (%.400s)", msg);
	return st == SC_EIO || st == SC_ENOMEM ? st : SC_EINVAL;
}

int cli_output_text(const char *path, const char *text, bool nl, cli_output_check_fn check,
		    void *ctx)
{
	struct cli_output o;
	int code;
	bool ok;

	if ((code = cli_output_open(&o, path)) != EXIT_OK)
		return code;
	o.check = check;
	o.check_ctx = ctx;
	ok = fputs(text, o.f) >= 0 && (!nl || fputc('\n', o.f) != EOF);
	if (!ok && path)
		fprintf(stderr, "stepcast: error: %s: could not write the output\n", path);
	code = cli_output_close(&o, ok);
	return ok ? code : EXIT_IO;
}

int cli_write_rendered(const char *path, cli_render_fn render, const void *ctx)
{
	struct cli_output o;
	int code;
	bool ok;

	if ((code = cli_output_open(&o, path)) != EXIT_OK)
		return code;
	ok = render(o.f, ctx);
	if (!ok)
		fprintf(stderr, "stepcast: error: out of memory\n");
	code = cli_output_close(&o, ok);
	return !ok && code == EXIT_IO ? EXIT_INTERNAL : code;
}

int cli_write_json(const char *path, cJSON *j, cli_output_check_fn check, void *ctx)
{
	char *text = j ? cJSON_Print(j) : NULL;
	int code;

	cJSON_Delete(j);
	if (!text) {
		fprintf(stderr, "stepcast: error: out of memory\n");
		return EXIT_INTERNAL;
	}
	code = cli_output_text(path, text, true, check, ctx);
	free(text);
	return code;
}
