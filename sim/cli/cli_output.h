/* cli_output.h: every file a command writes (--output, --svg, --trace,
 * --junit, calibration profiles, baselines), written so that nothing is lost.
 *
 * The one owner of "write a file safely".  A regular file (or a path that
 * does not exist yet) is written to a temporary file in the target's own
 * directory, flushed and fsync'd, optionally checked (a calibration profile
 * is loaded back with the strict loader), and only then renamed over the
 * target; on any failure the old file is untouched and the temporary file is
 * removed.  A symlink is followed (the file it names is replaced, the link
 * stays).  An existing character device or FIFO (/dev/null, /dev/stdout, a
 * pipe) is written in place, never replaced; a directory, socket or block
 * device is refused.  The struct is the caller's (on the stack); the
 * functions print their own errors and return an exit code (cli.h).
 */
#ifndef SC_CLI_OUTPUT_H
#define SC_CLI_OUTPUT_H

#include <stdbool.h>
#include <stdio.h>

#include "../../models/status.h"

/* Checks the written file at tmp_path before it replaces anything; fills err
 * and returns its status when the file is not acceptable. */
typedef enum sc_status (*cli_output_check_fn)(const char *tmp_path, void *ctx,
					      struct sc_error *err);

struct cli_output {
	FILE *f;
	const char *path;          /* as given, for messages; NULL: stdout */
	char target[4096];         /* path with symlinks followed */
	char tmp[4096];            /* the temporary file; "" when written in place */
	bool in_place;             /* a character device or FIFO */
	bool existed;              /* the target existed: it stays unchanged on failure */
	cli_output_check_fn check; /* may be NULL */
	void *check_ctx;
};

/* Open path for writing (NULL: stdout).  Returns EXIT_OK or EXIT_IO. */
int cli_output_open(struct cli_output *o, const char *path);

/* Flush, fsync, check (o->check, set between open and close) and rename into
 * place; with ok false (the caller's rendering failed) only clean up.
 * Returns EXIT_OK, EXIT_IO, the check's exit code, or EXIT_INTERNAL when ok
 * was false. */
int cli_output_close(struct cli_output *o, bool ok);

/* Print the internal error of a non-finite number in the output (where:
 * the file, or NULL for stdout; what: rpt_num's finding) and return
 * EXIT_INTERNAL.  cli_output_close checks every file it writes (rpt_num.h). */
int cli_nonfinite_error(const char *where, const char *what);
bool cli_nonfinite_reported(void);

/* A check for calibration profiles: the temporary file must load with the
 * strict loader the catalogue uses (calibration_load_file); ctx is the
 * target path (const char *), named in the error.  A profile that did not
 * load would make every later command that reads the catalogue fail. */
enum sc_status cli_check_profile(const char *tmp_path, void *ctx, struct sc_error *err);

/* Write text (and a final newline when nl) to path (NULL: stdout) the same
 * way, with an optional check.  Returns an exit code. */
int cli_output_text(const char *path, const char *text, bool nl, cli_output_check_fn check,
		    void *ctx);

/* Write j as indented JSON to path (NULL: stdout) the same way, and free
 * it: the one way a command writes a JSON document.  j NULL (a failed
 * allocation while building it): "out of memory", EXIT_INTERNAL. */
/* A report rendered to path (NULL: stdout) the same way: render(f, ctx)
 * returns false when it ran out of memory ("out of memory", EXIT_INTERNAL,
 * and nothing replaces path). */
typedef bool (*cli_render_fn)(FILE *f, const void *ctx);
int cli_write_rendered(const char *path, cli_render_fn render, const void *ctx);

struct cJSON;
int cli_write_json(const char *path, struct cJSON *j, cli_output_check_fn check, void *ctx);

#endif
