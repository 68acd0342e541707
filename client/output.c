/*
 * Table, CSV and NDJSON rows (see output.h). Each row is built in memory
 * after the ones still pending, and they are handed to the file whole.
 */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "client/output.h"
#include "metrics/number_text.h"

/* Table columns are at least this wide, so human numbers line up. */
#define MIN_TABLE_WIDTH 10
/* A counter's three digits, sign, point, prefix and spaces, before its
 * unit. */
#define COUNTER_DIGITS_WIDTH 9
/* The table's padding goes in blocks of this many spaces. */
#define TABLE_BLOCK 16

int gpuperf_format_parse(const char *name, enum gpuperf_format *out)
{
	static const char *const names[] = { "table", "csv", "ndjson",
					     "perfetto" };

	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		if (!strcmp(name, names[i])) {
			*out = (enum gpuperf_format)i;
			return 0;
		}
	}
	return -EINVAL;
}

static const char *table_key(const struct gpuperf_column *column);

int gpuperf_output_init(struct gpuperf_output *o, FILE *out,
			enum gpuperf_format format,
			const struct gpuperf_column *columns, size_t n_columns)
{
	memset(o, 0, sizeof(*o));
	if (format == GPUPERF_FORMAT_PERFETTO)
		return -EINVAL;
	o->out = out;
	o->format = format;
	o->columns = columns;
	o->n_columns = n_columns;
	o->widths = calloc(n_columns ? n_columns : 1, sizeof(*o->widths));
	o->units = calloc(n_columns ? n_columns : 1, sizeof(*o->units));
	if (!o->widths || !o->units) {
		gpuperf_output_fini(o);
		return -ENOMEM;
	}
	for (size_t i = 0; i < n_columns; i++) {
		int w = (int)strlen(table_key(&columns[i]));
		/* Room for "-123 M " and the unit: every row lines up. */
		int value = columns[i].kind == GPUPERF_COLUMN_COUNTER ?
			    COUNTER_DIGITS_WIDTH +
			    gpuperf_text_width(columns[i].display.unit) : 0;
		if (w < value)
			w = value;
		o->widths[i] = w > MIN_TABLE_WIDTH ? w : MIN_TABLE_WIDTH;
		gpuperf_human_unit_init(&o->units[i], columns[i].display.unit);
		/* Two spaces, the padding in whole blocks, the text's
		 * buffer whole. */
		o->table_row_room += 2 + (size_t)o->widths[i] + TABLE_BLOCK +
				     GPUPERF_HUMAN_TEXT_MAX;
	}
	o->table_row_room += 2;
	return 0;
}

void gpuperf_output_fini(struct gpuperf_output *o)
{
	free(o->widths);
	free(o->units);
	free(o->line);
	o->widths = NULL;
	o->units = NULL;
	o->line = NULL;
}

static void append(struct gpuperf_output *o, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/* Appends to the row; on allocation failure the output fails for good. */
static void append(struct gpuperf_output *o, const char *fmt, ...)
{
	va_list ap;

	if (o->failed)
		return;
	for (;;) {
		size_t room = o->line_cap - o->line_len;
		va_start(ap, fmt);
		int n = vsnprintf(o->line ? o->line + o->line_len : NULL, room,
				  fmt, ap);
		va_end(ap);
		if (n < 0) {
			o->failed = -EINVAL;
			return;
		}
		if ((size_t)n < room) {
			o->line_len += (size_t)n;
			return;
		}
		size_t cap = o->line_cap ? o->line_cap * 2 : 256;
		while (cap - o->line_len <= (size_t)n)
			cap *= 2;
		char *line = realloc(o->line, cap);
		if (!line) {
			o->failed = -ENOMEM;
			return;
		}
		o->line = line;
		o->line_cap = cap;
	}
}

/* Makes room for len more bytes and a NUL; false (the output failed for
 * good) when it cannot. */
static bool reserve(struct gpuperf_output *o, size_t len)
{
	if (o->failed)
		return false;
	if (o->line_cap - o->line_len > len)
		return true;
	size_t cap = o->line_cap ? o->line_cap * 2 : 256;
	while (cap - o->line_len <= len)
		cap *= 2;
	char *line = realloc(o->line, cap);
	if (!line) {
		o->failed = -ENOMEM;
		return false;
	}
	o->line = line;
	o->line_cap = cap;
	return true;
}

/* Appends len bytes of s to the row, as append() does. */
static void append_bytes(struct gpuperf_output *o, const char *s, size_t len)
{
	if (!reserve(o, len))
		return;
	memcpy(o->line + o->line_len, s, len);
	o->line_len += len;
	o->line[o->line_len] = '\0';
}

/* A context as "0x" and its hex digits into buf (GPM_NUMBER_TEXT_MAX
 * bytes), as "0x%" PRIx64 writes it; returns the length. */
static size_t context_text(char *buf, uint64_t v)
{
	static const char hex[] = "0123456789abcdef";
	unsigned digits = 1;

	while (digits < 16 && v >> (4 * digits))
		digits++;
	buf[0] = '0';
	buf[1] = 'x';
	for (unsigned i = 0; i < digits; i++)
		buf[2 + digits - 1 - i] = hex[(v >> (4 * i)) & 0xf];
	buf[2 + digits] = '\0';
	return 2 + digits;
}

/* A cell as a plain number into buf (GPM_NUMBER_TEXT_MAX bytes);
 * returns its length, 0 when it has none. */
static size_t plain_number(char *buf, const struct gpuperf_cell *c)
{
	switch (c->type) {
	case GPUPERF_CELL_U64:
		return gpm_u64_text(buf, c->u);
	case GPUPERF_CELL_DOUBLE:
		if (!isfinite(c->d))
			return 0;
		return gpm_double_text(buf, c->d);
	case GPUPERF_CELL_NONE:
	case GPUPERF_CELL_TEXT:
		break;
	}
	return 0;
}

static double cell_double(const struct gpuperf_cell *c)
{
	return c->type == GPUPERF_CELL_U64 ? (double)c->u : c->d;
}

/* A cell of column for people, for a row of duration_ns. */
static void human_number(char *buf, size_t size,
			 const struct gpuperf_column *column,
			 const struct gpuperf_cell *c, double duration_ns)
{
	char num[GPM_NUMBER_TEXT_MAX];

	if (c->type == GPUPERF_CELL_TEXT) {
		snprintf(buf, size, "%s", c->text);
		return;
	}
	if (c->type == GPUPERF_CELL_NONE ||
	    (c->type == GPUPERF_CELL_DOUBLE && !isfinite(c->d))) {
		snprintf(buf, size, "-");
		return;
	}
	double v = cell_double(c);
	switch (column->kind) {
	case GPUPERF_COLUMN_TIME:
		gpuperf_fixed_text(buf, size, v / 1e9, 3);
		return;
	case GPUPERF_COLUMN_DURATION:
		gpuperf_duration_text(buf, size, v);
		return;
	case GPUPERF_COLUMN_CONTEXT:
		if (size >= GPM_NUMBER_TEXT_MAX)
			context_text(buf, c->u);
		else
			snprintf(buf, size, "0x%" PRIx64, c->u);
		return;
	case GPUPERF_COLUMN_COUNTER:
		gpuperf_human_value(buf, size,
				    gpuperf_display_value(&column->display, v,
							  duration_ns / 1e9),
				    column->display.unit);
		return;
	case GPUPERF_COLUMN_NUMBER:
	case GPUPERF_COLUMN_TEXT:
		break;
	}
	size_t len = plain_number(num, c);
	if (!len)
		len = (size_t)snprintf(num, sizeof(num), "-");
	if (len >= size)
		len = size - 1;
	memcpy(buf, num, len);
	buf[len] = '\0';
}

/* Appends s as CSV: quoted when it holds a comma, quote or line break. */
static void append_csv_field(struct gpuperf_output *o, const char *s)
{
	if (!strpbrk(s, ",\"\r\n")) {
		append_bytes(o, s, strlen(s));
		return;
	}
	append(o, "\"");
	for (; *s; s++) {
		if (*s == '"')
			append(o, "\"\"");
		else
			append(o, "%c", *s);
	}
	append(o, "\"");
}

static void append_json_string(struct gpuperf_output *o, const char *s)
{
	append_bytes(o, "\"", 1);
	for (;;) {
		const char *plain = s;
		while (*s && *s != '"' && *s != '\\' && (unsigned char)*s >= 0x20)
			s++;
		append_bytes(o, plain, (size_t)(s - plain));
		if (!*s)
			break;
		unsigned char ch = (unsigned char)*s++;
		if (ch == '"' || ch == '\\')
			append(o, "\\%c", ch);
		else
			append(o, "\\u%04x", ch);
	}
	append_bytes(o, "\"", 1);
}

/* Whether the format writes column i. */
static bool written(const struct gpuperf_output *o, size_t i)
{
	return o->format != GPUPERF_FORMAT_TABLE || !o->columns[i].machine_only;
}

/* The table's header of a column. */
static const char *table_key(const struct gpuperf_column *column)
{
	return column->table_key ? column->table_key : column->key;
}

/* Appends text right-aligned in width terminal cells. */
static void append_padded(struct gpuperf_output *o, const char *text,
			  int width, bool first)
{
	size_t len = 0;
	int cells = 0;

	/* Its length and its terminal cells (a UTF-8 sequence is one). */
	for (; text[len]; len++)
		cells += ((unsigned char)text[len] & 0xc0) != 0x80;
	int pad = width - cells;
	size_t spaces = (first ? 0 : 2) + (size_t)(pad > 0 ? pad : 0);

	if (!reserve(o, spaces + len))
		return;
	memset(o->line + o->line_len, ' ', spaces);
	memcpy(o->line + o->line_len + spaces, text, len + 1);
	o->line_len += spaces + len;
}

static void build_header(struct gpuperf_output *o)
{
	bool first = true;

	for (size_t i = 0; i < o->n_columns; i++) {
		if (!written(o, i))
			continue;
		if (o->format == GPUPERF_FORMAT_CSV) {
			if (!first)
				append(o, ",");
			append_csv_field(o, o->columns[i].key);
		} else {
			append_padded(o, table_key(&o->columns[i]), o->widths[i],
				      first);
		}
		first = false;
	}
	append(o, "\n");
	if (o->format != GPUPERF_FORMAT_CSV || !o->units_row)
		return;
	for (size_t i = 0; i < o->n_columns; i++) {
		const struct gpuperf_column *column = &o->columns[i];
		const char *units = column->units;
		if (column->kind == GPUPERF_COLUMN_TIME ||
		    column->kind == GPUPERF_COLUMN_DURATION)
			units = "ns";
		if (i)
			append(o, ",");
		append_csv_field(o, units ? units : "");
	}
	append(o, "\n");
}

void gpuperf_output_set_units_row(struct gpuperf_output *o, bool units_row)
{
	o->units_row = units_row;
}

/* The row's length: its duration column's, for per-second counters. */
static double row_duration_ns(const struct gpuperf_output *o,
			      const struct gpuperf_cell *cells)
{
	for (size_t i = 0; i < o->n_columns; i++)
		if (o->columns[i].kind == GPUPERF_COLUMN_DURATION &&
		    cells[i].type != GPUPERF_CELL_NONE &&
		    cells[i].type != GPUPERF_CELL_TEXT)
			return cell_double(&cells[i]);
	return NAN;
}

/* A machine cell: a context as a hex string, words as strings, else a
 * plain number; false when it has no value. */
static bool machine_text(const struct gpuperf_column *column,
			 const struct gpuperf_cell *c, char *buf, size_t size,
			 size_t *len, bool *quoted)
{
	*quoted = false;
	if (c->type == GPUPERF_CELL_TEXT) {
		*quoted = true;
		return true;
	}
	if (column->kind == GPUPERF_COLUMN_CONTEXT &&
	    c->type == GPUPERF_CELL_U64) {
		*quoted = true;
		*len = context_text(buf, c->u);
		return true;
	}
	*len = plain_number(buf, c);
	return *len > 0;
}

/* A CSV row, its numbers written in place: offline replay writes tens of
 * millions of them. */
static void build_csv_row(struct gpuperf_output *o,
			  const struct gpuperf_cell *cells)
{
	size_t room = 1;

	for (size_t i = 0; i < o->n_columns; i++)
		room += cells[i].type == GPUPERF_CELL_TEXT ?
			2 * strlen(cells[i].text) + 3 : GPM_NUMBER_TEXT_MAX + 1;
	if (!reserve(o, room))
		return;
	for (size_t i = 0; i < o->n_columns; i++) {
		const struct gpuperf_cell *c = &cells[i];
		char *at;

		if (i)
			o->line[o->line_len++] = ',';
		if (c->type == GPUPERF_CELL_TEXT) {
			append_csv_field(o, c->text);
			continue;
		}
		at = o->line + o->line_len;
		if (o->columns[i].kind == GPUPERF_COLUMN_CONTEXT &&
		    c->type == GPUPERF_CELL_U64)
			o->line_len += context_text(at, c->u);
		else
			o->line_len += plain_number(at, c);
	}
	o->line[o->line_len++] = '\n';
	o->line[o->line_len] = '\0';
}

/*
 * Appends a cell of len bytes and cells terminal cells right-aligned in
 * width, after the two spaces between columns unless first. The row has
 * room for every cell at its widest (see build_table_row): the spaces and
 * text go in as blocks of a fixed size, past the cell's end where they
 * are shorter, which costs less than counting them out.
 */
static void put_table_cell(struct gpuperf_output *o, const char *text,
			   size_t len, int cells, int width, bool first)
{
	static const char spaces[TABLE_BLOCK] = {
		[0 ... TABLE_BLOCK - 1] = ' ',
	};
	char *at = o->line + o->line_len;
	size_t gap = (first ? 0 : 2) + (size_t)(width > cells ? width - cells : 0);

	for (size_t done = 0; done < gap; done += TABLE_BLOCK)
		memcpy(at + done, spaces, TABLE_BLOCK);
	memcpy(at + gap, text, GPUPERF_HUMAN_TEXT_MAX);
	o->line_len += gap + len;
}

/* A table row. Counters' cells go through their units made ready:
 * offline replay writes millions of them. */
static void build_table_row(struct gpuperf_output *o,
			    const struct gpuperf_cell *cells)
{
	char text[GPUPERF_HUMAN_ROOM];
	double duration_ns = row_duration_ns(o, cells);
	double seconds = duration_ns / 1e9;
	bool first = true;

	if (!reserve(o, o->table_row_room))
		return;
	for (size_t i = 0; i < o->n_columns; i++) {
		const struct gpuperf_cell *c = &cells[i];
		const struct gpuperf_column *column = &o->columns[i];
		size_t len;
		int width;

		if (column->machine_only)
			continue;
		if (column->kind == GPUPERF_COLUMN_COUNTER &&
		    (c->type == GPUPERF_CELL_U64 ||
		     c->type == GPUPERF_CELL_DOUBLE)) {
			double v = gpuperf_display_value(&column->display,
							 cell_double(c),
							 seconds);
			len = gpuperf_human_unit_value(text, sizeof(text), v,
						       &o->units[i], &width);
			/* Cut where every cell is cut (human_number). */
			if (len >= GPUPERF_HUMAN_TEXT_MAX)
				len = gpuperf_human_unit_value(
					text, GPUPERF_HUMAN_TEXT_MAX, v,
					&o->units[i], &width);
		} else {
			human_number(text, GPUPERF_HUMAN_TEXT_MAX, column, c,
				     duration_ns);
			len = strlen(text);
			width = gpuperf_text_width(text);
		}
		put_table_cell(o, text, len, width, o->widths[i], first);
		first = false;
	}
	o->line[o->line_len++] = '\n';
	o->line[o->line_len] = '\0';
}

static void build_row(struct gpuperf_output *o,
		      const struct gpuperf_cell *cells)
{
	char num[GPUPERF_HUMAN_TEXT_MAX];
	bool first = true, quoted;
	size_t len = 0;

	if (o->format == GPUPERF_FORMAT_TABLE) {
		build_table_row(o, cells);
		return;
	}
	if (o->format == GPUPERF_FORMAT_NDJSON)
		append_bytes(o, "{", 1);
	for (size_t i = 0; i < o->n_columns; i++) {
		const struct gpuperf_cell *c = &cells[i];
		const struct gpuperf_column *column = &o->columns[i];
		if (!written(o, i))
			continue;
		switch (o->format) {
		case GPUPERF_FORMAT_CSV:
			build_csv_row(o, cells);
			return;
		case GPUPERF_FORMAT_NDJSON:
			if (!first)
				append_bytes(o, ",", 1);
			append_json_string(o, column->key);
			append_bytes(o, ":", 1);
			if (!machine_text(column, c, num, sizeof(num), &len,
					  &quoted))
				append_bytes(o, "null", 4);
			else if (c->type == GPUPERF_CELL_TEXT)
				append_json_string(o, c->text);
			else if (quoted)
				append(o, "\"%s\"", num);
			else
				append_bytes(o, num, len);
			break;
		case GPUPERF_FORMAT_TABLE:      /* build_table_row */
		case GPUPERF_FORMAT_PERFETTO:   /* refused by _init */
			break;
		}
		first = false;
	}
	if (o->format == GPUPERF_FORMAT_NDJSON)
		append_bytes(o, "}\n", 2);
	else
		append_bytes(o, "\n", 1);
}

/*
 * Hands the pending rows to the file in one write() where it has a
 * descriptor, so whoever reads the file or pipe never sees part of a row
 * next to the end, even if this process dies; stdio would split rows
 * longer than its buffer.
 */
static int write_row(struct gpuperf_output *o)
{
	errno = EIO;
	if (fflush(o->out) != 0)
		return -errno;
	int fd = fileno(o->out);
	if (fd < 0) {
		if (fwrite(o->line, 1, o->line_len, o->out) != o->line_len ||
		    fflush(o->out) != 0)
			return -errno;
		return 0;
	}
	size_t done = 0;
	while (done < o->line_len) {
		ssize_t n = write(fd, o->line + done, o->line_len - done);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		done += (size_t)n;
	}
	return 0;
}

int gpuperf_output_row(struct gpuperf_output *o,
		       const struct gpuperf_cell *cells)
{
	if (o->failed)
		return o->failed;
	if (o->rows == 0 && o->format != GPUPERF_FORMAT_NDJSON)
		build_header(o);
	build_row(o, cells);
	if (o->failed)
		return o->failed;
	o->rows++;
	return o->line_len < o->batch_bytes ? 0 : gpuperf_output_flush(o);
}

void gpuperf_output_set_batch(struct gpuperf_output *o, size_t bytes)
{
	o->batch_bytes = bytes;
}

int gpuperf_output_flush(struct gpuperf_output *o)
{
	if (o->failed || !o->line_len)
		return o->failed;
	int ret = write_row(o);
	o->line_len = 0;
	if (ret < 0)
		o->failed = ret;
	return ret;
}

void gpuperf_human_text(char *buf, size_t size,
			const struct gpuperf_column *column,
			const struct gpuperf_cell *cell, double duration_ns)
{
	human_number(buf, size, column, cell, duration_ns);
}
