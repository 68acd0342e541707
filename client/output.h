/*
 * Rows of counter values as the CLI prints them: an aligned table with
 * human units, CSV, or NDJSON.
 *
 * Columns are named once; each row then gives one cell per column. Each
 * row goes out whole, in one write() where the FILE * has a descriptor,
 * so output cut short (the process killed, a pipe closed) ends after a
 * complete row: every NDJSON line is valid JSON, every CSV line a full
 * record. Offline, where nobody waits for each row, rows can be batched:
 * each write() then carries many whole rows, and still ends after one.
 */
#ifndef GPUPERF_OUTPUT_H
#define GPUPERF_OUTPUT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "client/human_text.h"

enum gpuperf_format {
	GPUPERF_FORMAT_TABLE,
	GPUPERF_FORMAT_CSV,
	GPUPERF_FORMAT_NDJSON,
	/* Not rows: a Perfetto trace, which the commands write themselves. */
	GPUPERF_FORMAT_PERFETTO,
};

/* "table", "csv", "ndjson" or "perfetto"; -EINVAL for anything else. */
int gpuperf_format_parse(const char *name, enum gpuperf_format *out);

/*
 * What a column holds, which decides how each format writes it. Machine
 * formats (CSV, NDJSON) write plain values: numbers in the unit --units
 * names, contexts as hex strings, words as strings. The table, a human
 * view, writes them as README's "Units, times and contexts" says.
 */
enum gpuperf_column_kind {
	GPUPERF_COLUMN_NUMBER,          /* a count: plain everywhere */
	GPUPERF_COLUMN_TEXT,            /* words (platform, metric set) */
	GPUPERF_COLUMN_TIME,            /* CLOCK_MONOTONIC ns; the table
					 * writes seconds */
	GPUPERF_COLUMN_DURATION,        /* the row's length in ns; the table
					 * writes "200 ms", and divides
					 * per-second counters by it */
	GPUPERF_COLUMN_CONTEXT,         /* a hardware context: "0x1a", or a
					 * text cell ("idle") */
	GPUPERF_COLUMN_COUNTER,         /* a counter's window value; the table
					 * shows it as its display says */
};

struct gpuperf_column {
	const char *key;                /* CSV header, NDJSON key */
	enum gpuperf_column_kind kind;
	const char *table_key;          /* the table's header; NULL: key */
	const char *units;              /* --units: the machine value's unit */
	struct gpuperf_display display; /* COUNTER: how the table shows it */
	bool machine_only;              /* not in the table (its title says
					 * it: platform, metric set) */
};

/* The context cell of the share of a window no context had. */
#define GPUPERF_IDLE_CONTEXT "idle"

enum gpuperf_cell_type {
	GPUPERF_CELL_NONE,              /* no value: empty, null, "-" */
	GPUPERF_CELL_U64,
	GPUPERF_CELL_DOUBLE,
	GPUPERF_CELL_TEXT,
};

struct gpuperf_cell {
	enum gpuperf_cell_type type;
	union {
		uint64_t u;
		double d;
		const char *text;
	};
};

struct gpuperf_output {
	/* private */
	FILE *out;
	enum gpuperf_format format;
	size_t n_columns;
	const struct gpuperf_column *columns;
	int *widths;                    /* table column widths */
	struct gpuperf_human_unit *units;       /* table: each counter
						 * column's, made ready */
	size_t table_row_room;          /* bytes a table row may take */
	char *line;                     /* rows not yet written, then the
					 * one being built */
	size_t line_len, line_cap;
	size_t batch_bytes;             /* write once this much is pending */
	int failed;                     /* sticky negative errno */
	uint64_t rows;
	bool units_row;
};

/* columns must outlive the output. 0, -EINVAL for the perfetto format,
 * or -ENOMEM. */
int gpuperf_output_init(struct gpuperf_output *o, FILE *out,
			enum gpuperf_format format,
			const struct gpuperf_column *columns, size_t n_columns);

/* Writes one row, the header first where the format has one. 0, or the
 * negative errno of the write (then every later row fails the same). */
int gpuperf_output_row(struct gpuperf_output *o,
		       const struct gpuperf_cell *cells);

/* Rows stay in memory until bytes of them are pending, then go out in
 * one write(); gpuperf_output_flush() writes the rest. 0 (the default)
 * writes each row as it comes. */
void gpuperf_output_set_batch(struct gpuperf_output *o, size_t bytes);

/* Writes the rows still pending: 0, or the negative errno of the write
 * (sticky, as gpuperf_output_row's). */
int gpuperf_output_flush(struct gpuperf_output *o);

/* Frees the output; rows still pending are dropped, not written. */
void gpuperf_output_fini(struct gpuperf_output *o);

/* CSV only: a second header row with each column's units ("" where it
 * has none), for tools that read them. Set before the first row. */
void gpuperf_output_set_units_row(struct gpuperf_output *o, bool units_row);

/* One cell of column as the table shows it, for a row of duration_ns. */
void gpuperf_human_text(char *buf, size_t size,
			const struct gpuperf_column *column,
			const struct gpuperf_cell *cell, double duration_ns);

#endif
