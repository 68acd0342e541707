/*
 * Numbers for people (see human_text.h). The rules are those of the web
 * UI's units.js; README's "Units, times and contexts" states them.
 */
#include <math.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "client/human_text.h"

struct unit_rule {
	const char *units;      /* the metric XML's word */
	const char *symbol;     /* what follows the number */
	double scale;           /* to the symbol's base */
	bool intensive;         /* a rate or share already: never per second */
};

static const struct unit_rule unit_rules[] = {
	{ "ns", "s", 1e-9, false },
	{ "us", "s", 1e-6, false },
	{ "ms", "s", 1e-3, false },
	{ "s", "s", 1, false },
	{ "hz", "Hz", 1, true },
	{ "mhz", "Hz", 1e6, true },
	{ "ghz", "Hz", 1e9, true },
	{ "bytes", "B", 1, false },
	{ "byte", "B", 1, false },
	{ "gbps", "B/s", 1e9, true },
	{ "percent", "%", 1, true },
	{ "ratio", "", 1, true },
	{ "number", "", 1, false },
};

/* Units that take their prefix directly ("MB/s"); words get a space
 * ("1.21 G cycles/s") and never a fractional prefix. */
static bool is_symbol(const char *unit)
{
	static const char *const symbols[] = { "s", "Hz", "B", "B/s", "/s", "" };

	for (size_t i = 0; i < sizeof(symbols) / sizeof(symbols[0]); i++)
		if (!strcmp(unit, symbols[i]))
			return true;
	return false;
}

void gpuperf_display_for(struct gpuperf_display *d, const char *units,
			 enum gpc_counter_type type, const char *semantic_type)
{
	const struct unit_rule *rule = NULL;

	if (!units)
		units = "";
	for (size_t i = 0; i < sizeof(unit_rules) / sizeof(unit_rules[0]); i++)
		if (!strcasecmp(units, unit_rules[i].units))
			rule = &unit_rules[i];
	bool summed = (type == GPC_COUNTER_EVENT ||
		       type == GPC_COUNTER_THROUGHPUT) &&
		      !(semantic_type && !strcmp(semantic_type, "ratio"));
	d->per_second = summed && !(rule && rule->intensive);
	d->scale = rule ? rule->scale : 1;
	const char *symbol = rule ? rule->symbol : units;
	snprintf(d->unit, sizeof(d->unit), "%s%s", symbol,
		 d->per_second ? "/s" : "");
}

void gpuperf_display_of(struct gpuperf_display *d,
			const struct gpc_counter *counter)
{
	if (!counter) {
		*d = (struct gpuperf_display){ .scale = 1 };
		return;
	}
	gpuperf_display_for(d, counter->units, counter->type,
			    counter->semantic_type);
}

/* 10^0 to 10^22: every power of ten a double holds exactly. */
static const double exact_pow10[] = {
	1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11,
	1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22,
};

/*
 * m * 10^k with one rounding (a multiplication or a division by an exact
 * power of ten), so within 2^-53 of the exact product; false where the
 * power is not exact.
 */
static bool scale_pow10(double m, int k, double *out)
{
	if (k >= 0 && k <= 22)
		*out = m * exact_pow10[k];
	else if (k < 0 && k >= -22)
		*out = m / exact_pow10[-k];
	else
		return false;
	return true;
}

/*
 * s (>= 0) rounded to a whole number as printf rounds the exact value it
 * stands for, when s is within 2^-53 * s of that value (one rounding):
 * the two round alike unless s lies nearer a half than that, where the
 * caller asks printf instead (false). The margin kept is 1e-6 below 1e9
 * (the error is under 1.2e-7 there), then 2^-50 * s, eight times the
 * error; from 2^49 on no s is that far from a half.
 */
static bool round_whole(double s, uint64_t *whole)
{
	if (!(s < 0x1p52))
		return false;
	/* Truncation is floor for s >= 0, and cheaper. */
	int64_t below = (int64_t)s;
	double fraction = s - (double)below;
	double margin = s < 1e9 ? 1e-6 : s * 0x1p-50;

	if (fabs(fraction - 0.5) < margin)
		return false;
	*whole = (uint64_t)below + (fraction > 0.5);
	return true;
}

/* |v| (finite, nonzero) to three significant digits: 100 to 999 in
 * *digits, times 10^(*exp10 - 2). False where printf must decide. */
static bool three_significant(double m, unsigned *digits, int *exp10)
{
	uint64_t bits;

	memcpy(&bits, &m, sizeof(bits));
	/* 2^e2 <= m < 2^(e2+1), so 10^x <= m < 10^(x+1) with x this
	 * floor(e2 * log10(2)) or one more: corrected below. */
	int e2 = (int)(bits >> 52 & 0x7ff) - 1023;
	int x = e2 >= 0 ? (e2 * 78913) >> 18 : -((-e2 * 78913 + 262143) >> 18);
	for (int tries = 0; tries < 3; tries++) {
		double s;
		uint64_t whole;

		if (!scale_pow10(m, 2 - x, &s) || !round_whole(s, &whole))
			return false;
		if (whole >= 1000) {
			x++;
		} else if (whole < 100) {
			x--;
		} else {
			*digits = (unsigned)whole;
			*exp10 = x;
			return true;
		}
	}
	return false;
}

/*
 * v to three significant digits without trailing zeros, as JavaScript's
 * Number(v.toPrecision(3)).toString() writes it for 1e-6 < |v| < 1e21:
 * printf's "%.3g", with numbers of four digits and more written whole.
 * Tables print millions of these, so the usual ones are done here; the
 * rest go through printf.
 */
static size_t three_digits(char *buf, size_t size, double v)
{
	unsigned d;
	int x;
	char *out = buf;

	if (v == 0 && size >= 32) {
		/* "%.3g" keeps the sign of -0 */
		if (signbit(v))
			*out++ = '-';
		*out++ = '0';
		*out = '\0';
		return (size_t)(out - buf);
	}
	if (v != 0 && isfinite(v) && size >= 32 &&
	    three_significant(fabs(v), &d, &x) && x >= -4 && x < 20) {
		char ddd[3] = { (char)('0' + d / 100), (char)('0' + d / 10 % 10),
				(char)('0' + d % 10) };
		int n = ddd[2] != '0' ? 3 : ddd[1] != '0' ? 2 : 1;

		if (signbit(v))
			*out++ = '-';
		if (x < 0) {
			*out++ = '0';
			*out++ = '.';
			for (int i = -1; i > x; i--)
				*out++ = '0';
			memcpy(out, ddd, (size_t)n);
			out += n;
		} else if (x + 1 >= n) {
			/* whole: the digits, then zeros */
			for (int i = 0; i <= x; i++)
				*out++ = i < 3 ? ddd[i] : '0';
		} else {
			memcpy(out, ddd, (size_t)x + 1);
			out += x + 1;
			*out++ = '.';
			memcpy(out, ddd + x + 1, (size_t)(n - x - 1));
			out += n - x - 1;
		}
		*out = '\0';
		return (size_t)(out - buf);
	}
	char *end;

	snprintf(buf, size, "%.3g", v);
	/* %.3g goes to exponents from 1000 up: print those whole. */
	if (strchr(buf, 'e'))
		snprintf(buf, size, "%.0f", strtod(buf, &end));
	return strlen(buf);
}

size_t gpuperf_fixed_text(char *buf, size_t size, double v, int decimals)
{
	double s;
	uint64_t whole;

	if (size < 32 || !isfinite(v) || decimals < 0 || decimals > 9 ||
	    !scale_pow10(fabs(v), decimals, &s) || !round_whole(s, &whole)) {
		int len = snprintf(buf, size, "%.*f", decimals, v);
		return len < 0 || !size ? 0 : (size_t)len < size ? (size_t)len :
		       size - 1;
	}
	char digits[24];
	size_t n = 0;
	/* The decimals, then the units: at least one digit before the
	 * point. */
	do {
		digits[n++] = (char)('0' + whole % 10);
		whole /= 10;
	} while (whole || n <= (size_t)decimals);
	char *out = buf;
	if (signbit(v))
		*out++ = '-';
	while (n > (size_t)decimals)
		*out++ = digits[--n];
	if (decimals)
		*out++ = '.';
	while (n)
		*out++ = digits[--n];
	*out = '\0';
	return (size_t)(out - buf);
}

/* The SI prefixes; below: the least value that rounds to 1 under it. */
#define PREFIX(factor, text) { factor, factor * 0.9995, text }
static const struct {
	double factor, below;
	const char *text;
} prefixes[GPUPERF_HUMAN_PREFIXES] = {
	PREFIX(1e12, "T"), PREFIX(1e9, "G"), PREFIX(1e6, "M"), PREFIX(1e3, "k"),
	PREFIX(1, ""), PREFIX(1e-3, "m"), PREFIX(1e-6, "µ"), PREFIX(1e-9, "n"),
};
#undef PREFIX
/* The one without a prefix. */
#define UNPREFIXED 4

/* A suffix of the strings, without trailing spaces where trim says. */
static void make_suffix(struct gpuperf_human_suffix *suffix,
			const char *const *parts, size_t n, bool trim)
{
	size_t len = 0;

	memset(suffix->text, 0, sizeof(suffix->text));
	for (size_t i = 0; i < n; i++) {
		size_t part = strlen(parts[i]);
		memcpy(suffix->text + len, parts[i], part);
		len += part;
	}
	while (trim && len && suffix->text[len - 1] == ' ')
		suffix->text[--len] = '\0';
	suffix->len = (unsigned char)len;
	suffix->wide = (unsigned char)(len - (size_t)gpuperf_text_width(suffix->text));
}

void gpuperf_human_unit_init(struct gpuperf_human_unit *u, const char *unit)
{
	char text[GPUPERF_HUMAN_UNIT_MAX + 1];

	snprintf(text, sizeof(text), "%s", unit ? unit : "");
	u->percent = !strcmp(text, "%");
	u->symbol = is_symbol(text);
	make_suffix(&u->plain, (const char *const[]){ text[0] ? " " : "", text },
		    2, false);
	for (size_t i = 0; i < GPUPERF_HUMAN_PREFIXES; i++) {
		const char *prefix = prefixes[i].text;
		make_suffix(&u->prefixed[i], (const char *const[]){
				    " ", prefix,
				    !u->symbol && prefix[0] ? " " : "", text },
			    4, true);
	}
}

size_t gpuperf_human_unit_value(char *buf, size_t size, double v,
				const struct gpuperf_human_unit *u, int *cells)
{
	/* The digits, cut to GPUPERF_HUMAN_TEXT_MAX - 1 bytes as they
	 * always were, then the suffix whole. */
	char text[GPUPERF_HUMAN_ROOM];
	char *out = size >= sizeof(text) ? buf : text;
	const struct gpuperf_human_suffix *suffix = &u->plain;
	size_t len;

	if (!isfinite(v)) {
		out[0] = '-';
		len = 1;
		suffix = NULL;
	} else if (u->percent) {
		len = gpuperf_fixed_text(out, GPUPERF_HUMAN_TEXT_MAX, v, 1);
	} else if (v == 0 || (fabs(v) >= 1 && fabs(v) < 999.5) ||
		   (!u->symbol && fabs(v) < 1)) {
		len = three_digits(out, GPUPERF_HUMAN_TEXT_MAX, v);
	} else {
		size_t i = 0;
		/* The prefix under which the rounded value is below 1000. */
		while (i + 1 < GPUPERF_HUMAN_PREFIXES &&
		       fabs(v) < prefixes[i].below)
			i++;
		if (!u->symbol && prefixes[i].factor < 1)
			i = UNPREFIXED;
		len = three_digits(out, GPUPERF_HUMAN_TEXT_MAX,
				   v / prefixes[i].factor);
		suffix = &u->prefixed[i];
	}
	size_t wide = 0;
	if (suffix) {
		memcpy(out + len, suffix->text, sizeof(suffix->text));
		len += suffix->len;
		wide = suffix->wide;
	}
	out[len] = '\0';
	bool cut = false;
	if (out != buf) {
		if (!size) {
			len = 0;
		} else if (len > size - 1) {
			len = size - 1;
			cut = true;
			/* A bare prefix ("1.2 k") ends without a space. */
			while (suffix && suffix != &u->plain && len &&
			       text[len - 1] == ' ')
				len--;
			memcpy(buf, text, len);
			buf[len] = '\0';
		} else {
			memcpy(buf, text, len + 1);
		}
	}
	if (cells)
		*cells = !size ? 0 : cut ? gpuperf_text_width(buf) :
			 (int)(len - wide);
	return len;
}

size_t gpuperf_human_value(char *buf, size_t size, double v, const char *unit)
{
	struct gpuperf_human_unit u;

	gpuperf_human_unit_init(&u, unit);
	return gpuperf_human_unit_value(buf, size, v, &u, NULL);
}

static struct gpuperf_human_unit seconds;
static pthread_once_t seconds_once = PTHREAD_ONCE_INIT;

static void init_seconds(void)
{
	gpuperf_human_unit_init(&seconds, "s");
}

size_t gpuperf_duration_text(char *buf, size_t size, double ns)
{
	if (isfinite(ns) && fabs(ns) >= 999.5e9) {
		int n = snprintf(buf, size, "%.0f s", ns / 1e9);
		return n < 0 ? 0 : (size_t)n < size ? (size_t)n : size - 1;
	}
	/* Tables write one a row. */
	pthread_once(&seconds_once, init_seconds);
	return gpuperf_human_unit_value(buf, size, ns * 1e-9, &seconds, NULL);
}

int gpuperf_text_width(const char *s)
{
	int width = 0;

	for (; *s; s++)
		width += ((unsigned char)*s & 0xc0) != 0x80;
	return width;
}
