/*
 * Numbers for people (see human_text.h). The rules are those of the web
 * UI's units.js; README's "Units, times and contexts" states them.
 */
#include <math.h>
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

/* v to three significant digits without trailing zeros, as JavaScript's
 * Number(v.toPrecision(3)).toString() writes it for 1e-6 < |v| < 1e21. */
static void three_digits(char *buf, size_t size, double v)
{
	char *end;

	snprintf(buf, size, "%.3g", v);
	/* %.3g goes to exponents from 1000 up: print those whole. */
	if (strchr(buf, 'e'))
		snprintf(buf, size, "%.0f", strtod(buf, &end));
}

void gpuperf_human_value(char *buf, size_t size, double v, const char *unit)
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

	if (!unit)
		unit = "";
	if (!isfinite(v)) {
		snprintf(buf, size, "-");
		return;
	}
	if (!strcmp(unit, "%")) {
		snprintf(buf, size, "%.1f %%", v);
		return;
	}
	double magnitude = fabs(v);
	bool symbol = is_symbol(unit);
	if (v == 0 || (magnitude >= 1 && magnitude < 999.5) ||
	    (!symbol && magnitude < 1)) {
		three_digits(digits, sizeof(digits), v);
		snprintf(buf, size, "%s%s%s", digits, unit[0] ? " " : "", unit);
		return;
	}
	size_t i = 0;
	/* The prefix under which the rounded value is below 1000. */
	while (i + 1 < n && magnitude < prefixes[i].factor * 0.9995)
		i++;
	if (!symbol && prefixes[i].factor < 1)
		i = 4;
	three_digits(digits, sizeof(digits), v / prefixes[i].factor);
	if (symbol)
		snprintf(buf, size, "%s %s%s", digits, prefixes[i].prefix, unit);
	else
		snprintf(buf, size, "%s %s%s%s", digits, prefixes[i].prefix,
			 prefixes[i].prefix[0] ? " " : "", unit);
	/* A bare prefix ("1.2 k") ends without a space. */
	size_t len = strlen(buf);
	while (len && buf[len - 1] == ' ')
		buf[--len] = '\0';
}

void gpuperf_duration_text(char *buf, size_t size, double ns)
{
	if (isfinite(ns) && fabs(ns) >= 999.5e9)
		snprintf(buf, size, "%.0f s", ns / 1e9);
	else
		gpuperf_human_value(buf, size, ns * 1e-9, "s");
}

int gpuperf_text_width(const char *s)
{
	int width = 0;

	for (; *s; s++)
		width += ((unsigned char)*s & 0xc0) != 0x80;
	return width;
}
