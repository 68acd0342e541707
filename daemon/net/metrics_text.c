/*
 * The exposition's text in either format (see metrics_text.h).
 */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "daemon/net/metrics_text.h"
#include "metrics/number_text.h"

const char *gpd_metrics_content_type(enum gpd_metrics_format format)
{
	return format == GPD_METRICS_OPENMETRICS ?
	       "application/openmetrics-text; version=1.0.0; charset=utf-8" :
	       "text/plain; version=0.0.4; charset=utf-8";
}

/* The q of one media range's parameters ("; version=1.0.0; q=0.5"), or
 * -1 when its version is not one we write. */
static double media_quality(const char *params, size_t len, bool openmetrics)
{
	double q = 1;
	while (len) {
		const char *semi = memchr(params, ';', len);
		size_t n = semi ? (size_t)(semi - params) : len;
		const char *p = params;
		size_t m = n;
		while (m && (*p == ' ' || *p == '\t'))
			p++, m--;
		while (m && (p[m - 1] == ' ' || p[m - 1] == '\t'))
			m--;
		if (m > 2 && !strncasecmp(p, "q=", 2)) {
			char num[16];
			snprintf(num, sizeof(num), "%.*s", (int)(m - 2), p + 2);
			char *end;
			q = strtod(num, &end);
			if (end == num || *end || !(q >= 0 && q <= 1))
				q = 0;
		} else if (openmetrics && m > 8 && !strncasecmp(p, "version=", 8) &&
			   (m - 8 != 5 || strncmp(p + 8, "1.0.0", 5))) {
			return -1;
		}
		if (!semi)
			break;
		len -= n + 1;
		params = semi + 1;
	}
	return q;
}

enum gpd_metrics_format gpd_metrics_format_accepted(const char *accept)
{
	double q_openmetrics = 0, q_text = 0;
	const char *range = accept ? accept : "";
	while (*range) {
		size_t len = strcspn(range, ",");
		const char *p = range;
		while (*p == ' ' || *p == '\t')
			p++;
		size_t type_len = strcspn(p, ";, \t");
		if (p + type_len > range + len)
			type_len = (size_t)(range + len - p);
		const char *params = p + type_len;
		size_t params_len = (size_t)(range + len - params);
		bool om = type_len == 28 && !strncasecmp(p, "application/openmetrics-text", 28);
		bool text = (type_len == 10 && !strncasecmp(p, "text/plain", 10)) ||
			    (type_len == 6 && !strncasecmp(p, "text/*", 6)) ||
			    (type_len == 3 && !strncmp(p, "*/*", 3));
		if (om || text) {
			double q = media_quality(params, params_len, om);
			if (om && q > q_openmetrics)
				q_openmetrics = q;
			if (text && q > q_text)
				q_text = q;
		}
		range += len;
		if (*range == ',')
			range++;
	}
	return q_openmetrics > 0 && q_openmetrics >= q_text ?
	       GPD_METRICS_OPENMETRICS : GPD_METRICS_TEXT;
}

/* Room for n more bytes and a terminating NUL; false once out of memory. */
static bool reserve(struct gpd_metrics_text *t, size_t n)
{
	if (t->failed)
		return false;
	if (t->data && n < t->cap - t->len)
		return true;
	size_t cap = t->cap ? t->cap : 4096;
	while (cap - t->len <= n)
		cap *= 2;
	char *data = realloc(t->data, cap);
	if (!data) {
		t->failed = true;
		return false;
	}
	t->data = data;
	t->cap = cap;
	return true;
}

void gpd_metrics_text_printf(struct gpd_metrics_text *t, const char *fmt, ...)
{
	for (int attempt = 0; attempt < 2 && !t->failed; attempt++) {
		va_list ap;
		va_start(ap, fmt);
		int n = vsnprintf(t->data ? t->data + t->len : NULL,
				  t->data ? t->cap - t->len : 0, fmt, ap);
		va_end(ap);
		if (n < 0) {
			t->failed = true;
			return;
		}
		if (t->data && (size_t)n < t->cap - t->len) {
			t->len += (size_t)n;
			return;
		}
		reserve(t, (size_t)n);
	}
}

void gpd_metrics_text_append(struct gpd_metrics_text *t, const char *data,
			     size_t len)
{
	if (!reserve(t, len))
		return;
	if (len)
		memcpy(t->data + t->len, data, len);
	t->len += len;
	t->data[t->len] = '\0';
}

static const char *type_suffix(enum gpd_metrics_type type)
{
	return type == GPD_METRICS_COUNTER ? "_total" :
	       type == GPD_METRICS_INFO ? "_info" : "";
}

void gpd_metrics_text_family(struct gpd_metrics_text *t, const char *name,
			     enum gpd_metrics_type type, const char *unit,
			     const char *help)
{
	static const char *const types[] = {
		[GPD_METRICS_GAUGE] = "gauge",
		[GPD_METRICS_COUNTER] = "counter",
		[GPD_METRICS_INFO] = "info",
	};
	bool om = t->format == GPD_METRICS_OPENMETRICS;
	/* The text format has no info type: a gauge of value 1 is its
	 * convention, and names a family by its samples' name. */
	const char *suffix = om ? "" : type_suffix(type);
	const char *type_name = !om && type == GPD_METRICS_INFO ? "gauge" : types[type];
	gpd_metrics_text_printf(t, "# HELP %s%s ", name, suffix);
	gpd_metrics_text_help(t, help);
	gpd_metrics_text_printf(t, "\n# TYPE %s%s %s\n", name, suffix, type_name);
	if (om && unit)
		gpd_metrics_text_printf(t, "# UNIT %s %s\n", name, unit);
}

void gpd_metrics_text_sample(struct gpd_metrics_text *t, const char *name,
			     enum gpd_metrics_type type)
{
	gpd_metrics_text_printf(t, "%s%s{", name, type_suffix(type));
}

static void escape(struct gpd_metrics_text *t, const char *value, bool quote)
{
	const char *run = value;
	for (const char *c = value;; c++) {
		const char *esc = *c == '\\' ? "\\\\" : *c == '\n' ? "\\n" :
				  *c == '"' && quote ? "\\\"" : NULL;
		if (!esc && *c)
			continue;
		if (c > run)
			gpd_metrics_text_printf(t, "%.*s", (int)(c - run), run);
		if (!*c)
			return;
		gpd_metrics_text_printf(t, "%s", esc);
		run = c + 1;
	}
}

void gpd_metrics_text_label(struct gpd_metrics_text *t, const char *value)
{
	escape(t, value, true);
}

void gpd_metrics_text_help(struct gpd_metrics_text *t, const char *value)
{
	escape(t, value, t->format == GPD_METRICS_OPENMETRICS);
}

void gpd_metrics_text_value(struct gpd_metrics_text *t, double v)
{
	char digits[GPM_NUMBER_TEXT_MAX];

	if (isnan(v)) {
		gpd_metrics_text_printf(t, "NaN");
	} else if (isinf(v)) {
		gpd_metrics_text_printf(t, v > 0 ? "+Inf" : "-Inf");
	} else {
		gpm_double_text(digits, v);
		gpd_metrics_text_printf(t, "%s", digits);
	}
}

void gpd_metrics_text_end(struct gpd_metrics_text *t, double v)
{
	gpd_metrics_text_printf(t, "} ");
	gpd_metrics_text_value(t, v);
	gpd_metrics_text_printf(t, "\n");
}

void gpd_metrics_text_finish(struct gpd_metrics_text *t)
{
	if (t->format == GPD_METRICS_OPENMETRICS)
		gpd_metrics_text_printf(t, "# EOF\n");
}
