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
 * s rounded to a whole number as printf rounds the exact value it stands
 * for, when s is within 2^-53 * s of that value: below 1e9 the error
 * (under 1.2e-7) cannot move s across a half unless s lies within 1e-6 of
 * one, where the caller asks printf instead (false).
 */
static bool round_whole(double s, uint64_t *whole)
{
	double below = floor(s);
	double fraction = s - below;

	if (s >= 1e9 || fabs(fraction - 0.5) < 1e-6)
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

/* v with one decimal, as "%.1f" writes it. */
static void one_decimal(char *buf, size_t size, double v)
{
	double s;
	uint64_t whole;

	if (size < 32 || !isfinite(v) || !scale_pow10(fabs(v), 1, &s) ||
	    !round_whole(s, &whole)) {
		snprintf(buf, size, "%.1f", v);
		return;
	}
	char digits[24];
	size_t n = 0;
	uint64_t units = whole / 10;
	do {
		digits[n++] = (char)('0' + units % 10);
		units /= 10;
	} while (units);
	char *out = buf;
	if (signbit(v))
		*out++ = '-';
	while (n)
		*out++ = digits[--n];
	*out++ = '.';
	*out++ = (char)('0' + whole % 10);
	*out = '\0';
}

/* The strings one after another in buf, as far as size allows; returns
 * the length. */
static size_t join(char *buf, size_t size, const char *const *parts, size_t n)
{
	size_t len = 0;

	for (size_t i = 0; i < n; i++) {
		size_t part = strlen(parts[i]);
		if (part > size - 1 - len)
			part = size - 1 - len;
		memcpy(buf + len, parts[i], part);
		len += part;
	}
	buf[len] = '\0';
	return len;
}

size_t gpuperf_human_value(char *buf, size_t size, double v, const char *unit)
{
	static const struct {
		double factor;
		const char *prefix;
	} prefixes[] = {
		{ 1e12, "T" }, { 1e9, "G" }, { 1e6, "M" }, { 1e3, "k" },
		{ 1, "" }, { 1e-3, "m" }, { 1e-6, "µ" }, { 1e-9, "n" },
	};
	const size_t n = sizeof(prefixes) / sizeof(prefixes[0]);
	char digits[GPUPERF_HUMAN_TEXT_MAX];

	if (!size)
		return 0;
	if (!unit)
		unit = "";
	if (!isfinite(v))
		return join(buf, size, (const char *const[]){ "-" }, 1);
	if (!strcmp(unit, "%")) {
		one_decimal(digits, sizeof(digits), v);
		return join(buf, size, (const char *const[]){ digits, " %" }, 2);
	}
	double magnitude = fabs(v);
	bool symbol = is_symbol(unit);
	if (v == 0 || (magnitude >= 1 && magnitude < 999.5) ||
	    (!symbol && magnitude < 1)) {
		three_digits(digits, sizeof(digits), v);
		return join(buf, size, (const char *const[]){ digits,
			    unit[0] ? " " : "", unit }, 3);
	}
	size_t i = 0;
	/* The prefix under which the rounded value is below 1000. */
	while (i + 1 < n && magnitude < prefixes[i].factor * 0.9995)
		i++;
	if (!symbol && prefixes[i].factor < 1)
		i = 4;
	three_digits(digits, sizeof(digits), v / prefixes[i].factor);
	size_t len;
	if (symbol)
		len = join(buf, size, (const char *const[]){ digits, " ",
			   prefixes[i].prefix, unit }, 4);
	else
		len = join(buf, size, (const char *const[]){ digits, " ",
			   prefixes[i].prefix, prefixes[i].prefix[0] ? " " : "",
			   unit }, 5);
	/* A bare prefix ("1.2 k") ends without a space. */
	while (len && buf[len - 1] == ' ')
		buf[--len] = '\0';
	return len;
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
