/*
 * Rows of counter values as the CLI prints them: an aligned table with
 * human units, CSV, or NDJSON.
 *
 * Columns are named once; each row then gives one cell per column. Each
 * row goes out whole, in one write() where the FILE * has a descriptor,
 * so output cut short (the process killed, a pipe closed) ends after a
 * complete row: every NDJSON line is valid JSON, every CSV line a full
 * record.
 */
#ifndef GPUPERF_OUTPUT_H
#define GPUPERF_OUTPUT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

enum gpuperf_format {
	GPUPERF_FORMAT_TABLE,
	GPUPERF_FORMAT_CSV,
	GPUPERF_FORMAT_NDJSON,
};

/* "table", "csv" or "ndjson"; -EINVAL for anything else. */
int gpuperf_format_parse(const char *name, enum gpuperf_format *out);

/*
 * How the table shows a column's numbers. Counters use the units of their
 * metric XML ("ns", "percent", "hz", "bytes", "gbps", "events", ...);
 * NULL shows plain numbers. CSV and NDJSON always print plain numbers.
 */
struct gpuperf_column {
	const char *key;                /* CSV header, NDJSON key */
	const char *units;
};

/* The CPU time of a row: the table shows it in seconds. */
#define GPUPERF_UNITS_TIMESTAMP "timestamp"
/* A hardware context id: the table shows it in hex. */
#define GPUPERF_UNITS_CONTEXT "context"

enum gpuperf_cell_type {
	GPUPERF_CELL_NONE,              /* no value: empty, null, "-" */
	GPUPERF_CELL_U64,
	GPUPERF_CELL_DOUBLE,
};

struct gpuperf_cell {
	enum gpuperf_cell_type type;
	union {
		uint64_t u;
		double d;
	};
};

struct gpuperf_output {
	/* private */
	FILE *out;
	enum gpuperf_format format;
	size_t n_columns;
	const struct gpuperf_column *columns;
	int *widths;                    /* table column widths */
	char *line;                     /* the row being built */
	size_t line_len, line_cap;
	int failed;                     /* sticky negative errno */
	uint64_t rows;
	bool units_row;
};

/* columns must outlive the output. 0 or -ENOMEM. */
int gpuperf_output_init(struct gpuperf_output *o, FILE *out,
			enum gpuperf_format format,
			const struct gpuperf_column *columns, size_t n_columns);

/* Writes one row, the header first where the format has one. 0, or the
 * negative errno of the write (then every later row fails the same). */
int gpuperf_output_row(struct gpuperf_output *o,
		       const struct gpuperf_cell *cells);

void gpuperf_output_fini(struct gpuperf_output *o);

/* CSV only: a second header row with each column's units ("" where it
 * has none), for tools that read them. Set before the first row. */
void gpuperf_output_set_units_row(struct gpuperf_output *o, bool units_row);

/* One cell as the table shows it: scaled to its units, with them. */
void gpuperf_human_text(char *buf, size_t size,
			const struct gpuperf_cell *cell, const char *units);

#endif
