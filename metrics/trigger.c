/*
 * Trigger expressions: a small tokenizer and parser that point at the
 * column of what is wrong, the units a quantity may have for a counter,
 * and the episodes of a condition over windows.
 */
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "metrics/quantity.h"
#include "metrics/trigger.h"

static int fail(struct gpm_trigger_error *err, unsigned column,
		const char *fmt, ...) __attribute__((format(printf, 3, 4)));

static int fail(struct gpm_trigger_error *err, unsigned column,
		const char *fmt, ...)
{
	va_list ap;
	err->column = column;
	va_start(ap, fmt);
	vsnprintf(err->message, sizeof(err->message), fmt, ap);
	va_end(ap);
	return -EINVAL;
}

/* ------------------------------------------------------------------ */
/* Tokens                                                               */

enum token_kind {
	TOKEN_END,
	TOKEN_WORD,                     /* a name or keyword */
	TOKEN_OP,
	TOKEN_QUANTITY,                 /* a number and the unit glued to it */
	TOKEN_OTHER,
};

struct token {
	enum token_kind kind;
	const char *start;
	size_t len;
	unsigned column;
};

struct lexer {
	const char *text;
	const char *at;
};

static bool unit_char(unsigned char c)
{
	/* 0xc2 0xb5 is µ in UTF-8. */
	return isalpha(c) || c == '%' || c == '/' || c == 0xc2 || c == 0xb5;
}

static struct token next_token(struct lexer *lx)
{
	while (isspace((unsigned char)*lx->at))
		lx->at++;
	struct token t = {
		.start = lx->at,
		.column = (unsigned)(lx->at - lx->text) + 1,
	};
	const char *p = lx->at;
	unsigned char c = (unsigned char)*p;
	if (!c) {
		t.kind = TOKEN_END;
	} else if (isalpha(c) || c == '_') {
		while (isalnum((unsigned char)*p) || *p == '_')
			p++;
		t.kind = TOKEN_WORD;
	} else if (isdigit(c) || (c == '.' && isdigit((unsigned char)p[1]))) {
		char *end;
		strtod(p, &end);
		p = end;
		while (unit_char((unsigned char)*p))
			p++;
		t.kind = TOKEN_QUANTITY;
	} else if (strchr("<>=!", c)) {
		p++;
		if (*p == '=')
			p++;
		t.kind = TOKEN_OP;
	} else {
		/* One character, UTF-8 sequences whole. */
		p++;
		while ((*p & 0xc0) == 0x80)
			p++;
		t.kind = TOKEN_OTHER;
	}
	t.len = (size_t)(p - t.start);
	lx->at = p;
	return t;
}

static bool is_word(const struct token *t, const char *word)
{
	return t->kind == TOKEN_WORD && strlen(word) == t->len &&
	       !strncasecmp(t->start, word, t->len);
}

/* "'fr'" or "the end" for messages. */
static const char *describe(const struct token *t, char *buf, size_t size)
{
	if (t->kind == TOKEN_END)
		return "the end";
	snprintf(buf, size, "'%.*s'", (int)(t->len > 40 ? 40 : t->len), t->start);
	return buf;
}

/* ------------------------------------------------------------------ */
/* Parsing                                                              */

static const struct {
	const char *text;
	enum gpm_trigger_op op;
} ops[] = {
	{ ">", GPM_TRIGGER_GT }, { ">=", GPM_TRIGGER_GE },
	{ "<", GPM_TRIGGER_LT }, { "<=", GPM_TRIGGER_LE },
	{ "==", GPM_TRIGGER_EQ }, { "!=", GPM_TRIGGER_NE },
};

static int read_quantity(const struct token *t, struct gpm_trigger_quantity *q,
			 const char *what, struct gpm_trigger_error *err)
{
	char buf[64];
	if (t->kind != TOKEN_QUANTITY)
		return fail(err, t->column, "expected %s (a number such as 95, "
			    "95%% or 600MHz), found %s", what,
			    describe(t, buf, sizeof(buf)));
	char *end;
	q->number = strtod(t->start, &end);
	size_t unit_len = t->len - (size_t)(end - t->start);
	if (!isfinite(q->number))
		return fail(err, t->column, "%.*s is no number", (int)t->len,
			    t->start);
	if (unit_len >= sizeof(q->unit))
		return fail(err, t->column + (unsigned)(end - t->start),
			    "'%.*s' is no unit", (int)unit_len, end);
	memcpy(q->unit, end, unit_len);
	q->unit[unit_len] = '\0';
	q->column = t->column;
	q->unit_column = t->column + (unsigned)(end - t->start);
	q->given = true;
	return 0;
}

static int read_duration(const struct token *t, uint64_t *ns,
			 const char *keyword, struct gpm_trigger_error *err)
{
	char text[64], buf[64];
	if (t->kind != TOKEN_QUANTITY || t->len >= sizeof(text))
		return fail(err, t->column, "'%s' takes a duration such as 200ms "
			    "or 1s, found %s", keyword,
			    describe(t, buf, sizeof(buf)));
	memcpy(text, t->start, t->len);
	text[t->len] = '\0';
	if (gpm_parse_duration(text, ns))
		return fail(err, t->column, "'%s' takes a duration such as 200ms "
			    "or 1s (ns, us, ms, s, m), not '%s'", keyword, text);
	return 0;
}

int gpm_trigger_parse(const char *text, struct gpm_trigger *t,
		      struct gpm_trigger_error *err)
{
	struct lexer lx = { .text = text, .at = text };
	char buf[64];
	memset(t, 0, sizeof(*t));
	memset(err, 0, sizeof(*err));

	struct token tok = next_token(&lx);
	if (tok.kind != TOKEN_WORD)
		return fail(err, tok.column, "expected a counter (such as "
			    "GpuBusy) or 'lost', found %s",
			    describe(&tok, buf, sizeof(buf)));
	if (tok.len >= sizeof(t->subject))
		return fail(err, tok.column, "a counter's name is shorter than "
			    "that");
	memcpy(t->subject, tok.start, tok.len);
	t->subject[tok.len] = '\0';
	t->subject_column = tok.column;
	t->lost = is_word(&tok, "lost");

	tok = next_token(&lx);
	size_t k = 0;
	for (; tok.kind == TOKEN_OP && k < sizeof(ops) / sizeof(ops[0]); k++)
		if (strlen(ops[k].text) == tok.len &&
		    !strncmp(ops[k].text, tok.start, tok.len))
			break;
	if (tok.kind != TOKEN_OP || k == sizeof(ops) / sizeof(ops[0]))
		return fail(err, tok.column, "expected a comparison (>, >=, <, "
			    "<=, ==, !=) after %s, found %s", t->subject,
			    describe(&tok, buf, sizeof(buf)));
	t->op = ops[k].op;

	tok = next_token(&lx);
	int ret = read_quantity(&tok, &t->value, "the value to compare with",
				err);
	if (ret)
		return ret;

	bool have_for = false, have_rearm = false;
	for (;;) {
		tok = next_token(&lx);
		if (tok.kind == TOKEN_END)
			break;
		struct token keyword = tok;
		tok = next_token(&lx);
		if (is_word(&keyword, "for") && !have_for) {
			ret = read_duration(&tok, &t->for_ns, "for", err);
			have_for = true;
		} else if (is_word(&keyword, "rearm") && !have_rearm) {
			ret = read_duration(&tok, &t->rearm_ns, "rearm", err);
			have_rearm = true;
		} else if (is_word(&keyword, "hysteresis") && !t->hysteresis.given) {
			ret = read_quantity(&tok, &t->hysteresis, "the hysteresis",
					    err);
			if (!ret && t->hysteresis.number < 0)
				ret = fail(err, tok.column, "a hysteresis is not "
					   "negative");
			if (!ret && (t->op == GPM_TRIGGER_EQ ||
				     t->op == GPM_TRIGGER_NE))
				ret = fail(err, keyword.column, "a hysteresis needs "
					   "a threshold to fall back from: >, >=, "
					   "< or <=");
		} else if (is_word(&keyword, "for") || is_word(&keyword, "rearm") ||
			   is_word(&keyword, "hysteresis")) {
			ret = fail(err, keyword.column, "'%.*s' is given twice",
				   (int)keyword.len, keyword.start);
		} else {
			ret = fail(err, keyword.column, "expected 'for', "
				   "'hysteresis', 'rearm' or the end, found %s",
				   describe(&keyword, buf, sizeof(buf)));
		}
		if (ret)
			return ret;
	}
	return 0;
}

void gpm_trigger_error_text(const char *text,
			    const struct gpm_trigger_error *err, char *buf,
			    size_t size)
{
	if (!err->column) {
		snprintf(buf, size, "%s", err->message);
		return;
	}
	/* One pad a character (a UTF-8 sequence is one), a tab kept a tab,
	 * so the caret stands under the column on a terminal. */
	char pad[256];
	size_t n = 0;
	for (size_t i = 0; i + 1 < err->column && text[i] && n + 1 < sizeof(pad); i++)
		if ((text[i] & 0xc0) != 0x80)
			pad[n++] = text[i] == '\t' ? '\t' : ' ';
	pad[n] = '\0';
	snprintf(buf, size, "column %u: %s\n  %s\n  %s^", err->column,
		 err->message, text, pad);
}

/* ------------------------------------------------------------------ */
/* Units                                                                */

struct unit {
	const char *text;
	double scale;                   /* to the counter's unit */
};

/* The counter's unit, as the metric file spells it, and the units a
 * quantity of it may be written in. */
static const struct unit_family {
	const char *units;
	const char *kind;               /* for messages */
	struct unit accepted[10];
} families[] = {
	{ "percent", "percent (%)", { { "%", 1 } } },
	{ "hz", "a frequency (Hz, kHz, MHz, GHz)",
	  { { "Hz", 1 }, { "kHz", 1e3 }, { "MHz", 1e6 }, { "GHz", 1e9 } } },
	{ "ns", "a time (ns, us, ms, s)",
	  { { "ns", 1 }, { "us", 1e3 }, { "\xc2\xb5s", 1e3 }, { "ms", 1e6 },
	    { "s", 1e9 } } },
	{ "us", "a time (ns, us, ms, s)",
	  { { "ns", 1e-3 }, { "us", 1 }, { "\xc2\xb5s", 1 }, { "ms", 1e3 },
	    { "s", 1e6 } } },
	{ "bytes", "bytes (B, kB, MB, GB, KiB, MiB, GiB)",
	  { { "B", 1 }, { "kB", 1e3 }, { "MB", 1e6 }, { "GB", 1e9 },
	    { "TB", 1e12 }, { "KiB", 1024.0 }, { "MiB", 1048576.0 },
	    { "GiB", 1073741824.0 } } },
	{ "gbps", "a throughput (B/s, kB/s, MB/s, GB/s)",
	  { { "B/s", 1e-9 }, { "kB/s", 1e-6 }, { "MB/s", 1e-3 },
	    { "GB/s", 1 } } },
};

/* Bare numbers take SI prefixes whatever the unit. */
static const struct unit prefixes[] = {
	{ "", 1 }, { "k", 1e3 }, { "M", 1e6 }, { "G", 1e9 }, { "T", 1e12 },
};

static const struct unit *find_unit(const struct unit *units, size_t n,
				    const char *text)
{
	for (size_t i = 0; i < n && units[i].text; i++)
		if (!strcmp(units[i].text, text))
			return &units[i];
	return NULL;
}

static int value_of(const struct gpm_trigger *t,
		    const struct gpm_trigger_quantity *q, const char *units,
		    double *out, struct gpm_trigger_error *err)
{
	const struct unit *u = find_unit(prefixes,
					 sizeof(prefixes) / sizeof(prefixes[0]),
					 q->unit);
	const struct unit_family *fam = NULL;
	for (size_t i = 0; units && i < sizeof(families) / sizeof(families[0]); i++)
		if (!strcasecmp(units, families[i].units))
			fam = &families[i];
	if (!u && fam)
		u = find_unit(fam->accepted, sizeof(fam->accepted) /
			      sizeof(fam->accepted[0]), q->unit);
	if (u) {
		*out = q->number * u->scale;
		return 0;
	}
	if (t->lost)
		return fail(err, q->unit_column, "'%s' is no unit of lost, a "
			    "count of loss records: write a plain number",
			    q->unit);
	if (fam)
		return fail(err, q->unit_column, "'%s' is no unit of %s, which "
			    "is %s", q->unit, t->subject, fam->kind);
	return fail(err, q->unit_column, "'%s' is no unit of %s, which counts "
		    "%s: write a plain number (k, M, G allowed)", q->unit,
		    t->subject, units && *units ? units : "without a unit");
}

int gpm_trigger_bind(struct gpm_trigger *t, const char *units,
		     struct gpm_trigger_error *err)
{
	memset(err, 0, sizeof(*err));
	int ret = value_of(t, &t->value, units, &t->threshold, err);
	t->band = 0;
	if (!ret && t->hysteresis.given)
		ret = value_of(t, &t->hysteresis, units, &t->band, err);
	return ret;
}

/* ------------------------------------------------------------------ */
/* Episodes                                                             */

static bool holds(const struct gpm_trigger *t, double v)
{
	switch (t->op) {
	case GPM_TRIGGER_GT:
		return v > t->threshold;
	case GPM_TRIGGER_GE:
		return v >= t->threshold;
	case GPM_TRIGGER_LT:
		return v < t->threshold;
	case GPM_TRIGGER_LE:
		return v <= t->threshold;
	case GPM_TRIGGER_EQ:
		return v == t->threshold;
	case GPM_TRIGGER_NE:
		return v != t->threshold;
	}
	return false;
}

/* Back past the threshold by the hysteresis. */
static bool cleared(const struct gpm_trigger *t, double v)
{
	switch (t->op) {
	case GPM_TRIGGER_GT:
		return v <= t->threshold - t->band;
	case GPM_TRIGGER_GE:
		return v < t->threshold - t->band;
	case GPM_TRIGGER_LT:
		return v >= t->threshold + t->band;
	case GPM_TRIGGER_LE:
		return v > t->threshold + t->band;
	case GPM_TRIGGER_EQ:
	case GPM_TRIGGER_NE:
		return !holds(t, v);
	}
	return false;
}

bool gpm_trigger_step(const struct gpm_trigger *t, struct gpm_trigger_state *s,
		      double value, uint64_t duration_ns)
{
	if (isnan(value)) {
		s->held_ns = 0;
		s->cleared_ns = 0;
		return false;
	}
	if (holds(t, value)) {
		s->held_ns += duration_ns;
		s->cleared_ns = 0;
		if (s->fired || s->held_ns < t->for_ns)
			return false;
		s->fired = true;
		s->episodes++;
		return true;
	}
	s->held_ns = 0;
	if (!cleared(t, value)) {
		/* Within the hysteresis: neither. */
		s->cleared_ns = 0;
		return false;
	}
	s->cleared_ns += duration_ns;
	uint64_t rearm = t->rearm_ns ? t->rearm_ns : t->for_ns;
	if (s->fired && s->cleared_ns >= rearm && s->cleared_ns)
		s->fired = false;
	return false;
}
