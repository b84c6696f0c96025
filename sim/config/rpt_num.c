/* rpt_num.c: the non-finite output check (see rpt_num.h). */
#define RPT_NUM_NO_OVERRIDE
#include "rpt_num.h"

#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

static char failure[160];

bool rpt_num_check(double v, const char *quantity)
{
	if (isfinite(v))
		return true;
	if (!failure[0])
		snprintf(failure, sizeof(failure), "\"%.100s\" is %s", quantity ? quantity : "a number",
			 isnan(v) ? "nan" : v > 0 ? "inf" : "-inf");
	return false;
}

const char *rpt_num_failure(void)
{
	return failure[0] ? failure : NULL;
}

void rpt_num_reset(void)
{
	failure[0] = '\0';
}

cJSON *rpt_json_add_number(cJSON *object, const char *name, double v)
{
	rpt_num_check(v, name);
	return cJSON_AddNumberToObject(object, name, v);
}

cJSON *rpt_json_number(double v, const char *quantity)
{
	rpt_num_check(v, quantity);
	return cJSON_CreateNumber(v);
}

void rpt_num_scan_init(struct rpt_num_scan *s)
{
	memset(s, 0, sizeof(*s));
	s->line = 1;
}

static bool word_byte(unsigned char c)
{
	return isalnum(c) || c == '_' || c == '.' || c == '+' || c == '-';
}

static bool nonfinite_word(const char *t)
{
	static const char *const words[] = { "nan", "-nan", "+nan", "inf", "-inf", "+inf",
					     "infinity", "-infinity", "+infinity" };

	for (size_t i = 0; i < sizeof(words) / sizeof(words[0]); i++)
		if (strcasecmp(t, words[i]) == 0)
			return true;
	return false;
}

static void found(struct rpt_num_scan *s, const char *kind)
{
	char shown[sizeof(s->line_text)];
	size_t k = 0;

	/* the line as far as it went, control bytes as '?' */
	for (size_t i = 0; i < s->line_len && k + 1 < sizeof(shown); i++)
		shown[k++] = (unsigned char)s->line_text[i] < 0x20 ? '?' : s->line_text[i];
	shown[k] = '\0';
	s->bad = true;
	snprintf(s->what, sizeof(s->what), "output line %ld holds %s: \"%s\"", s->line, kind, shown);
}

static void end_word(struct rpt_num_scan *s)
{
	if (s->tok_len > 0 && s->tok_len < sizeof(s->tok)) {
		s->tok[s->tok_len] = '\0';
		if (nonfinite_word(s->tok))
			found(s, "a number that is not finite");
	}
	s->tok_len = 0;
}

bool rpt_num_scan_feed(struct rpt_num_scan *s, const char *buf, size_t n)
{
	for (size_t i = 0; i < n && !s->bad; i++) {
		unsigned char c = (unsigned char)buf[i];

		if (c != '\n' && s->line_len + 1 < sizeof(s->line_text))
			s->line_text[s->line_len++] = (char)c;
		if (word_byte(c)) {
			if (s->tok_len < sizeof(s->tok))
				s->tok[s->tok_len] = (char)c;
			s->tok_len++;
		} else {
			end_word(s);
		}
		if (isdigit(c)) {
			if (++s->digits > RPT_NUM_MAX_DIGITS)
				found(s, "a number of more than 40 digits");
		} else {
			s->digits = 0;
		}
		if (c == '\n') {
			s->line++;
			s->line_len = 0;
		}
	}
	return !s->bad;
}

bool rpt_num_scan_end(struct rpt_num_scan *s)
{
	if (!s->bad)
		end_word(s);
	return !s->bad;
}
