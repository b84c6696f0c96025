/* rpt_regress.c: text and JUnit XML for regress results (see rpt_regress.h). */
#include "rpt_regress.h"

#include <math.h>
#include <string.h>

static const char *case_name(const struct reg_result *r, char *buf, size_t n)
{
	const struct reg_case *c = r->now ? r->now : r->baseline;

	snprintf(buf, n, "%s with %s", c->scenario, c->calibration);
	return buf;
}

static void change_str(const struct reg_move *m, char *buf, size_t n)
{
	if (m->baseline != 0)
		snprintf(buf, n, "%+.2f %%", 100.0 * (m->now - m->baseline) / fabs(m->baseline));
	else
		snprintf(buf, n, "from 0");
}

void rpt_regress_text(FILE *out, const struct reg_report *rep)
{
	int held = 0;
	char name[512], ch[32];

	for (int i = 0; i < rep->n_results; i++)
		held += rep->results[i].status == REG_HELD;
	fprintf(out, "regress: %d cases, %d held, %d failed (tolerance %.3g %% per metric)\n",
		rep->n_results, held, rep->n_failed, 100 * rep->tolerance_rel);
	if (rep->n_failed == 0)
		return;
	fprintf(out, "\n%-8s %-62s %-18s %14s %14s %10s\n", "status", "case", "metric", "baseline",
		"now", "change");
	for (int i = 0; i < rep->n_results; i++) {
		const struct reg_result *r = &rep->results[i];

		case_name(r, name, sizeof(name));
		switch (r->status) {
		case REG_HELD:
			break;
		case REG_MOVED:
			for (int k = 0; k < r->n_moves; k++) {
				change_str(&r->moves[k], ch, sizeof(ch));
				fprintf(out, "%-8s %-62s %-18s %14.6g %14.6g %10s\n", k ? "" : "moved",
					k ? "" : name, reg_metric_name(r->moves[k].metric),
					r->moves[k].baseline, r->moves[k].now, ch);
			}
			break;
		case REG_NEW:
			fprintf(out, "%-8s %-62s no baseline: run stepcast regress --update and review\n",
				"new", name);
			break;
		case REG_STALE:
			fprintf(out, "%-8s %-62s baseline without a case (scenario or profile gone)\n",
				"stale", name);
			break;
		case REG_CHANGED:
			fprintf(out, "%-8s %-62s now: %s; baseline: %s\n", "changed", name,
				r->now->failed ? r->now->error : "predicts",
				r->baseline->failed ? r->baseline->error : "predicted");
			break;
		}
	}
}

/* XML text and attribute escaping (&, <, >, ", ' and control bytes). */
static void xml_escaped(FILE *out, const char *s)
{
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;
		switch (c) {
		case '&': fputs("&amp;", out); break;
		case '<': fputs("&lt;", out); break;
		case '>': fputs("&gt;", out); break;
		case '"': fputs("&quot;", out); break;
		case '\'': fputs("&apos;", out); break;
		default:
			if (c < 0x20 && c != '\n' && c != '\t')
				fputc('?', out); /* not representable in XML 1.0 */
			else
				fputc(c, out);
		}
	}
}

void rpt_regress_junit(FILE *out, const struct reg_report *rep, const char *timestamp)
{
	double total = 0;
	char buf[256], ch[32];

	for (int i = 0; i < rep->n_results; i++)
		if (rep->results[i].now)
			total += rep->results[i].now->seconds;
	fprintf(out, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n");
	fprintf(out, "<testsuites name=\"stepcast regress\" tests=\"%d\" failures=\"%d\" errors=\"0\" "
		"time=\"%.6f\">\n", rep->n_results, rep->n_failed, total);
	fprintf(out, "  <testsuite name=\"stepcast.regress\" tests=\"%d\" failures=\"%d\" errors=\"0\" "
		"skipped=\"0\" time=\"%.6f\" timestamp=\"", rep->n_results, rep->n_failed, total);
	xml_escaped(out, timestamp);
	fprintf(out, "\">\n");
	fprintf(out, "    <properties>\n      <property name=\"tolerance_rel\" value=\"%g\"/>\n"
		"    </properties>\n", rep->tolerance_rel);
	for (int i = 0; i < rep->n_results; i++) {
		const struct reg_result *r = &rep->results[i];
		const struct reg_case *c = r->now ? r->now : r->baseline;

		fputs("    <testcase classname=\"regress.", out);
		xml_escaped(out, c->calibration);
		fputs("\" name=\"", out);
		xml_escaped(out, c->scenario);
		fprintf(out, "\" time=\"%.6f\"", r->now ? r->now->seconds : 0.0);
		if (r->status == REG_HELD) {
			fputs("/>\n", out);
			continue;
		}
		fputs(">\n      <failure type=\"", out);
		xml_escaped(out, reg_status_name(r->status));
		fputs("\" message=\"", out);
		if (r->status == REG_MOVED)
			snprintf(buf, sizeof(buf), "%d metric%s moved by more than %g %%", r->n_moves,
				 r->n_moves == 1 ? "" : "s", 100 * rep->tolerance_rel);
		else if (r->status == REG_NEW)
			snprintf(buf, sizeof(buf), "no baseline: run stepcast regress --update");
		else if (r->status == REG_STALE)
			snprintf(buf, sizeof(buf), "baseline without a case");
		else
			snprintf(buf, sizeof(buf), "the prediction now %s", r->now->failed ? "fails" : "succeeds");
		xml_escaped(out, buf);
		fputs("\">", out);
		for (int k = 0; k < r->n_moves; k++) {
			change_str(&r->moves[k], ch, sizeof(ch));
			snprintf(buf, sizeof(buf), "%s: %.6g -> %.6g (%s)\n", reg_metric_name(r->moves[k].metric),
				 r->moves[k].baseline, r->moves[k].now, ch);
			xml_escaped(out, buf);
		}
		if (r->status == REG_CHANGED) {
			xml_escaped(out, r->now->failed ? r->now->error : "");
			xml_escaped(out, r->baseline->failed ? r->baseline->error : "");
		}
		fputs("</failure>\n    </testcase>\n", out);
	}
	fputs("  </testsuite>\n</testsuites>\n", out);
}
