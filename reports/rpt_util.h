/* rpt_util.h: small helpers the capacity-planning renderers share: escaping
 * for CSV, Markdown and HTML, word wrapping, and human forms of durations
 * and dollar amounts.  Output goes to a stream the caller owns; formatting
 * helpers write into a caller-owned buffer and return it.
 */
#ifndef SC_RPT_UTIL_H
#define SC_RPT_UTIL_H

#include <stddef.h>
#include <stdio.h>

/* s as one CSV field (quoted when it holds a comma, quote or newline). */
void rpt_csv_str(FILE *out, const char *s);

/* s inside a Markdown table cell (| and newlines escaped). */
void rpt_md_str(FILE *out, const char *s);

/* s as HTML text or attribute value (& < > " ' escaped). */
void rpt_html_str(FILE *out, const char *s);

/* text wrapped at width columns: the first line after `first` (already
 * printed by the caller, its length first_len), the next ones after
 * `indent`.  Ends with a newline. */
void rpt_wrap(FILE *out, size_t first_len, const char *indent, const char *text, size_t width);

/* A duration in the largest sensible unit: "5.2 min", "3.4 h", "82.9 days". */
const char *rpt_duration(double s, char *buf, size_t n);

/* Dollars with a scale suffix: "$950", "$12.3k", "$4.56M", "$1.23B". */
const char *rpt_usd(double usd, char *buf, size_t n);

/* A number with thousands separators and no decimals: "16,384". */
const char *rpt_thousands(double v, char *buf, size_t n);

#endif
