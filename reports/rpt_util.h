/* rpt_util.h: small helpers the capacity-planning renderers share: escaping
 * for CSV, Markdown and HTML, word wrapping, and human forms of durations
 * and dollar amounts.  Output goes to a stream the caller owns; formatting
 * helpers write into a caller-owned buffer and return it.
 */
#ifndef SC_RPT_UTIL_H
#define SC_RPT_UTIL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "../models/purchase.h"

struct cJSON;

/* Print root as indented JSON and a newline, and free it: the one way a
 * report writes a JSON document.  False when root is NULL (a failed
 * allocation while building it) or cannot be printed. */
bool rpt_json_print(FILE *out, struct cJSON *root);
/* The same on one line (JSONL: cJSON_PrintUnformatted). */
bool rpt_json_print_line(FILE *out, struct cJSON *root);

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

/* The purchase options of an instance with their prices per hour, e.g.
 * "on-demand $55.04, capacity block $41.53" (per instance-hour) or "not sold
 * on demand; capacity blocks of whole UltraServers only: u-p6e-gb200x72 (18
 * instances) $761.90/h, u-p6e-gb200x36 (9 instances) $380.95/h". */
const char *rpt_price_options(const struct instance_price *p, char *buf, size_t n);

/* rpt_usd(usd) when the option exists (usd_per_h > 0), else absent. */
const char *rpt_usd_if(double usd_per_h, double usd, const char *absent, char *buf, size_t n);
/* The $/M tokens cell: three decimals where the pricing is sold, else absent. */
const char *rpt_per_mtoken_if(double usd_per_h, double usd_per_mtoken, const char *absent, char *buf, size_t n);

/* A price-table cell of an instance under pricing pr: "$55.04" (per
 * instance-hour), "$761.90 per u-p6e-gb200x72 (18 instances), ..." for an
 * UltraServer-only kind's capacity blocks, "not sold" on demand or "not
 * offered" in capacity blocks when it does not exist. */
const char *rpt_price_cell(const struct instance_price *p, enum plan_pricing pr, char *buf, size_t n);

/* What a cluster of nodes instances buys under pricing pr and its price per
 * hour, e.g. "2 x p5.48xlarge, $110.08/h" or "1 x u-p6e-gb200x72 (18 x
 * p6e-gb200.36xlarge), $761.90/h"; "not offered" when inst is not sold so. */
const char *rpt_purchase(const struct instance_spec *inst, int nodes, enum plan_pricing pr,
			 char *buf, size_t n);

#endif
