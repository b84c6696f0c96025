/* rpt_html.c: the plan/compare report as one self-contained HTML file with
 * inline SVG charts: no script, no web font, no network (see rpt_plan.h).
 *
 * Charts (each an <svg> with an id, axis titles with units):
 *   chart-breakdown  the chosen layout's step time per instance type as
 *                    stacked bars, one segment per step part (rect.bar);
 *   chart-cost-time  cost to train versus time to train, every instance
 *                    type at every node count of the sweep (circle.point),
 *                    log-log, the Pareto frontier as path.pareto;
 *   chart-scaling    throughput versus nodes per instance type
 *                    (path.scaling-line), log-log.
 */
#include "rpt_plan.h"

#include <math.h>
#include <string.h>

#include "rpt_plan_int.h"
#include "rpt_util.h"
#include "../models/units.h"

#define W 900.0
#define H 440.0
#define ML 96.0   /* left margin: y tick labels and title */
#define MR 170.0  /* right margin: legend */
#define MT 24.0
#define MB 70.0   /* bottom: x tick labels and title */
#define PW (W - ML - MR)
#define PH (H - MT - MB)

static const char *const entry_colors[] = {
	"#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd", "#8c564b",
	"#e377c2", "#7f7f7f", "#bcbd22", "#17becf", "#393b79", "#637939",
	"#8c6d31", "#843c39", "#7b4173", "#3182bd"
};

static const char *entry_color(int i)
{
	return entry_colors[i % (int)(sizeof(entry_colors) / sizeof(entry_colors[0]))];
}

/* One colour per step part; parts added later get greys. */
static const char *part_color(int i)
{
	static const char *const c[] = { "#4e79a7", "#f28e2b", "#e15759", "#76b7b2", "#59a14f",
					 "#edc948", "#b07aa1", "#ff9da7", "#9c755f" };
	static const char *const grey[] = { "#bab0ac", "#8f8f8f", "#cfcfcf", "#5f5f5f" };
	int n = (int)(sizeof(c) / sizeof(c[0]));

	return i < n ? c[i] : grey[(i - n) % 4];
}

/* ---- axes ------------------------------------------------------------------------- */

/* A "nice" step for about n ticks over span. */
static double nice_step(double span, int n)
{
	double raw = span / n, mag = pow(10, floor(log10(raw))), f = raw / mag;

	return (f < 1.5 ? 1 : f < 3 ? 2 : f < 7 ? 5 : 10) * mag;
}

struct axis {
	bool log;
	double lo, hi;    /* data range (log: positive) */
	double p0, p1;    /* pixel range */
};

static double ax_px(const struct axis *a, double v)
{
	double t = a->log ? (log10(v) - log10(a->lo)) / (log10(a->hi) - log10(a->lo))
			  : (v - a->lo) / (a->hi - a->lo);

	return a->p0 + t * (a->p1 - a->p0);
}

/* Widen a log range to whole 1-2-5 steps with a little room. */
static void log_range(double *lo, double *hi)
{
	double l = *lo / 1.25, h = *hi * 1.25;

	if (!(l > 0))
		l = *hi / 10;
	if (!(h > l))
		h = l * 10;
	*lo = l;
	*hi = h;
}

typedef const char *(*tick_fmt)(double v, char *buf, size_t n);

static const char *fmt_g(double v, char *buf, size_t n)
{
	snprintf(buf, n, "%g", v);
	return buf;
}

static const char *fmt_days(double v, char *buf, size_t n)
{
	snprintf(buf, n, "%g", v);
	return buf;
}

/* v with an M or k suffix past a million or a thousand, after prefix. */
static const char *fmt_si(const char *prefix, double v, char *buf, size_t n)
{
	double div = v >= 1e6 ? 1e6 : v >= 1e3 ? 1e3 : 1;

	snprintf(buf, n, "%s%g%s", prefix, v / div, v >= 1e6 ? "M" : v >= 1e3 ? "k" : "");
	return buf;
}

static const char *fmt_usd(double v, char *buf, size_t n)
{
	return fmt_si("$", v, buf, n);
}

static const char *fmt_tokens(double v, char *buf, size_t n)
{
	return fmt_si("", v, buf, n);
}

/* Ticks of a log axis: the first of the mantissa sets 1; 1, 2, 5; 1 .. 9
 * (x 10^k) that puts at least four ticks inside the range. */
static int log_ticks(const struct axis *a, double *t, int max)
{
	static const double sets[3][9] = { { 1 }, { 1, 2, 5 }, { 1, 2, 3, 4, 5, 6, 7, 8, 9 } };
	static const int sizes[3] = { 1, 3, 9 };
	int n = 0;

	for (int s = 0; s < 3; s++) {
		n = 0;
		for (int k = (int)floor(log10(a->lo)); k <= (int)ceil(log10(a->hi)); k++) {
			for (int j = 0; j < sizes[s]; j++) {
				double v = sets[s][j] * pow(10, k);

				if (v >= a->lo && v <= a->hi && n < max)
					t[n++] = v;
			}
		}
		if (n >= 4)
			break;
	}
	return n;
}

static int lin_ticks(const struct axis *a, double *t, int max)
{
	double st = nice_step(a->hi - a->lo, 6);
	int n = 0;

	for (double v = ceil(a->lo / st) * st; v <= a->hi + st * 1e-9 && n < max; v += st)
		t[n++] = fabs(v) < st * 1e-9 ? 0 : v;
	return n;
}

static void y_axis(FILE *out, const struct axis *a, tick_fmt fmt, const char *title)
{
	double t[32];
	int n = a->log ? log_ticks(a, t, 32) : lin_ticks(a, t, 32);
	char buf[32];

	for (int i = 0; i < n; i++) {
		double y = ax_px(a, t[i]);

		fprintf(out, "<line class=\"grid\" x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\"/>"
			"<text class=\"tick\" x=\"%.1f\" y=\"%.1f\" text-anchor=\"end\">%s</text>\n",
			ML, y, ML + PW, y, ML - 6, y + 4, fmt(t[i], buf, sizeof(buf)));
	}
	fprintf(out, "<line class=\"axis\" x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\"/>\n", ML, MT, ML,
		MT + PH);
	fprintf(out, "<text class=\"axis-label\" transform=\"translate(%.1f,%.1f) rotate(-90)\" "
		"text-anchor=\"middle\">", 22.0, MT + PH / 2);
	rpt_html_str(out, title);
	fputs("</text>\n", out);
}

static void x_axis(FILE *out, const struct axis *a, const double *ticks, int n, tick_fmt fmt,
		   const char *title)
{
	double t[32];
	char buf[32];

	if (!ticks) {
		n = a->log ? log_ticks(a, t, 32) : lin_ticks(a, t, 32);
		ticks = t;
	}
	for (int i = 0, last = -1; i < n; i++) {
		double x = ax_px(a, ticks[i]);

		fprintf(out, "<line class=\"grid\" x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\"/>",
			x, MT, x, MT + PH);
		/* a label only where it does not run into the one before */
		if (last < 0 || x - ax_px(a, ticks[last]) >= 30) {
			fprintf(out, "<text class=\"tick\" x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\">%s</text>",
				x, MT + PH + 18, fmt(ticks[i], buf, sizeof(buf)));
			last = i;
		}
		fputc('\n', out);
	}
	fprintf(out, "<line class=\"axis\" x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\"/>\n", ML,
		MT + PH, ML + PW, MT + PH);
	fprintf(out, "<text class=\"axis-label\" x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\">",
		ML + PW / 2, H - 14);
	rpt_html_str(out, title);
	fputs("</text>\n", out);
}

static void svg_open(FILE *out, const char *id, const char *label)
{
	fprintf(out, "<svg id=\"%s\" class=\"chart\" xmlns=\"http://www.w3.org/2000/svg\" "
		"viewBox=\"0 0 %.0f %.0f\" width=\"%.0f\" height=\"%.0f\" role=\"img\" aria-label=\"",
		id, W, H, W, H);
	rpt_html_str(out, label);
	fputs("\">\n", out);
}

static void legend_item(FILE *out, int k, const char *color, const char *label, bool line)
{
	double x = ML + PW + 18, y = MT + 8 + 20 * k;

	if (line)
		fprintf(out, "<line class=\"legend-line\" x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" "
			"stroke=\"%s\"/>", x, y + 6, x + 14, y + 6, color);
	else
		fprintf(out, "<rect class=\"legend-swatch\" x=\"%.1f\" y=\"%.1f\" width=\"14\" height=\"12\" "
			"fill=\"%s\"/>", x, y, color);
	fprintf(out, "<text class=\"legend\" x=\"%.1f\" y=\"%.1f\">", x + 20, y + 10);
	rpt_html_str(out, label);
	fputs("</text>\n", out);
}

/* ---- the charts ------------------------------------------------------------------- */

static void chart_breakdown(FILE *out, const struct compare_result *r)
{
	struct axis y = { false, 0, 1, MT + PH, MT };
	double band = PW / (r->n > 0 ? r->n : 1), bw = fmin(band * 0.56, 110.0);
	char buf[64];

	for (int i = 0; i < r->n; i++) {
		const struct plan_point *p = plan_chosen(&r->entries[i].plan);

		if (p && p->best.step_time_s > y.hi)
			y.hi = p->best.step_time_s;
	}
	y.hi *= 1.12;
	svg_open(out, "chart-breakdown", "step-time breakdown per instance type");
	y_axis(out, &y, fmt_g, "step time (s)");
	fprintf(out, "<line class=\"axis\" x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\"/>\n", ML,
		MT + PH, ML + PW, MT + PH);
	for (int i = 0; i < r->n; i++) {
		const struct compare_entry *e = &r->entries[i];
		const struct plan_point *p = plan_chosen(&e->plan);
		double x = ML + band * i + (band - bw) / 2, acc = 0;

		fprintf(out, "<text class=\"tick category\" x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\">",
			x + bw / 2, MT + PH + 18);
		rpt_html_str(out, e->instance.name);
		fprintf(out, "</text>\n");
		if (!p) {
			fprintf(out, "<text class=\"tick\" x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\">does not fit"
				"</text>\n", x + bw / 2, MT + PH - 8);
			continue;
		}
		fprintf(out, "<text class=\"tick\" x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\">%d nodes</text>\n",
			x + bw / 2, MT + PH + 33, p->nodes);
		for (int k = 0; k < PART_COUNT; k++) {
			double v = p->best.part_s[k], y0 = ax_px(&y, acc), y1 = ax_px(&y, acc + v);

			if (!(v > 0))
				continue;
			fprintf(out, "<rect class=\"bar part-%s\" x=\"%.1f\" y=\"%.2f\" width=\"%.1f\" height=\"%.2f\" "
				"fill=\"%s\"><title>%s %s: %.4g s</title></rect>\n",
				step_part_name((enum step_part)k), x, y1, bw, y0 - y1, part_color(k),
				e->instance.name, step_part_name((enum step_part)k), v);
			acc += v;
		}
		snprintf(buf, sizeof(buf), "%.3g s", p->best.step_time_s);
		fprintf(out, "<text class=\"value\" x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\">%s</text>\n",
			x + bw / 2, ax_px(&y, acc) - 5, buf);
	}
	for (int k = 0; k < PART_COUNT; k++)
		legend_item(out, PART_COUNT - 1 - k, part_color(k), step_part_name((enum step_part)k), false);
	fputs("</svg>\n", out);
}

static void chart_cost_time(FILE *out, const struct compare_result *r, enum plan_pricing pr)
{
	struct axis x = { true, INFINITY, 0, ML, ML + PW }, y = { true, INFINITY, 0, MT + PH, MT };
	struct compare_ref front[256];
	int nf = compare_pareto(r, pr, front, 256), any = 0;
	char title[96];

	for (int i = 0; i < r->n; i++) {
		for (int k = 0; k < r->entries[i].plan.n_points; k++) {
			const struct plan_point *p = &r->entries[i].plan.points[k];
			double t = p->train[pr].time_s / 86400, c = p->train[pr].usd_total;

			if (!p->feasible || !(p->train[pr].usd_per_h > 0))
				continue;
			any++;
			x.lo = fmin(x.lo, t);
			x.hi = fmax(x.hi, t);
			y.lo = fmin(y.lo, c);
			y.hi = fmax(y.hi, c);
		}
	}
	if (!any) {
		x.lo = 1, x.hi = 10, y.lo = 1e3, y.hi = 1e4;
	}
	log_range(&x.lo, &x.hi);
	log_range(&y.lo, &y.hi);
	snprintf(title, sizeof(title), "cost to train (USD, %s)", plan_pricing_name(pr));
	svg_open(out, "chart-cost-time", "cost versus time to train with the Pareto frontier");
	y_axis(out, &y, fmt_usd, title);
	x_axis(out, &x, NULL, 0, fmt_days, "time to train (days, log scale)");
	/* the frontier first, under the points */
	if (nf > 0) {
		fputs("<path class=\"pareto\" d=\"", out);
		for (int k = 0; k < nf; k++) {
			const struct plan_point *p = &r->entries[front[k].entry].plan.points[front[k].point];

			fprintf(out, "%s%.1f %.1f", k ? " L" : "M", ax_px(&x, p->train[pr].time_s / 86400),
				ax_px(&y, p->train[pr].usd_total));
		}
		fputs("\"/>\n", out);
	}
	for (int i = 0; i < r->n; i++) {
		const struct compare_entry *e = &r->entries[i];

		for (int k = 0; k < e->plan.n_points; k++) {
			const struct plan_point *p = &e->plan.points[k];
			double px, py;
			bool on = rpt_plan_on_pareto(front, nf, i, k);
			char d[32], u[32];

			if (!p->feasible || !(p->train[pr].usd_per_h > 0))
				continue;
			px = ax_px(&x, p->train[pr].time_s / 86400);
			py = ax_px(&y, p->train[pr].usd_total);
			fprintf(out, "<circle class=\"point%s%s\" cx=\"%.1f\" cy=\"%.1f\" r=\"%s\" fill=\"%s\">"
				"<title>%s, %d nodes: %s, %s%s</title></circle>\n",
				on ? " on-pareto" : "", k == e->plan.chosen ? " chosen" : "", px, py,
				k == e->plan.chosen ? "7" : "5", entry_color(i), e->instance.name, p->nodes,
				rpt_duration(p->train[pr].time_s, d, sizeof(d)),
				rpt_usd(p->train[pr].usd_total, u, sizeof(u)), on ? " (Pareto frontier)" : "");
			if (on)
				fprintf(out, "<circle class=\"pareto-ring\" cx=\"%.1f\" cy=\"%.1f\" r=\"10\"/>\n", px, py);
			fprintf(out, "<text class=\"point-label\" x=\"%.1f\" y=\"%.1f\">%d</text>\n", px + 8, py - 6,
				p->nodes);
		}
	}
	for (int i = 0; i < r->n; i++)
		legend_item(out, i, entry_color(i), r->entries[i].instance.name, false);
	legend_item(out, r->n, "#000", "Pareto frontier", true);
	fprintf(out, "<text class=\"legend\" x=\"%.1f\" y=\"%.1f\">labels: nodes;</text>"
		"<text class=\"legend\" x=\"%.1f\" y=\"%.1f\">large dot: compared</text>\n",
		ML + PW + 18, MT + 18 + 20 * (r->n + 1), ML + PW + 18, MT + 34 + 20 * (r->n + 1));
	fputs("</svg>\n", out);
}

static void chart_scaling(FILE *out, const struct compare_result *r)
{
	struct axis x = { true, INFINITY, 0, ML, ML + PW }, y = { true, INFINITY, 0, MT + PH, MT };
	double ticks[64];
	int nt = 0;

	for (int i = 0; i < r->n; i++) {
		for (int k = 0; k < r->entries[i].plan.n_points; k++) {
			const struct plan_point *p = &r->entries[i].plan.points[k];
			bool seen = false;

			x.lo = fmin(x.lo, p->nodes);
			x.hi = fmax(x.hi, p->nodes);
			for (int j = 0; j < nt; j++)
				seen |= ticks[j] == p->nodes;
			if (!seen && nt < 64)
				ticks[nt++] = p->nodes;
			if (!p->feasible)
				continue;
			y.lo = fmin(y.lo, p->best.tokens_per_s);
			y.hi = fmax(y.hi, p->best.tokens_per_s);
		}
	}
	if (!(x.hi > 0))
		x.lo = 1, x.hi = 2;
	if (!(y.hi > 0))
		y.lo = 1e3, y.hi = 1e4;
	x.lo /= 1.3;
	x.hi *= 1.3;
	log_range(&y.lo, &y.hi);
	svg_open(out, "chart-scaling", "throughput versus nodes per instance type");
	y_axis(out, &y, fmt_tokens, "throughput (tokens/s, log scale)");
	/* sorted node ticks */
	for (int a = 1; a < nt; a++)
		for (int b = a; b > 0 && ticks[b] < ticks[b - 1]; b--) {
			double t = ticks[b];

			ticks[b] = ticks[b - 1];
			ticks[b - 1] = t;
		}
	x_axis(out, &x, ticks, nt, fmt_g, "nodes (instances, log scale)");
	for (int i = 0; i < r->n; i++) {
		const struct compare_entry *e = &r->entries[i];
		int drawn = 0;

		fprintf(out, "<path class=\"scaling-line\" stroke=\"%s\" d=\"", entry_color(i));
		for (int k = 0; k < e->plan.n_points; k++) {
			const struct plan_point *p = &e->plan.points[k];

			if (!p->feasible)
				continue;
			fprintf(out, "%s%.1f %.1f", drawn++ ? " L" : "M", ax_px(&x, p->nodes),
				ax_px(&y, p->best.tokens_per_s));
		}
		fputs("\"/>\n", out);
		for (int k = 0; k < e->plan.n_points; k++) {
			const struct plan_point *p = &e->plan.points[k];

			if (!p->feasible)
				continue;
			fprintf(out, "<circle class=\"point\" cx=\"%.1f\" cy=\"%.1f\" r=\"4\" fill=\"%s\">"
				"<title>%s, %d nodes: %.4g tokens/s</title></circle>\n", ax_px(&x, p->nodes),
				ax_px(&y, p->best.tokens_per_s), entry_color(i), e->instance.name, p->nodes,
				p->best.tokens_per_s);
		}
	}
	for (int i = 0; i < r->n; i++)
		legend_item(out, i, entry_color(i), r->entries[i].instance.name, true);
	fputs("</svg>\n", out);
}

/* ---- the page --------------------------------------------------------------------- */

static const char *style =
	"body{font-family:'DejaVu Sans',Arial,Helvetica,sans-serif;margin:24px auto;max-width:1100px;"
	"color:#222;background:#fff;line-height:1.4}"
	"h1{font-size:22px;margin-bottom:4px}h2{font-size:17px;margin-top:28px;border-bottom:1px solid #ddd}"
	"table{border-collapse:collapse;font-size:12px;margin:8px 0}"
	"th,td{border:1px solid #ccc;padding:3px 6px;text-align:right;vertical-align:top}"
	"th{background:#f2f2f2}td.l,th.l{text-align:left}td.src{text-align:left;font-size:11px;color:#444}"
	"ul.decision li{font-size:15px;margin:4px 0}.meta{color:#444;font-size:13px}"
	"svg.chart{display:block;margin:8px 0;background:#fff}"
	".grid{stroke:#e6e6e6;stroke-width:1}.axis{stroke:#333;stroke-width:1.2}"
	".tick{font-size:11px;fill:#333}.tick.category{font-size:10px}.axis-label{font-size:13px;fill:#111}"
	".legend{font-size:12px;fill:#222}.value{font-size:11px;fill:#111}"
	".point{stroke:#fff;stroke-width:1}.point.chosen{stroke:#000;stroke-width:1.5}"
	".point-label{font-size:9px;fill:#555}"
	".pareto{fill:none;stroke:#000;stroke-width:1.6;stroke-dasharray:6 4}"
	".pareto-ring{fill:none;stroke:#000;stroke-width:1.2}"
	".scaling-line{fill:none;stroke-width:2}.legend-line{stroke-width:2.5}"
	"tr.win td{background:#eef7ee}";

static void row_html(FILE *out, const struct compare_entry *e, const struct plan_point *p,
		     bool win, const char *extra)
{
	char lay[96], t[32], od[32], cb[32];

	fprintf(out, "<tr%s><td class=\"l\">", win ? " class=\"win\"" : "");
	rpt_html_str(out, e->instance.name);
	fprintf(out, "</td><td class=\"l\">%s</td>", e->gpu);
	if (!p || !p->feasible) {
		fprintf(out, "<td>%s</td><td class=\"l\" colspan=\"10\">no layout fits in memory</td>%s</tr>\n",
			p ? "" : "-", extra ? "<td></td>" : "");
		return;
	}
	const struct plan_train *o = &p->train[PRICING_ON_DEMAND], *c = &p->train[PRICING_CAPACITY_BLOCK];
	char mt[32];

	rpt_per_mtoken_if(o->usd_per_h, o->usd_per_mtoken, "not sold", mt, sizeof(mt));
	fprintf(out, "<td>%d</td><td class=\"l\">%s</td><td>%.3f</td><td>%.4g</td><td>%.1f %%</td>"
		"<td>%.1f GiB</td><td class=\"l\">%s</td><td>%s</td><td>%s</td><td>%s</td><td>%s</td>",
		p->nodes, rpt_layout_str(&p->best, lay, sizeof(lay)), p->best.step_time_s,
		p->best.tokens_per_s, p->best.mfu * 100, p->best.mem_total_bytes / SC_GiB_BYTES,
		bottleneck_name(p->best.bottleneck), rpt_duration(p->train[0].time_s, t, sizeof(t)),
		rpt_usd_if(o->usd_per_h, o->usd_total, "not sold", od, sizeof(od)),
		rpt_usd_if(c->usd_per_h, c->usd_total, "not offered", cb, sizeof(cb)), mt);
	if (extra)
		fprintf(out, "<td>%s</td>", extra);
	fputs("</tr>\n", out);
}

static const char *row_head =
	"<th>nodes</th><th class=\"l\">layout</th><th>step (s)</th><th>tokens/s</th><th>MFU</th>"
	"<th>memory/GPU</th><th class=\"l\">bottleneck</th><th>time to train</th><th>on-demand</th>"
	"<th>capacity block</th><th>$/M tokens</th>";

/* The page's head and its title line: the scenario, the budget, the
 * pricing (and a comparison's basis). */
static void plan_html_head(FILE *out, const struct rpt_plan_input *in)
{
	const struct scenario *sc = in->sc;
	const char *kind = in->compare ? "Instance-type comparison" : "Capacity plan";
	char basis[256], d[32];

	fputs("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n<title>", out);
	fprintf(out, "%s: ", kind);
	rpt_html_str(out, sc->name);
	fprintf(out, "</title>\n<style>%s</style>\n</head>\n<body>\n<h1>%s: ", style, kind);
	rpt_html_str(out, sc->name);
	fprintf(out, "</h1>\n<p class=\"meta\">model %s (%d layers, hidden %d%s); seq %d, global batch %d, %s; "
		"budget %.4g tokens", sc->model.name, sc->model.layers, sc->model.hidden,
		model_is_moe(&sc->model) ? ", MoE" : "", sc->training.seq_len,
		sc->training.global_batch_seqs, precision_name(sc->training.precision), in->opts->tokens);
	if (in->opts->deadline_s > 0)
		fprintf(out, ", deadline %s", rpt_duration(in->opts->deadline_s, d, sizeof(d)));
	fprintf(out, "; costs %s.", plan_pricing_name(in->opts->pricing));
	if (in->compare) {
		rpt_plan_basis(in, basis, sizeof(basis));
		fputs(" Basis: ", out);
		rpt_html_str(out, basis);
		fputc('.', out);
	}
	fputs("</p>\n", out);
}

/* A comparison's decision lines and its best layout per instance type. */
static void plan_html_compare(FILE *out, const struct rpt_plan_input *in)
{
	const struct compare_result *r = in->res;
	char lines[RPT_DECISION_MAX][RPT_LINE_MAX];
	int nd = rpt_plan_decision(in, lines);

	fputs("<section id=\"decision\">\n<h2>Decision</h2>\n<ul class=\"decision\">\n", out);
	for (int i = 0; i < nd; i++) {
		fputs("<li>", out);
		rpt_html_str(out, lines[i]);
		fputs("</li>\n", out);
	}
	fputs("</ul>\n</section>\n", out);
	fprintf(out, "<section id=\"best\">\n<h2>Best layout per instance type</h2>\n<table>\n"
		"<tr><th class=\"l\">instance</th><th class=\"l\">GPU</th>%s</tr>\n", row_head);
	for (int i = 0; i < r->n; i++) {
		bool win = i == r->fastest || i == r->cheapest[in->opts->pricing];

		/* a tie with a winner (inside the model's band) is a win too */
		for (int k = 0; k < r->n_fastest_tied; k++)
			win |= r->fastest_tied[k] == i;
		for (int k = 0; k < r->n_cheapest_tied[in->opts->pricing]; k++)
			win |= r->cheapest_tied[in->opts->pricing][k] == i;
		row_html(out, &r->entries[i], plan_chosen(&r->entries[i].plan), win, NULL);
	}
	fputs("</table>\n<p class=\"meta\">Green rows win on time or on cost, or are tied with the "
	      "winner inside the model's band (see the decision).</p>\n</section>\n", out);
}

/* A plan's chosen point: node count, layout, time, band, deadline and the
 * cost under each pricing. */
static void plan_html_choice(FILE *out, const struct rpt_plan_input *in)
{
	const struct compare_entry *e = &in->res->entries[0];
	const struct plan_point *p = plan_chosen(&e->plan);
	char d[32];

	fputs("<section id=\"decision\">\n<h2>Plan</h2>\n<ul class=\"decision\">\n", out);
	if (p) {
		char lay[96], a[32], band[RPT_LINE_MAX];

		fprintf(out, "<li>%d x %s (%d GPUs): %s</li>\n", p->nodes, e->instance.name, p->gpus,
			rpt_plan_choice_text(e->plan.choice));
		if (rpt_plan_tie_text(in, e, band, sizeof(band)))
			fprintf(out, "<li>%s</li>\n", band);
		fprintf(out, "<li>layout %s, %.4g s per step, %.4g tokens/s, MFU %.1f %%</li>\n",
			rpt_layout_str(&p->best, lay, sizeof(lay)), p->best.step_time_s,
			p->best.tokens_per_s, p->best.mfu * 100);
		fprintf(out, "<li>%s to train (goodput %.0f %%), %.4g GPU-hours</li>\n",
			rpt_duration(p->train[0].time_s, d, sizeof(d)), p->train[0].goodput * 100,
			p->train[0].gpu_hours);
		fputs("<li>", out);
		rpt_html_str(out, rpt_plan_time_band(p, band, sizeof(band)));
		fputs(" (the step time's band)</li>\n", out);
		if (rpt_plan_deadline_text(in, p, band, sizeof(band))) {
			fputs("<li>", out);
			rpt_html_str(out, band);
			fputs("</li>\n", out);
		}
		for (int pr = 0; pr < PRICING_COUNT; pr++) {
			char buy[512];

			if (p->train[pr].usd_per_h > 0) {
				fprintf(out, "<li>%s: %s, $%.4g per million tokens; ",
					plan_pricing_name((enum plan_pricing)pr),
					rpt_usd(p->train[pr].usd_total, a, sizeof(a)),
					p->train[pr].usd_per_mtoken);
				rpt_html_str(out, rpt_purchase(&e->instance, p->nodes, (enum plan_pricing)pr,
							       buy, sizeof(buy)));
			} else {
				fprintf(out, "<li>%s: not offered (", plan_pricing_name((enum plan_pricing)pr));
				rpt_html_str(out, rpt_price_options(&e->instance.price, buy, sizeof(buy)));
				fputc(')', out);
			}
			fputs("</li>\n", out);
		}
	} else {
		fprintf(out, "<li>%s</li>\n", rpt_plan_choice_text(e->plan.choice));
	}
	fputs("</ul>\n</section>\n", out);
}

/* The three charts: breakdown, cost against time, scaling. */
static void plan_html_charts(FILE *out, const struct rpt_plan_input *in)
{
	const struct compare_result *r = in->res;

	fputs("<section id=\"breakdown\">\n<h2>Step-time breakdown</h2>\n", out);
	chart_breakdown(out, r);
	fputs("<p class=\"meta\">One step of the chosen layout on each instance type, split into compute, "
	      "exposed communication per parallel dimension, pipeline bubble, optimizer and overhead.</p>\n"
	      "</section>\n", out);
	fputs("<section id=\"cost-time\">\n<h2>Cost versus time to train</h2>\n", out);
	chart_cost_time(out, r, in->opts->pricing);
	fputs("<p class=\"meta\">Every instance type at every node count of the sweep; the dashed line joins "
	      "the Pareto frontier (no other option is both faster and cheaper).</p>\n</section>\n", out);
	fputs("<section id=\"scaling\">\n<h2>Scaling</h2>\n", out);
	chart_scaling(out, r);
	fputs("<p class=\"meta\">Throughput of the best layout at each node count (global batch fixed).</p>\n"
	      "</section>\n", out);
}

/* Every point of the sweep, Pareto points marked. */
static void plan_html_sweep(FILE *out, const struct compare_result *r, enum plan_pricing pricing)
{
	struct compare_ref front[256];
	int nf = compare_pareto(r, pricing, front, 256);

	fprintf(out, "<section id=\"sweep\">\n<h2>All points</h2>\n<table>\n<tr><th class=\"l\">instance</th>"
		"<th class=\"l\">GPU</th>%s<th>Pareto</th></tr>\n", row_head);
	for (int i = 0; i < r->n; i++)
		for (int k = 0; k < r->entries[i].plan.n_points; k++)
			row_html(out, &r->entries[i], &r->entries[i].plan.points[k], k == r->entries[i].plan.chosen,
				 rpt_plan_on_pareto(front, nf, i, k) ? "yes" : "");
	fputs("</table>\n</section>\n", out);
}

/* Prices with the date each was read, and the notes. */
static void plan_html_prices_notes(FILE *out, const struct compare_result *r)
{
	fputs("<section id=\"prices\">\n<h2>Prices</h2>\n<p class=\"meta\">USD per instance-hour, with the date "
	      "each was read: check them before you buy.</p>\n<table>\n<tr><th class=\"l\">instance</th>"
	      "<th>on-demand</th><th>capacity block</th><th class=\"l\">region</th><th class=\"l\">date</th>"
	      "<th class=\"l\">source</th></tr>\n", out);
	for (int i = 0; i < r->n; i++) {
		const struct instance_price *p = &r->entries[i].instance.price;

		char od[32], cb[512];

		fprintf(out, "<tr><td class=\"l\">%s</td><td>%s</td><td>", r->entries[i].instance.name,
			rpt_price_cell(p, PRICING_ON_DEMAND, od, sizeof(od)));
		rpt_html_str(out, rpt_price_cell(p, PRICING_CAPACITY_BLOCK, cb, sizeof(cb)));
		fputs("</td><td class=\"l\">", out);
		rpt_html_str(out, p->region);
		fprintf(out, "</td><td class=\"l\">%s</td><td class=\"src\">", p->date);
		rpt_html_str(out, p->source);
		for (int k = 0; k < p->n_ultraservers; k++) {
			fprintf(out, "<br>%s (read %s): ", p->ultraservers[k].name, p->ultraservers[k].date);
			rpt_html_str(out, p->ultraservers[k].source);
		}
		fputs("</td></tr>\n", out);
	}
	fputs("</table>\n</section>\n<section id=\"notes\">\n<h2>Notes</h2>\n<ul>\n", out);
	for (int i = 0; i < r->n; i++) {
		const struct compare_entry *e = &r->entries[i];

		fprintf(out, "<li>%s: calibration %s, step times &#177;%.0f %%", e->instance.name,
			e->calibration, e->uncertainty_rel * 100);
		if (e->note[0]) {
			fputs("; ", out);
			rpt_html_str(out, e->note);
		}
		fputs("</li>\n", out);
	}
	fputs("<li>Time to train = budget / throughput / goodput (plan_time_to_train in sim/plan/cost.c); "
	      "failures and checkpoints are not in it yet.</li>\n</ul>\n</section>\n", out);
}

void rpt_plan_html(FILE *out, const struct rpt_plan_input *in)
{
	plan_html_head(out, in);
	if (in->compare)
		plan_html_compare(out, in);
	else
		plan_html_choice(out, in);
	plan_html_charts(out, in);
	plan_html_sweep(out, in->res, in->opts->pricing);
	plan_html_prices_notes(out, in->res);
	fprintf(out, "<footer class=\"meta\">stepcast %s</footer>\n</body>\n</html>\n", STEPCAST_VERSION);
}
