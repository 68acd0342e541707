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
 * header's width, then shifted right by dec->ts_shift (IGT's order: delta
 * first, so a DG2 wrap of bit 31 still counts right); GPU_CLOCK and the
 * counters their format's deltas. Slots the format lacks are untouched.
 */
void gpm_oa_delta_add(const struct gpm_oa_decoder *dec,
		      const struct gpm_oa_report *start,
		      const struct gpm_oa_report *end,
		      struct gpm_accumulator *acc);

#endif
