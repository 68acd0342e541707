/*
 * Numbers for people, as every human view of gpuperf shows them (the live
 * table, table rows, devices, counters, compare's report) and as the web
 * UI's units.js does, so that a value reads the same everywhere:
 *
 * - A counter that counts something over its window (event and
 *   throughput counters: bytes, cycles, events, pixels...) is shown as a
 *   rate per second of GPU time, so it does not change with the window's
 *   length; percentages, frequencies, ratios and durations as they are.
 * - SI prefixes (k, M, G, T: powers of 1000; m, µ, n), three significant
 *   digits: "43.6 GB/s", "1.21 G cycles/s", "834 µs", "55.9 %".
 * - Durations in the largest unit under which they are at least 1:
 *   "105 ns", "1.67 µs", "6.99 s"; from 1000 s on, whole seconds.
 *
 * Machine formats (CSV, NDJSON) carry the plain values instead (output.h).
 */
#ifndef GPUPERF_HUMAN_TEXT_H
#define GPUPERF_HUMAN_TEXT_H

#include <math.h>
#include <stdbool.h>
#include <stddef.h>

#include "client/include/gpuperf.h"

/* Room for any text these functions write, with its NUL. */
#define GPUPERF_HUMAN_TEXT_MAX 48

/* How a counter's value is shown. */
struct gpuperf_display {
	bool per_second;        /* the window's value over its length */
	double scale;           /* then times this, to the unit below */
	char unit[32];          /* "B/s", "Hz", "%", "s", "cycles/s", "" */
};

/* The display of a counter with these metric-XML units ("ns", "bytes",
 * "percent"...), type and semantic type ("ratio" is never a rate). */
void gpuperf_display_for(struct gpuperf_display *d, const char *units,
			 enum gpc_counter_type type, const char *semantic_type);

/* The display of a counter of the catalog (NULL: plain numbers). */
void gpuperf_display_of(struct gpuperf_display *d,
			const struct gpc_counter *counter);

/* A window's value as the display shows it, for a window of seconds
 * (inline: tables call it for every cell). */
static inline double gpuperf_display_value(const struct gpuperf_display *d,
					   double value, double seconds)
{
	if (d->per_second)
		value = seconds > 0 ? value / seconds : NAN;
	return value * d->scale;
}

/* v, already in unit, with an SI prefix: "43.6 GB/s", "1.21 G cycles/s",
 * "55.9 %", "-" when not finite; returns the length. */
size_t gpuperf_human_value(char *buf, size_t size, double v, const char *unit);

/* A unit is shown to this many bytes. */
#define GPUPERF_HUMAN_UNIT_MAX 31
/* T, G, M, k, none, m, µ, n */
#define GPUPERF_HUMAN_PREFIXES 8

/* What follows a number's digits: " %", " B/s", " kB/s", " k cycles/s". */
struct gpuperf_human_suffix {
	char text[40];                  /* NUL-padded */
	unsigned char len;
	unsigned char wide;             /* bytes that are not terminal cells
					 * of their own (UTF-8) */
};

/* Room in which gpuperf_human_unit_value() writes in place rather than
 * through a buffer of its own: GPUPERF_HUMAN_TEXT_MAX - 1 bytes of
 * digits, then a suffix whole. */
#define GPUPERF_HUMAN_ROOM \
	(GPUPERF_HUMAN_TEXT_MAX - 1 + sizeof(((struct gpuperf_human_suffix *)0)->text))

/* A unit made ready for many values (a table column's): what
 * gpuperf_human_value() finds out about it and writes after the digits,
 * found and written once. */
struct gpuperf_human_unit {
	struct gpuperf_human_suffix plain;      /* without a prefix */
	struct gpuperf_human_suffix prefixed[GPUPERF_HUMAN_PREFIXES];
	bool percent;                   /* "%": one decimal, no prefix */
	bool symbol;                    /* takes its prefix directly ("MB/s") */
};

void gpuperf_human_unit_init(struct gpuperf_human_unit *u, const char *unit);

/* gpuperf_human_value() in a unit made ready; *cells (where not NULL):
 * the terminal cells of the text, as gpuperf_text_width() counts them.
 * Units are shown to GPUPERF_HUMAN_UNIT_MAX bytes. */
size_t gpuperf_human_unit_value(char *buf, size_t size, double v,
				const struct gpuperf_human_unit *u, int *cells);

/* v with decimals (0 to 9) digits after the point, as printf's "%.*f"
 * writes it; returns the length. */
size_t gpuperf_fixed_text(char *buf, size_t size, double v, int decimals);

/* ns as a short duration: "105 ns", "834 µs", "6.99 s"; returns the
 * length. */
size_t gpuperf_duration_text(char *buf, size_t size, double ns);

/* Columns of text in a terminal: the cells of s, for alignment (UTF-8
 * sequences such as µ count once). */
int gpuperf_text_width(const char *s);

#endif
