/*
 * Numbers for people (see human_text.h). The rules are those of the web
 * UI's units.js; README's "Units, times and contexts" states them.
 */
#include <math.h>
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

double gpuperf_display_value(const struct gpuperf_display *d, double value,
			     double seconds)
{
	if (d->per_second)
		value = seconds > 0 ? value / seconds : NAN;
	return value * d->scale;
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
	double below = floor(s);
	double fraction = s - below;
	double margin = s < 1e9 ? 1e-6 : s * 0x1p-50;

	if (s >= 0x1p52 || fabs(fraction - 0.5) < margin)
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

/* Where text goes: at most up to end, which is left for the NUL; wide
 * counts the bytes of it that are not terminal cells of their own. */
struct text_out {
	char *at, *end;
	size_t wide;
	bool cut;
};

/* Appends len bytes of s, as far as there is room. */
static void put(struct text_out *o, const char *s, size_t len)
{
	size_t room = (size_t)(o->end - o->at);

	if (len > room) {
		len = room;
		o->cut = true;
	}
	memcpy(o->at, s, len);
	o->at += len;
}

/* Ends the text in buf; returns its length, and its terminal cells in
 * *cells where asked. */
static size_t finish(struct text_out *o, char *buf, int *cells)
{
	size_t len = (size_t)(o->at - buf);

	*o->at = '\0';
	if (cells)
		*cells = o->cut ? gpuperf_text_width(buf) : (int)(len - o->wide);
	return len;
}

void gpuperf_human_unit_init(struct gpuperf_human_unit *u, const char *unit)
{
	if (!unit)
		unit = "";
	u->text = unit;
	u->len = strlen(unit);
	u->wide = u->len - (size_t)gpuperf_text_width(unit);
	u->percent = !strcmp(unit, "%");
	u->symbol = is_symbol(unit);
}

/* The unit, after a space where it has one. */
static void put_unit(struct text_out *o, const struct gpuperf_human_unit *u)
{
	if (u->len)
		put(o, " ", 1);
	put(o, u->text, u->len);
	o->wide += u->wide;
}

size_t gpuperf_human_unit_value(char *buf, size_t size, double v,
				const struct gpuperf_human_unit *u, int *cells)
{
	static const struct {
		double factor;
		const char *prefix;
		size_t len;
	} prefixes[] = {
		{ 1e12, "T", 1 }, { 1e9, "G", 1 }, { 1e6, "M", 1 },
		{ 1e3, "k", 1 }, { 1, "", 0 }, { 1e-3, "m", 1 },
		{ 1e-6, "µ", sizeof("µ") - 1 }, { 1e-9, "n", 1 },
	};
	const size_t n = sizeof(prefixes) / sizeof(prefixes[0]);
	char digits[GPUPERF_HUMAN_TEXT_MAX];

	if (!size) {
		if (cells)
			*cells = 0;
		return 0;
	}
	struct text_out o = { buf, buf + size - 1, 0, false };
	if (!isfinite(v)) {
		put(&o, "-", 1);
		return finish(&o, buf, cells);
	}
	if (u->percent) {
		put(&o, digits, gpuperf_fixed_text(digits, sizeof(digits), v, 1));
		put(&o, " %", 2);
		return finish(&o, buf, cells);
	}
	double magnitude = fabs(v);
	if (v == 0 || (magnitude >= 1 && magnitude < 999.5) ||
	    (!u->symbol && magnitude < 1)) {
		put(&o, digits, three_digits(digits, sizeof(digits), v));
		put_unit(&o, u);
		return finish(&o, buf, cells);
	}
	size_t i = 0;
	/* The prefix under which the rounded value is below 1000. */
	while (i + 1 < n && magnitude < prefixes[i].factor * 0.9995)
		i++;
	if (!u->symbol && prefixes[i].factor < 1)
		i = 4;
	put(&o, digits, three_digits(digits, sizeof(digits),
				     v / prefixes[i].factor));
	put(&o, " ", 1);
	put(&o, prefixes[i].prefix, prefixes[i].len);
	o.wide += prefixes[i].len > 1 ? prefixes[i].len - 1 : 0;
	if (!u->symbol && prefixes[i].len)
		put(&o, " ", 1);
	put(&o, u->text, u->len);
	o.wide += u->wide;
	size_t len = (size_t)(o.at - buf);
	/* A bare prefix ("1.2 k") ends without a space. */
	while (len && buf[len - 1] == ' ')
		len--;
	o.at = buf + len;
	return finish(&o, buf, cells);
}

size_t gpuperf_human_value(char *buf, size_t size, double v, const char *unit)
{
	struct gpuperf_human_unit u;

	gpuperf_human_unit_init(&u, unit);
	return gpuperf_human_unit_value(buf, size, v, &u, NULL);
}

size_t gpuperf_duration_text(char *buf, size_t size, double ns)
{
	if (isfinite(ns) && fabs(ns) >= 999.5e9) {
		int n = snprintf(buf, size, "%.0f s", ns / 1e9);
		return n < 0 ? 0 : (size_t)n < size ? (size_t)n : size - 1;
	}
	return gpuperf_human_value(buf, size, ns * 1e-9, "s");
}

int gpuperf_text_width(const char *s)
{
	int width = 0;

	for (; *s; s++)
		width += ((unsigned char)*s & 0xc0) != 0x80;
	return width;
}
