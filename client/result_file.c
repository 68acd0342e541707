/*
 * Reading result files back (see result_file.h). Both formats are the
 * flat ones output.c writes: NDJSON objects whose values are numbers or
 * null, CSV whose cells are numbers or empty. Strings are accepted and
 * read as no number, so files other tools touched still load.
 */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "client/result_file.h"

struct reader {
	struct gpuperf_result *r;
	const char *path;
	unsigned line;
	char *why;
	size_t why_size;
	char *field;                    /* the string being read */
	size_t field_cap;
};

static int fail(struct reader *rd, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static int fail(struct reader *rd, const char *fmt, ...)
{
	va_list ap;
	int n = snprintf(rd->why, rd->why_size, "%s:%u: ", rd->path, rd->line);

	va_start(ap, fmt);
	if (n >= 0 && (size_t)n < rd->why_size)
		vsnprintf(rd->why + n, rd->why_size - (size_t)n, fmt, ap);
	va_end(ap);
	return -EINVAL;
}

static int add_column(struct reader *rd, const char *name)
{
	struct gpuperf_result *r = rd->r;
	char **names = realloc(r->names, (r->n_columns + 1) * sizeof(*names));

	if (!names)
		return -ENOMEM;
	r->names = names;
	names[r->n_columns] = strdup(name);
	if (!names[r->n_columns])
		return -ENOMEM;
	r->n_columns++;
	return 0;
}

/* A new row of NANs without words; NULL on ENOMEM. */
static double *add_row(struct gpuperf_result *r)
{
	if (r->n_rows == r->cap_rows) {
		size_t cap = r->cap_rows ? r->cap_rows * 2 : 64;
		double *v = realloc(r->values, cap * r->n_columns * sizeof(*v));
		if (!v)
			return NULL;
		r->values = v;
		char **t = realloc(r->texts, cap * r->n_columns * sizeof(*t));
		if (!t)
			return NULL;
		r->texts = t;
		r->cap_rows = cap;
	}
	double *row = r->values + r->n_rows * r->n_columns;
	char **texts = r->texts + r->n_rows * r->n_columns;
	for (size_t i = 0; i < r->n_columns; i++) {
		row[i] = NAN;
		texts[i] = NULL;
	}
	r->n_rows++;
	return row;
}

/* Keeps the words of a cell that is no number. */
static int set_text(struct gpuperf_result *r, double *row, size_t column,
		    const char *text)
{
	size_t at = (size_t)(row - r->values) + column;
	free(r->texts[at]);
	r->texts[at] = strdup(text);
	return r->texts[at] ? 0 : -ENOMEM;
}

/* Drops the last row, which turned out to be no data (a units row). */
static void drop_last_row(struct gpuperf_result *r)
{
	char **texts = r->texts + (r->n_rows - 1) * r->n_columns;
	for (size_t i = 0; i < r->n_columns; i++) {
		free(texts[i]);
		texts[i] = NULL;
	}
	r->n_rows--;
}

static bool field_append(struct reader *rd, size_t *len, char ch)
{
	if (*len + 1 >= rd->field_cap) {
		size_t cap = rd->field_cap ? rd->field_cap * 2 : 64;
		char *f = realloc(rd->field, cap);
		if (!f)
			return false;
		rd->field = f;
		rd->field_cap = cap;
	}
	rd->field[(*len)++] = ch;
	rd->field[*len] = '\0';
	return true;
}

/* A number taking the whole text, else NAN. */
static double number(const char *text)
{
	char *end;

	if (!*text)
		return NAN;
	double v = strtod(text, &end);
	return *end ? NAN : v;
}

/* ------------------------------------------------------------------ */
/* NDJSON                                                               */

static const char *skip_space(const char *p)
{
	while (*p == ' ' || *p == '\t' || *p == '\r' || *p == '\n')
		p++;
	return p;
}

/* A JSON string at p (after its quote) into rd->field; NULL if bad. */
static const char *json_string(struct reader *rd, const char *p)
{
	size_t len = 0;

	if (!field_append(rd, &len, 'x'))
		return NULL;
	len = 0;
	rd->field[0] = '\0';
	for (; *p && *p != '"'; p++) {
		char ch = *p;
		if (ch == '\\') {
			p++;
			switch (*p) {
			case 'n': ch = '\n'; break;
			case 't': ch = '\t'; break;
			case 'r': ch = '\r'; break;
			case 'b': ch = '\b'; break;
			case 'f': ch = '\f'; break;
			case 'u': {
				/* Names are ASCII; anything else reads as '?'. */
				char hex[5] = { 0 };
				if (strspn(p + 1, "0123456789abcdefABCDEF") < 4)
					return NULL;
				memcpy(hex, p + 1, 4);
				long code = strtol(hex, NULL, 16);
				ch = code > 0 && code < 0x80 ? (char)code : '?';
				p += 4;
				break;
			}
			case '\0':
				return NULL;
			default:
				ch = *p;
				break;
			}
		}
		if (!field_append(rd, &len, ch))
			return NULL;
	}
	return *p == '"' ? p + 1 : NULL;
}

static int json_line(struct reader *rd, const char *p, bool first)
{
	struct gpuperf_result *r = rd->r;
	double *row = NULL;

	p = skip_space(p);
	if (!*p)
		return 0;
	if (*p++ != '{')
		return fail(rd, "not a JSON object");
	if (!first && !(row = add_row(r)))
		return -ENOMEM;
	p = skip_space(p);
	while (*p != '}') {
		if (*p++ != '"' || !(p = json_string(rd, p)))
			return fail(rd, "expected a quoted key");
		int column = gpuperf_result_column(r, rd->field);
		if (first) {
			if (column >= 0)
				return fail(rd, "key '%s' twice", rd->field);
			if (add_column(rd, rd->field))
				return -ENOMEM;
			column = (int)r->n_columns - 1;
		} else if (column < 0) {
			return fail(rd, "key '%s' is not in the first line",
				    rd->field);
		}
		p = skip_space(p);
		if (*p++ != ':')
			return fail(rd, "expected ':' after a key");
		p = skip_space(p);
		double v = NAN;
		if (*p == '"') {
			if (!(p = json_string(rd, p + 1)))
				return fail(rd, "unterminated string");
			if (!first && rd->field[0] &&
			    set_text(r, row, (size_t)column, rd->field))
				return -ENOMEM;
		} else if (!strncmp(p, "null", 4) || !strncmp(p, "true", 4)) {
			v = *p == 't' ? 1 : NAN;
			p += 4;
		} else if (!strncmp(p, "false", 5)) {
			v = 0;
			p += 5;
		} else {
			char *end;
			v = strtod(p, &end);
			if (end == p)
				return fail(rd, "a value is neither a number, a "
					    "string nor null");
			p = end;
		}
		if (!first)
			row[column] = v;
		p = skip_space(p);
		if (*p == ',')
			p = skip_space(p + 1);
		else if (*p != '}')
			return fail(rd, "expected ',' or '}'");
	}
	if (*skip_space(p + 1))
		return fail(rd, "text after the object");
	return 0;
}

/* ------------------------------------------------------------------ */
/* CSV                                                                  */

/* The fields of one line, each handed to cell(); records spanning lines
 * are not written by the CLI and are refused. */
static int csv_line(struct reader *rd, const char *p,
		    int (*cell)(struct reader *rd, size_t index, void *arg),
		    void *arg)
{
	size_t index = 0;

	for (;;) {
		size_t len = 0;
		if (!field_append(rd, &len, 'x'))
			return -ENOMEM;
		len = 0;
		rd->field[0] = '\0';
		if (*p == '"') {
			for (p++;; p++) {
				if (!*p || *p == '\n')
					return fail(rd, "unterminated quote");
				if (*p == '"' && p[1] == '"')
					p++;
				else if (*p == '"')
					break;
				if (!field_append(rd, &len, *p))
					return -ENOMEM;
			}
			p++;
		} else {
			for (; *p && *p != ',' && *p != '\n' && *p != '\r'; p++)
				if (!field_append(rd, &len, *p))
					return -ENOMEM;
		}
		int ret = cell(rd, index++, arg);
		if (ret)
			return ret;
		if (*p != ',')
			break;
		p++;
	}
	return 0;
}

static int header_cell(struct reader *rd, size_t index, void *arg)
{
	if (gpuperf_result_column(rd->r, rd->field) >= 0)
		return fail(rd, "column '%s' twice", rd->field);
	return add_column(rd, rd->field) ? -ENOMEM : 0;
}

struct csv_row {
	double *values;
	bool words;                     /* a cell that is not a number */
};

static int row_cell(struct reader *rd, size_t index, void *arg)
{
	struct csv_row *row = arg;

	if (index >= rd->r->n_columns)
		return fail(rd, "more cells than the header has columns");
	row->values[index] = number(rd->field);
	if (rd->field[0] && isnan(row->values[index])) {
		row->words = true;
		if (set_text(rd->r, row->values, index, rd->field))
			return -ENOMEM;
	}
	return 0;
}

/* The last row read is a units row: words only where the header names
 * a counter or a length, none in the words columns. */
static bool units_row(const struct reader *rd)
{
	const struct gpuperf_result *r = rd->r;
	const char *const *texts = (const char *const *)r->texts +
				   (r->n_rows - 1) * r->n_columns;
	for (size_t i = 0; i < r->n_columns; i++)
		if (texts[i] && (!strcmp(r->names[i], "platform") ||
				 !strcmp(r->names[i], "metric_set") ||
				 !strcmp(r->names[i], "context_id")))
			return false;
	return true;
}

static int csv_data_line(struct reader *rd, const char *p, bool units_possible)
{
	struct gpuperf_result *r = rd->r;
	struct csv_row row;

	if (!*skip_space(p))
		return 0;
	row.values = add_row(r);
	row.words = false;
	if (!row.values)
		return -ENOMEM;
	int ret = csv_line(rd, p, row_cell, &row);
	/* The units row (--units) names units where numbers would be. */
	if (!ret && row.words && units_possible && units_row(rd))
		drop_last_row(r);
	return ret;
}

/* ------------------------------------------------------------------ */

int gpuperf_result_load(const char *path, struct gpuperf_result *r,
			char *why, size_t why_size)
{
	struct reader rd = { .r = r, .path = path, .why = why,
			     .why_size = why_size };
	char *line = NULL;
	size_t cap = 0;
	bool json = false;
	int ret = 0;

	memset(r, 0, sizeof(*r));
	FILE *f = fopen(path, "re");
	if (!f) {
		snprintf(why, why_size, "%s: %s", path, strerror(errno));
		return -errno;
	}
	while (!ret && getline(&line, &cap, f) >= 0) {
		rd.line++;
		if (rd.line == 1)
			json = *skip_space(line) == '{';
		if (json)
			ret = json_line(&rd, line, rd.line == 1);
		else if (rd.line == 1)
			ret = csv_line(&rd, line, header_cell, NULL);
		else
			ret = csv_data_line(&rd, line, rd.line == 2);
		/* The first NDJSON line named the columns; it is a row too. */
		if (!ret && json && rd.line == 1 && r->n_columns)
			ret = json_line(&rd, line, false);
	}
	if (!ret && ferror(f)) {
		snprintf(why, why_size, "%s: read error", path);
		ret = -EIO;
	}
	if (!ret && !r->n_columns) {
		snprintf(why, why_size, "%s: empty; expected NDJSON or CSV rows "
			 "(gpuperf run, stream or replay write them)", path);
		ret = -EINVAL;
	}
	if (ret == -ENOMEM)
		snprintf(why, why_size, "%s: out of memory", path);
	fclose(f);
	free(line);
	free(rd.field);
	if (ret)
		gpuperf_result_fini(r);
	return ret;
}

int gpuperf_result_column(const struct gpuperf_result *r, const char *name)
{
	for (size_t i = 0; i < r->n_columns; i++)
		if (!strcmp(r->names[i], name))
			return (int)i;
	return -1;
}

double gpuperf_result_value(const struct gpuperf_result *r, size_t row,
			    size_t column)
{
	return r->values[row * r->n_columns + column];
}

const char *gpuperf_result_text(const struct gpuperf_result *r, size_t row,
				size_t column)
{
	return r->texts[row * r->n_columns + column];
}

bool gpuperf_result_present(const struct gpuperf_result *r, size_t row,
			    size_t column)
{
	return !isnan(gpuperf_result_value(r, row, column)) ||
	       gpuperf_result_text(r, row, column);
}

void gpuperf_result_fini(struct gpuperf_result *r)
{
	for (size_t i = 0; i < r->n_columns; i++)
		free(r->names[i]);
	for (size_t i = 0; r->texts && i < r->n_rows * r->n_columns; i++)
		free(r->texts[i]);
	free(r->texts);
	free(r->names);
	free(r->values);
	memset(r, 0, sizeof(*r));
}
