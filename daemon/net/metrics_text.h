/*
 * The exposition being written, in the Prometheus text format (0.0.4) or
 * in OpenMetrics (1.0.0), whichever the scraper asked for: a growing text,
 * the family headers each format wants, and the escapes of label values
 * and HELP lines.
 *
 * The two formats differ in a few places only, all of them here:
 *   - a counter family is named without _total in OpenMetrics (its
 *     samples have it); in the text format, the family is the sample name;
 *   - OpenMetrics has # UNIT lines, the info type, escapes '"' in HELP,
 *     and ends with # EOF.
 */
#ifndef GPD_NET_METRICS_TEXT_H
#define GPD_NET_METRICS_TEXT_H

#include <stdbool.h>
#include <stddef.h>

enum gpd_metrics_format {
	GPD_METRICS_TEXT,               /* text/plain; version=0.0.4 */
	GPD_METRICS_OPENMETRICS,        /* application/openmetrics-text 1.0.0 */
};

enum gpd_metrics_type {
	GPD_METRICS_GAUGE,
	GPD_METRICS_COUNTER,            /* samples end in _total */
	GPD_METRICS_INFO,               /* samples end in _info, value 1 */
};

struct gpd_metrics_text {
	enum gpd_metrics_format format;
	char *data;
	size_t len, cap;
	bool failed;                    /* out of memory: the text is cut */
};

/* The Content-Type of the format. */
const char *gpd_metrics_content_type(enum gpd_metrics_format format);

/* The format an Accept header asks for: OpenMetrics when it names
 * application/openmetrics-text (with a q above 0), else the text format. */
enum gpd_metrics_format gpd_metrics_format_accepted(const char *accept);

void gpd_metrics_text_printf(struct gpd_metrics_text *t, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/* len bytes of text already written (a part rendered before). */
void gpd_metrics_text_append(struct gpd_metrics_text *t, const char *data,
			     size_t len);

/*
 * A family's header: HELP and TYPE, and UNIT in OpenMetrics when unit is
 * not NULL. name is the family's name without the type's suffix
 * (gpuperf_reports for gpuperf_reports_total, gpuperf for gpuperf_info);
 * it must end in _UNIT when unit is given.
 */
void gpd_metrics_text_family(struct gpd_metrics_text *t, const char *name,
			     enum gpd_metrics_type type, const char *unit,
			     const char *help);

/* A sample's name: the family's name and the type's suffix, then '{'. */
void gpd_metrics_text_sample(struct gpd_metrics_text *t, const char *name,
			     enum gpd_metrics_type type);

/* A label value: backslash, quote and newline escaped. */
void gpd_metrics_text_label(struct gpd_metrics_text *t, const char *value);

/* HELP text: backslash and newline escaped (and '"' in OpenMetrics). */
void gpd_metrics_text_help(struct gpd_metrics_text *t, const char *value);

/* A sample's value: NaN, +Inf, -Inf or the shortest exact decimal. */
void gpd_metrics_text_value(struct gpd_metrics_text *t, double v);

/* "} VALUE\n": closes a sample begun by gpd_metrics_text_sample. */
void gpd_metrics_text_end(struct gpd_metrics_text *t, double v);

/* The end of the exposition: # EOF in OpenMetrics, nothing otherwise. */
void gpd_metrics_text_finish(struct gpd_metrics_text *t);

#endif
