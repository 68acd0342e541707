/*
 * Table, CSV and NDJSON rows (see output.h). Each row is built in memory
 * and handed to stdio whole, then flushed.
 */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "client/number_text.h"
#include "client/output.h"

/* Table columns are at least this wide, so human numbers line up. */
#define MIN_TABLE_WIDTH 10

int gpuperf_format_parse(const char *name, enum gpuperf_format *out)
{
	static const char *const names[] = { "table", "csv", "ndjson" };

	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		if (!strcmp(name, names[i])) {
			*out = (enum gpuperf_format)i;
			return 0;
		}
	}
	return -EINVAL;
}

int gpuperf_output_init(struct gpuperf_output *o, FILE *out,
			enum gpuperf_format format,
			const struct gpuperf_column *columns, size_t n_columns)
{
	memset(o, 0, sizeof(*o));
	o->out = out;
	o->format = format;
	o->columns = columns;
	o->n_columns = n_columns;
	o->widths = calloc(n_columns ? n_columns : 1, sizeof(*o->widths));
	if (!o->widths)
		return -ENOMEM;
	for (size_t i = 0; i < n_columns; i++) {
		int w = (int)strlen(columns[i].key);
		o->widths[i] = w > MIN_TABLE_WIDTH ? w : MIN_TABLE_WIDTH;
	}
	return 0;
}

void gpuperf_output_fini(struct gpuperf_output *o)
{
	free(o->widths);
	free(o->line);
	o->widths = NULL;
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

/* Appends len bytes of s to the row, as append() does. */
static void append_bytes(struct gpuperf_output *o, const char *s, size_t len)
{
	if (o->failed)
		return;
	if (o->line_cap - o->line_len <= len) {
		size_t cap = o->line_cap ? o->line_cap * 2 : 256;
		while (cap - o->line_len <= len)
			cap *= 2;
		char *line = realloc(o->line, cap);
		if (!line) {
			o->failed = -ENOMEM;
			return;
		}
		o->line = line;
		o->line_cap = cap;
	}
	memcpy(o->line + o->line_len, s, len);
	o->line_len += len;
	o->line[o->line_len] = '\0';
}

/* A cell as a plain number into buf (GPUPERF_NUMBER_TEXT_MAX bytes);
 * returns its length, 0 when it has none. */
static size_t plain_number(char *buf, const struct gpuperf_cell *c)
{
	switch (c->type) {
	case GPUPERF_CELL_U64:
		return gpuperf_u64_text(buf, c->u);
	case GPUPERF_CELL_DOUBLE:
		if (!isfinite(c->d))
			return 0;
		return gpuperf_double_text(buf, c->d);
	case GPUPERF_CELL_NONE:
		break;
	}
	return 0;
}

static double cell_double(const struct gpuperf_cell *c)
{
	return c->type == GPUPERF_CELL_U64 ? (double)c->u : c->d;
}

static void scaled(char *buf, size_t size, double v, double step,
		   const char *const *prefixes, size_t n, const char *unit)
{
	size_t i = 0;
	while (fabs(v) >= step && i + 1 < n) {
		v /= step;
		i++;
	}
	snprintf(buf, size, "%.3g %s%s", v, prefixes[i], unit);
}

static void human_time(char *buf, size_t size, double ns)
{
	if (fabs(ns) < 1e3)
		snprintf(buf, size, "%.0f ns", ns);
	else if (fabs(ns) < 1e6)
		snprintf(buf, size, "%.2f us", ns / 1e3);
	else if (fabs(ns) < 1e9)
		snprintf(buf, size, "%.2f ms", ns / 1e6);
	else
		snprintf(buf, size, "%.3f s", ns / 1e9);
}

/* A cell for people: scaled to its units, with them. */
static void human_number(char *buf, size_t size, const struct gpuperf_cell *c,
			 const char *units)
{
	static const char *const si[] = { "", "k", "M", "G", "T", "P" };
	static const char *const binary[] = { "", "Ki", "Mi", "Gi", "Ti", "Pi" };
	const size_t n_si = sizeof(si) / sizeof(si[0]);

	if (c->type == GPUPERF_CELL_NONE ||
	    (c->type == GPUPERF_CELL_DOUBLE && !isfinite(c->d))) {
		snprintf(buf, size, "-");
		return;
	}
	double v = cell_double(c);
	if (!units) {
		char num[GPUPERF_NUMBER_TEXT_MAX];
		if (plain_number(num, c))
			snprintf(buf, size, "%s", num);
	} else if (!strcmp(units, GPUPERF_UNITS_TIMESTAMP)) {
		snprintf(buf, size, "%.6f", v / 1e9);
	} else if (!strcmp(units, GPUPERF_UNITS_CONTEXT)) {
		snprintf(buf, size, "0x%" PRIx64, c->u);
	} else if (!strcmp(units, "percent")) {
		snprintf(buf, size, "%.1f %%", v);
	} else if (!strcmp(units, "ns")) {
		human_time(buf, size, v);
	} else if (!strcmp(units, "us")) {
		human_time(buf, size, v * 1e3);
	} else if (!strcmp(units, "hz")) {
		scaled(buf, size, v, 1e3, si, n_si, "Hz");
	} else if (!strcmp(units, "bytes")) {
		scaled(buf, size, v, 1024, binary, n_si, "B");
	} else if (!strcmp(units, "gbps")) {
		snprintf(buf, size, "%.2f GB/s", v);
	} else if (c->type == GPUPERF_CELL_U64 && c->u < 1000) {
		snprintf(buf, size, "%" PRIu64, c->u);
	} else {
		/* counts of events, threads, pixels...: SI prefixes */
		scaled(buf, size, v, 1e3, si, n_si, "");
		size_t len = strlen(buf);
		if (len && buf[len - 1] == ' ')
			buf[len - 1] = '\0';
	}
}

/* Appends s as CSV: quoted when it holds a comma, quote or line break. */
static void append_csv_field(struct gpuperf_output *o, const char *s)
{
	if (!strpbrk(s, ",\"\r\n")) {
		append(o, "%s", s);
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

static void build_header(struct gpuperf_output *o)
{
	for (size_t i = 0; i < o->n_columns; i++) {
		if (o->format == GPUPERF_FORMAT_CSV) {
			if (i)
				append(o, ",");
			append_csv_field(o, o->columns[i].key);
		} else {
			append(o, "%s%*s", i ? "  " : "", o->widths[i],
			       o->columns[i].key);
		}
	}
	append(o, "\n");
	if (o->format != GPUPERF_FORMAT_CSV || !o->units_row)
		return;
	for (size_t i = 0; i < o->n_columns; i++) {
		const char *units = o->columns[i].units;
		/* Two markers of this file are layouts, not units. */
		if (units && !strcmp(units, GPUPERF_UNITS_TIMESTAMP))
			units = "ns";
		else if (units && !strcmp(units, GPUPERF_UNITS_CONTEXT))
			units = NULL;
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

static void build_row(struct gpuperf_output *o,
		      const struct gpuperf_cell *cells)
{
	char num[64];
	size_t len;

	if (o->format == GPUPERF_FORMAT_NDJSON)
		append_bytes(o, "{", 1);
	for (size_t i = 0; i < o->n_columns; i++) {
		const struct gpuperf_cell *c = &cells[i];
		switch (o->format) {
		case GPUPERF_FORMAT_TABLE:
			human_number(num, sizeof(num), c, o->columns[i].units);
			append(o, "%s%*s", i ? "  " : "", o->widths[i], num);
			break;
		case GPUPERF_FORMAT_CSV:
			if (i)
				append_bytes(o, ",", 1);
			len = plain_number(num, c);
			append_bytes(o, num, len);
			break;
		case GPUPERF_FORMAT_NDJSON:
			if (i)
				append_bytes(o, ",", 1);
			append_json_string(o, o->columns[i].key);
			append_bytes(o, ":", 1);
			len = plain_number(num, c);
			if (len)
				append_bytes(o, num, len);
			else
				append_bytes(o, "null", 4);
			break;
		}
	}
	if (o->format == GPUPERF_FORMAT_NDJSON)
		append_bytes(o, "}\n", 2);
	else
		append_bytes(o, "\n", 1);
}

/*
 * Hands the row to the file in one write() where it has a descriptor, so
 * whoever reads the file or pipe never sees part of a row next to the end,
 * even if this process dies; stdio would split rows longer than its
 * buffer.
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
	o->line_len = 0;
	if (o->rows == 0 && o->format != GPUPERF_FORMAT_NDJSON)
		build_header(o);
	build_row(o, cells);
	if (o->failed)
		return o->failed;

	int ret = write_row(o);
	if (ret < 0) {
		o->failed = ret;
		return ret;
	}
	o->rows++;
	return 0;
}

void gpuperf_human_text(char *buf, size_t size,
			const struct gpuperf_cell *cell, const char *units)
{
	human_number(buf, size, cell, units);
}
