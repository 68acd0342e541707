/*
 * Metric definitions written in a test: the markup of a set and its
 * counters, and the file they make parsed with its diagnostics. What the
 * metric set, binding and XML suites share.
 */
#ifndef GPM_TEST_METRIC_TEXT_H
#define GPM_TEST_METRIC_TEXT_H

#include <string.h>

#include "metrics/metric_xml.h"
#include "tests/unit/test_util.h"

#define METRIC_SET_OPEN(sym)                                                 \
	"<set name=\"" sym " set\" chipset=\"TEST\" symbol_name=\"" sym "\" " \
	"hw_config_guid=\"01234567-89ab-cdef-0123-456789abcdef\">\n"
/* attrs: more attributes, each after a blank, or "". */
#define METRIC_COUNTER(sym, semantic, type, eq, attrs)                       \
	"<counter name=\"" sym "\" symbol_name=\"" sym "\" units=\"events\" " \
	"semantic_type=\"" semantic "\" data_type=\"" type "\" "             \
	"equation=\"" eq "\"" attrs "/>\n"

/* xml, the text of a metric file called name, parsed; what the parse
 * found wrong is in diag, which this initialises. */
static inline struct gpm_metrics_file *parse_metric_text(const char *name,
							 const char *xml,
							 struct gpm_diagnostics *diag)
{
	struct gpm_metrics_file *file;
	gpm_diagnostics_init(diag);
	ck_assert_int_eq(gpm_metrics_file_parse(name, xml, strlen(xml), diag,
						&file), 0);
	return file;
}

static inline void free_metric_text(struct gpm_metrics_file *file,
				    struct gpm_diagnostics *diag)
{
	gpm_metrics_file_free(file);
	gpm_diagnostics_fini(diag);
}

#endif
