/*
 * Result files as the CLI writes them (NDJSON or CSV from run, stream and
 * replay) read back as a table of numbers, for gpuperf compare.
 */
#ifndef GPUPERF_RESULT_FILE_H
#define GPUPERF_RESULT_FILE_H

#include <stdbool.h>
#include <stddef.h>

struct gpuperf_result {
	size_t n_columns;
	char **names;
	size_t n_rows;
	double *values;                 /* row-major; NAN where empty or not
					 * a number */
	char **texts;                   /* row-major; the words of a cell that
					 * is no number (a context "0x1a", a
					 * platform), else NULL */
	size_t cap_rows;
};

/*
 * Reads path: NDJSON when its first character is '{', else CSV with a
 * header row (a row of units under it, as --units writes, is skipped).
 * 0, or -EINVAL/-errno with why filled in for the user.
 */
int gpuperf_result_load(const char *path, struct gpuperf_result *r,
			char *why, size_t why_size);

/* The column's index, or -1. */
int gpuperf_result_column(const struct gpuperf_result *r, const char *name);

double gpuperf_result_value(const struct gpuperf_result *r, size_t row,
			    size_t column);

/* The words of a cell that holds no number; NULL for a number or
 * nothing. */
const char *gpuperf_result_text(const struct gpuperf_result *r, size_t row,
				size_t column);

/* Whether the cell holds anything, a number or words. */
bool gpuperf_result_present(const struct gpuperf_result *r, size_t row,
			    size_t column);

void gpuperf_result_fini(struct gpuperf_result *r);

#endif
