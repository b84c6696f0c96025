/* rpt_num.h: the one check that no non-finite number reaches output.
 *
 * Every number a command writes goes out as JSON (built with cJSON) or as
 * text formatted by printf (text, CSV, Markdown, HTML).  Two checks, at the
 * two ends:
 *   - JSON numbers are added through rpt_json_add_number() (every file that
 *     builds output JSON includes this header after cJSON's, which maps
 *     cJSON_AddNumberToObject onto it): a NaN or an infinity is recorded
 *     with its key (cJSON would print it as null);
 *   - the sinks (the CLI's stdout and every file cli_output writes) scan
 *     the formatted text with struct rpt_num_scan for printf's spellings of
 *     non-finite numbers ("nan", "-nan", "inf", "-inf" as words, any case)
 *     and for runs of more than RPT_NUM_MAX_DIGITS digits (no number is
 *     printed with more: %.17g at most, fixed notation only below 10^15).
 * Either makes the command an internal error (exit 70) that names the
 * quantity or the output line, and nothing is written (sim/cli/main.c,
 * sim/cli/cli_output.c).  Known limit: a user's name that is the word
 * "nan" or "inf" in text output reads as a non-finite number.
 */
#ifndef SC_RPT_NUM_H
#define SC_RPT_NUM_H

#include <stdbool.h>
#include <stddef.h>

#include <cjson/cJSON.h>

#define RPT_NUM_MAX_DIGITS 40

/* Record quantity as non-finite when v is NaN or infinite (the first one
 * recorded is kept); returns whether v is finite. */
bool rpt_num_check(double v, const char *quantity);

/* The first non-finite quantity recorded ("\"mfu\" is nan"), or NULL. */
const char *rpt_num_failure(void);

/* Forget what was recorded (tests). */
void rpt_num_reset(void);

/* cJSON_AddNumberToObject, checked. */
cJSON *rpt_json_add_number(cJSON *object, const char *name, double v);

/* cJSON_CreateNumber, checked (quantity names it). */
cJSON *rpt_json_number(double v, const char *quantity);

/* A scan of formatted output, fed in pieces. */
struct rpt_num_scan {
	long line;                /* current line, from 1 */
	char tok[16];             /* the current word (first 15 bytes) */
	size_t tok_len;
	int digits;               /* consecutive digits */
	char line_text[96];       /* the current line's start, for the message */
	size_t line_len;
	bool bad;
	char what[192];           /* the finding */
};

void rpt_num_scan_init(struct rpt_num_scan *s);
/* Feed n bytes; returns false once something was found (s->what says it). */
bool rpt_num_scan_feed(struct rpt_num_scan *s, const char *buf, size_t n);
/* End of the text; returns false when something was found. */
bool rpt_num_scan_end(struct rpt_num_scan *s);

#endif

/* Every output JSON number through the check (after cJSON's header). */
#ifndef RPT_NUM_NO_OVERRIDE
#undef cJSON_AddNumberToObject
#define cJSON_AddNumberToObject(o, name, v) rpt_json_add_number((o), (name), (v))
#endif
