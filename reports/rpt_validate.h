/* rpt_validate.h: render a validation run (struct val_set after val_run) as
 * text, JSON, CSV or Markdown onto a stream the caller owns: every case with
 * predicted versus measured step time, the cases that could not be expressed
 * with the reason, and the summary overall, per source group and per GPU.
 */
#ifndef SC_RPT_VALIDATE_H
#define SC_RPT_VALIDATE_H

#include <stdbool.h>
#include <stdio.h>

#include "../sim/validate/validate.h"

enum rpt_validate_format { RPT_VAL_TEXT, RPT_VAL_JSON, RPT_VAL_CSV, RPT_VAL_MD };

/* The parts of one validation's report (training, serving, memory), each
 * of that validation's set: the JSON document (false on allocation
 * failure), the CSV table, and the text or Markdown sections (the case
 * table left out with summary_only). */
struct rpt_val_parts {
	bool (*json)(FILE *out, const void *set, bool summary_only);
	void (*csv)(FILE *out, const void *set);
	void (*text)(FILE *out, const void *set, bool md, bool summary_only);
};

/* The part of p that format fmt asks for, of set.  Returns false on
 * allocation failure (JSON only). */
bool rpt_validate_render(FILE *out, const struct rpt_val_parts *p, const void *set,
			 enum rpt_validate_format fmt, bool summary_only);

/* The "cases not expressed" section of a validation report (training,
 * serving): its count, then each such case's id (padded to id_width in
 * text) and reason.  why(set, i, &id) gives case i's id and, when it is
 * not expressed, the reason (NULL: expressed). */
void rpt_cases_unexpressed(FILE *out, bool md, int id_width, int n_cases,
			   const char *(*why)(const void *set, int i, const char **id), const void *set);

/* summary_only: leave out the per-case table.  Returns false on allocation
 * failure (JSON only). */
bool rpt_validate(FILE *out, const struct val_set *set, enum rpt_validate_format fmt,
		  bool summary_only);

#endif
