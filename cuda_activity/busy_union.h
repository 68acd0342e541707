/*
 * Busy time as the union of kernels' intervals: kernels that overlap (on
 * other streams) count once, so a GPU is never more than 100% busy.
 *
 * Intervals arrive in batches (one per flush of CUPTI's buffers); each
 * batch's busy is what its intervals cover past everything counted
 * before (covered_until), so a kernel that ran across two flushes counts
 * once, in the batch that delivered it.
 */
#ifndef GCA_BUSY_UNION_H
#define GCA_BUSY_UNION_H

#include <stddef.h>
#include <stdint.h>

struct gca_interval {
	uint64_t start, end;
};

struct gca_busy_union {
	uint64_t covered_until;         /* the end of the latest counted */
	struct gca_interval *pending;
	size_t n, cap;
};

void gca_busy_union_init(struct gca_busy_union *b);
void gca_busy_union_fini(struct gca_busy_union *b);

/* One kernel's interval, for the next take; empty ones (end <= start,
 * as CUPTI gives a kernel it could not time) are dropped. -ENOMEM. */
int gca_busy_union_add(struct gca_busy_union *b, uint64_t start, uint64_t end);

/* The ns the pending intervals cover past covered_until, which moves to
 * their latest end; the pending list empties. */
uint64_t gca_busy_union_take(struct gca_busy_union *b);

#endif
