/*
 * Counter deltas between two OA reports, with the wrap rules of IGT and
 * Mesa: 32-bit fields wrap once mod 2^32, 40-bit A counters once mod 2^40,
 * 64-bit fields are plain differences.
 *
 * Deltas are added to the accumulator, never stored, so a window is the sum
 * of its report pairs and a single pair is a window of one.
 */
#ifndef GPM_OA_DELTA_H
#define GPM_OA_DELTA_H

#include <stddef.h>
#include <stdint.h>

#include "metrics/accumulator.h"
#include "metrics/oa_report.h"

static inline uint64_t gpm_oa_delta_u32(uint64_t start, uint64_t end)
{
	return (uint32_t)(end - start);
}

/* start and end are 40-bit values (low dword | high byte << 32). */
static inline uint64_t gpm_oa_delta_u40(uint64_t start, uint64_t end)
{
	return start > end ? ((uint64_t)1 << 40) + end - start : end - start;
}

static inline uint64_t gpm_oa_delta_u64(uint64_t start, uint64_t end)
{
	return end - start;
}

/*
 * Adds the deltas from start to end (two reports decoded by dec, start the
 * earlier) into acc: GPU_TIME gets the timestamp field's delta at the
 * header's width; GPU_CLOCK and the counters their format's deltas. Slots the format lacks are untouched.
 */
void gpm_oa_delta_add(const struct gpm_oa_decoder *dec,
		      const struct gpm_oa_report *start,
		      const struct gpm_oa_report *end,
		      struct gpm_accumulator *acc);

/*
 * gpm_oa_delta_add() straight from two raw reports of dec's format (start
 * the earlier; each at least the format's size, at any alignment), with
 * the same results and without decoding either: replay's inner loop, so
 * the one-group loops stay simple enough for the compiler to vectorize.
 */
void gpm_oa_delta_add_raw(const struct gpm_oa_decoder *dec, const void *start,
			  const void *end, struct gpm_accumulator *acc);

/*
 * Adds the deltas of the n - 1 consecutive pairs of the n raw reports at
 * first, first + stride, first + 2 * stride... (n >= 1, stride at least
 * the format's size): the same sums as gpm_oa_delta_add_raw() on each pair
 * in turn, at a fraction of the cost, since a w-bit counter's deltas add
 * up to last - first + 2^w for every pair where it wrapped, and counting
 * wraps takes a compare where a delta takes a widening add.
 */
void gpm_oa_delta_add_run(const struct gpm_oa_decoder *dec, const void *first,
			  size_t stride, size_t n, struct gpm_accumulator *acc);

/* Zeroes the slots the functions above add to for dec's format, and only
 * those: opening a window costs what its format has, not the 154 slots. */
void gpm_oa_delta_clear(const struct gpm_oa_decoder *dec,
			struct gpm_accumulator *acc);

#endif
