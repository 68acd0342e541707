/*
 * The Prometheus text exposition's text (see metrics_text.h).
 */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

#include "daemon/net/metrics_text.h"

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
		size_t cap = t->cap ? t->cap : 4096;
		while (cap - t->len <= (size_t)n)
			cap *= 2;
		char *data = realloc(t->data, cap);
		if (!data) {
			t->failed = true;
			return;
		}
		t->data = data;
		t->cap = cap;
	}
}

void gpd_metrics_text_label(struct gpd_metrics_text *t, const char *value)
{
	for (const char *c = value; *c; c++) {
		if (*c == '\\' || *c == '"')
			gpd_metrics_text_printf(t, "\\%c", *c);
		else if (*c == '\n')
			gpd_metrics_text_printf(t, "\\n");
		else
			gpd_metrics_text_printf(t, "%c", *c);
	}
}

void gpd_metrics_text_help(struct gpd_metrics_text *t, const char *value)
{
	for (const char *c = value; *c; c++) {
		if (*c == '\\')
			gpd_metrics_text_printf(t, "\\\\");
		else if (*c == '\n')
			gpd_metrics_text_printf(t, "\\n");
		else
			gpd_metrics_text_printf(t, "%c", *c);
	}
}

void gpd_metrics_text_value(struct gpd_metrics_text *t, double v)
{
	if (isnan(v))
		gpd_metrics_text_printf(t, "NaN");
	else if (isinf(v))
		gpd_metrics_text_printf(t, v > 0 ? "+Inf" : "-Inf");
	else
		gpd_metrics_text_printf(t, "%.17g", v);
}
