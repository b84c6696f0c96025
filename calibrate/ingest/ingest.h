/* ingest.h: parsers of real tool output into a struct cal_measurements.
 *
 * Formats, as the tools print them:
 *   - nccl-tests text logs (src/util.cu of NVIDIA/nccl-tests): "#" header
 *     and comment lines, "#  Rank N Group G Pid P on HOST device D [BUS]
 *     NAME" lines, the column header (size count type redop root, then
 *     time algbw busbw #wrong for out-of-place and again for in-place, with
 *     optional per-iteration or extra columns), one row per size (numbers
 *     like 1.2e+05, "N/A" in #wrong), the "# Out of bounds values" and
 *     "# Avg bus bandwidth" footer; several runs (collectives) per file;
 *     launcher prefixes ("0: " from srun --label, "[1,0]<stdout>:" from
 *     mpirun --tag-output) are stripped;
 *   - nccl-tests -J JSON (JSON_FILE_VERSION 2: "config", "devices",
 *     "results" with "out_of_place"/"in_place" objects);
 *   - fio --output-format=json (non-JSON lines before the first "{" and
 *     normal output after the JSON are tolerated);
 *   - our own "stepcast-measurements" JSON (the microbenchmarks' output).
 * Bad or truncated input fails with SC_EINVAL and an error whose pointer is
 * "line N" (text) or a JSON pointer, with the line of a JSON syntax error.
 *
 * Ownership: the caller owns `out` (cal_measurements_init/free); parsers
 * append to it and leave it unchanged on error except for what was appended
 * before the error (callers discard it then).  Buffers need not be
 * NUL-terminated.
 */
#ifndef SC_CAL_INGEST_H
#define SC_CAL_INGEST_H

#include <stddef.h>
#include <stdio.h>

#include "../cal_measure.h"

#define CAL_FORMAT_LIST(X) X(CAL_FMT_AUTO, "auto") X(CAL_FMT_NCCL_TEXT, "nccl-text") \
	X(CAL_FMT_NCCL_JSON, "nccl-json") X(CAL_FMT_FIO, "fio") X(CAL_FMT_BENCH, "bench")
enum cal_format { CAL_FORMAT_LIST(SC_ENUM_ID) };
extern const char *const cal_format_names[];

/* What a log may not say.  Zero / NULL: take it from the log. */
struct cal_ingest_opts {
	const char *collective; /* op of tables without a "Collective test starting" line */
	int ranks;              /* group size when the log lists no "# Rank" lines */
	int nodes;              /* hosts when the log does not name them */
};

/* Largest input accepted (a 16k-rank log with per-rank lines is ~2 MiB). */
#define CAL_INGEST_MAX_BYTES (256L * 1024 * 1024)

const char *cal_format_name(enum cal_format f);

/* Parse "auto", "nccl-text", "nccl-json", "fio" or "bench". */
bool cal_format_parse(const char *s, enum cal_format *out);

/* The format of buf by its content: JSON with "fio version" is fio, with
 * "format": "stepcast-measurements" ours, with "results" nccl-tests -J;
 * text with an nccl-tests column header nccl-text; else CAL_FMT_AUTO
 * (unknown). */
enum cal_format cal_detect_format(const char *buf, size_t len);

enum sc_status cal_ingest_nccl_text(const char *name, const char *buf, size_t len,
				    const struct cal_ingest_opts *opts,
				    struct cal_measurements *out, struct sc_error *err);
/* The same, reading f line by line as it parses (memory: the rows, not
 * the bytes of the log). */
enum sc_status cal_ingest_nccl_text_stream(const char *name, FILE *f,
					   const struct cal_ingest_opts *opts,
					   struct cal_measurements *out, struct sc_error *err);
enum sc_status cal_ingest_nccl_json(const char *name, const char *buf, size_t len,
				    const struct cal_ingest_opts *opts,
				    struct cal_measurements *out, struct sc_error *err);
enum sc_status cal_ingest_fio(const char *name, const char *buf, size_t len,
			      struct cal_measurements *out, struct sc_error *err);
enum sc_status cal_ingest_bench(const char *name, const char *buf, size_t len,
				struct cal_measurements *out, struct sc_error *err);

/* Dispatch on fmt (CAL_FMT_AUTO: detect; unknown content is an error). */
enum sc_status cal_ingest_buffer(const char *name, const char *buf, size_t len,
				 enum cal_format fmt, const struct cal_ingest_opts *opts,
				 struct cal_measurements *out, struct sc_error *err);

/* Read path (at most CAL_INGEST_MAX_BYTES) and ingest it; the file name is
 * added to out->prov.inputs. */
enum sc_status cal_ingest_file(const char *path, enum cal_format fmt,
			       const struct cal_ingest_opts *opts,
			       struct cal_measurements *out, struct sc_error *err);

/* cal_ingest_file() of each of paths[0..n) into out, in order; stops at
 * the first that fails (err names it). */
enum sc_status cal_ingest_files(char *const *paths, int n, enum cal_format fmt,
				const struct cal_ingest_opts *opts, struct cal_measurements *out,
				struct sc_error *err);

#endif
