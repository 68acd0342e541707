/*
 * The Prometheus text exposition being written: a growing text, and its
 * escapes for label values and HELP lines.
 */
#ifndef GPD_NET_METRICS_TEXT_H
#define GPD_NET_METRICS_TEXT_H

#include <stdbool.h>
#include <stddef.h>

struct gpd_metrics_text {
	char *data;
	size_t len, cap;
	bool failed;                    /* out of memory: the text is cut */
};

void gpd_metrics_text_printf(struct gpd_metrics_text *t, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/* A label value: backslash, quote and newline escaped. */
void gpd_metrics_text_label(struct gpd_metrics_text *t, const char *value);

/* HELP text: backslash and newline escaped. */
void gpd_metrics_text_help(struct gpd_metrics_text *t, const char *value);

/* A sample's value: NaN, +Inf, -Inf or the shortest exact decimal. */
void gpd_metrics_text_value(struct gpd_metrics_text *t, double v);

#endif
