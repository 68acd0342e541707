/*
 * Usage frames as gpuperf top shows them: a screen of engines with bars,
 * clocks, power and processes (on a terminal, redrawn each interval; or
 * the same text, screen after screen, elsewhere), or rows of CSV or
 * NDJSON for programs.
 *
 * Machine rows carry values in base units named in their keys: shares as
 * _ratio (0 to 1), frequencies in _hertz, power in _watts, energy in
 * _joules, temperature in _celsius, memory in _bytes, times in _ns.
 * Unknown values are empty (CSV) or null (NDJSON).
 */
#ifndef GPUPERF_USAGE_VIEW_H
#define GPUPERF_USAGE_VIEW_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "client/include/gpuperf.h"

/* A growable text, written out whole. */
struct gpuperf_text {
	char *data;
	size_t len, cap;
	bool failed;                    /* out of memory: the text is cut */
};

void gpuperf_text_printf(struct gpuperf_text *t, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
void gpuperf_text_fini(struct gpuperf_text *t);

/* The order of the process table. */
enum gpuperf_usage_sort {
	GPUPERF_SORT_GPU,               /* engine time, most first */
	GPUPERF_SORT_MEMORY,            /* most first */
	GPUPERF_SORT_PID,
	GPUPERF_SORT_COMMAND,
	GPUPERF_SORT_COUNT,
};

/* "gpu", "memory", "pid", "command"; -EINVAL otherwise. */
int gpuperf_usage_sort_parse(const char *name, enum gpuperf_usage_sort *out);
const char *gpuperf_usage_sort_name(enum gpuperf_usage_sort sort);

struct gpuperf_usage_screen {
	enum gpuperf_usage_sort sort;
	bool hide_idle;                 /* processes idle in the interval */
	bool per_engine;                /* engines, not their classes */
	bool unicode;                   /* block characters for bars */
	bool keys_line;                 /* say which keys do what */
	unsigned width;                 /* columns */
	unsigned height;                /* rows for this device; 0: all */
};

/* Appends device's screen: its title, clocks and power, engines with
 * bars, then as many processes as fit, with what was left out said. */
void gpuperf_usage_screen_render(struct gpuperf_text *t,
				 const struct gpuperf_usage_screen *s,
				 const struct gpc_usage_frame *f,
				 const char *description);

/* One frame as CSV rows (the header first when header is set) or one
 * NDJSON line. */
void gpuperf_usage_csv(struct gpuperf_text *t, const struct gpc_usage_frame *f,
		       bool header);
void gpuperf_usage_ndjson(struct gpuperf_text *t, const struct gpc_usage_frame *f);

/* The CSV header's columns, for --help. */
extern const char gpuperf_usage_csv_columns[];

/* Writes t to out in one write(); 0 or -errno. Empties t. */
int gpuperf_text_write(struct gpuperf_text *t, FILE *out);

#endif
