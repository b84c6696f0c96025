/* rpt_util.c: escaping, wrapping and human number forms (see rpt_util.h). */
#include "rpt_util.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

void rpt_csv_str(FILE *out, const char *s)
{
	if (!strpbrk(s, ",\"\n\r")) {
		fputs(s, out);
		return;
	}
	fputc('"', out);
	for (const char *p = s; *p; p++) {
		if (*p == '"')
			fputc('"', out);
		fputc(*p, out);
	}
	fputc('"', out);
}

void rpt_md_str(FILE *out, const char *s)
{
	for (const char *p = s; *p; p++) {
		if (*p == '|')
			fputs("\\|", out);
		else if (*p == '\n' || *p == '\r')
			fputc(' ', out);
		else
			fputc(*p, out);
	}
}

void rpt_html_str(FILE *out, const char *s)
{
	for (const char *p = s; *p; p++) {
		switch (*p) {
		case '&': fputs("&amp;", out); break;
		case '<': fputs("&lt;", out); break;
		case '>': fputs("&gt;", out); break;
		case '"': fputs("&quot;", out); break;
		case '\'': fputs("&#39;", out); break;
		default: fputc(*p, out);
		}
	}
}

void rpt_wrap(FILE *out, size_t first_len, const char *indent, const char *text, size_t width)
{
	size_t col = first_len, ind = strlen(indent);
	int words_on_line = 0;
	const char *p = text;

	for (;;) {
		size_t len;

		while (*p == ' ' || *p == '\n')
			p++;
		if (!*p)
			break;
		len = strcspn(p, " \n");
		if (words_on_line > 0 && col + 1 + len > width) {
			fputc('\n', out);
			fputs(indent, out);
			col = ind;
			words_on_line = 0;
		}
		if (words_on_line > 0) {
			fputc(' ', out);
			col++;
		}
		fwrite(p, 1, len, out);
		col += len;
		words_on_line++;
		p += len;
	}
	fputc('\n', out);
}

const char *rpt_duration(double s, char *buf, size_t n)
{
	if (!(s >= 0) || !isfinite(s))
		snprintf(buf, n, "-");
	else if (s < 120)
		snprintf(buf, n, "%.1f s", s);
	else if (s < 2 * 3600)
		snprintf(buf, n, "%.1f min", s / 60);
	else if (s < 2 * 86400)
		snprintf(buf, n, "%.1f h", s / 3600);
	else if (s < 1e6 * 86400)
		snprintf(buf, n, "%.1f days", s / 86400);
	else
		snprintf(buf, n, "%.3g days", s / 86400); /* no 300-digit day counts */
	return buf;
}

const char *rpt_usd(double usd, char *buf, size_t n)
{
	double a = fabs(usd);

	if (!isfinite(usd))
		snprintf(buf, n, "-");
	else if (a < 1e3)
		snprintf(buf, n, "$%.2f", usd);
	else if (a < 1e6)
		snprintf(buf, n, "$%.1fk", usd / 1e3);
	else if (a < 1e9)
		snprintf(buf, n, "$%.2fM", usd / 1e6);
	else if (a < 1e15)
		snprintf(buf, n, "$%.2fB", usd / 1e9);
	else
		snprintf(buf, n, "$%.3g", usd); /* no 300-digit amounts */
	return buf;
}

const char *rpt_thousands(double v, char *buf, size_t n)
{
	char digits[64];
	size_t len, k = 0;
	int neg = v < 0;

	if (!(fabs(v) < 1e15)) {
		/* fixed notation only where it is exact and short */
		snprintf(buf, n, "%.4g", v);
		return buf;
	}
	snprintf(digits, sizeof(digits), "%.0f", fabs(v));
	len = strlen(digits);
	if (n == 0)
		return buf;
	if (neg && k + 1 < n)
		buf[k++] = '-';
	for (size_t i = 0; i < len && k + 1 < n; i++) {
		if (i > 0 && (len - i) % 3 == 0 && k + 1 < n)
			buf[k++] = ',';
		if (k + 1 < n)
			buf[k++] = digits[i];
	}
	buf[k] = '\0';
	return buf;
}

const char *rpt_price_options(const struct instance_price *p, char *buf, size_t n)
{
	size_t len;

	if (p->sold_as == SOLD_AS_ULTRASERVER) {
		snprintf(buf, n, "not sold on demand; capacity blocks of whole UltraServers only:");
		for (int i = 0; i < p->n_ultraservers && i < SC_ULTRASERVERS_MAX; i++) {
			const struct ultraserver_spec *u = &p->ultraservers[i];

			len = strlen(buf);
			snprintf(buf + len, n - len, "%s %s (%d instances) $%.2f/h", i ? "," : "", u->name,
				 u->instances, u->capacity_block_usd_per_h);
		}
		return buf;
	}
	if (p->on_demand_usd_per_h > 0)
		snprintf(buf, n, "on-demand $%.2f", p->on_demand_usd_per_h);
	else
		snprintf(buf, n, "not sold on demand");
	len = strlen(buf);
	if (p->capacity_block_usd_per_h > 0)
		snprintf(buf + len, n - len, ", capacity block $%.2f", p->capacity_block_usd_per_h);
	else
		snprintf(buf + len, n - len, ", capacity block not offered");
	return buf;
}

const char *rpt_purchase(const struct instance_spec *inst, int nodes, enum plan_pricing pr,
			 char *buf, size_t n)
{
	const struct ultraserver_spec *u = purchase_unit(inst);
	double h = purchase_cluster_usd_per_h(inst, nodes, pr);

	if (!(h > 0))
		snprintf(buf, n, "not offered");
	else if (u)
		snprintf(buf, n, "%d x %s (%d x %s), $%.2f/h", (nodes + u->instances - 1) / u->instances,
			 u->name, u->instances, inst->name, h);
	else
		snprintf(buf, n, "%d x %s, $%.2f/h", nodes, inst->name, h);
	return buf;
}

const char *rpt_usd_if(double usd_per_h, double usd, const char *absent, char *buf, size_t n)
{
	if (usd_per_h > 0)
		return rpt_usd(usd, buf, n);
	snprintf(buf, n, "%s", absent);
	return buf;
}

const char *rpt_per_mtoken_if(double usd_per_h, double usd_per_mtoken, const char *absent, char *buf, size_t n)
{
	if (usd_per_h > 0)
		snprintf(buf, n, "%.3f", usd_per_mtoken);
	else
		snprintf(buf, n, "%s", absent);
	return buf;
}

const char *rpt_price_cell(const struct instance_price *p, enum plan_pricing pr, char *buf, size_t n)
{
	double usd = pr == PRICING_ON_DEMAND ? p->on_demand_usd_per_h : p->capacity_block_usd_per_h;
	size_t len;

	if (pr == PRICING_CAPACITY_BLOCK && p->sold_as == SOLD_AS_ULTRASERVER) {
		buf[0] = '\0';
		for (int i = 0; i < p->n_ultraservers && i < SC_ULTRASERVERS_MAX; i++) {
			len = strlen(buf);
			snprintf(buf + len, n - len, "%s$%.2f per %s (%d instances)", i ? ", " : "",
				 p->ultraservers[i].capacity_block_usd_per_h, p->ultraservers[i].name,
				 p->ultraservers[i].instances);
		}
		return buf;
	}
	if (usd > 0)
		snprintf(buf, n, "$%.2f", usd);
	else
		snprintf(buf, n, "%s", pr == PRICING_ON_DEMAND ? "not sold" : "not offered");
	return buf;
}

static bool print_json(FILE *out, cJSON *root, bool line)
{
	char *text = !root ? NULL : line ? cJSON_PrintUnformatted(root) : cJSON_Print(root);

	cJSON_Delete(root);
	if (!text)
		return false;
	fprintf(out, "%s\n", text);
	free(text);
	return true;
}

bool rpt_json_print(FILE *out, cJSON *root)
{
	return print_json(out, root, false);
}

bool rpt_json_print_line(FILE *out, cJSON *root)
{
	return print_json(out, root, true);
}
