/*
 * Names as people type them (see name_match.h).
 */
#include <ctype.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "metrics/name_match.h"

/* Names longer than this are compared on their first letters only: no
 * symbol is that long, and the table stays on the stack. */
#define MAX_NAME 64

static size_t min3(size_t a, size_t b, size_t c)
{
	size_t m = a < b ? a : b;
	return m < c ? m : c;
}

size_t gpm_name_distance(const char *a, const char *b)
{
	size_t n = strlen(a), m = strlen(b);
	size_t d[MAX_NAME + 1][MAX_NAME + 1];

	if (n > MAX_NAME)
		n = MAX_NAME;
	if (m > MAX_NAME)
		m = MAX_NAME;
	for (size_t i = 0; i <= n; i++)
		d[i][0] = i;
	for (size_t j = 0; j <= m; j++)
		d[0][j] = j;
	for (size_t i = 1; i <= n; i++) {
		for (size_t j = 1; j <= m; j++) {
			int ai = tolower((unsigned char)a[i - 1]);
			int bj = tolower((unsigned char)b[j - 1]);
			size_t cost = ai != bj;
			d[i][j] = min3(d[i - 1][j] + 1, d[i][j - 1] + 1,
				       d[i - 1][j - 1] + cost);
			if (i > 1 && j > 1 &&
			    ai == tolower((unsigned char)b[j - 2]) &&
			    tolower((unsigned char)a[i - 2]) == bj &&
			    d[i - 2][j - 2] + 1 < d[i][j])
				d[i][j] = d[i - 2][j - 2] + 1;
		}
	}
	return d[n][m];
}

static size_t compared_length(const char *s)
{
	size_t n = strlen(s);
	return n < MAX_NAME ? n : MAX_NAME;
}

void gpm_name_consider(const char *typed, const char *candidate,
		       const char **best, size_t *best_distance)
{
	size_t allowed = strlen(typed) / 3;
	size_t n = compared_length(typed), m = compared_length(candidate);

	if (allowed < 1)
		allowed = 1;
	/* Each edit changes the length by one at most: a candidate whose
	 * length is too far off is out without the whole table (a refused
	 * name is compared with every counter of its set). */
	size_t at_least = n > m ? n - m : m - n;
	if (at_least > allowed || at_least >= *best_distance)
		return;
	size_t distance = gpm_name_distance(typed, candidate);
	if (distance <= allowed && distance < *best_distance) {
		*best = candidate;
		*best_distance = distance;
	}
}
