/*
 * The union of kernel intervals (busy_union.h): sorted by start, swept
 * once.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "cuda_activity/busy_union.h"

void gca_busy_union_init(struct gca_busy_union *b)
{
	memset(b, 0, sizeof(*b));
}

void gca_busy_union_fini(struct gca_busy_union *b)
{
	free(b->pending);
	memset(b, 0, sizeof(*b));
}

int gca_busy_union_add(struct gca_busy_union *b, uint64_t start, uint64_t end)
{
	if (end <= start)
		return 0;
	if (b->n == b->cap) {
		size_t cap = b->cap ? 2 * b->cap : 256;
		struct gca_interval *p = realloc(b->pending, cap * sizeof(*p));
		if (!p)
			return -ENOMEM;
		b->pending = p;
		b->cap = cap;
	}
	b->pending[b->n++] = (struct gca_interval){ start, end };
	return 0;
}

static int by_start(const void *x, const void *y)
{
	const struct gca_interval *a = x, *b = y;
	return a->start < b->start ? -1 : a->start > b->start;
}

uint64_t gca_busy_union_take(struct gca_busy_union *b)
{
	qsort(b->pending, b->n, sizeof(*b->pending), by_start);
	uint64_t busy = 0, covered = b->covered_until;
	for (size_t i = 0; i < b->n; i++) {
		const struct gca_interval *k = &b->pending[i];
		if (k->end <= covered)
			continue;
		busy += k->end - (k->start > covered ? k->start : covered);
		covered = k->end;
	}
	b->covered_until = covered;
	b->n = 0;
	return busy;
}
